import Foundation
@testable import HTTPServer
import HTTPTestSupport
import RawHTTPClient
import Testing

@Suite("headers sent twice over HTTP")
struct RepeatedHeaderTests {
    /// A POST of `body` with `fields` as sent, each a header line of its own.
    static func post(_ server: APITestServer, fields: [String], body: [UInt8]) throws -> RawClient.Response {
        let client = try RawClient(port: server.port, timeout: .seconds(30))
        var head = "POST /v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        for field in fields { head += field + "\r\n" }
        head += "Content-Length: \(body.count)\r\n\r\n"
        try client.send(Array(head.utf8) + body)
        return try client.readResponse()
    }

    @Test("Content-Encoding, Content-Type and Authorization sent twice are read whole: 415, 415, 401; nothing is stored")
    func repeatedHeadersAreReadWhole() async throws {
        try await withAPI { server in
            let batch = Array(("[" + Submissions.merchantFix("M1") + "]").utf8)
            let token = "Authorization: Bearer \(server.tokens["ingest"]!)"
            let json = "Content-Type: application/json"

            // gzip, then br: a coding the server does not read.
            let codings = try Self.post(
                server, fields: [token, json, "Content-Encoding: gzip", "Content-Encoding: br"], body: Gzip.deflate(batch))
            #expect(codings.status == 415, "\(codings.text)")
            #expect(codings.errorCode == "unsupported_content_encoding")

            let types = try Self.post(server, fields: [token, json, "Content-Type: text/plain"], body: batch)
            #expect(types.status == 415, "\(types.text)")
            #expect(types.errorCode == "unsupported_media_type")

            for tokens in [[token, "Authorization: Bearer glt_unknown"], ["Authorization: Bearer glt_unknown", token]] {
                let response = try Self.post(server, fields: tokens + [json], body: batch)
                #expect(response.status == 401, "\(response.text)")
                #expect(response.errorCode == "unauthorized")
            }
            #expect(try server.storedCount() == 0)

            // Sent once each, the same request is stored.
            let once = try Self.post(server, fields: [token, json, "Content-Encoding: gzip"], body: Gzip.deflate(batch))
            #expect(once.status == 200, "\(once.text)")
            #expect(try server.storedCount() == 1)
        }
    }
}
