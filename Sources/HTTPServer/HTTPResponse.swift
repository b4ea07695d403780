import JSON

/// What a handler answers. The server sets `Content-Length`, `Date` and `X-Request-Id`, and gzips the
/// body when the client accepts it and it is worth it.
public struct HTTPResponse: Sendable, Equatable {
    public var status: HTTPStatus
    public var headers: HTTPHeaders
    public var body: [UInt8]
    /// Who the request was answered for (the name of the credential it carried), for the server's record of it
    /// (``HTTPServer/Configuration/completed``); never sent.
    public var principal: String?

    public init(status: HTTPStatus = .ok, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = [], principal: String? = nil) {
        self.status = status
        self.headers = headers
        self.body = body
        self.principal = principal
    }

    /// A JSON document already rendered to bytes, as `application/json`.
    public static func json(_ body: [UInt8], status: HTTPStatus = .ok) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": "application/json"], body: body)
    }

    /// The error document every failure answers with:
    /// `{"error":{"code":"...","message":"...","field":"..."}}`, `field` only when given.
    /// - Parameters:
    ///   - code: A stable machine-readable name, e.g. `not_found`.
    ///   - message: One sentence for people.
    ///   - field: The parameter or member at fault, when there is one.
    public static func error(_ status: HTTPStatus, code: String, message: String, field: String? = nil) -> HTTPResponse {
        var text = #"{"error":{"code":"# + JSONValue.quoted(code) + #","message":"# + JSONValue.quoted(message)
        if let field { text += #","field":"# + JSONValue.quoted(field) }
        text += "}}"
        return .json(Array(text.utf8), status: status)
    }
}
