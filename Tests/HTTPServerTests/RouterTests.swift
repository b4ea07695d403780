@testable import HTTPServer
import Testing

@Suite struct RouterTests {
    static func router() -> Router {
        var router = Router()
        router.get("/v1/merchants/{id}") { _ in HTTPResponse() }
        router.get("/v1/merchants/{id}/history") { _ in HTTPResponse() }
        router.get("/v1/events/{position}") { _ in HTTPResponse() }
        router.get("/v1/events/latest") { _ in HTTPResponse() }
        router.post("/v1/events") { _ in HTTPResponse() }
        router.get("/") { _ in HTTPResponse() }
        return router
    }

    static func pattern(_ match: Router.Match) -> String? {
        if case .found(let pattern, _, _) = match { pattern } else { nil }
    }

    @Test func parametersTakeOneWholeSegment() {
        let match = Self.router().match(.get, ["v1", "merchants", "a/b", "history"])
        guard case .found(let pattern, let parameters, _) = match else {
            Issue.record("no route for /v1/merchants/a%2Fb/history")
            return
        }
        #expect(pattern == "/v1/merchants/{id}/history")
        #expect(parameters == ["id": "a/b"])
    }

    @Test func literalSegmentsWinOverParameters() {
        #expect(Self.pattern(Self.router().match(.get, ["v1", "events", "latest"])) == "/v1/events/latest")
        #expect(Self.pattern(Self.router().match(.get, ["v1", "events", "17"])) == "/v1/events/{position}")
    }

    @Test(arguments: [["v1", "merchants"], ["v1", "merchants", ""], ["v1", "merchants", "m", ""], ["V1", "events"], ["nope"]])
    func pathsWithoutARouteAreNotFound(segments: [String]) {
        guard case .notFound = Self.router().match(.get, segments) else {
            Issue.record("\(segments) matched a route")
            return
        }
    }

    @Test func aPathWithOtherMethodsListsThem() {
        guard case .methodNotAllowed(let allowed) = Self.router().match(.delete, ["v1", "merchants", "m"]) else {
            Issue.record("DELETE matched")
            return
        }
        #expect(allowed == ["GET", "HEAD"])
        guard case .methodNotAllowed(let allowedForPost) = Self.router().match(.get, ["v1", "events"]) else {
            Issue.record("GET /v1/events matched")
            return
        }
        #expect(allowedForPost == ["POST"])
    }

    @Test func headRunsTheGetHandler() {
        #expect(Self.pattern(Self.router().match(.head, ["v1", "merchants", "m"])) == "/v1/merchants/{id}")
        #expect(Self.pattern(Self.router().match(.get, [""])) == "/")
    }

    @Test func theTableListsEveryRouteAndMethod() {
        let table = Self.router().table
        #expect(table.map(\.pattern) == ["/v1/merchants/{id}", "/v1/merchants/{id}/history", "/v1/events/{position}", "/v1/events/latest", "/v1/events", "/"])
        #expect(table.first { $0.pattern == "/v1/events" }?.methods == [.post])
    }
}
