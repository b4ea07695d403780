import Foundation
import HTTPServer
import Postgres
import Projections
import Synchronization

/// The counters `/metrics` shows, in the Prometheus text format (version 0.0.4): requests by route, method and
/// status; a latency histogram by route; events by type and per-item status; batches by where they were decided; the
/// connection pool; database errors.
public final class Metrics: Sendable {
    static let contentType = "text/plain; version=0.0.4; charset=utf-8"
    /// Upper bounds of the latency histogram's buckets, in seconds.
    static let bounds: [Double] = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

    private let state = Mutex(State())

    private struct State {
        var requests: [RequestKey: Int] = [:]
        var latency: [String: Histogram] = [:]
        var events: [EventKey: Int] = [:]
        var batchesDecidedAhead = 0
        var batchesDecidedUnderLock = 0
        var databaseErrors = 0
        var readsBehind = 0
        var appendsBehind = 0
    }

    private struct RequestKey: Hashable {
        let route: String
        let method: String
        let status: Int
    }

    private struct EventKey: Hashable {
        let type: String
        let status: String
    }

    private struct Histogram {
        var counts = [Int](repeating: 0, count: Metrics.bounds.count)
        var total = 0
        var sum = 0.0
    }

    public init() {}

    func record(_ request: CompletedRequest) {
        let route = request.route ?? "unmatched"
        let seconds = Double(request.duration.components.seconds) + Double(request.duration.components.attoseconds) / 1e18
        state.withLock { state in
            state.requests[RequestKey(route: route, method: request.method.rawValue, status: request.status.rawValue), default: 0] += 1
            var histogram = state.latency[route] ?? Histogram()
            for (index, bound) in Self.bounds.enumerated() where seconds <= bound { histogram.counts[index] += 1 }
            histogram.total += 1
            histogram.sum += seconds
            state.latency[route] = histogram
        }
    }

    func recordEvents(types: [String], statuses: [String]) {
        state.withLock { state in
            for (type, status) in zip(types, statuses) { state.events[EventKey(type: type, status: status), default: 0] += 1 }
        }
    }

    func recordBatch(decidedAhead: Bool) {
        state.withLock { state in
            if decidedAhead { state.batchesDecidedAhead += 1 } else { state.batchesDecidedUnderLock += 1 }
        }
    }

    /// Counts a request answered 503 because the projections are behind: the API's, and the console's pages.
    public func recordProjectionsBehind(_ kind: ProjectionsBehind.Kind) {
        state.withLock { state in
            switch kind {
            case .read: state.readsBehind += 1
            case .append: state.appendsBehind += 1
            }
        }
    }

    func recordDatabaseError() {
        state.withLock { $0.databaseErrors += 1 }
    }

    func response(
        pool: ConnectionPool, projector: ProjectorRunner.Status, connections: HTTPServer.ConnectionStatistics?
    ) -> HTTPResponse {
        HTTPResponse(
            status: .ok, headers: ["Content-Type": Self.contentType],
            body: Array(text(pool: pool, projector: projector, connections: connections).utf8))
    }

    /// The exposition text.
    /// - Parameter connections: the HTTP server's connections; their lines are left out without them.
    public func text(
        pool: ConnectionPool, projector: ProjectorRunner.Status, connections: HTTPServer.ConnectionStatistics? = nil
    ) -> String {
        let state = state.withLock { $0 }
        var lines: [String] = []
        lines += [
            "# HELP geoledger_http_requests_total HTTP requests answered, by route pattern, method and status.",
            "# TYPE geoledger_http_requests_total counter",
        ]
        for (key, count) in state.requests.sorted(by: { ($0.key.route, $0.key.method, $0.key.status) < ($1.key.route, $1.key.method, $1.key.status) }) {
            lines.append("geoledger_http_requests_total{route=\(Self.quoted(key.route)),method=\(Self.quoted(key.method)),status=\"\(key.status)\"} \(count)")
        }
        lines += [
            "# HELP geoledger_http_request_duration_seconds Time from a request's headers to its answer, by route pattern.",
            "# TYPE geoledger_http_request_duration_seconds histogram",
        ]
        for (route, histogram) in state.latency.sorted(by: { $0.key < $1.key }) {
            let label = "route=\(Self.quoted(route))"
            for (bound, count) in zip(Self.bounds, histogram.counts) {
                lines.append("geoledger_http_request_duration_seconds_bucket{\(label),le=\"\(bound)\"} \(count)")
            }
            lines.append("geoledger_http_request_duration_seconds_bucket{\(label),le=\"+Inf\"} \(histogram.total)")
            lines.append("geoledger_http_request_duration_seconds_sum{\(label)} \(histogram.sum)")
            lines.append("geoledger_http_request_duration_seconds_count{\(label)} \(histogram.total)")
        }
        lines += [
            "# HELP geoledger_events_total Submitted events by type and what became of them (appended, duplicate, conflict, invalid, not_appended).",
            "# TYPE geoledger_events_total counter",
        ]
        for (key, count) in state.events.sorted(by: { ($0.key.type, $0.key.status) < ($1.key.type, $1.key.status) }) {
            lines.append("geoledger_events_total{type=\(Self.quoted(key.type)),status=\(Self.quoted(key.status))} \(count)")
        }
        lines += [
            "# HELP geoledger_batches_total Batches of POST /v1/events answered, by where they were decided: ahead of the "
                + "append lock, or under it (atomic batches, and those after a failed batch or another writer's append).",
            "# TYPE geoledger_batches_total counter",
            "geoledger_batches_total{decided=\"ahead\"} \(state.batchesDecidedAhead)",
            "geoledger_batches_total{decided=\"under_lock\"} \(state.batchesDecidedUnderLock)",
            "# HELP geoledger_db_pool_connections_in_use Database connections held by requests now.",
            "# TYPE geoledger_db_pool_connections_in_use gauge",
            "geoledger_db_pool_connections_in_use \(pool.connectionsInUse)",
            "# HELP geoledger_db_pool_connections_open Database connections open now, idle or in use.",
            "# TYPE geoledger_db_pool_connections_open gauge",
            "geoledger_db_pool_connections_open \(pool.openConnections)",
            "# HELP geoledger_db_pool_connections_max The most database connections the pool opens.",
            "# TYPE geoledger_db_pool_connections_max gauge",
            "geoledger_db_pool_connections_max \(pool.maximumConnections)",
            "# HELP geoledger_database_errors_total Requests a database error failed (unreachable, broken connection, refused statement).",
            "# TYPE geoledger_database_errors_total counter",
            "geoledger_database_errors_total \(state.databaseErrors)",
        ]
        if let connections { lines += Self.connectionLines(connections) }
        lines += Self.projectorLines(projector, readsBehind: state.readsBehind, appendsBehind: state.appendsBehind)
        return lines.joined(separator: "\n") + "\n"
    }

    /// The HTTP server's connections against its limits, and those the limits refused.
    static func connectionLines(_ connections: HTTPServer.ConnectionStatistics) -> [String] {
        [
            "# HELP geoledger_http_connections_open HTTP connections open now.",
            "# TYPE geoledger_http_connections_open gauge",
            "geoledger_http_connections_open \(connections.open)",
            "# HELP geoledger_http_connections_max The most HTTP connections open at once (serve --max-connections).",
            "# TYPE geoledger_http_connections_max gauge",
            "geoledger_http_connections_max \(connections.maximum)",
            "# HELP geoledger_http_connections_per_client_max The most HTTP connections open at once from one client "
                + "address (serve --max-connections-per-client); 0 for no limit.",
            "# TYPE geoledger_http_connections_per_client_max gauge",
            "geoledger_http_connections_per_client_max \(connections.maximumPerClient)",
            "# HELP geoledger_http_connections_refused_total HTTP connections refused as they opened, by the limit they "
                + "were past: total (503) or per_client (429).",
            "# TYPE geoledger_http_connections_refused_total counter",
            "geoledger_http_connections_refused_total{limit=\"total\"} \(connections.refusedOverMaximum)",
            "geoledger_http_connections_refused_total{limit=\"per_client\"} \(connections.refusedOverPerClient)",
            "# HELP geoledger_http_idle_timeout_seconds Seconds a connection may stay silent before it is closed.",
            "# TYPE geoledger_http_idle_timeout_seconds gauge",
            "geoledger_http_idle_timeout_seconds \(connections.idleTimeoutSeconds)",
        ]
    }

    /// The projector's position against the log's head, its work and its errors, and what its lag turned away.
    static func projectorLines(_ status: ProjectorRunner.Status, readsBehind: Int, appendsBehind: Int) -> [String] {
        [
            "# HELP geoledger_log_head_position The log's last position, as this process last saw it.",
            "# TYPE geoledger_log_head_position gauge",
            "geoledger_log_head_position \(status.head)",
            "# HELP geoledger_projector_position The last position the projections hold (the projector's checkpoint).",
            "# TYPE geoledger_projector_position gauge",
            "geoledger_projector_position \(status.position)",
            "# HELP geoledger_projector_lag_events Events in the log the projections do not hold yet.",
            "# TYPE geoledger_projector_lag_events gauge",
            "geoledger_projector_lag_events \(status.lag)",
            "# HELP geoledger_projector_lag_seconds How long the projections have been behind the log; 0 when caught up.",
            "# TYPE geoledger_projector_lag_seconds gauge",
            "geoledger_projector_lag_seconds \(status.lagSeconds())",
            "# HELP geoledger_projector_max_lag_events Events the projections may be behind before appends answer 503 "
                + "projections_behind (GEOLEDGER_MAX_PROJECTION_LAG).",
            "# TYPE geoledger_projector_max_lag_events gauge",
            "geoledger_projector_max_lag_events \(status.maximumLag)",
            "# HELP geoledger_projector_batches_total Batches this process projected.",
            "# TYPE geoledger_projector_batches_total counter",
            "geoledger_projector_batches_total \(status.batches)",
            "# HELP geoledger_projector_events_total Events this process projected, by where it took them from: handed over "
                + "by its own appends, or read from the log.",
            "# TYPE geoledger_projector_events_total counter",
            "geoledger_projector_events_total{source=\"handed_over\"} \(status.eventsHandedOver)",
            "geoledger_projector_events_total{source=\"log\"} \(status.eventsProjected - status.eventsHandedOver)",
            "# HELP geoledger_projector_errors_total Batches of this process's projector that failed (each is tried again).",
            "# TYPE geoledger_projector_errors_total counter",
            "geoledger_projector_errors_total \(status.errors)",
            "# HELP geoledger_projector_up 1 while the last batch succeeded or nothing was left to do, 0 while it fails.",
            "# TYPE geoledger_projector_up gauge",
            "geoledger_projector_up \(status.lastError == nil ? 1 : 0)",
            "# HELP geoledger_projections_behind_total Requests answered 503 projections_behind: reads that waited past "
                + "GEOLEDGER_READ_TIMEOUT (the API's and the console's pages), appends held back.",
            "# TYPE geoledger_projections_behind_total counter",
            "geoledger_projections_behind_total{request=\"read\"} \(readsBehind)",
            "geoledger_projections_behind_total{request=\"append\"} \(appendsBehind)",
        ]
    }

    /// A label value in double quotes, with `\`, `"` and newlines escaped.
    static func quoted(_ value: String) -> String {
        "\"" + value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n") + "\""
    }
}
