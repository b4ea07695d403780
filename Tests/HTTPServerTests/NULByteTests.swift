import Foundation
import HTTPServer
import HTTPTestSupport
import RawHTTPClient
import Testing

/// libmicrohttpd reads a header value, or the request target, up to a NUL byte and silently drops the rest: such a
/// request is answered 400 naming where the NUL is, before any handler runs, and its connection closed.
@Suite struct NULByteTests {
    @Test(
        "a NUL byte in a header value, after a header line, or in the request target is 400 naming it, and no handler runs",
        arguments: [
            (80, "GET /ok HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer secret\0junk\r\n\r\n", "invalid_header",
             "Authorization"),
            (81, "GET /ok HTTP/1.1\r\nHost: test\r\nX-A: \0junk\r\nX-B: b\r\n\r\n", "invalid_header", "X-A"),
            (82, "GET /ok HTTP/1.1\r\nX-A:\0\r\nHost: test\r\n\r\n", "invalid_header", "X-A"),
            // libmicrohttpd takes a line that begins with NUL for the end of the headers.
            (83, "GET /ok HTTP/1.1\r\nHost: test\r\n\0Authorization: Bearer secret\r\n\r\n", "invalid_header", "Host"),
            (84, "POST /ok HTTP/1.1\r\nHost: test\r\nContent-Length: 2\0 000\r\n\r\n[]", "invalid_header",
             "Content-Length"),
            (85, "GET /ok\0/../secret HTTP/1.1\r\nHost: test\r\n\r\n", "invalid_request_line", nil),
            (86, "GET /ok?a=1\0&b=2 HTTP/1.1\r\nHost: test\r\n\r\n", "invalid_request_line", nil),
            (87, "GE\0T /ok HTTP/1.1\r\nHost: test\r\n\r\n", "invalid_request_line", nil),
        ] as [(Int, String, String, String?)])
    func aNULByteIs400(offset: Int, input: String, code: String, field: String?) async throws {
        try await expectHeadRefused(port: TestPort.base + offset, input, code: code, field: field, cause: "NUL")
    }

    @Test(
        "heads libmicrohttpd reads whole are answered as sent: bare LF line ends, spaces before the target, empty values, empty query parameters; a NUL right before a bare LF cuts nothing",
        arguments: [
            (90, "GET /ok?a=1&b&c= HTTP/1.1\nHost: test\nX-A: v\n\n"),
            (91, "GET   /ok?a=1&b&c= HTTP/1.1\r\nHost: test\r\nX-Empty:\r\nX-A:\tv\r\nX-Blank: \t \r\n\r\n"),
            (92, "\r\nGET /ok?a=1&b&c= HTTP/1.0\r\nX-A: v\r\n\r\n"),
            (93, "GET /ok?a=1&b&c= HTTP/1.1\r\nHost: test\r\nX-A: v\0\n\r\n"),
        ])
    func wholeHeadsAreAnswered(offset: Int, input: String) async throws {
        let port = TestPort.base + offset
        var router = Router()
        router.get("/ok") { request in
            HTTPResponse(body: Array("\(request.headers["X-A"] ?? "-") \(request.query.map(\.name))".utf8))
        }
        let response = try await withServer(port: port, router: router) { _ in
            let client = try RawClient(port: port, timeout: .seconds(5))
            try client.send(input)
            return try client.readResponse()
        }
        #expect(response.status == 200, "\(response.text)")
        #expect(response.text == #"v ["a", "b", "c"]"#)
    }

    @Test("a header folded onto a second line is 400, not read with its name changed")
    func aFoldedHeaderIs400() async throws {
        let port = TestPort.base + 88
        let seen = Counter()
        var router = Router()
        router.get("/ok") { _ in
            seen.enter()
            defer { seen.leave() }
            return HTTPResponse(body: Array("ok".utf8))
        }
        let response = try await withServer(port: port, router: router) { _ in
            let client = try RawClient(port: port, timeout: .seconds(5))
            try client.send("GET /ok HTTP/1.1\r\nHost: test\r\nX-A: one\r\n two\r\n\r\n")
            return try client.readResponse()
        }
        #expect(response.status == 400, "\(response.text)")
        #expect(try errorObject(response.body)["code"] == "folded_header")
        #expect(seen.calls == 0)
    }

    @Test(
        "a header name that is not a token, whitespace before its colon included, is 400 naming it, and no handler runs",
        arguments: [
            (25, "GET /ok HTTP/1.1\r\nHost: test\r\nX-A : v\r\n\r\n", "X-A "),
            // Framed by libmicrohttpd as a request without a body, its body read as the next request.
            (26, "POST /ok HTTP/1.1\r\nHost: test\r\nContent-Length\t: 2\r\n\r\n[]", "Content-Length\t"),
            (27, "GET /ok HTTP/1.1\r\nHost: test\r\nX(A): v\r\n\r\n", "X(A)"),
        ] as [(Int, String, String)])
    func aHeaderNameThatIsNoTokenIs400(offset: Int, input: String, name: String) async throws {
        try await expectHeadRefused(
            port: TestPort.base + offset, input, code: "invalid_header", field: name, cause: "is not a token")
    }
}
