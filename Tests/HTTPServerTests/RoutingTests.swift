import Foundation
import HTTPServer
import HTTPTestSupport
import RawHTTPClient
import Synchronization
import Testing

/// Routes, path parameters, queries, headers and the error documents, over real HTTP on 127.0.0.1.
@Suite struct RoutingTests {
    static func router() -> Router {
        var router = Router()
        router.get("/v1/merchants/{id}") { request in
            HTTPResponse(body: Array("merchant \(request.pathParameters["id"]!) via \(request.route!)".utf8))
        }
        router.get("/v1/merchants/{id}/history") { request in
            HTTPResponse(body: Array("history of \(request.pathParameters["id"]!)".utf8))
        }
        router.get("/v1/events/latest") { _ in HTTPResponse(body: Array("latest".utf8)) }
        router.get("/v1/events/{position}") { request in
            HTTPResponse(body: Array("event \(request.pathParameters["position"]!)".utf8))
        }
        router.post("/v1/events") { request in
            .json(Array(#"{"received":\#(request.body.count)}"#.utf8), status: .created)
        }
        router.get("/query") { request in
            HTTPResponse(body: Array(request.query.map { "\($0.name)=\($0.value)" }.joined(separator: "\n").utf8))
        }
        return router
    }

    @Test func routesPassPathParametersToHandlers() async throws {
        let port = TestPort.base + 0
        let (merchant, history, latest, event, posted, head) = try await withServer(port: port, router: Self.router()) { _ in
            (
                try fetch(port: port, "/v1/merchants/m-1"),
                try fetch(port: port, "/v1/merchants/a%2Fb%20c/history"),
                try fetch(port: port, "/v1/events/latest"),
                try fetch(port: port, "/v1/events/42"),
                try fetch("POST", port: port, "/v1/events", body: Data(repeating: 7, count: 3000)),
                try request(port: port, "HEAD", "/v1/merchants/m-1")
            )
        }
        #expect(merchant.status == 200)
        #expect(merchant.text == "merchant m-1 via /v1/merchants/{id}")
        #expect(history.text == "history of a/b c")
        #expect(latest.text == "latest")
        #expect(event.text == "event 42")
        #expect(posted.status == 201)
        #expect(posted.headers["Content-Type"] == "application/json")
        #expect(posted.text == #"{"received":3000}"#)
        #expect(head.status == 200)
        #expect(head.headers["Content-Length"] == "\("merchant m-1 via /v1/merchants/{id}".utf8.count)")
    }

    @Test func anUnknownPathIs404WithAJSONError() async throws {
        let port = TestPort.base + 1
        let paths = ["/nope", "/v1/merchants", "/v1/merchants/m/history/extra", "/v1/merchants/"]
        let responses = try await withServer(port: port, router: Self.router()) { _ in
            try paths.map { try fetch(port: port, $0) }
        }
        for (path, response) in zip(paths, responses) {
            #expect(response.status == 404, "\(path)")
            #expect(response.headers["Content-Type"] == "application/json")
            #expect(try errorObject(response.body)["code"] == "not_found")
        }
        #expect(try errorObject(responses[0].body) == ["code": "not_found", "message": "no route for /nope"])
    }

    @Test func aWrongMethodIs405ListingTheAllowedOnes() async throws {
        let port = TestPort.base + 2
        let (delete, get) = try await withServer(port: port, router: Self.router()) { _ in
            (try fetch("DELETE", port: port, "/v1/merchants/m-1"), try fetch(port: port, "/v1/events"))
        }
        #expect(delete.status == 405)
        #expect(delete.headers["Allow"] == "GET, HEAD")
        #expect(try errorObject(delete.body)["code"] == "method_not_allowed")
        #expect(get.status == 405)
        #expect(get.headers["Allow"] == "POST")
    }

    @Test func queryParametersArriveDecodedInOrder() async throws {
        let port = TestPort.base + 3
        let (raw, viaURLSession) = try await withServer(port: port, router: Self.router()) { _ in
            (
                try request(port: port, "GET", "/query?a=1&b=hello+world&c=%E2%9C%93&a=2&flag&empty=&d=50%25%2B1"),
                try fetch(port: port, "/query?city=S%C3%A3o%20Paulo")
            )
        }
        #expect(raw.status == 200)
        #expect(raw.text.split(separator: "\n") == ["a=1", "b=hello world", "c=✓", "a=2", "flag=", "empty=", "d=50%+1"])
        #expect(viaURLSession.text == "city=São Paulo")
    }

    @Test func pathsAndQueriesThatAreNotUTF8Are400() async throws {
        let port = TestPort.base + 4
        let cases: [(target: [UInt8], code: String, field: String?)] = [
            (Array("/v1/merchants/%FF".utf8), "invalid_path", nil),
            (Array("/v1/merchants/".utf8) + [0xFF, 0xFE], "invalid_path", nil),
            (Array("/v1/merchants/%zz".utf8), "invalid_path", nil),
            (Array("/query?city=%C3".utf8), "invalid_query", "city"),
            (Array("/query?%FF=1".utf8), "invalid_query", nil),
            (Array("/query?bad=".utf8) + [0xC0, 0x80], "invalid_query", "bad"),
        ]
        let targets = cases.map(\.target)
        let (responses, after) = try await withServer(port: port, router: Self.router()) { _ in
            let responses = try targets.map { target in
                let client = try RawClient(port: port)
                try client.send(Array("GET ".utf8) + target + Array(" HTTP/1.1\r\nHost: test\r\n\r\n".utf8))
                return try client.readResponse()
            }
            return (responses, try fetch(port: port, "/v1/merchants/ok"))
        }
        for (expected, response) in zip(cases, responses) {
            #expect(response.status == 400, "\(expected.target)")
            let error = try errorObject(response.body)
            #expect(error["code"] == expected.code)
            #expect(error["field"] == expected.field)
        }
        #expect(after.status == 200)
    }

    @Test("a target in absolute form (http or https, any case) is routed by its path and query; GET and POST")
    func absoluteFormTargetsAreRoutedByTheirPath() async throws {
        let port = TestPort.base + 94
        let targets = [
            "http://127.0.0.1:\(port)/v1/merchants/a%2Fb",
            "HTTPS://example.com/query?a=1&b=x+y",
            "http://example.com?a=1",
            "hTTp://[::1]:8080/v1/merchants/m-1/history",
        ]
        let (responses, posted) = try await withServer(port: port, router: Self.router()) { _ in
            (try targets.map { try request(port: port, "GET", $0) },
             try request(port: port, "POST", "http://127.0.0.1:\(port)/v1/events", body: Array("[1,2]".utf8)))
        }
        #expect(responses.map(\.status) == [200, 200, 404, 200], "\(responses.map(\.text))")
        #expect(responses[0].text == "merchant a/b via /v1/merchants/{id}")
        #expect(responses[1].text == "a=1\nb=x y")
        #expect(try errorObject(responses[2].body)["message"] == "no route for /")
        #expect(responses[3].text == "history of m-1")
        #expect(posted.status == 201)
        #expect(posted.text == #"{"received":5}"#)
    }

    @Test("a target in no form the server reads is 400 invalid_path: another scheme, no host, a user name, authority form, *")
    func otherTargetFormsAre400() async throws {
        let port = TestPort.base + 95
        let targets = [
            ("GET", "ftp://example.com/query"), ("GET", "http:///query"), ("GET", "http://user@example.com/query"),
            ("GET", "http:/query"), ("GET", "query"), ("CONNECT", "example.com:443"), ("OPTIONS", "*"),
        ]
        let responses = try await withServer(port: port, router: Self.router()) { _ in
            try targets.map { try request(port: port, $0.0, $0.1) }
        }
        for (target, response) in zip(targets, responses) {
            #expect(response.status == 400, "\(target) \(response.text)")
            #expect(try errorObject(response.body)["code"] == "invalid_path", "\(target)")
        }
    }

    @Test func handlersSeeHeadersRemoteAddressAndTheRequestIdOnAWorker() async throws {
        let port = TestPort.base + 5
        let seen = Mutex<(header: String?, remote: String, id: String, thread: String)?>(nil)
        var router = Router()
        router.get("/whoami") { request in
            seen.withLock { $0 = (request.headers["x-geoledger-test"], request.remoteAddress, request.id, Thread.current.name ?? "") }
            return HTTPResponse()
        }
        let response = try await withServer(port: port, router: router) { _ in
            try fetch(port: port, "/whoami", headers: ["X-GEOLEDGER-TEST": "value"])
        }
        #expect(response.status == 200)
        let observed = try #require(seen.withLock { $0 })
        #expect(observed.header == "value")
        #expect(observed.remote == "127.0.0.1")
        #expect(observed.id.count == 16)
        #expect(response.headers["X-Request-Id"] == observed.id)
        #expect(observed.thread.hasPrefix("HTTP worker "))
    }

    @Test func aThrowingHandlerIs500WithTheRequestIdAndTheServerGoesOn() async throws {
        let port = TestPort.base + 6
        struct Broken: Error, CustomStringConvertible { var description: String { "the database went away" } }
        let logged = LogLines()
        var router = Router()
        router.get("/broken") { _ in throw Broken() }
        router.get("/fine") { _ in HTTPResponse(body: Array("fine".utf8)) }
        let (broken, fine) = try await withServer(port: port, router: router, configure: { $0.log = logged.append }) { _ in
            (try fetch(port: port, "/broken"), try fetch(port: port, "/fine"))
        }
        #expect(broken.status == 500)
        let id = try #require(broken.headers["X-Request-Id"])
        #expect(try errorObject(broken.body) == ["code": "internal_error", "message": "the server failed to answer request \(id)"])
        #expect(!broken.text.contains("database"))
        #expect(logged.all.contains { $0.contains(id) && $0.contains("the database went away") })
        #expect(fine.status == 200)
    }
}
