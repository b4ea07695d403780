import HTTPServer
import JSON

/// One route of the API: what the router dispatches and what the OpenAPI document describes, from the one
/// registration (``GeoledgerAPI/routes``): its parameters (which the request is checked against before the handler
/// runs), its body, and every answer with its schema or its error codes.
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

    /// A query parameter, as the OpenAPI document describes it (``QueryParameter/documented``).
    public struct Parameter: Sendable {
        public let name: String
        public let description: String
        /// The JSON Schema of its value; for an object, its members are the query's names (style form, exploded).
        let schema: JSONValue
        /// The names it takes in the query: its own, or its members'.
        let names: [String]
        let isRequired: Bool

        init(_ name: String, _ description: String, schema: JSONValue, names: [String]? = nil, required: Bool = false) {
            self.name = name
            self.description = description
            self.schema = schema
            self.names = names ?? [name]
            isRequired = required
        }
    }

    /// The 200 answer: its body in each media type it comes in, and its headers.
    public struct Success: Sendable {
        let description: String
        /// Media type and schema, the default first.
        let content: [(mediaType: String, schema: JSONValue)]
        /// Header name, description and schema.
        let headers: [(name: String, description: String, schema: JSONValue)]

        init(_ description: String, _ content: [(String, JSONValue)], headers: [(String, String, JSONValue)] = []) {
            self.description = description
            self.content = content.map { (mediaType: $0.0, schema: $0.1) }
            self.headers = headers.map { (name: $0.0, description: $0.1, schema: $0.2) }
        }

        static func json(_ description: String, _ schema: JSONValue) -> Success {
            Success(description, [("application/json", schema)])
        }
    }

    /// An error answer: what it means and the `error.code`s it carries, or the document it answers instead.
    public struct Failure: Sendable {
        let description: String
        let codes: [String]
        /// The body, when it is not the error document.
        let answer: JSONValue?

        init(_ description: String, _ codes: [String]) {
            (self.description, self.codes, answer) = (description, codes, nil)
        }

        init(_ description: String, answer: JSONValue) {
            (self.description, codes, self.answer) = (description, [], answer)
        }
    }

    public let method: HTTPMethod
    /// A router pattern: `/v1/merchants/{id}`.
    public let pattern: String
    public let access: Access
    public let summary: String
    /// The `{name}` segments of the pattern, in order, with their schemas.
    let pathParameters: [Parameter]
    public let query: [Parameter]
    /// The request body by media type; empty when it reads none.
    let body: [(mediaType: String, schema: JSONValue)]
    let success: Success
    /// The error answers of the handler, by status; those of the access rule and of the server are added
    /// (``OpenAPIDocument``).
    let failures: [Int: Failure]
    let handler: Router.Handler

    init(
        _ method: HTTPMethod, _ pattern: String, access: Access, summary: String, path: [Parameter] = [],
        query: [Parameter] = [], body: [(String, JSONValue)] = [], success: Success, failures: [Int: Failure] = [:],
        handler: @escaping Router.Handler
    ) {
        let names = pattern.split(separator: "/").filter { $0.hasPrefix("{") }.map { String($0.dropFirst().dropLast()) }
        precondition(names == path.map(\.name), "\(pattern): its path parameters are \(names), described \(path.map(\.name))")
        self.method = method
        self.pattern = pattern
        self.access = access
        self.summary = summary
        self.pathParameters = path
        self.query = query
        self.body = body.map { (mediaType: $0.0, schema: $0.1) }
        self.success = success
        self.failures = failures
        self.handler = handler
    }

    /// Every name the query may hold.
    var queryNames: Set<String> { Set(query.flatMap(\.names)) }
}
