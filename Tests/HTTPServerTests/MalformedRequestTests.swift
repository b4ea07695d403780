import Foundation
import HTTPServer
import Testing

/// Bytes that are not a good request get a 4xx or a closed connection, never a hang or a crash.
@Suite struct MalformedRequestTests {
    @Test func malformedRequestsAreRefusedAndTheServerGoesOn() async throws {
        let port = TestPort.base + 50
        var router = Router()
        router.get("/ok") { _ in HTTPResponse(body: Array("ok".utf8)) }
        try await withServer(port: port, router: router) { _ in
            let inputs: [[UInt8]] = [
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
            for input in inputs {
                let client = try RawClient(port: port, timeout: .seconds(5))
                // The server may close before it has read everything it was sent.
                _ = try? client.send(input)
                if let response = try? client.readResponse() {
                    // 505 is libmicrohttpd's answer to an HTTP version it does not speak.
                    #expect((400..<500).contains(response.status) || response.status == 505, "\(String(decoding: input.prefix(60), as: UTF8.self)) → \(response.status)")
                } else {
                    #expect(client.closesWithin(.seconds(5)), "no answer and no close for \(String(decoding: input.prefix(60), as: UTF8.self))")
                }
                let check = try await fetch(port: port, "/ok")
                #expect(check.status == 200)
            }
        }
    }
}
