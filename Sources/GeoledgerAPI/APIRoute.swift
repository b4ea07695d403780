import HTTPServer

/// One route of the API: what the router dispatches and what the OpenAPI document describes, from the one
/// registration (``GeoledgerAPI/routes``).
public struct APIRoute: Sendable {
    /// Who may call a route.
    public enum Access: Sendable, Equatable {
        /// Anyone: health and readiness, the OpenAPI document.
        case open
        /// Clients on the loopback interface, or anyone when the API is configured with public metrics.
        case loopback
        /// A bearer token holding the scope (or `admin`).
        case token(TokenScope)
    }

    /// A query parameter, as the OpenAPI document describes it.
    public struct Parameter: Sendable {
        public let name: String
        /// A JSON Schema type: `integer`, `string`, `boolean`.
        public let type: String
        public let description: String

        public init(_ name: String, _ type: String, _ description: String) {
            self.name = name
            self.type = type
            self.description = description
        }
    }

    public let method: HTTPMethod
    /// A router pattern: `/v1/merchants/{id}`.
    public let pattern: String
    public let access: Access
    public let summary: String
    public let query: [Parameter]
    /// The media types of the request body it reads; empty when it reads none.
    public let accepts: [String]
    /// Its answers, by status, with a sentence each; 401, 403 and 503 are added for routes that need a token.
    public let responses: [Int: String]
    /// The media type of a 200 answer.
    public let produces: String
    /// The other media types of a 200 answer, which the route's `format` parameter picks.
    public let alsoProduces: [String]
    /// The headers of a 200 answer worth describing, with a sentence each (such as the next page's `Link`).
    public let responseHeaders: [String: String]
    public let handler: Router.Handler

    public init(
        _ method: HTTPMethod, _ pattern: String, access: Access, summary: String, query: [Parameter] = [],
        accepts: [String] = [], responses: [Int: String], produces: String = "application/json",
        alsoProduces: [String] = [], responseHeaders: [String: String] = [:], handler: @escaping Router.Handler
    ) {
        self.method = method
        self.pattern = pattern
        self.access = access
        self.summary = summary
        self.query = query
        self.accepts = accepts
        self.responses = responses
        self.produces = produces
        self.alsoProduces = alsoProduces
        self.responseHeaders = responseHeaders
        self.handler = handler
    }

    /// The `{name}` segments of the pattern, in order.
    var pathParameters: [String] {
        pattern.split(separator: "/").filter { $0.hasPrefix("{") && $0.hasSuffix("}") }.map { String($0.dropFirst().dropLast()) }
    }
}
