import Foundation
import HTTPServer
import HTTPTestSupport
import RawHTTPClient
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

    /// The answer libmicrohttpd never gets to send, checked as a client reads it.
    static func expectRequestTimeout(_ response: RawClient.Response) throws {
        #expect(response.status == 408, "\(response.text)")
        #expect(response.headers["Content-Type"] == "application/json")
        #expect(response.headers["Connection"]?.lowercased() == "close")
        #expect(response.headers["X-Request-Id"]?.count == 16)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
        let error = try #require(document["error"] as? [String: Any], "\(response.text)")
        #expect(error["code"] as? String == "request_timeout")
        #expect((error["message"] as? String)?.isEmpty == false)
    }

    @Test("a client that stops sending its body gets a 408 with a JSON error at the connection timeout, then is closed")
    func aClientThatStopsSendingItsBodyIsAnswered408() async throws {
        let port = TestPort.base + 20
        let counter = Counter()
        let records = CompletedRequestTests.Records()
        let (ping, response, closed, elapsed) = try await withServer(port: port, router: Self.router(counter), configure: { configuration in
            configuration.workerThreads = 1
            configuration.connectionTimeout = .seconds(1)
            configuration.completed = { records.append($0) }
        }) { _ in
            let client = try RawClient(port: port, timeout: .seconds(6))
            try client.send("POST /upload HTTP/1.1\r\nHost: test\r\nContent-Length: 100\r\n\r\n0123456789")
            let started = ContinuousClock.now
            // The only worker is free meanwhile.
            let ping = try request(port: port, "GET", "/ping")
            let response = try client.readResponse()
            let elapsed = ContinuousClock.now - started
            return (ping, response, client.closesWithin(.seconds(2)), elapsed)
        }
        #expect(ping.status == 200)
        try Self.expectRequestTimeout(response)
        #expect(closed)
        #expect(elapsed >= .milliseconds(900))
        #expect(elapsed < .seconds(4))
        #expect(counter.calls == 0)
        // Recorded like every answer, for the log and the metrics.
        #expect(records.all.contains { $0.status == .requestTimeout && $0.id == response.headers["X-Request-Id"] })
    }

    @Test("a client that trickles its body gets a 408 with a JSON error once the request timeout has passed")
    func aClientThatTricklesItsBodyIsAnswered408AtTheRequestTimeout() async throws {
        let port = TestPort.base + 21
        let counter = Counter()
        let logged = LogLines()
        let outcome = try await withServer(port: port, router: Self.router(counter), configure: { configuration in
            configuration.workerThreads = 1
            configuration.connectionTimeout = .seconds(3)
            configuration.requestTimeout = .seconds(1)
            configuration.log = logged.append
        }) { _ in
            let client = try RawClient(port: port, timeout: .seconds(2))
            try client.send("POST /upload HTTP/1.1\r\nHost: test\r\nContent-Length: 1000\r\n\r\n")
            let started = ContinuousClock.now
            var lastSend = started
            var longestSilence = Duration.zero
            var ping: RawClient.Response?
            let answered = try client.trickle(Array(repeating: "x", count: 60)) { sent in
                longestSilence = max(longestSilence, ContinuousClock.now - lastSend)
                lastSend = .now
                // The only worker is free meanwhile.
                if sent == 3 { ping = try request(port: port, "GET", "/ping") }
            }
            let elapsed = ContinuousClock.now - started
            let response = answered ? try client.readResponse() : nil
            return (response: response, closed: client.closesWithin(.seconds(2)), elapsed: elapsed,
                    longestSilence: longestSilence, ping: ping)
        }
        let response = try #require(outcome.response, "no answer while the body trickled")
        try Self.expectRequestTimeout(response)
        #expect(outcome.closed)
        #expect(outcome.longestSilence < .seconds(3), "the connection timeout, not the request timeout, may have ended it")
        #expect(outcome.elapsed >= .milliseconds(900))
        #expect(outcome.elapsed < .seconds(5))
        #expect(outcome.ping?.status == 200)
        #expect(counter.calls == 0)
        #expect(logged.all.contains { $0.hasSuffix("the body took longer than the request timeout; answered 408") })
        // libmicrohttpd's own messages reach the log too.
        #expect(logged.all.contains { $0.hasPrefix("libmicrohttpd: ") })
    }

    @Test(
        "a client that closes its side before its request ends gets a 400 with a JSON error at once",
        arguments: [
            (22, "POST /upload HTTP/1.1\r\nHost: test\r\nContent-Length: 100\r\n\r\n0123456789"),
            (23, "POST /upload HTTP/1.1\r\nHost: test\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n01234\r\n"),
            (24, "GET /ping HTTP/1.1\r\nHost: test\r\nX-Half: a"),
        ])
    func aClientThatEndsItsRequestShortIsAnswered400(offset: Int, input: String) async throws {
        let port = TestPort.base + offset
        let counter = Counter()
        let (response, elapsed) = try await withServer(port: port, router: Self.router(counter)) { _ in
            let client = try RawClient(port: port, timeout: .seconds(8))
            try client.send(input)
            let started = ContinuousClock.now
            client.shutdownWrite()
            return (try client.readResponse(), ContinuousClock.now - started)
        }
        #expect(response.status == 400, "\(response.text)")
        #expect(response.headers["Content-Type"] == "application/json")
        #expect(response.headers["X-Request-Id"]?.count == 16)
        #expect(try errorObject(response.body)["code"] == "incomplete_request")
        #expect(elapsed < .seconds(2))
        #expect(counter.calls == 0)
    }
}
