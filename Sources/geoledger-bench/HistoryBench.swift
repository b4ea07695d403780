import Foundation
import Postgres
import Queries

/// The time `geoledger history` takes for one merchant or terminal on a large log: the first page (100 rows, the
/// default) of a sample of merchants and terminals, each read once to warm the cache and then timed, and the plan
/// of the busiest merchant's page, which must read the history through its indexes rather than scan it.
enum HistoryBench {
    /// Entities of each kind in the sample, beside the busiest of each.
    static let sampleSize = 20

    static func run(on connection: Connection) throws {
        var slowest = 0.0
        for kind in ["merchant", "terminal"] {
            let ids = try Bench.sampleEntities(kind, count: sampleSize, on: connection)
            guard let busiest = ids.first else { throw BenchError("no \(kind) fixes to read the history of") }
            let subject: (String) -> HistorySubject = { kind == "merchant" ? .merchant($0) : .terminal($0) }
            var times: [Double] = []
            var rows = 0
            for id in ids {
                _ = try History().page(of: subject(id), HistoryRange(), on: connection)
                let start = DispatchTime.now()
                let page = try History().page(of: subject(id), HistoryRange(), on: connection)
                times.append(Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e6)
                rows += page.entries.count
            }
            emit("history_\(kind)s=\(ids.count)")
            emit("history_\(kind)_rows=\(rows)")
            emit("history_\(kind)_ms_median=\(String(format: "%.2f", median(times)))")
            emit("history_\(kind)_ms_max=\(String(format: "%.2f", times.max() ?? 0))")
            slowest = max(slowest, times.max() ?? 0)
            if kind == "merchant" {
                emit("history_plan_of=merchant \(busiest)")
                for line in try History().plan(of: subject(busiest), HistoryRange(), on: connection) {
                    emit("history_plan=\(line)")
                }
            }
        }
        emit("history_ms=\(String(format: "%.2f", slowest))")
    }
}
