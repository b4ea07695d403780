import Foundation
import HTTPServer
import HTTPTestSupport
import RawHTTPClient
import Testing

/// Bytes that are not a good request get a 4xx or a closed connection, never a hang or a crash.
@Suite struct MalformedRequestTests {
    static let inputs: [[UInt8]] = [
        Array("GARBAGE\r\n\r\n".utf8),
        Array("GET /ok\r\n\r\n".utf8),
        Array("GET /ok HTTP/9.9\r\nHost: test\r\n\r\n".utf8),
        [0xFF, 0xFE, 0x20] + Array("/ok HTTP/1.1\r\nHost: test\r\n\r\n".utf8),
        Array("GET /ok HTTP/1.1\r\nHost: test\r\nNo colon here\r\n\r\n".utf8),
        Array("GET /ok HTTP/1.1\r\nHost: test\r\nX-Big: \(String(repeating: "a", count: 200_000))\r\n\r\n".utf8),
        Array("GET /\(String(repeating: "p", count: 100_000)) HTTP/1.1\r\nHost: test\r\n\r\n".utf8),
        Array("POST /ok HTTP/1.1\r\nHost: test\r\nContent-Length: -5\r\n\r\n".utf8),
        Array("POST /ok HTTP/1.1\r\nHost: test\r\nContent-Length: 99999999999999999999999\r\n\r\n".utf8),
        Array("POST /ok HTTP/1.1\r\nHost: test\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\n".utf8),
    ]

    @Test func malformedRequestsAreRefusedAndTheServerGoesOn() async throws {
        let port = TestPort.base + 50
        var router = Router()
        router.get("/ok") { _ in HTTPResponse(body: Array("ok".utf8)) }
        let outcomes = try await withServer(port: port, router: router) { _ in
            try Self.inputs.map { input in
                let client = try RawClient(port: port, timeout: .seconds(5))
                // The server may close before it has read everything it was sent.
                _ = try? client.send(input)
                let status = (try? client.readResponse())?.status
                let closed = status == nil ? client.closesWithin(.seconds(5)) : true
                return (status: status, closed: closed, after: try request(port: port, "GET", "/ok").status)
            }
        }
        for (input, outcome) in zip(Self.inputs, outcomes) {
            let shown = String(decoding: input.prefix(60), as: UTF8.self)
            if let status = outcome.status {
                // 505 is libmicrohttpd's answer to an HTTP version it does not speak.
                #expect((400..<500).contains(status) || status == 505, "\(shown) → \(status)")
            } else {
                #expect(outcome.closed, "no answer and no close for \(shown)")
            }
            #expect(outcome.after == 200)
        }
    }

    @Test("libmicrohttpd answers these itself with its HTML page, and no handler runs: HTTP/2 (505), a header line without a colon or with a NUL in its name (400), a Content-Length it cannot read (400, whitespace after the digits included, or 413 too large)")
    func libmicrohttpdAnswersWithItsOwnPage() async throws {
        let port = TestPort.base + 96
        let cases: [(input: String, status: Int)] = [
            ("GET /ok HTTP/2.0\r\nHost: test\r\n\r\n", 505),
            ("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", 505),
            ("GET /ok HTTP/1.1\r\nHost: test\r\nNo colon here\r\n\r\n", 400),
            ("GET /ok HTTP/1.1\r\nHost: test\r\nX-A\0X-B: b\r\n\r\n", 400),
            ("POST /ok HTTP/1.1\r\nHost: test\r\nContent-Length: 2x\r\n\r\n[]", 400),
            // Whitespace after the digits, which RFC 9110 does not count in the value, is not skipped.
            ("POST /ok HTTP/1.1\r\nHost: test\r\nContent-Length: 2 \r\n\r\n[]", 400),
            ("POST /ok HTTP/1.1\r\nHost: test\r\nContent-Length: 2\t\r\n\r\n[]", 400),
            ("POST /ok HTTP/1.1\r\nHost: test\r\nContent-Length: 99999999999999999999999\r\n\r\n", 413),
        ]
        let calls = Counter()
        var router = Router()
        for method in [HTTPMethod.get, .post] {
            router.add(method, "/ok") { _ in
                calls.enter()
                defer { calls.leave() }
                return HTTPResponse(body: Array("ok".utf8))
            }
        }
        let inputs = cases.map(\.input)
        let responses = try await withServer(port: port, router: router) { _ in
            try inputs.map { input in
                let client = try RawClient(port: port, timeout: .seconds(5))
                try client.send(input)
                return try client.readResponse()
            }
        }
        for (expected, response) in zip(cases, responses) {
            #expect(response.status == expected.status, "\(expected.input)")
            #expect(response.text.contains("<html>"), "\(expected.input)")
            #expect(response.headers["X-Request-Id"] == nil)
        }
        #expect(calls.calls == 0)
    }

    @Test(
        "an HTTP/1.1 request without Host, whose Transfer-Encoding is not chunked, or whose length is ambiguous, is answered 400 at once with a JSON error naming the header",
        arguments: [
            (51, "GET /ok HTTP/1.1\r\n\r\n", "Host", "missing_host", "must have a Host header"),
            (52, "POST /ok HTTP/1.1\r\nHost: test\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n", "Transfer-Encoding",
             "unsupported_transfer_encoding", "Transfer-Encoding gzip, chunked is not supported"),
            (53, "POST /ok HTTP/1.1\r\nHost: test\r\nTransfer-Encoding: identity\r\n\r\n[]", "Transfer-Encoding",
             "unsupported_transfer_encoding", "Transfer-Encoding identity is not supported"),
            // libmicrohttpd reads a body as chunked only when the value is chunked alone, any other until the end of
            // the connection: whitespace after it, which RFC 9110 does not count in the value, is refused too.
            (58, "POST /ok HTTP/1.1\r\nHost: test\r\nTransfer-Encoding: chunked \r\n\r\n2\r\n[]\r\n0\r\n\r\n",
             "Transfer-Encoding", "unsupported_transfer_encoding", "whitespace after chunked"),
            (59, "POST /ok HTTP/1.1\r\nHost: test\r\nTransfer-Encoding: Chunked\t\r\n\r\n2\r\n[]\r\n0\r\n\r\n",
             "Transfer-Encoding", "unsupported_transfer_encoding", "whitespace after chunked"),
            // A K that lowercases to k in Unicode (KELVIN SIGN), not in ASCII, as libmicrohttpd compares.
            (60, "POST /ok HTTP/1.1\r\nHost: test\r\nTransfer-Encoding: chun\u{212A}ed\r\n\r\n2\r\n[]\r\n0\r\n\r\n",
             "Transfer-Encoding", "unsupported_transfer_encoding", "is not supported"),
            (55, "POST /ok HTTP/1.1\r\nHost: test\r\nContent-Length: 2\r\nContent-Length: 7\r\n\r\n[]", "Content-Length",
             "ambiguous_length", "Content-Length 2 and 7"),
            (56, "POST /ok HTTP/1.1\r\nHost: test\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n[]\r\n0\r\n\r\n",
             "Content-Length", "ambiguous_length", "both Content-Length and Transfer-Encoding"),
        ])
    func headersTheServerCannotReadAre400(offset: Int, input: String, field: String, code: String, message: String)
        async throws
    {
        let port = TestPort.base + offset
        var router = Router()
        router.get("/ok") { _ in HTTPResponse(body: Array("ok".utf8)) }
        router.post("/ok") { _ in HTTPResponse(body: Array("ok".utf8)) }
        let (response, elapsed, after) = try await withServer(port: port, router: router) { _ in
            let client = try RawClient(port: port, timeout: .seconds(8))
            let started = ContinuousClock.now
            try client.send(input)
            let response = try client.readResponse()
            return (response, ContinuousClock.now - started, try request(port: port, "GET", "/ok").status)
        }
        #expect(response.status == 400, "\(response.text)")
        #expect(response.headers["Content-Type"] == "application/json")
        let error = try errorObject(response.body)
        #expect(error["code"] == code)
        #expect(error["field"] == field)
        #expect(error["message"]?.contains(message) == true, "\(response.text)")
        #expect(elapsed < .seconds(2))
        #expect(after == 200)
    }

    @Test("an HTTP/1.0 request without Host is answered")
    func http10WithoutHostIsAnswered() async throws {
        let port = TestPort.base + 54
        var router = Router()
        router.get("/ok") { _ in HTTPResponse(body: Array("ok".utf8)) }
        let response = try await withServer(port: port, router: router) { _ in
            let client = try RawClient(port: port, timeout: .seconds(5))
            try client.send("GET /ok HTTP/1.0\r\n\r\n")
            return try client.readResponse()
        }
        #expect(response.status == 200)
        #expect(response.text == "ok")
    }
}
