import HTTPServer
import LocationEvents
import Output
import Postgres
import Queries

// `GET /v1/merchants/{id}` and `GET /v1/terminals/{id}`: what `geoledger show` reads, as its JSON.

extension GeoledgerAPI {
    var stateRoutes: [APIRoute] {
        let id = { (kind: String) in [QueryParameter<String>.id("id", "the \(kind)'s id").documented] }
        return [
            APIRoute(
                .get, "/v1/merchants/{id}", access: .token(.read),
                summary: "A merchant's address position, latest fix, bound terminals and recent visits", path: id("merchant"),
                success: .json("The merchant", Schema.ref("Merchant")),
                failures: [400: .init("The id is malformed", ["invalid_id"]), 404: .init("No merchant with this id", ["not_found"])],
                handler: { [self] in try getMerchant($0) }),
            APIRoute(
                .get, "/v1/terminals/{id}", access: .token(.read), summary: "A terminal's binding, position and drift",
                path: id("terminal"), success: .json("The terminal", Schema.ref("Terminal")),
                failures: [400: .init("The id is malformed", ["invalid_id"]), 404: .init("No terminal with this id", ["not_found"])],
                handler: { [self] in try getTerminal($0) }),
        ]
    }

    func getMerchant(_ request: HTTPRequest) throws -> HTTPResponse {
        try current(request, kind: "merchant") { id, connection in try CurrentState().merchant(id, on: connection)?.document }
    }

    func getTerminal(_ request: HTTPRequest) throws -> HTTPResponse {
        try current(request, kind: "terminal") { id, connection in try CurrentState().terminal(id, on: connection)?.document }
    }

    private func current(
        _ request: HTTPRequest, kind: String, read: (String, Connection) throws -> Document?
    ) throws -> HTTPResponse {
        let id = request.pathParameters["id"] ?? ""
        guard EntityID.isValid(id) else {
            throw APIError(
                .badRequest, code: "invalid_id", message: "a \(kind) id is 1–64 characters of A–Z, a–z, 0–9, _ . : -, not . or ..",
                field: "id")
        }
        guard let document = try reading({ try read(id, $0) }) else {
            throw APIError(.notFound, code: "not_found", message: "no \(kind) \(id)")
        }
        // One line of JSON: the document `show --format ndjson` writes.
        return .json(Array(try document.rendered(as: .ndjson).utf8))
    }
}
