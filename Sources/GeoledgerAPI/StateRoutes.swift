import HTTPServer
import LocationEvents
import Output
import Postgres
import Queries

// `GET /v1/merchants/{id}` and `GET /v1/terminals/{id}`: what `geoledger show` reads, as its JSON.

extension GeoledgerAPI {
    func getMerchant(_ request: HTTPRequest) throws -> HTTPResponse {
        try current(request, kind: "merchant") { id, connection in try CurrentState().merchant(id, on: connection)?.document }
    }

    func getTerminal(_ request: HTTPRequest) throws -> HTTPResponse {
        try current(request, kind: "terminal") { id, connection in try CurrentState().terminal(id, on: connection)?.document }
    }

    private func current(
        _ request: HTTPRequest, kind: String, read: (String, Connection) throws -> Document?
    ) throws -> HTTPResponse {
        try request.acceptOnly([])
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
