/// Routes by method and path. A pattern is a path whose segments are literal text or `{name}`:
/// `/v1/merchants/{id}/history`. Where two patterns match a path, the one with literal text earlier wins,
/// so `/v1/events/latest` is preferred over `/v1/events/{id}`. A `HEAD` request runs the `GET` handler
/// when the route has no `HEAD` handler of its own (libmicrohttpd leaves out the body).
public struct Router: Sendable {
    /// Runs on one of the server's worker threads, never on Swift's cooperative pool: it may block.
    /// A thrown error answers 500 with the request id; the error goes to the server's log, not to the client.
    public typealias Handler = @Sendable (HTTPRequest) throws -> HTTPResponse

    struct Route: Sendable {
        let pattern: String
        let segments: [Segment]
        var handlers: [HTTPMethod: Handler]
    }

    enum Segment: Sendable, Equatable {
        case literal(String)
        case parameter(String)
    }

    enum Match {
        case found(pattern: String, parameters: [String: String], handler: Handler)
        /// The path exists but not for this method; the methods it has, sorted.
        case methodNotAllowed(allowed: [String])
        case notFound
    }

    private(set) var routes: [Route] = []

    public init() {}

    /// Adds `handler` for `method` on `pattern`. A malformed pattern, or a second handler for the same method and
    /// pattern, is a programming error and stops the program.
    public mutating func add(_ method: HTTPMethod, _ pattern: String, _ handler: @escaping Handler) {
        let segments = Self.parse(pattern)
        if let index = routes.firstIndex(where: { $0.segments == segments }) {
            precondition(routes[index].handlers[method] == nil, "\(method) \(pattern) is routed twice")
            routes[index].handlers[method] = handler
        } else {
            routes.append(Route(pattern: pattern, segments: segments, handlers: [method: handler]))
        }
    }

    public mutating func get(_ pattern: String, _ handler: @escaping Handler) { add(.get, pattern, handler) }
    public mutating func post(_ pattern: String, _ handler: @escaping Handler) { add(.post, pattern, handler) }
    public mutating func put(_ pattern: String, _ handler: @escaping Handler) { add(.put, pattern, handler) }
    public mutating func delete(_ pattern: String, _ handler: @escaping Handler) { add(.delete, pattern, handler) }

    /// Every pattern with its methods, in the order they were added (for documentation and tests).
    public var table: [(pattern: String, methods: [HTTPMethod])] {
        routes.map { ($0.pattern, $0.handlers.keys.sorted { $0.rawValue < $1.rawValue }) }
    }

    /// Finds the route for a path given as its percent-decoded segments (the path `/a/b` is `["a", "b"]`).
    func match(_ method: HTTPMethod, _ segments: [String]) -> Match {
        var best: (route: Route, parameters: [String: String], rank: [Bool])?
        for route in routes where route.segments.count == segments.count {
            var parameters: [String: String] = [:]
            var rank: [Bool] = []
            var matches = true
            for (segment, text) in zip(route.segments, segments) {
                switch segment {
                case .literal(let literal):
                    matches = literal == text
                    rank.append(true)
                case .parameter(let name):
                    matches = !text.isEmpty
                    parameters[name] = text
                    rank.append(false)
                }
                if !matches { break }
            }
            guard matches else { continue }
            if best == nil || Self.ranksBefore(rank, best!.rank) { best = (route, parameters, rank) }
        }
        guard let best else { return .notFound }
        let handlers = best.route.handlers
        if let handler = handlers[method] ?? (method == .head ? handlers[.get] : nil) {
            return .found(pattern: best.route.pattern, parameters: best.parameters, handler: handler)
        }
        var allowed = Set(handlers.keys.map(\.rawValue))
        if allowed.contains("GET") { allowed.insert("HEAD") }
        return .methodNotAllowed(allowed: allowed.sorted())
    }

    /// Literal segments before parameter segments, from the left.
    private static func ranksBefore(_ a: [Bool], _ b: [Bool]) -> Bool {
        for (x, y) in zip(a, b) where x != y { return x }
        return false
    }

    static func parse(_ pattern: String) -> [Segment] {
        precondition(pattern.hasPrefix("/"), "route pattern \(pattern) does not start with /")
        var names = Set<String>()
        return pattern.dropFirst().split(separator: "/", omittingEmptySubsequences: false).map { part in
            if part.hasPrefix("{") && part.hasSuffix("}") && part.count > 2 {
                let name = String(part.dropFirst().dropLast())
                precondition(
                    !name.contains("{") && !name.contains("}"), "route pattern \(pattern) has a malformed parameter")
                precondition(names.insert(name).inserted, "route pattern \(pattern) names {\(name)} twice")
                return .parameter(name)
            }
            precondition(!part.contains("{") && !part.contains("}"), "route pattern \(pattern) has a malformed parameter")
            return .literal(String(part))
        }
    }
}
