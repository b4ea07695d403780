import Foundation
import HTTPServer
import Synchronization
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

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
        try await withServer(port: port, router: Self.router()) { _ in
            let merchant = try await fetch(port: port, "/v1/merchants/m-1")
            #expect(merchant.status == 200)
            #expect(String(decoding: merchant.body, as: UTF8.self) == "merchant m-1 via /v1/merchants/{id}")

            let history = try await fetch(port: port, "/v1/merchants/a%2Fb%20c/history")
            #expect(String(decoding: history.body, as: UTF8.self) == "history of a/b c")

            #expect(String(decoding: try await fetch(port: port, "/v1/events/latest").body, as: UTF8.self) == "latest")
            #expect(String(decoding: try await fetch(port: port, "/v1/events/42").body, as: UTF8.self) == "event 42")

            let posted = try await fetch("POST", port: port, "/v1/events", body: Data(repeating: 7, count: 3000))
            #expect(posted.status == 201)
            #expect(posted.headers["Content-Type"] == "application/json")
            #expect(String(decoding: posted.body, as: UTF8.self) == #"{"received":3000}"#)

            let head = try RawClient(port: port)
            try head.send("HEAD /v1/merchants/m-1 HTTP/1.1\r\nHost: test\r\n\r\n")
            let headResponse = try head.readResponse(isHead: true)
            #expect(headResponse.status == 200)
            #expect(headResponse.headers["Content-Length"] == "\("merchant m-1 via /v1/merchants/{id}".utf8.count)")
        }
    }

    @Test func anUnknownPathIs404WithAJSONError() async throws {
        let port = TestPort.base + 1
        try await withServer(port: port, router: Self.router()) { _ in
            for path in ["/nope", "/v1/merchants", "/v1/merchants/m/history/extra", "/v1/merchants/"] {
                let response = try await fetch(port: port, path)
                #expect(response.status == 404, "\(path)")
                #expect(response.headers["Content-Type"] == "application/json")
                #expect(try errorObject(response.body)["code"] == "not_found")
            }
            let response = try await fetch(port: port, "/nope")
            #expect(try errorObject(response.body) == ["code": "not_found", "message": "no route for /nope"])
        }
    }

    @Test func aWrongMethodIs405ListingTheAllowedOnes() async throws {
        let port = TestPort.base + 2
        try await withServer(port: port, router: Self.router()) { _ in
            let delete = try await fetch("DELETE", port: port, "/v1/merchants/m-1")
            #expect(delete.status == 405)
            #expect(delete.headers["Allow"] == "GET, HEAD")
            #expect(try errorObject(delete.body)["code"] == "method_not_allowed")

            let get = try await fetch(port: port, "/v1/events")
            #expect(get.status == 405)
            #expect(get.headers["Allow"] == "POST")
        }
    }

    @Test func queryParametersArriveDecodedInOrder() async throws {
        let port = TestPort.base + 3
        try await withServer(port: port, router: Self.router()) { _ in
            let client = try RawClient(port: port)
            try client.send("GET /query?a=1&b=hello+world&c=%E2%9C%93&a=2&flag&empty=&d=50%25%2B1 HTTP/1.1\r\nHost: test\r\n\r\n")
            let response = try client.readResponse()
            #expect(response.status == 200)
            #expect(response.text.split(separator: "\n") == ["a=1", "b=hello world", "c=✓", "a=2", "flag=", "empty=", "d=50%+1"])

            let viaURLSession = try await fetch(port: port, "/query?city=S%C3%A3o%20Paulo")
            #expect(String(decoding: viaURLSession.body, as: UTF8.self) == "city=São Paulo")
        }
    }

    @Test func pathsAndQueriesThatAreNotUTF8Are400() async throws {
        let port = TestPort.base + 4
        try await withServer(port: port, router: Self.router()) { _ in
            let cases: [(target: [UInt8], code: String, field: String?)] = [
                (Array("/v1/merchants/%FF".utf8), "invalid_path", nil),
                (Array("/v1/merchants/".utf8) + [0xFF, 0xFE], "invalid_path", nil),
                (Array("/v1/merchants/%zz".utf8), "invalid_path", nil),
                (Array("/query?city=%C3".utf8), "invalid_query", "city"),
                (Array("/query?%FF=1".utf8), "invalid_query", nil),
                (Array("/query?bad=".utf8) + [0xC0, 0x80], "invalid_query", "bad"),
            ]
            for (target, code, field) in cases {
                let client = try RawClient(port: port)
                try client.send(Array("GET ".utf8) + target + Array(" HTTP/1.1\r\nHost: test\r\n\r\n".utf8))
                let response = try client.readResponse()
                #expect(response.status == 400, "\(target)")
                let error = try errorObject(response.body)
                #expect(error["code"] == code)
                #expect(error["field"] == field)
            }
            #expect(try await fetch(port: port, "/v1/merchants/ok").status == 200)
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
        try await withServer(port: port, router: router) { _ in
            let response = try await fetch(port: port, "/whoami", headers: ["X-GEOLEDGER-TEST": "value"])
            #expect(response.status == 200)
            let observed = try #require(seen.withLock { $0 })
            #expect(observed.header == "value")
            #expect(observed.remote == "127.0.0.1")
            #expect(observed.id.count == 16)
            #expect(response.headers["X-Request-Id"] == observed.id)
            #expect(observed.thread.hasPrefix("HTTP worker "))
        }
    }

    @Test func aThrowingHandlerIs500WithTheRequestIdAndTheServerGoesOn() async throws {
        let port = TestPort.base + 6
        struct Broken: Error, CustomStringConvertible { var description: String { "the database went away" } }
        let logged = Mutex<[String]>([])
        var router = Router()
        router.get("/broken") { _ in throw Broken() }
        router.get("/fine") { _ in HTTPResponse(body: Array("fine".utf8)) }
        try await withServer(port: port, router: router, configure: { configuration in
            configuration.log = { line in logged.withLock { $0.append(line) } }
        }) { _ in
            let response = try await fetch(port: port, "/broken")
            #expect(response.status == 500)
            let id = try #require(response.headers["X-Request-Id"])
            let error = try errorObject(response.body)
            #expect(error == ["code": "internal_error", "message": "the server failed to answer request \(id)"])
            #expect(!String(decoding: response.body, as: UTF8.self).contains("database"))
            #expect(logged.withLock { $0 }.contains { $0.contains(id) && $0.contains("the database went away") })
            #expect(try await fetch(port: port, "/fine").status == 200)
        }
    }
}
