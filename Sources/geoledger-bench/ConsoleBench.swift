import Console
import Dispatch
import Foundation
import Geo
import HTTPServer
import Postgres
import Projections
import Queries
import RawHTTPClient
import Synchronization

/// The web console's pages on a large log, each timed by the server from the request's headers to its answer (what
/// the request log records as its duration): the console served in process on loopback, signed in with a session
/// of its own; each page requested once to warm the caches, then timed three times.
enum ConsoleBench {
    /// Merchants and terminals of the sample, beside the busiest of each.
    static let sampleSize = 10
    static let repeats = 3

    static func run(database: PostgresConfiguration, on connection: Connection) throws {
        let pool = ConnectionPool(configuration: database, maximumConnections: 4, checkoutTimeout: 30)
        defer { pool.close() }
        let projector = ProjectorRunner(configuration: database)
        let console = try Console(
            pool: pool, projector: projector,
            tokens: Console.Tokens(
                holder: { _, _ in Console.TokenHolder(name: "bench", tokenId: "bench", mayRead: true, scopes: "read") },
                mayStillRead: { _ in true }),
            classifier: try BoundaryClassifier.bundled())
        let durations = Mutex<[Double]>([])
        var configuration = HTTPServer.Configuration(host: "127.0.0.1", port: 0, workerThreads: 4)
        configuration.completed = { request in
            let (seconds, attoseconds) = request.duration.components
            durations.withLock { $0.append(Double(seconds) * 1000 + Double(attoseconds) / 1e15) }
        }
        var router = Router()
        console.add(to: &router)
        let server = try HTTPServer.start(configuration, router: router)
        defer { server.stop() }
        let session = console.sessions.open(
            tokenName: "bench", tokenId: "bench", timeZone: TimeZone(identifier: "Asia/Shanghai")!, timeZoneName: "Asia/Shanghai")
        let client = try RawClient.bench(port: server.configuration.port)
        let cookie = "geoledger_session=\(session)"

        var pages: [(name: String, target: String)] = [("home", "/"), ("reports", "/reports")]
        let merchants = try Bench.sampleEntities("merchant", count: sampleSize, on: connection)
        let terminals = try Bench.sampleEntities("terminal", count: sampleSize, on: connection)
        guard let busiest = merchants.first, let busiestTerminal = terminals.first else {
            throw BenchError("no merchant or terminal fixes to show")
        }
        pages.append(("search", "/search?q=" + String(busiest.prefix(max(1, busiest.count - 2)))))
        pages += merchants.map { ("merchant", "/merchants/\($0)") }
        pages.append(("merchant_history_1000", "/merchants/\(busiest)?limit=1000"))
        pages += terminals.map { ("terminal", "/terminals/\($0)") }
        pages.append(("terminal_history_1000", "/terminals/\(busiestTerminal)?limit=1000"))
        for (kind, column, table) in [("visit", "visit_id", "projections.visits"), ("enterprise", "entity_id", "projections.fixes")] {
            let filter = kind == "enterprise" ? "WHERE entity_kind = 'enterprise'" : ""
            if let id = try connection.query("SELECT \(column) FROM \(table) \(filter) ORDER BY position DESC LIMIT 1").first?.decode(0, as: String.self) {
                pages.append((kind, "/\(kind)s/\(id)"))
            }
        }
        pages += Report.allCases.map { ("report_" + $0.rawValue.replacingOccurrences(of: "-", with: "_"), "/reports/\($0.rawValue)") }
        pages.append(("report_terminal_drift_csv", "/reports/terminal-drift/download?format=csv"))

        var slowest: [String: Double] = [:]
        for page in pages {
            let answer = try client.request("GET", page.target, token: "", cookie: cookie)
            guard answer.status == 200 else {
                throw BenchError("\(page.target) answered \(answer.status): \(String(decoding: answer.body.prefix(300), as: UTF8.self))")
            }
            durations.withLock { $0.removeAll() }
            for _ in 0..<repeats { _ = try client.request("GET", page.target, token: "", cookie: cookie) }
            // The completion is recorded as the answer is handed over: wait for the last to be counted.
            let deadline = Date().addingTimeInterval(5)
            while durations.withLock({ $0.count }) < repeats && Date() < deadline { usleep(1000) }
            let times = durations.withLock { $0 }
            slowest[page.name] = max(slowest[page.name] ?? 0, times.max() ?? 0)
        }
        // What of a report's page is the report's own query: its first rows read as the page reads them, timed here.
        for report in Report.allCases {
            var times: [Double] = []
            for _ in 0...repeats {
                let start = DispatchTime.now().uptimeNanoseconds
                _ = try Reports.firstRows(report, ReportFilters(), limit: Console.reportRowsShown, on: connection)
                times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
            }
            slowest["report_" + report.rawValue.replacingOccurrences(of: "-", with: "_") + "_query"] = times.dropFirst().max() ?? 0
        }
        for (name, milliseconds) in slowest.sorted(by: { $0.key < $1.key }) {
            emit("console_\(name)_ms=\(String(format: "%.1f", milliseconds))")
        }
        emit("console_pages=\(pages.count)")
        if let worst = slowest.filter({ !$0.key.hasSuffix("_query") }).max(by: { $0.value < $1.value }) {
            emit("console_slowest_page=\(worst.key)")
            emit("console_ms=\(String(format: "%.1f", worst.value))")
        }
    }
}
