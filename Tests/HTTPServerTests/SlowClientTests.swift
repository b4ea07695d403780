import Foundation
import HTTPServer
import HTTPTestSupport
import Testing

/// A client that never finishes its body is dropped, and holds no worker meanwhile.
@Suite struct SlowClientTests {
    static func router(_ counter: Counter) -> Router {
        var router = Router()
        router.post("/upload") { request in
            counter.enter()
            defer { counter.leave() }
            return HTTPResponse(body: Array("\(request.body.count)".utf8))
        }
        router.get("/ping") { _ in HTTPResponse(body: Array("pong".utf8)) }
        return router
    }

    @Test func aClientThatStopsSendingItsBodyIsDropped() async throws {
        let port = TestPort.base + 20
        let counter = Counter()
        let (ping, closed, elapsed) = try await withServer(port: port, router: Self.router(counter), configure: { configuration in
            configuration.workerThreads = 1
            configuration.connectionTimeout = .seconds(1)
        }) { _ in
            let client = try RawClient(port: port)
            try client.send("POST /upload HTTP/1.1\r\nHost: test\r\nContent-Length: 100\r\n\r\n0123456789")
            let started = ContinuousClock.now
            // The only worker is free meanwhile.
            let ping = try request(port: port, "GET", "/ping")
            let closed = client.closesWithin(.seconds(6))
            return (ping, closed, ContinuousClock.now - started)
        }
        #expect(ping.status == 200)
        #expect(closed)
        #expect(elapsed < .seconds(4))
        #expect(counter.calls == 0)
    }

    @Test func aClientThatTricklesItsBodyIsDroppedAtTheRequestTimeout() async throws {
        let port = TestPort.base + 21
        let counter = Counter()
        let logged = LogLines()
        let outcome = try await withServer(port: port, router: Self.router(counter), configure: { configuration in
            configuration.workerThreads = 1
            configuration.connectionTimeout = .seconds(3)
            configuration.requestTimeout = .seconds(1)
            configuration.log = logged.append
        }) { _ in
            let client = try RawClient(port: port, timeout: .seconds(1))
            try client.send("POST /upload HTTP/1.1\r\nHost: test\r\nContent-Length: 1000\r\n\r\n")
            let started = ContinuousClock.now
            // One byte every 100 ms: never silent long enough for the connection timeout.
            var dropped = false
            var lastSend = started
            var longestSilence = Duration.zero
            var ping: RawClient.Response?
            for sent in 0..<60 {
                do {
                    try client.send("x")
                } catch {
                    dropped = true
                    break
                }
                longestSilence = max(longestSilence, ContinuousClock.now - lastSend)
                lastSend = .now
                // The only worker is free meanwhile.
                if sent == 3 { ping = try request(port: port, "GET", "/ping") }
                usleep(100_000)
            }
            let closed = dropped || client.closesWithin(.seconds(1))
            return (closed: closed, elapsed: ContinuousClock.now - started, longestSilence: longestSilence, ping: ping)
        }
        #expect(outcome.closed)
        #expect(outcome.longestSilence < .seconds(3), "the connection timeout, not the request timeout, may have closed it")
        #expect(outcome.elapsed >= .milliseconds(900))
        #expect(outcome.elapsed < .seconds(5))
        #expect(outcome.ping?.status == 200)
        #expect(counter.calls == 0)
        #expect(logged.all.contains { $0.hasSuffix("the body took longer than the request timeout; connection closed") })
        // libmicrohttpd's own messages reach the log too.
        #expect(logged.all.contains { $0.hasPrefix("libmicrohttpd: ") })
    }
}
