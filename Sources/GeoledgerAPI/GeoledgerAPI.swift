import Foundation
import HTTPServer
import Ingestion
import JSON
import LocationEvents
import Postgres
import Projections
import Synchronization

/// The HTTP API of DESIGN.md ("Interfaces"): its routes, their access rules, the request log and the metrics.
/// Handlers run on the server's worker threads and take connections from ``pool``, sized to them.
public final class GeoledgerAPI: Sendable {
    /// The API's settings, built once by the application and handed in.
    public struct Configuration: Sendable {
        /// Whether `/metrics` answers clients beyond the loopback interface (no token asked).
        public var publicMetrics: Bool
        /// The most events one POST may hold; more are answered 413.
        public var maximumBatchItems: Int
        /// The `Retry-After` of a 503 while the database cannot be reached, in seconds.
        public var retryAfterSeconds: Int
        /// Where each request's log line goes (one JSON object, no newline), and the server's other messages.
        public var log: @Sendable (String) -> Void

        public init(
            publicMetrics: Bool = false, maximumBatchItems: Int = 10_000, retryAfterSeconds: Int = 5,
            log: @escaping @Sendable (String) -> Void = { _ in }
        ) {
            self.publicMetrics = publicMetrics
            self.maximumBatchItems = maximumBatchItems
            self.retryAfterSeconds = retryAfterSeconds
            self.log = log
        }
    }

    public let configuration: Configuration
    public let pool: ConnectionPool
    public let metrics = Metrics()
    let service: IngestService
    /// Keeps the projections behind the log: the service hands it what it appends, reads wait for it, and appends
    /// are held back while it is too far behind. `serve` runs it in the background; otherwise each read projects
    /// what it needs itself.
    public let projector: ProjectorRunner
    /// Where every batch is appended, in turn.
    let writer: BatchAppender
    /// Decided batches that may wait while another is written.
    static let decidedAhead = 3
    /// Batches decided together hold at most this many items, unless one alone holds more. Small batches that
    /// arrive together are joined up to a size at which a transaction's fixed costs no longer matter; larger ones
    /// are written alone.
    static let joinedEvents = 1000
    /// Stream heads and terminal bindings the appender keeps between batches, at most: about what the last ten
    /// joined batches touched. The server runs for months and takes batches from every client, so it keeps those of
    /// the streams it appended to lately, which a client's retry or next batch finds, and reads the rest again: its
    /// memory stays the same however many streams the log holds.
    static let remembered = 10 * joinedEvents
    let tokens = TokenStore()
    /// The server's connection counts, once ``serving(_:)`` has named it.
    private let connections = Mutex<@Sendable () -> HTTPServer.ConnectionStatistics?>({ nil })

    /// - Parameter service: appends hand their events to its projector; without one, the API makes its own, on the
    ///   pool's database.
    public init(pool: ConnectionPool, service: IngestService, configuration: Configuration = Configuration()) {
        let projector = service.projector ?? ProjectorRunner(configuration: pool.configuration)
        let service = service.projector == nil ? service.handingOver(to: projector) : service
        self.pool = pool
        self.service = service
        self.projector = projector
        self.writer = BatchAppender(
            service: service, deciding: .pool(pool), writing: .pool(pool), decidedAhead: Self.decidedAhead,
            joinedEvents: Self.joinedEvents, remembering: Self.remembered)
        self.configuration = configuration
    }

    /// Names the server these routes are served by, whose connections `/metrics` then counts.
    public func serving(_ server: HTTPServer) {
        // Weak: the server holds the routes, which hold this API.
        connections.withLock { $0 = { [weak server] in server?.connectionStatistics } }
    }

    /// Runs `body` on a connection once the projections hold every event committed before the call.
    func reading<T>(_ body: (Connection) throws -> T) throws -> T {
        try pool.withConnection { connection in
            try projector.awaitProjected(on: connection)
            return try body(connection)
        }
    }

    /// Every route, in the order the OpenAPI document lists them. A new route is one entry in one of these lists and
    /// its handler.
    public var routes: [APIRoute] {
        eventRoutes + stateRoutes + serviceRoutes + queryRoutes
    }

    /// The health, readiness, metrics and this document.
    private var serviceRoutes: [APIRoute] {
        let status = { (value: String) in
            Schema.object([("status", Schema.string(values: [value]))], required: ["status"])
        }
        return [
            APIRoute(
                .get, "/healthz", access: .open, summary: "The server is up", success: .json("Up", status("ok")),
                handler: { _ in .json(Array(#"{"status":"ok"}"#.utf8)) }),
            APIRoute(
                .get, "/readyz", access: .open, summary: "The database answers", success: .json("Ready", status("ready")),
                failures: [
                    503: .init(
                        "The database cannot be reached, or the projector is behind and failing or not moving",
                        ["database_unavailable", "projector_stuck"]),
                ], handler: { [self] in try readiness($0) }),
            APIRoute(
                .get, "/metrics", access: .loopback, summary: "Prometheus metrics",
                success: .init(
                    "Metrics in the Prometheus text format, version 0.0.4",
                    [("text/plain", Schema.string("# HELP, # TYPE and sample lines"))]),
                handler: { [self] _ in
                    metrics.response(pool: pool, projector: projector.status, connections: connections.withLock { $0 }())
                }),
            APIRoute(
                .get, "/openapi.json", access: .open, summary: "This document",
                success: .json("The OpenAPI 3.1 document", Schema.object([("openapi", Schema.string(values: ["3.1.0"]))] , required: ["openapi"], additional: true)),
                handler: { [self] _ in .json(Array(openAPIDocument.canonicalData())) }),
        ]
    }

    /// The OpenAPI 3.1 document of ``routes``.
    public var openAPIDocument: JSONValue {
        OpenAPIDocument.document(for: routes, limits: ValidationLimits())
    }

    /// The routes with their access checks, error answers and bookkeeping, for ``HTTPServer/start(_:router:)``.
    public var router: Router {
        var router = Router()
        for route in routes {
            router.add(route.method, route.pattern, guarded(route))
        }
        return router
    }

    /// Records a request's answer: one JSON line in the log, and the metrics. For
    /// ``HTTPServer/Configuration/completed``.
    public func completed(_ request: CompletedRequest) {
        metrics.record(request)
        configuration.log(RequestLog.line(request))
    }

    /// Writes a message to the log, as a JSON line with the time.
    public func log(_ message: String) {
        configuration.log(RequestLog.message(message))
    }

    // MARK: Around every handler

    /// Runs `route`'s handler once its access rule allows it; answers 503 with `Retry-After` while the database
    /// cannot be reached.
    private func guarded(_ route: APIRoute) -> Router.Handler {
        { [self] request in
            var principal: String?
            var response: HTTPResponse
            do {
                principal = try authorize(route.access, request)
                try request.acceptOnly(route.queryNames)
                response = try route.handler(request)
            } catch let error as APIError {
                response = error.response
            } catch ProjectionError.behind(let behind) {
                response = projectionsBehind(behind)
            } catch let error as PostgresError {
                metrics.recordDatabaseError()
                response = databaseFailure(error, request: request)
            } catch {
                log("request \(request.id) \(request.method) \(route.pattern) failed: \(error)")
                response = .error(
                    .internalServerError, code: "internal_error", message: "the server failed to answer request \(request.id)")
            }
            response.principal = principal
            return response
        }
    }

    /// The name of the token that may call a route, nil for routes open to the caller.
    private func authorize(_ access: APIRoute.Access, _ request: HTTPRequest) throws -> String? {
        switch access {
        case .open:
            return nil
        case .loopback:
            guard configuration.publicMetrics || Self.isLoopback(request.remoteAddress) else {
                throw APIError(
                    .forbidden, code: "loopback_only",
                    message: "\(request.path) answers clients on the loopback interface only (serve --public-metrics opens it)")
            }
            return nil
        case .token(let scope):
            let sent = request.headers.values(for: "Authorization")
            guard let header = sent.first else {
                throw Self.unauthorized("send a token: Authorization: Bearer <token> (geoledger token create)")
            }
            guard sent.count == 1 else { throw Self.unauthorized("send one Authorization header, not \(sent.count)") }
            let parts = header.split(separator: " ", maxSplits: 1)
            guard parts.count == 2, parts[0].lowercased() == "bearer" else {
                throw Self.unauthorized("the Authorization header must be: Bearer <token>")
            }
            let text = parts[1].trimmingCharacters(in: .whitespaces)
            guard let token = try pool.withConnection({ try tokens.authenticate(text, on: $0) }) else {
                throw Self.unauthorized("the token is not known: it is malformed, or was revoked")
            }
            if let bound = token.clientCertificateSHA256, request.clientCertificate?.sha256 != bound {
                throw Self.unauthorized(
                    "token \(token.name) is bound to a client certificate, and this connection "
                        + (request.clientCertificate == nil ? "presented none" : "presented another"))
            }
            guard scope.isGranted(by: Set(token.scopes)) else {
                var error = APIError(
                    .forbidden, code: "insufficient_scope",
                    message: "token \(token.name) has scopes \(token.scopes.map(\.rawValue).joined(separator: ",")); "
                        + "this needs \(scope.rawValue) or admin")
                error.response.principal = token.name
                throw error
            }
            return token.name
        }
    }

    private static func unauthorized(_ message: String) -> APIError {
        var error = APIError(.unauthorized, code: "unauthorized", message: message)
        error.response.headers.set("WWW-Authenticate", #"Bearer realm="geoledger""#)
        return error
    }

    static func isLoopback(_ address: String) -> Bool {
        address == "::1" || address.hasPrefix("127.") || address.hasPrefix("::ffff:127.")
    }

    /// 503 while the database cannot be reached (the pool drops broken connections, so a later request connects
    /// anew), saying so when it broke during COMMIT, which may have committed; 500 for any other database error.
    private func databaseFailure(_ error: PostgresError, request: HTTPRequest) -> HTTPResponse {
        log("request \(request.id) \(request.method) \(request.path): \(error)")
        if error.isDiskFull { return Self.full(retryAfter: configuration.retryAfterSeconds, request: request) }
        // An error without a SQLSTATE came from libpq, not the server: the connection is gone (a COPY or a COMMIT
        // cut off by a server that stopped), so the pool drops it.
        let unreachable = error.isConnectionFailure || error.kind == .pool
            || (error.sqlState == nil && error.kind != .encoding && error.kind != .decoding)
        guard unreachable else {
            return .error(
                .internalServerError, code: "database_error",
                message: "the database refused request \(request.id); nothing of it was stored")
        }
        guard error.isCommitOutcomeUnknown else { return Self.unavailable(retryAfter: configuration.retryAfterSeconds) }
        return Self.unavailable(
            retryAfter: configuration.retryAfterSeconds,
            message: "the connection to the database broke while request \(request.id) was committing, so its events may "
                + "or may not be stored; send it again in \(configuration.retryAfterSeconds) s: those stored answer duplicate")
    }

    static func unavailable(retryAfter: Int, message: String? = nil) -> HTTPResponse {
        var response = HTTPResponse.error(
            .serviceUnavailable, code: "database_unavailable",
            message: message ?? "the database cannot be reached; nothing was stored; retry in \(retryAfter) s")
        response.headers.set("Retry-After", String(retryAfter))
        return response
    }

    /// 503 `database_full`: the database has no space left to write. The statement failed inside its transaction,
    /// which was rolled back: nothing of the request was stored, and it may be sent again as it is.
    static func full(retryAfter: Int, request: HTTPRequest) -> HTTPResponse {
        var response = HTTPResponse.error(
            .serviceUnavailable, code: "database_full",
            message: "the database has no space left to write, so nothing of request \(request.id) was stored; send it "
                + "again once space is freed (retry in \(retryAfter) s)")
        response.headers.set("Retry-After", String(retryAfter))
        return response
    }

    /// 503 `projections_behind`: a read that would have missed acknowledged writes, or an append held back.
    private func projectionsBehind(_ behind: ProjectionsBehind) -> HTTPResponse {
        metrics.recordProjectionsBehind(behind.kind)
        let retryAfter = behind.kind == .read ? 1 : configuration.retryAfterSeconds
        var response = HTTPResponse.error(
            .serviceUnavailable, code: "projections_behind",
            message: "\(behind)\(behind.kind == .append ? "; nothing was stored" : ""); retry in \(retryAfter) s")
        response.headers.set("Retry-After", String(retryAfter))
        return response
    }

    /// Seconds a projector that is behind may go without moving before `/readyz` calls it stuck.
    static let stuckAfterSeconds = 30.0

    private func readiness(_ request: HTTPRequest) throws -> HTTPResponse {
        _ = try pool.withConnection { try $0.query("SELECT 1") }
        let status = projector.status
        guard !status.isStuck(after: Self.stuckAfterSeconds) else {
            let reason = status.lastError.map { "it fails: \($0)" }
                ?? "it has not moved for over \(Int(Self.stuckAfterSeconds)) s"
            var response = HTTPResponse.error(
                .serviceUnavailable, code: "projector_stuck",
                message: "the projections are \(status.lag) events behind the log and \(reason); reads answer 503 "
                    + "projections_behind until it recovers")
            response.headers.set("Retry-After", String(configuration.retryAfterSeconds))
            return response
        }
        return .json(Array(#"{"status":"ready"}"#.utf8))
    }
}
