import Postgres

/// What `pg_stat_statements` recorded of each statement a stage ran on the bench's database (`--statements`): a
/// line per statement, the most time first, with its share of the stage's statement time. The server must load the
/// module (`shared_preload_libraries = 'pg_stat_statements'` in its postgresql.conf, then a restart).
///
/// Times are the server's wall-clock time in each statement, not CPU: a `COPY ... FROM STDIN` also counts the time
/// it waits for the client's rows, and a busy machine stretches every statement. Blocks and WAL are exact.
enum StatementStatistics {
    /// Creates the extension in the bench's database when missing, and forgets what was recorded so far.
    static func reset(on connection: Connection) throws {
        guard try connection.query("SELECT 1 FROM pg_available_extensions WHERE name = 'pg_stat_statements'").count == 1 else {
            throw BenchError("--statements needs the server's pg_stat_statements extension (PostgreSQL's contrib)")
        }
        try connection.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
        do {
            try connection.execute("SELECT pg_stat_statements_reset()")
        } catch {
            throw BenchError("--statements needs shared_preload_libraries = 'pg_stat_statements' on the server: \(error)")
        }
    }

    /// `STAGE_statement=` lines, each with its share of the stage's statement time, then time, calls and rows, and
    /// per `events`: time in µs, planning time in µs (0 unless `pg_stat_statements.track_planning` is on), shared
    /// blocks hit and dirtied, WAL records and bytes; the statement's text last.
    static func write(_ stage: String, per events: Int, on connection: Connection) throws {
        let rows = try connection.query(
            """
            SELECT total_exec_time, calls, rows, shared_blks_hit, shared_blks_dirtied, wal_records, wal_bytes::bigint,
                   regexp_replace(query, '\\s+', ' ', 'g'), total_plan_time
            FROM pg_stat_statements
            WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
              AND query !~ 'pg_stat_statements'
            ORDER BY total_exec_time DESC
            """)
        let total = try rows.reduce(0.0) { $0 + (try $1.decode(0, as: Double.self)) }
        guard total > 0 else { return }
        let count = Double(max(events, 1))
        for row in rows {
            let milliseconds = try row.decode(0, as: Double.self)
            guard milliseconds >= total / 1000 else { continue }
            func perEvent(_ column: Int) throws -> String {
                String(format: "%.2f", Double(try row.decode(column, as: Int64.self)) / count)
            }
            let fields = [
                "share \(String(format: "%.3f", milliseconds / total))", "ms \(String(format: "%.0f", milliseconds))",
                "calls \(try row.decode(1, as: Int64.self))", "rows \(try row.decode(2, as: Int64.self))",
                "per_event: us \(String(format: "%.2f", milliseconds * 1000 / count))",
                "plan_us \(String(format: "%.2f", try row.decode(8, as: Double.self) * 1000 / count))", "blks_hit \(try perEvent(3))",
                "blks_dirtied \(try perEvent(4))", "wal_records \(try perEvent(5))", "wal_bytes \(try perEvent(6))",
            ]
            emit("\(stage)_statement=\(fields.joined(separator: " ")) | \(try row.decode(7, as: String.self))")
        }
    }
}
