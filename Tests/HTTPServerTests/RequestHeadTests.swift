import Foundation
import HTTPServer
import HTTPTestSupport
import RawHTTPClient
import Testing

/// A request head (the request line and headers) that is too large, or that stops coming, gets a JSON error as far
/// as libmicrohttpd lets the server answer at all; the server goes on.
@Suite struct RequestHeadTests {
    static var router: Router {
        var router = Router()
        router.get("/ping") { _ in HTTPResponse(body: Array("pong".utf8)) }
        return router
    }

    static func expectError(_ response: RawClient.Response, status: Int, code: String) throws {
        #expect(response.status == status, "\(response.text)")
        #expect(response.headers["Content-Type"] == "application/json")
        #expect(response.headers["X-Request-Id"]?.count == 16)
        let error = try errorObject(response.body)
        #expect(error["code"] == code, "\(response.text)")
        #expect(error["message"]?.isEmpty == false)
    }

    @Test("headers over the limit get a 431 with a JSON error naming the limit, and the server goes on")
    func headersOverTheLimitGet431JSON() async throws {
        let port = TestPort.base + 70
        let records = CompletedRequestTests.Records()
        let (response, closed, after) = try await withServer(port: port, router: Self.router, configure: {
            $0.maximumHeaderBytes = 8192
            $0.completed = { records.append($0) }
        }) { _ in
            let client = try RawClient(port: port, timeout: .seconds(5))
            try client.send("GET /ping HTTP/1.1\r\nHost: test\r\nX-Big: \(String(repeating: "a", count: 9000))\r\n\r\n")
            let response = try client.readResponse()
            return (response, client.closesWithin(.seconds(2)), try request(port: port, "GET", "/ping").status)
        }
        try Self.expectError(response, status: 431, code: "headers_too_large")
        #expect(try errorObject(response.body)["message"]?.contains("8192") == true)
        #expect(closed)
        #expect(after == 200)
        #expect(records.all.contains { $0.status.rawValue == 431 && $0.id == response.headers["X-Request-Id"] })
    }

    @Test("a request target over the limit gets a 414 with a JSON error")
    func aTargetOverTheLimitGets414JSON() async throws {
        let port = TestPort.base + 71
        let response = try await withServer(port: port, router: Self.router, configure: { $0.maximumHeaderBytes = 8192 }) { _ in
            try request(port: port, "GET", "/ping?q=" + String(repeating: "q", count: 9000))
        }
        try Self.expectError(response, status: 414, code: "uri_too_long")
    }

    @Test("a target of thousands of short query parameters gets a 414 with a JSON error, not a closed connection; 256 are read")
    func manyQueryParametersGet414JSON() async throws {
        let port = TestPort.base + 57
        let (many, enough, after) = try await withServer(port: port, router: Self.router) { _ in
            (try request(port: port, "GET", "/ping?" + Array(repeating: "a=1", count: 2000).joined(separator: "&")),
             try request(port: port, "GET", "/ping?" + Array(repeating: "a=1", count: 256).joined(separator: "&")),
             try request(port: port, "GET", "/ping"))
        }
        try Self.expectError(many, status: 414, code: "too_many_parameters")
        #expect(enough.status == 200)
        #expect(after.status == 200)
    }

    @Test("a head just under the limit is answered")
    func aHeadUnderTheLimitIsAnswered() async throws {
        let port = TestPort.base + 72
        let response = try await withServer(port: port, router: Self.router, configure: { $0.maximumHeaderBytes = 8192 }) { _ in
            try request(port: port, "GET", "/ping", headers: ["X-Big": String(repeating: "a", count: 7900)])
        }
        #expect(response.status == 200, "\(response.text)")
    }

    /// libmicrohttpd answers a head that overflows the connection's memory (twice the limit) itself, with its HTML
    /// page, before the server sees the request: pinned here, and said in docs/http.md.
    @Test("a head too large for the connection's memory gets libmicrohttpd's 431, the connection closed, and the server goes on")
    func aHeadOverTheConnectionsMemoryGetsLibmicrohttpds431() async throws {
        let port = TestPort.base + 73
        let (status, closed, after) = try await withServer(port: port, router: Self.router, configure: { $0.maximumHeaderBytes = 8192 }) { _ in
            let client = try RawClient(port: port, timeout: .seconds(5))
            // The server may close before it has read everything it was sent.
            _ = try? client.send("GET /ping HTTP/1.1\r\nHost: test\r\nX-Big: \(String(repeating: "a", count: 200_000))\r\n\r\n")
            let response = try client.readResponse()
            return (response.status, client.closesWithin(.seconds(2)), try request(port: port, "GET", "/ping").status)
        }
        #expect(status == 431)
        #expect(closed)
        #expect(after == 200)
    }

    @Test("a client that stops in the middle of its headers gets a 408 with a JSON error at the connection timeout")
    func aClientThatStopsInItsHeadersIsAnswered408() async throws {
        let port = TestPort.base + 74
        let records = CompletedRequestTests.Records()
        let (response, closed, elapsed, after) = try await withServer(port: port, router: Self.router, configure: {
            $0.connectionTimeout = .seconds(1)
            $0.completed = { records.append($0) }
        }) { _ in
            let client = try RawClient(port: port, timeout: .seconds(6))
            try client.send("GET /ping HTTP/1.1\r\nHost: test\r\nX-Half: abc")
            let started = ContinuousClock.now
            let response = try client.readResponse()
            let elapsed = ContinuousClock.now - started
            return (response, client.closesWithin(.seconds(2)), elapsed, try request(port: port, "GET", "/ping").status)
        }
        try SlowClientTests.expectRequestTimeout(response)
        #expect(closed)
        #expect(elapsed >= .milliseconds(900))
        #expect(elapsed < .seconds(4))
        #expect(after == 200)
        #expect(records.all.contains { $0.status == .requestTimeout && $0.id == response.headers["X-Request-Id"] })
    }

    @Test("a client that trickles its headers gets a 408 with a JSON error once the request timeout has passed")
    func aClientThatTricklesItsHeadersIsAnswered408() async throws {
        let port = TestPort.base + 76
        let logged = LogLines()
        let outcome = try await withServer(port: port, router: Self.router, configure: {
            $0.connectionTimeout = .seconds(3)
            $0.requestTimeout = .seconds(1)
            $0.log = logged.append
        }) { _ in
            let client = try RawClient(port: port, timeout: .seconds(2))
            try client.send("GET /ping HTTP/1.1\r\nHost: test\r\n")
            let started = ContinuousClock.now
            var ping: RawClient.Response?
            let answered = try client.trickle((0..<60).map { "X-\($0): y\r\n" }) { sent in
                if sent == 3 { ping = try request(port: port, "GET", "/ping") }
            }
            let elapsed = ContinuousClock.now - started
            let response = answered ? try client.readResponse() : nil
            return (response: response, closed: client.closesWithin(.seconds(2)), elapsed: elapsed, ping: ping)
        }
        let response = try #require(outcome.response, "no answer while the headers trickled")
        try SlowClientTests.expectRequestTimeout(response)
        #expect(outcome.closed)
        #expect(outcome.elapsed >= .milliseconds(900))
        #expect(outcome.elapsed < .seconds(3))
        #expect(outcome.ping?.status == 200)
        #expect(logged.all.contains { $0.hasSuffix("the headers took longer than the request timeout; answered 408") })
    }

    @Test("a client that trickles its request line gets a 408 with a JSON error once the request timeout has passed")
    func aClientThatTricklesItsRequestLineIsAnswered408() async throws {
        let port = TestPort.base + 77
        let outcome = try await withServer(port: port, router: Self.router, configure: {
            $0.connectionTimeout = .seconds(3)
            $0.requestTimeout = .seconds(1)
        }) { _ in
            let client = try RawClient(port: port, timeout: .seconds(2))
            try client.send("GET /ping?")
            let started = ContinuousClock.now
            let answered = try client.trickle(Array(repeating: "a", count: 60))
            let elapsed = ContinuousClock.now - started
            let response = answered ? try client.readResponse() : nil
            return (response: response, closed: client.closesWithin(.seconds(2)), elapsed: elapsed)
        }
        let response = try #require(outcome.response, "no answer while the request line trickled")
        try SlowClientTests.expectRequestTimeout(response)
        #expect(outcome.closed)
        #expect(outcome.elapsed >= .milliseconds(900))
        #expect(outcome.elapsed < .seconds(3))
    }

    @Test("a client that trickles its request line and then its headers gets the 408 once the request timeout has passed since its first byte")
    func theRequestTimeoutCountsFromTheFirstByte() async throws {
        let port = TestPort.base + 79
        let outcome = try await withServer(port: port, router: Self.router, configure: {
            $0.connectionTimeout = .seconds(5)
            $0.requestTimeout = .seconds(3)
        }) { _ in
            let client = try RawClient(port: port, timeout: .seconds(2))
            let started = ContinuousClock.now
            // The request line a byte at a time (2 s), then a header line at a time.
            let answered = try client.trickle("GET /ping HTTP/1.1\r\n".map(String.init) + (0..<60).map { "X-\($0): y\r\n" })
            let elapsed = ContinuousClock.now - started
            let response = answered ? try client.readResponse() : nil
            return (response: response, elapsed: elapsed)
        }
        let response = try #require(outcome.response, "no answer while the request trickled")
        try SlowClientTests.expectRequestTimeout(response)
        #expect(outcome.elapsed >= .milliseconds(2900))
        // Counted from the end of the request line, it would come 2 s later, after 5 s.
        #expect(outcome.elapsed < .milliseconds(4800))
    }

    /// The next request comes whole, or its request line in two pieces 600 ms apart, which the server sees begin more
    /// than the request timeout after the last request ended.
    @Test(
        "a connection kept alive and silent past the request timeout is not answered: its next request is, whole or in pieces",
        arguments: [
            (78, ["GET /ping HTTP/1.1\r\nHost: test\r\n\r\n"]),
            (89, ["GET /pi", "ng HTTP/1.1\r\nHost: test\r\n\r\n"]),
        ])
    func anIdleConnectionIsNotAnswered408(offset: Int, pieces: [String]) async throws {
        let port = TestPort.base + offset
        let (first, second) = try await withServer(port: port, router: Self.router, configure: {
            $0.connectionTimeout = .seconds(5)
            $0.requestTimeout = .seconds(2)
        }) { _ in
            let client = try RawClient(port: port, timeout: .seconds(4))
            try client.send("GET /ping HTTP/1.1\r\nHost: test\r\n\r\n")
            let first = try client.readResponse()
            // Idle past the request timeout, well within the connection timeout.
            usleep(2_500_000)
            for (index, piece) in pieces.enumerated() {
                if index > 0 { usleep(600_000) }
                try client.send(piece)
            }
            return (first, try client.readResponse())
        }
        #expect(first.status == 200)
        #expect(second.status == 200, "\(second.text)")
        #expect(second.text == "pong")
    }

    /// Until its request line is whole, a connection cannot be told from an idle one kept alive, which is closed
    /// without an answer: pinned here, and said in docs/http.md.
    @Test("a client that stops inside its request line is closed at the connection timeout without an answer")
    func aClientThatStopsInItsRequestLineIsClosed() async throws {
        let port = TestPort.base + 75
        let (ended, elapsed, answer) = try await withServer(port: port, router: Self.router, configure: {
            $0.connectionTimeout = .seconds(1)
        }) { _ in
            let client = try RawClient(port: port, timeout: .seconds(6))
            try client.send("GET /pi")
            let started = ContinuousClock.now
            let ended = client.isReadable(within: .seconds(4))
            let elapsed = ContinuousClock.now - started
            return (ended, elapsed, Result { try client.readResponse() })
        }
        #expect(ended)
        #expect(elapsed >= .milliseconds(900))
        if case .success(let response) = answer { Issue.record("answered \(response.status): \(response.text)") }
    }
}
