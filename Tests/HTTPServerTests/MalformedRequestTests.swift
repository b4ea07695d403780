import Foundation
import HTTPServer
import HTTPTestSupport
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
}
