import Foundation
import HTTPServer
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Runs `body` on a thread of its own (stopping blocks), and returns how long it took.
func timedOnThread(_ body: @escaping @Sendable () -> Void) async -> Duration {
    await withCheckedContinuation { continuation in
        Thread.detachNewThread {
            let started = ContinuousClock.now
            body()
            continuation.resume(returning: ContinuousClock.now - started)
        }
    }
}

/// Stopping: no new connections, requests in progress finish, then the server is gone.
@Suite struct ShutdownTests {
    /// A handler that says when it started and when it is about to answer, and takes `duration` in between.
    static func slowRouter(started: Flag, finished: Flag, duration: Duration) -> Router {
        var router = Router()
        router.get("/slow") { _ in
            started.set()
            Thread.sleep(forTimeInterval: Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18)
            finished.set()
            return HTTPResponse(body: Array("done".utf8))
        }
        return router
    }

    @Test func stopLetsAnInFlightRequestFinishAndRefusesNewConnections() async throws {
        let port = TestPort.base + 40
        let started = Flag(), finished = Flag(), finishedBeforeStopReturned = Flag()
        let server = try HTTPServer.start(
            HTTPServer.Configuration(host: "127.0.0.1", port: port),
            router: Self.slowRouter(started: started, finished: finished, duration: .seconds(2)))
        let request = Task { try await fetch(port: port, "/slow") }
        #expect(await eventually { started.isSet })
        let stopping = Task {
            await timedOnThread {
                server.stop(gracePeriod: .seconds(5))
                if finished.isSet { finishedBeforeStopReturned.set() }
            }
        }
        // The listening socket goes while the handler still runs.
        #expect(await eventually(within: .seconds(3)) { !RawClient.isListening(port: port) })
        #expect(!finished.isSet)
        let response = try await request.value
        #expect(response.status == 200)
        #expect(String(decoding: response.body, as: UTF8.self) == "done")
        #expect(response.headers["Connection"] == "close")
        #expect(await stopping.value < .seconds(5))
        #expect(finishedBeforeStopReturned.isSet)
        #expect(!RawClient.isListening(port: port))
    }

    @Test func requestsStillRunningAtTheDeadlineAre503() async throws {
        let port = TestPort.base + 41
        let started = Flag()
        let release = DispatchSemaphore(value: 0)
        var router = Router()
        router.get("/stuck") { _ in
            started.set()
            _ = release.wait(timeout: .now() + 10)
            return HTTPResponse(body: Array("late".utf8))
        }
        let server = try HTTPServer.start(HTTPServer.Configuration(host: "127.0.0.1", port: port), router: router)
        let request = Task { try await fetch(port: port, "/stuck") }
        #expect(await eventually { started.isSet })
        let stopTook = await timedOnThread { server.stop(gracePeriod: .milliseconds(300)) }
        release.signal()
        let response = try await request.value
        #expect(response.status == 503)
        #expect(try errorObject(response.body)["code"] == "shutting_down")
        #expect(stopTook >= .milliseconds(300))
        #expect(stopTook < .seconds(2))
    }

    /// The signal helper, with SIGUSR2 in place of SIGTERM so that nothing else in the test process is touched.
    @Test func aSignalStopsTheServerGracefully() async throws {
        let port = TestPort.base + 42
        let started = Flag(), finished = Flag()
        let server = try HTTPServer.start(
            HTTPServer.Configuration(host: "127.0.0.1", port: port),
            router: Self.slowRouter(started: started, finished: finished, duration: .milliseconds(500)))
        let signals = server.stopOnSignals([SIGUSR2], gracePeriod: .seconds(5))
        defer { signals.cancel() }
        let request = Task { try await fetch(port: port, "/slow") }
        #expect(await eventually { started.isSet })
        kill(getpid(), SIGUSR2)
        let waited = await timedOnThread { server.waitUntilStopped() }
        #expect(waited < .seconds(4))
        #expect(finished.isSet)
        let response = try await request.value
        #expect(response.status == 200)
        #expect(!RawClient.isListening(port: port))
    }

    @Test func releasingTheServerStopsItAndFreesThePort() throws {
        let port = TestPort.base + 45
        do {
            let server = try HTTPServer.start(HTTPServer.Configuration(host: "127.0.0.1", port: port), router: Router())
            #expect(server.port == port)
            #expect(RawClient.isListening(port: port))
        }
        #expect(!RawClient.isListening(port: port))
        let again = try HTTPServer.start(HTTPServer.Configuration(host: "127.0.0.1", port: port), router: Router())
        #expect(RawClient.isListening(port: port))
        again.stop()
        again.stop()
        #expect(!RawClient.isListening(port: port))
    }

    @Test func aPortInUseIsAClearError() throws {
        let port = TestPort.base + 43
        let first = try HTTPServer.start(HTTPServer.Configuration(host: "127.0.0.1", port: port), router: Router())
        defer { first.stop() }
        #expect(throws: HTTPServerError(.addressInUse, "cannot listen on 127.0.0.1:\(port): the address is already in use")) {
            try HTTPServer.start(HTTPServer.Configuration(host: "127.0.0.1", port: port), router: Router())
        }
        #expect(RawClient.isListening(port: port))
    }

    @Test func settingsOutOfRangeAreNamed() {
        let cases: [(HTTPServer.Configuration, String)] = [
            (HTTPServer.Configuration(host: "localhost", port: TestPort.base + 44), "cannot listen on localhost:18444: localhost is not an IPv4 or IPv6 address"),
            (HTTPServer.Configuration(host: "127.0.0.1", port: TestPort.base + 44, workerThreads: 0), "workerThreads 0 is not between 1 and 1024"),
            (HTTPServer.Configuration(host: "127.0.0.1", port: 70000), "port 70000 is not between 0 and 65535"),
            (HTTPServer.Configuration(host: "127.0.0.1", port: TestPort.base + 44, maximumBodyBytes: 0), "maximumBodyBytes 0 is not between 1 and 1 GiB"),
        ]
        for (configuration, message) in cases {
            #expect(throws: HTTPServerError(.invalidConfiguration, message)) { try HTTPServer.start(configuration, router: Router()) }
        }
    }
}
