import Foundation
import Geo
import HTTPServer
import Postgres
import Projections

/// The read-only web console of DESIGN.md ("Interfaces"), served beside the API by the same server: pages under `/`
/// for people with a browser, signed in with a token of scope `read` (or `admin`) that becomes a session of this
/// server. It reads what the API reads (``Queries``), through connections from the same pool, and never writes to the
/// database.
public final class Console: Sendable {
    /// Who a token names, as the console learns it at sign-in.
    public struct TokenHolder: Sendable, Equatable {
        public var name: String
        /// The id part of the token: how a revoked token is recognised without keeping the token.
        public var tokenId: String
        /// Scope `read` or `admin`.
        public var mayRead: Bool
        /// Its scopes, for the message to a token that may not read.
        public var scopes: String

        public init(name: String, tokenId: String, mayRead: Bool, scopes: String) {
            (self.name, self.tokenId, self.mayRead, self.scopes) = (name, tokenId, mayRead, scopes)
        }
    }

    /// How the console checks tokens: the API's own store, handed in by the application, so that one store decides
    /// for both doors.
    public struct Tokens: Sendable {
        /// The holder of a token sent to sign in, as the API would accept it from that request's connection; nil
        /// when the token is not one.
        public var holder: @Sendable (_ token: String, _ request: HTTPRequest) throws -> TokenHolder?
        /// Whether the token of this id still exists and may read: a session ends when its token is revoked.
        public var mayStillRead: @Sendable (_ tokenId: String) throws -> Bool

        public init(
            holder: @escaping @Sendable (String, HTTPRequest) throws -> TokenHolder?,
            mayStillRead: @escaping @Sendable (String) throws -> Bool
        ) {
            self.holder = holder
            self.mayStillRead = mayStillRead
        }
    }

    public let configuration: Configuration
    public let sessions: SessionStore
    let pool: ConnectionPool
    let projector: ProjectorRunner
    let tokens: Tokens
    let assets: Assets
    let converter: DatumConverter
    /// Messages for the server's log at start (Leaflet missing).
    public let notes: [String]
    /// Where failures the pages only summarise are told in full.
    let log: @Sendable (String) -> Void
    /// Told of each page answered 503 because the projections are behind, to count it with the API's.
    let projectionsBehind: @Sendable (ProjectionsBehind) -> Void

    /// - Parameters:
    ///   - classifier: decides where GCJ-02 applies, for drawing on GCJ-02 tiles.
    ///   - projectionsBehind: told of each page answered 503 because the projections are behind.
    public init(
        pool: ConnectionPool, projector: ProjectorRunner, tokens: Tokens, classifier: BoundaryClassifier,
        configuration: Configuration = Configuration(), log: @escaping @Sendable (String) -> Void = { _ in },
        projectionsBehind: @escaping @Sendable (ProjectionsBehind) -> Void = { _ in }
    ) throws {
        self.configuration = configuration
        self.log = log
        self.projectionsBehind = projectionsBehind
        self.pool = pool
        self.projector = projector
        self.tokens = tokens
        self.converter = DatumConverter(classifier: classifier)
        self.sessions = SessionStore(idleTimeout: configuration.sessionIdleTimeout, lifetime: configuration.sessionLifetime)
        let mapDatum = configuration.tiles?.datum ?? .wgs84
        assets = Assets(
            leafletDirectory: configuration.leafletDirectory,
            outlines: BaseLayer.geoJSON(try RegionOutlines.bundled(), datum: mapDatum))
        notes = assets.leaflet == nil
            ? ["the console's map is off: Leaflet is not in \(configuration.leafletDirectory) (apt-get install libjs-leaflet)"]
            : []
    }

    /// The console's routes, added to the API's.
    public func add(to router: inout Router) {
        for route in routes {
            router.add(route.method, route.pattern, handler(route))
        }
    }

    /// The patterns of the console's pages and files, for documentation and tests.
    public var patterns: [String] { routes.map(\.pattern) }

    struct Route {
        enum Access { case open, session }
        let method: HTTPMethod
        let pattern: String
        let access: Access
        let handler: @Sendable (PageRequest) throws -> HTTPResponse

        init(_ method: HTTPMethod = .get, _ pattern: String, _ access: Access = .session, _ handler: @escaping @Sendable (PageRequest) throws -> HTTPResponse) {
            (self.method, self.pattern, self.access, self.handler) = (method, pattern, access, handler)
        }
    }

    var routes: [Route] {
        [
            Route(.get, "/sign-in", .open) { [self] in signInPage($0) },
            Route(.post, "/sign-in", .open) { [self] in try signIn($0) },
            Route(.post, "/sign-out") { [self] in try signOut($0) },
            Route(.post, "/time-zone") { [self] in try setTimeZone($0) },
            Route(.get, "/") { [self] in try homePage($0) },
            Route(.get, "/search") { [self] in try searchPage($0) },
            Route(.get, "/merchants/{id}") { [self] in try merchantPage($0) },
            Route(.get, "/terminals/{id}") { [self] in try terminalPage($0) },
            Route(.get, "/enterprises/{id}") { [self] in try enterprisePage($0) },
            Route(.get, "/visits/{id}") { [self] in try visitPage($0) },
            Route(.get, "/reports") { [self] in reportsPage($0) },
            Route(.get, "/reports/{name}") { [self] in try reportPage($0) },
            Route(.get, "/reports/{name}/download") { [self] in try reportDownload($0) },
            Route(.get, "/favicon.ico", .open) { _ in HTTPResponse(status: .noContent) },
            Route(.get, "/console/{file}", .open) { [self] in assets.response($0.request.pathParameters["file"] ?? "", tileSource: tileSource) },
            Route(.get, "/console/images/{file}", .open) { [self] in
                assets.response("images/" + ($0.request.pathParameters["file"] ?? ""), tileSource: tileSource)
            },
        ]
    }

    var tileSource: String? { configuration.tiles?.source }

    /// A request to a page, with its session once it has one.
    struct PageRequest {
        let request: HTTPRequest
        /// The session's id, from its cookie.
        let sessionId: String?
        let session: ConsoleSession?

        var text: PageText { PageText(timeZone: session?.timeZone ?? TimeZone(identifier: "UTC")!) }
    }

    static let cookieName = "geoledger_session"

    private func handler(_ route: Route) -> Router.Handler {
        { [self] request in
            var response: HTTPResponse
            var principal: String?
            do {
                let sessionId = Cookies.value(Self.cookieName, in: request.headers.combined("Cookie"))
                // The open routes (sign-in, the files) look no session up: a page's files cost no query.
                var session = route.access == .session ? sessionId.flatMap { sessions.session($0) } : nil
                if let current = session, try !tokens.mayStillRead(current.tokenId) {
                    sessions.close(tokenId: current.tokenId)
                    session = nil
                }
                principal = session?.tokenName
                if route.access == .session && session == nil {
                    response = signInRedirect(request)
                } else {
                    response = try route.handler(PageRequest(request: request, sessionId: sessionId, session: session))
                }
            } catch ProjectionError.behind(let behind) {
                projectionsBehind(behind)
                response = errorPage(
                    .serviceUnavailable, "The projections are behind",
                    "\(behind). The page is not shown stale: reload it in a moment.", retryAfter: 1)
            } catch let error as PostgresError {
                log("request \(request.id) \(request.method) \(request.path): \(error)")
                let unreachable = error.isConnectionFailure || error.kind == .pool || error.sqlState == nil
                response = errorPage(
                    unreachable ? .serviceUnavailable : .internalServerError,
                    unreachable ? "The database cannot be reached" : "The database refused the read",
                    "Request \(request.id) could not be answered; the server's log says why. Reload the page in a moment.",
                    retryAfter: unreachable ? 5 : nil)
            } catch let error as PageError {
                response = errorPage(error.status, error.title, error.message)
            } catch {
                log("request \(request.id) \(request.method) \(request.path) failed: \(error)")
                response = errorPage(.internalServerError, "The page failed", "Request \(request.id) failed; the server's log says why.")
            }
            if !response.headers.contains("Content-Security-Policy") {
                SecurityHeaders.apply(to: &response.headers, tileSource: tileSource)
            }
            response.principal = principal
            return response
        }
    }

    /// 303 to the sign-in page, which comes back here once signed in.
    func signInRedirect(_ request: HTTPRequest) -> HTTPResponse {
        var target = request.path
        let query = HTML.query(request.query.map { ($0.name, Optional($0.value)) })
        if !query.isEmpty { target += "?" + query }
        return Self.redirect("/sign-in?" + HTML.query([("next", target)]))
    }

    static func redirect(_ location: String) -> HTTPResponse {
        var response = HTTPResponse(status: 303, body: Array("See \(location)\n".utf8))
        response.headers.set("Location", location)
        response.headers.set("Content-Type", "text/plain; charset=utf-8")
        return response
    }

    /// Runs `body` on a connection once the projections hold every event committed before the call, as the API's
    /// reads do.
    func reading<T>(_ body: (Connection) throws -> T) throws -> T {
        try pool.withConnection { connection in
            try projector.awaitProjected(on: connection)
            return try body(connection)
        }
    }
}

/// A page that cannot be shown, with what to tell the person who asked.
struct PageError: Error {
    let status: HTTPStatus
    let title: String
    let message: String

    init(_ status: HTTPStatus, _ title: String, _ message: String) {
        (self.status, self.title, self.message) = (status, title, message)
    }
}
