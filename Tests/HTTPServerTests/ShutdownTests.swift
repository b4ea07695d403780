import Foundation
import HTTPServer
import HTTPTestSupport
import RawHTTPClient
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

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

    /// Sends `GET path` on a thread of its own; `wait()` gives the response.
    final class PendingRequest: Sendable {
        private let outcome = Mutex<Result<RawClient.Response, any Error>?>(nil)
        private let done = DispatchSemaphore(value: 0)

        init(port: Int, _ path: String) {
            Thread.detachNewThread { [self] in
                let result = Result { try request(port: port, "GET", path) }
                outcome.withLock { $0 = result }
                done.signal()
            }
        }

        func wait() throws -> RawClient.Response {
            guard done.wait(timeout: .now() + 20) == .success else { throw RawClient.Failure(description: "no response in 20 s") }
            return try outcome.withLock { $0! }.get()
        }
    }

    @Test func stopLetsAnInFlightRequestFinishAndRefusesNewConnections() async throws {
        let port = TestPort.base + 40
        let started = Flag(), finished = Flag()
        let server = try HTTPServer.start(
            HTTPServer.Configuration(host: "127.0.0.1", port: port),
            router: Self.slowRouter(started: started, finished: finished, duration: .seconds(2)))
        let outcome = try await onThread {
            let pending = PendingRequest(port: port, "/slow")
            let handlerStarted = eventually { started.isSet }
            let stopped = DispatchSemaphore(value: 0)
            let stopTook = Mutex(Duration.zero)
            let finishedBeforeStopReturned = Flag()
            Thread.detachNewThread {
                let begin = ContinuousClock.now
                server.stop(gracePeriod: .seconds(10))
                if finished.isSet { finishedBeforeStopReturned.set() }
                stopTook.withLock { $0 = ContinuousClock.now - begin }
                stopped.signal()
            }
            // The listening socket goes while the handler still runs.
            let refusedWhileRunning = eventually(within: .seconds(3)) { !RawClient.isListening(port: port) } && !finished.isSet
            let response = try pending.wait()
            let stopReturned = stopped.wait(timeout: .now() + 20) == .success
            return (
                handlerStarted: handlerStarted, refusedWhileRunning: refusedWhileRunning, response: response,
                stopReturned: stopReturned, stopTook: stopTook.withLock { $0 },
                finishedBeforeStopReturned: finishedBeforeStopReturned.isSet, listeningAfter: RawClient.isListening(port: port))
        }
        #expect(outcome.handlerStarted)
        #expect(outcome.refusedWhileRunning)
        #expect(outcome.response.status == 200)
        #expect(outcome.response.text == "done")
        #expect(outcome.response.headers["Connection"] == "close")
        #expect(outcome.stopReturned)
        #expect(outcome.stopTook < .seconds(10))
        #expect(outcome.finishedBeforeStopReturned)
        #expect(!outcome.listeningAfter)
    }

    @Test func requestsStillRunningAtTheDeadlineAre503() async throws {
        let port = TestPort.base + 41
        let started = Flag()
        let release = DispatchSemaphore(value: 0)
        var router = Router()
        router.get("/stuck") { _ in
            started.set()
            _ = release.wait(timeout: .now() + 20)
            return HTTPResponse(body: Array("late".utf8))
        }
        let server = try HTTPServer.start(HTTPServer.Configuration(host: "127.0.0.1", port: port), router: router)
        let outcome = try await onThread {
            let pending = PendingRequest(port: port, "/stuck")
            let handlerStarted = eventually { started.isSet }
            let begin = ContinuousClock.now
            server.stop(gracePeriod: .milliseconds(300))
            let stopTook = ContinuousClock.now - begin
            release.signal()
            return (handlerStarted: handlerStarted, stopTook: stopTook, response: try pending.wait())
        }
        #expect(outcome.handlerStarted)
        #expect(outcome.response.status == 503)
        #expect(try errorObject(outcome.response.body)["code"] == "shutting_down")
        #expect(outcome.stopTook >= .milliseconds(300))
        #expect(outcome.stopTook < .seconds(2))
    }

    /// A handler that began committing before the cut-off is answered by itself, and `stop()` waits for it; one
    /// that had not is answered 503, and learns so when it tries to begin committing afterwards.
    @Test func aHandlerThatBeganCommittingIsAnsweredByItselfAndOneThatHadNotIsRefused() async throws {
        let port = TestPort.base + 62
        let claimedStarted = Flag(), unclaimedStarted = Flag()
        let releaseClaimed = DispatchSemaphore(value: 0), releaseUnclaimed = DispatchSemaphore(value: 0)
        let claims = Mutex<[String: Bool]>([:])
        var router = Router()
        router.get("/claimed") { request in
            claims.withLock { $0["claimed"] = request.beginCommit() }
            claimedStarted.set()
            _ = releaseClaimed.wait(timeout: .now() + 20)
            return HTTPResponse(body: Array("committed".utf8))
        }
        router.get("/unclaimed") { request in
            unclaimedStarted.set()
            _ = releaseUnclaimed.wait(timeout: .now() + 20)
            let claimed = request.beginCommit()
            claims.withLock { $0["unclaimed"] = claimed }
            return HTTPResponse(body: Array((claimed ? "committed" : "rolled back").utf8))
        }
        let server = try HTTPServer.start(
            HTTPServer.Configuration(host: "127.0.0.1", port: port, workerThreads: 4), router: router)
        let outcome = try await onThread {
            let claimed = PendingRequest(port: port, "/claimed")
            let unclaimed = PendingRequest(port: port, "/unclaimed")
            let handlersStarted = eventually { claimedStarted.isSet && unclaimedStarted.isSet }
            let stopped = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                server.stop(gracePeriod: .milliseconds(300))
                stopped.signal()
            }
            let unclaimedResponse = try unclaimed.wait()
            releaseUnclaimed.signal()
            let unclaimedLearned = eventually { claims.withLock { $0["unclaimed"] != nil } }
            let stopWaitedForTheCommit = stopped.wait(timeout: .now() + 0.5) == .timedOut
            releaseClaimed.signal()
            let claimedResponse = try claimed.wait()
            let stopReturned = stopped.wait(timeout: .now() + 10) == .success
            return (
                handlersStarted: handlersStarted, unclaimed: unclaimedResponse, unclaimedLearned: unclaimedLearned,
                stopWaited: stopWaitedForTheCommit, claimed: claimedResponse, stopReturned: stopReturned,
                claims: claims.withLock { $0 })
        }
        #expect(outcome.handlersStarted)
        #expect(outcome.claims["claimed"] == true)
        #expect(outcome.claimed.status == 200)
        #expect(outcome.claimed.text == "committed")
        #expect(outcome.unclaimed.status == 503)
        #expect(try errorObject(outcome.unclaimed.body)["code"] == "shutting_down")
        #expect(outcome.unclaimedLearned)
        #expect(outcome.claims["unclaimed"] == false)
        #expect(outcome.stopWaited)
        #expect(outcome.stopReturned)
    }

    /// The signal helper, with SIGUSR2 in place of SIGTERM so that nothing else in the test process is touched.
    @Test func aSignalStopsTheServerGracefully() async throws {
        let port = TestPort.base + 42
        let started = Flag(), finished = Flag()
        let server = try HTTPServer.start(
            HTTPServer.Configuration(host: "127.0.0.1", port: port),
            router: Self.slowRouter(started: started, finished: finished, duration: .milliseconds(500)))
        let signals = server.stopOnSignals([SIGUSR2], gracePeriod: .seconds(10))
        defer { signals.cancel() }
        let outcome = try await onThread {
            let pending = PendingRequest(port: port, "/slow")
            let handlerStarted = eventually { started.isSet }
            let begin = ContinuousClock.now
            // A signal sent before the dispatch source is registered is lost (the disposition meanwhile is to
            // ignore it): send it until the server stops listening, which it does as soon as stopping begins.
            let stopping = eventually(within: .seconds(10)) {
                kill(getpid(), SIGUSR2)
                return eventually(within: .milliseconds(200)) { !RawClient.isListening(port: port) }
            }
            if stopping { server.waitUntilStopped() } else { server.stop(gracePeriod: .zero) }
            return (
                handlerStarted: handlerStarted, stopping: stopping, waited: ContinuousClock.now - begin,
                finished: finished.isSet,
                response: try pending.wait(), listeningAfter: RawClient.isListening(port: port))
        }
        #expect(outcome.handlerStarted)
        #expect(outcome.stopping)
        #expect(outcome.waited < .seconds(10))
        #expect(outcome.finished)
        #expect(outcome.response.status == 200)
        #expect(!outcome.listeningAfter)
    }

    @Test func releasingTheServerStopsItAndFreesThePort() async throws {
        let port = TestPort.base + 45
        let outcome = try await onThread {
            var listening: [Bool] = []
            do {
                let server = try HTTPServer.start(HTTPServer.Configuration(host: "127.0.0.1", port: port), router: Router())
                listening.append(server.port == port && RawClient.isListening(port: port))
            }
            listening.append(RawClient.isListening(port: port))
            let again = try HTTPServer.start(HTTPServer.Configuration(host: "127.0.0.1", port: port), router: Router())
            listening.append(RawClient.isListening(port: port))
            again.stop()
            again.stop()
            listening.append(RawClient.isListening(port: port))
            return listening
        }
        #expect(outcome == [true, false, true, false])
    }

    @Test func aPortInUseIsAClearError() async throws {
        let port = TestPort.base + 43
        let first = try HTTPServer.start(HTTPServer.Configuration(host: "127.0.0.1", port: port), router: Router())
        #expect(throws: HTTPServerError(.addressInUse, "cannot listen on 127.0.0.1:\(port): the address is already in use")) {
            try HTTPServer.start(HTTPServer.Configuration(host: "127.0.0.1", port: port), router: Router())
        }
        let stillListening = try await onThread { RawClient.isListening(port: port) }
        #expect(stillListening)
        try await onThread { first.stop() }
    }

    @Test func settingsOutOfRangeAreNamed() {
        let cases: [(HTTPServer.Configuration, String)] = [
            (HTTPServer.Configuration(host: "localhost", port: TestPort.base + 44), "cannot listen on localhost:\(TestPort.base + 44): localhost is not an IPv4 or IPv6 address"),
            (HTTPServer.Configuration(host: "127.0.0.1", port: TestPort.base + 44, workerThreads: 0), "workerThreads 0 is not between 1 and 1024"),
            (HTTPServer.Configuration(host: "127.0.0.1", port: 70000), "port 70000 is not between 0 and 65535"),
            (HTTPServer.Configuration(host: "127.0.0.1", port: TestPort.base + 44, maximumBodyBytes: 0), "maximumBodyBytes 0 is not between 1 and 1 GiB"),
        ]
        for (configuration, message) in cases {
            #expect(throws: HTTPServerError(.invalidConfiguration, message)) { try HTTPServer.start(configuration, router: Router()) }
        }
    }
}
