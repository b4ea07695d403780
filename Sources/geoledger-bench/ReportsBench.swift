import Foundation
import Ingestion
import Geo
import Postgres
import Reports

/// Times every report (`report_<name>_ms`, the name's dashes as underscores) with its default filters on a
/// settled database, the best of three runs each, and prints the plan of the slowest.
enum ReportsBench {
    static func run(on connection: Connection) throws {
        try IngestBench.settle(connection, before: "reports")
        var times: [(Report, Double)] = []
        for report in Report.allCases {
            var best = Double.infinity
            var rows = 0
            for _ in 0..<3 {
                let start = DispatchTime.now().uptimeNanoseconds
                rows = try Reports.table(report, ReportFilters(), on: connection).rows.count
                best = min(best, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
            }
            let key = report.rawValue.replacingOccurrences(of: "-", with: "_")
            emit("report_\(key)_rows=\(rows)")
            emit("report_\(key)_ms=\(String(format: "%.1f", best))")
            times.append((report, best))
        }
        guard let slowest = times.max(by: { $0.1 < $1.1 })?.0 else { return }
        emit("report_slowest=\(slowest.rawValue)")
        emit("report_slowest_plan:")
        // With the working memory the reports run with (Reports.table).
        try connection.transaction { transaction in
            try transaction.execute("SET LOCAL work_mem = '64MB'")
            for row in try transaction.query("EXPLAIN (ANALYZE, BUFFERS) " + Reports.defaultQuery(slowest)) {
                emit("  " + (try row.decode(0, as: String.self)))
            }
        }
    }

    /// A fresh database with the bench's workload ingested, then the reports timed on it.
    static func run(server: PostgresConfiguration, options: IngestBench.Options) throws {
        try IngestBench.withIngestedWorkload(server: server, options: options) { connection in try run(on: connection) }
    }
}
