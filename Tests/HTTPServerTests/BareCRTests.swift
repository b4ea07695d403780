import Foundation
import HTTPServer
import HTTPTestSupport
import RawHTTPClient
import Testing

/// libmicrohttpd ends a line only at CR LF or a bare LF and keeps any other CR as part of the line: a request line or
/// header with a bare CR is answered 400 naming where it is, before any handler runs, as RFC 9112 section 2.2 has a
/// recipient do, and its connection closed.
@Suite struct BareCRTests {
    @Test(
        "a CR not followed by LF in a header's value or name, or in the request line, is 400 naming it, and no handler runs",
        arguments: [
            (63, "GET /ok HTTP/1.1\r\nHost: test\r\nX-A: v\rjunk\r\nX-B: b\r\n\r\n", "invalid_header", "X-A"),
            // The CR right before the line's CR LF.
            (64, "GET /ok HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer secret\r\r\n\r\n", "invalid_header",
             "Authorization"),
            // A NUL between CR and LF: libmicrohttpd reads the value up to the NUL, with the CR.
            (65, "GET /ok HTTP/1.1\r\nHost: test\r\nX-A: v\r\0\nX-B: b\r\n\r\n", "invalid_header", "X-A"),
            (66, "GET /ok HTTP/1.1\nHost: test\nX-A: \rv\nX-B: b\n\n", "invalid_header", "X-A"),
            (67, "GET /ok HTTP/1.1\r\nHost: test\r\nX\rA: v\r\n\r\n", "invalid_header", "X\rA"),
            (68, "GET /ok\rjunk HTTP/1.1\r\nHost: test\r\n\r\n", "invalid_request_line", nil),
        ] as [(Int, String, String, String?)])
    func aBareCRIs400(offset: Int, input: String, code: String, field: String?) async throws {
        try await expectHeadRefused(port: TestPort.base + offset, input, code: code, field: field, cause: "bare CR")
    }

    @Test("a CR in the body, after the head, is the body's: the request is answered and the body read as sent")
    func aCRInTheBodyIsRead() async throws {
        let port = TestPort.base + 69
        var router = Router()
        router.post("/ok") { request in HTTPResponse(body: request.body) }
        let response = try await withServer(port: port, router: router) { _ in
            let client = try RawClient(port: port, timeout: .seconds(5))
            try client.send("POST /ok HTTP/1.1\r\nHost: test\r\nContent-Length: 5\r\n\r\na\rb\r\r")
            return try client.readResponse()
        }
        #expect(response.status == 200, "\(response.text)")
        #expect(response.body == Array("a\rb\r\r".utf8))
    }
}
