import Foundation
import Output
import Postgres

/// Runs the reports: each is one call of its SQL function, whose rows come back as a ``Table`` of the report's
/// ``Report/columns``, for ``Output`` to write in any format.
public enum Reports {
    /// The report's rows for the filters.
    /// - Throws: ``QueryError/filter(name:message:)`` when the report does not take a filter given; the connection's errors.
    public static func table(_ report: Report, _ filters: ReportFilters, on connection: Connection) throws -> Table {
        try rows(report, filters, limit: nil, on: connection).table
    }

    /// The report's first `limit` rows, and how many rows it has in all: for a page that shows the first rows and
    /// offers the whole report as a download. The function computes every row either way; only `limit` of them are
    /// sent and read.
    public static func firstRows(
        _ report: Report, _ filters: ReportFilters, limit: Int, on connection: Connection
    ) throws -> (table: Table, total: Int) {
        let (table, total) = try rows(report, filters, limit: limit, on: connection)
        return (table, total ?? table.rows.count)
    }

    private static func rows(
        _ report: Report, _ filters: ReportFilters, limit: Int?, on connection: Connection
    ) throws -> (table: Table, total: Int?) {
        try filters.check(for: report)
        let sql: String
        var parameters: [(any PostgresEncodable)?]
        switch report {
        case .terminalDrift, .visitDistance:
            sql = "SELECT * FROM \(report.function)($1, $2, $3, $4, $5)"
            parameters = [filters.from, filters.to, filters.app, filters.provider, filters.threshold ?? report.defaultThreshold]
        case .stale:
            sql = "SELECT * FROM \(report.function)(coalesce($1, now()), $2, $3, $4)"
            parameters = [filters.to, filters.app, filters.provider, filters.days ?? report.defaultDays]
        case .accuracy, .daily:
            // Their day columns come back as text: a date is not an instant.
            let names = report == .daily ? "day::text, event_type, answer, events"
                : "provider, app, day::text, fixes, precise, approximate, unusable, reduced"
            sql = "SELECT \(names) FROM \(report.function)($1, $2, $3, $4)"
            parameters = [filters.from, filters.to, filters.app, filters.provider]
        case .regionMismatch, .providers, .outsideRegion:
            sql = "SELECT * FROM \(report.function)($1, $2, $3, $4)"
            parameters = [filters.from, filters.to, filters.app, filters.provider]
        }
        let columns = report.columns
        var query = sql
        if let limit {
            parameters.append(limit)
            query = "SELECT r.*, count(*) OVER () FROM (\(sql)) r LIMIT $\(parameters.count)"
        }
        var total: Int?
        let rows = try connection.transaction { transaction in
            // The sorts and aggregates of a million fixes' summaries fit in memory with this; the default 4 MB
            // sends them to disk.
            try transaction.execute("SET LOCAL work_mem = '64MB'")
            return try transaction.query(query, parameters).map { row in
                if limit != nil, total == nil { total = try row.decode(columns.count, as: Int.self) }
                return try columns.indices.map { index in try value(row, index, as: columns[index].kind) }
            }
        }
        return (Table(columns: columns, rows: rows), limit == nil ? rows.count : (total ?? 0))
    }

    /// The SQL that runs the report with its default filters, for `EXPLAIN`.
    public static func defaultQuery(_ report: Report) -> String {
        switch report {
        case .terminalDrift, .visitDistance:
            "SELECT * FROM \(report.function)(NULL, NULL, NULL, NULL, \(report.defaultThreshold!))"
        case .stale: "SELECT * FROM \(report.function)(now(), NULL, NULL, \(report.defaultDays!))"
        default: "SELECT * FROM \(report.function)(NULL, NULL, NULL, NULL)"
        }
    }

    private static func value(_ row: Row, _ index: Int, as kind: Column.Kind) throws -> Value {
        switch kind {
        case .text: Value(try row.decode(index, as: String?.self))
        case .integer: Value(try row.decode(index, as: Int64?.self))
        case .number, .metres, .latitude, .longitude: Value(try row.decode(index, as: Double?.self))
        case .time: Value(try row.decode(index, as: Date?.self))
        case .bool: Value(try row.decode(index, as: Bool?.self))
        case .counts: .counts(try counts(row.decode(index, as: String?.self) ?? ""))
        }
    }

    /// The counts of `category=n, category=n`, the text the SQL functions give; none (an empty map) from NULL.
    static func counts(_ text: String) throws -> [String: Int64] {
        var counts: [String: Int64] = [:]
        for pair in text.split(separator: ",") {
            let parts = pair.split(separator: "=")
            guard parts.count == 2, let count = Int64(parts[1]) else { throw QueryError.malformedCounts(text) }
            counts[parts[0].trimmingCharacters(in: .whitespaces)] = count
        }
        return counts
    }
}

