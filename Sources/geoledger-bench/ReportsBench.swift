import Foundation
import Ingestion
import Geo
import Postgres
import Queries

/// Times every report (`report_<name>_ms`, the name's dashes as underscores) with its default filters on a
/// settled database, the best of three runs each, and prints the plan of the slowest.
enum ReportsBench {
    static func run(on connection: Connection) throws {
        try Bench.settle(connection, before: "reports")
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
        for line in try plans(of: slowest, on: connection) { emit("  " + line) }
    }

    /// The plans of the statements the report's function runs, then of its call, as `auto_explain` writes them with
    /// `log_nested_statements` (`EXPLAIN` of the call would show only a `Function Scan`); with the working memory the
    /// reports run with (``Reports/table(_:_:on:)``). Loading `auto_explain` takes a superuser: without one, the
    /// call's plan, saying so.
    static func plans(of report: Report, on connection: Connection) throws -> [String] {
        do {
            let (_, notices) = try connection.collectingNotices {
                try connection.transaction { transaction in
                    try transaction.execute("""
                        LOAD 'auto_explain';
                        SET LOCAL auto_explain.log_min_duration = 0;
                        SET LOCAL auto_explain.log_analyze = on;
                        SET LOCAL auto_explain.log_buffers = on;
                        SET LOCAL auto_explain.log_nested_statements = on;
                        SET LOCAL auto_explain.log_level = notice;
                        SET LOCAL work_mem = '64MB'
                        """)
                    _ = try transaction.query(Reports.defaultQuery(report))
                }
            }
            return notices.flatMap { $0.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) }
        } catch let error as PostgresError {
            return try connection.transaction { transaction in
                try transaction.execute("SET LOCAL work_mem = '64MB'")
                let plan = try transaction.query("EXPLAIN (ANALYZE, BUFFERS) " + Reports.defaultQuery(report)).map {
                    try $0.decode(0, as: String.self)
                }
                return ["(the function's call only: auto_explain: \(error))"] + plan
            }
        }
    }

    /// A fresh database with the bench's workload ingested, then the reports timed on it.
    static func run(server: PostgresConfiguration, options: Bench.Options) throws {
        try Bench.withIngestedWorkload(server: server, options: options) { connection, _ in try run(on: connection) }
    }
}
