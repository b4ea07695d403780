import Foundation
import HTTPServer
import HTTPTestSupport
import RawHTTPClient
import Testing

/// Sends `input` on a connection of its own to a server on `port` whose `/ok` handlers (GET and POST) count their
/// calls, and checks that the head is refused before any handler runs: 400 with `code`, `field` and a message that
/// says `cause`, the connection closed; and that the server still answers the next request.
func expectHeadRefused(port: Int, _ input: String, code: String, field: String?, cause: String) async throws {
    let calls = Counter()
    let handler: Router.Handler = { _ in
        calls.enter()
        defer { calls.leave() }
        return HTTPResponse(body: Array("ok".utf8))
    }
    var router = Router()
    router.get("/ok", handler)
    router.post("/ok", handler)
    let (response, closed, after) = try await withServer(port: port, router: router) { _ in
        let client = try RawClient(port: port, timeout: .seconds(5))
        try client.send(input)
        let response = try client.readResponse()
        return (response, client.closesWithin(.seconds(2)), try request(port: port, "GET", "/ok").status)
    }
    #expect(response.status == 400, "\(response.text)")
    #expect(response.headers["Content-Type"] == "application/json")
    let error = try errorObject(response.body)
    #expect(error["code"] == code, "\(response.text)")
    #expect(error["field"] == field, "\(response.text)")
    #expect(error["message"]?.contains(cause) == true, "\(response.text)")
    #expect(closed)
    #expect(calls.calls == 1, "only the request after it reached the handler")
    #expect(after == 200)
}
