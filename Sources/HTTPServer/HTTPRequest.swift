/// One request, read whole: the body has arrived (and been inflated when it was gzip) before a handler sees it.
public struct HTTPRequest: Sendable {
    /// Names this request in logs and in the `X-Request-Id` response header.
    public let id: String
    public let method: HTTPMethod
    /// The path, percent-decoded.
    public let path: String
    /// The route pattern that matched, e.g. `/v1/merchants/{id}`; `nil` before routing.
    public let route: String?
    /// The values of the route's `{name}` segments, each percent-decoded on its own.
    public let pathParameters: [String: String]
    public let query: QueryParameters
    public let headers: HTTPHeaders
    public let body: [UInt8]
    /// The client's IP address, e.g. `127.0.0.1` or `::1`.
    public let remoteAddress: String
    /// The client's verified certificate, on a mutual-TLS connection.
    public var clientCertificate: ClientCertificate?
    /// The request on its way through the server; nil for a request made outside one.
    var context: RequestContext?

    public init(
        id: String, method: HTTPMethod, path: String, route: String? = nil, pathParameters: [String: String] = [:],
        query: QueryParameters = QueryParameters(), headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = [],
        remoteAddress: String = "", clientCertificate: ClientCertificate? = nil
    ) {
        self.id = id
        self.method = method
        self.path = path
        self.route = route
        self.pathParameters = pathParameters
        self.query = query
        self.headers = headers
        self.body = body
        self.remoteAddress = remoteAddress
        self.clientCertificate = clientCertificate
    }

    /// Call right before the handler's point of no return (a COMMIT), inside its transaction: true when the
    /// answer is the handler's — the server has not cut the request off, and a stopping server now waits for
    /// the handler's answer (keep what follows short). False when the server stopping answered 503
    /// `shutting_down` already: then undo (roll back) and store nothing. Always true outside a server.
    public func beginCommit() -> Bool {
        context?.beginCommit() ?? true
    }
}

/// The query string's parameters in order, names and values percent-decoded (`+` is a space).
/// A name given without `=` has the empty value.
public struct QueryParameters: Sendable, Equatable, Sequence {
    public typealias Item = (name: String, value: String)

    private let items: [Item]

    public init(_ items: [Item] = []) {
        self.items = items
    }

    /// The first value of `name`.
    public subscript(name: String) -> String? {
        items.first { $0.name == name }?.value
    }

    /// Every value of `name`, in order.
    public func values(for name: String) -> [String] {
        items.filter { $0.name == name }.map(\.value)
    }

    public var count: Int { items.count }

    public func makeIterator() -> IndexingIterator<[Item]> {
        items.makeIterator()
    }

    public static func == (lhs: QueryParameters, rhs: QueryParameters) -> Bool {
        lhs.items.count == rhs.items.count && zip(lhs.items, rhs.items).allSatisfy { $0 == $1 }
    }
}
