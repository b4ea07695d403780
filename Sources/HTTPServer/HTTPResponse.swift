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
        var text = #"{"error":{"code":"# + jsonString(code) + #","message":"# + jsonString(message)
        if let field { text += #","field":"# + jsonString(field) }
        text += "}}"
        return .json(Array(text.utf8), status: status)
    }
}

/// A JSON string literal. The error document is the only JSON this module writes; everything else is
/// rendered by the application and handed over as bytes.
func jsonString(_ text: String) -> String {
    var out = "\""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case "\n": out += "\\n"
        case "\r": out += "\\r"
        case "\t": out += "\\t"
        case _ where scalar.value < 0x20:
            let hex = String(scalar.value, radix: 16)
            out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        default: out.unicodeScalars.append(scalar)
        }
    }
    return out + "\""
}
