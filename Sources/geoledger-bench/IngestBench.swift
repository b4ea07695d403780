import CommandLineArguments
import EventStore
import Foundation
import Geo
import Ingestion
import LocalPostgres
import Postgres
import Projections
import Queries
import Workload

/// Ingest against COPY on a realistic workload:
/// 1. generate the workload to an NDJSON file, once;
/// 2. ingest it as `geoledger ingest` does (validation, assessment, rules, projections, one transaction per batch)
///    into a fresh database made for the pair and dropped after it;
/// 3. COPY the stored event rows into an empty copy of the events table (indexes, no triggers): the floor
///    PostgreSQL itself sets for writing these rows; then the stored fixes into an empty copy of their table (every
///    index): with the events', the floor for the log and the one projection row the design writes per fix;
/// 4. steps 2 and 3 again, `pairs` times in all, each ratio printed and their median taken: one pair on a shared
///    2-core machine says little;
/// 5. replay every projection from the last pair's log, then time `history` (``HistoryBench``) and every report
///    (``ReportsBench``) on it.
/// Each timed stage starts on a settled database: vacuumed, analysed and checkpointed. The server's durability
/// settings come first, as the server reports them: the figures mean little without them.
///
/// Next to each rate it reports the CPU used by this process and by the database backend, in all and per appended
/// event, so that a slow stage can be told apart as client-bound or server-bound.
enum IngestBench {
    struct Options {
        var events = 1_000_000
        var seed: UInt64 = 20_261_129
        var duplicateRate = 0.01
        var invalidRate = 0.001
        var batchSize = StreamIngestor.defaultBatchSize
        /// Ingest-against-COPY pairs, each on a database of its own.
        var pairs = 3
        /// Items timed through `IngestService.prepare` alone (no database), to show its share of the ingest.
        var prepareSample = 100_000
        /// Print what `pg_stat_statements` recorded of each statement of the ingest and of the COPY.
        var statements = false

        /// The options that shape the workload.
        static let workloadNames: Set<String> = ["events", "seed", "duplicates", "invalid", "batch-size"]
        /// The options of a bench run: the workload's and `pairs`.
        static let names = workloadNames.union(["pairs"])
        /// The flags of a bench run.
        static let flags: Set<String> = ["statements"]

        /// `--events N`, `--seed S`, `--duplicates R`, `--invalid R`, `--batch-size N`, `--pairs N`,
        /// `--statements`; the defaults for the others.
        init(_ arguments: Arguments) throws {
            statements = arguments.flag("statements")
            if let text = arguments.value("events") { events = try Self.number(text, "--events") }
            if let text = arguments.value("seed") { seed = UInt64(try Self.number(text, "--seed")) }
            if let text = arguments.value("duplicates") { duplicateRate = try Self.rate(text, "--duplicates") }
            if let text = arguments.value("invalid") { invalidRate = try Self.rate(text, "--invalid") }
            if let text = arguments.value("batch-size") { batchSize = try Self.number(text, "--batch-size") }
            if let text = arguments.value("pairs") { pairs = try Self.number(text, "--pairs") }
        }

        /// 50,000 merchants and 100,000 terminals per million events.
        var spec: WorkloadSpec {
            WorkloadSpec(
                merchants: max(1, events / 20), terminals: events / 10, events: events, seed: seed, shuffle: true,
                duplicateRate: duplicateRate, invalidRate: invalidRate)
        }

        private static func number(_ text: String, _ option: String) throws -> Int {
            guard let value = Int(text.replacingOccurrences(of: "_", with: "")), value > 0 else {
                throw UsageError("\(option) must be a positive integer")
            }
            return value
        }

        static func rate(_ text: String, _ option: String) throws -> Double {
            guard let value = Double(text), (0...1).contains(value) else { throw UsageError("\(option) must be within 0...1") }
            return value
        }
    }

    /// What the RESULT line reports.
    struct Summary {
        /// The median of the pairs' ratios of ingest rate to COPY rate.
        var ingestVsCopy: String
        /// The median of the pairs' COPY rates.
        var copyEventsPerSecond: String
        /// Each of `durabilitySettings` with its value on the server.
        var durability: [(String, String)]
    }

    /// The server settings that decide what a commit costs.
    static let durabilitySettings = ["fsync", "synchronous_commit", "full_page_writes"]

    /// Every column the ingest writes.
    static let eventColumns = "position, event_id, stream, version, type, data, metadata, recorded_at, hash, log_hash"

    /// Writes the workload of `options` to a temporary file (step 1), runs `body` with its path and counts, and removes
    /// the file.
    static func withWorkload<T>(_ options: Options, _ body: (String, WorkloadCounts) throws -> T) throws -> T {
        let spec = options.spec
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("geoledger-bench-\(UUID().uuidString.lowercased()).ndjson").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (counts, generation) = try timed { try spec.write(to: path) }
        emit("workload_events=\(counts.valid)")
        emit("workload_duplicate_lines=\(counts.duplicate)")
        emit("workload_invalid_lines=\(counts.invalid)")
        emit("workload_merchants=\(spec.merchants)")
        emit("workload_terminals=\(spec.terminals)")
        emit("workload_bytes=\(counts.bytes)")
        emit("generation_s=\(seconds(generation.wall))")
        // Write the file out before timing anything, so its writeback does not compete with the ingest.
        let written = open(path, O_RDONLY)
        if written >= 0 {
            fsync(written)
            close(written)
        }
        return try body(path, counts)
    }

    /// Prints and answers each of ``durabilitySettings`` as the server reports it: the figures mean little without them.
    static func durability(server: PostgresConfiguration) throws -> [(String, String)] {
        let admin = try Connection.connect(server)
        defer { admin.close() }
        var durability: [(String, String)] = []
        for setting in durabilitySettings {
            guard let value = try admin.query("SHOW \(setting)").first?.decode(0, as: String.self) else {
                throw BenchError("SHOW \(setting) answered no row")
            }
            durability.append((setting, value))
            emit("\(setting)=\(value)")
        }
        return durability
    }

    /// Steps 2-5 on the workload at `path` (``withWorkload(_:_:)``), on a server whose ``durability(server:)`` was
    /// printed.
    static func run(
        server: PostgresConfiguration, options: Options, workload path: String, counts: WorkloadCounts,
        durability: [(String, String)]
    ) throws -> Summary {
        let admin = try Connection.connect(server)
        defer { admin.close() }

        let classifier = try BoundaryClassifier.bundled()
        let service = IngestService(classifier: classifier)

        // Validation and assessment alone, on one thread, on the head of the file.
        let sample = min(options.prepareSample, counts.lines)
        let (_, prepareOnly) = try timed { try prepareOnlyPass(path: path, items: sample, batchSize: options.batchSize, service: service) }
        emit("prepare_only_items_per_s=\(rate(sample, prepareOnly.wall))")

        // 2-4. The pairs; 5. replay and history after the last.
        var ratios: [Double] = []
        var copyRates: [Double] = []
        for pair in 1...options.pairs {
            emit("pair=\(pair)")
            try withDatabase(server, admin: admin) { connection, database in
                let (ingestRate, copyRate) = try ingestAgainstCopy(
                    path: path, connection: connection, database: database, options: options, service: service)
                ratios.append(ingestRate / copyRate)
                copyRates.append(copyRate)
                emit("ingest_vs_copy=\(String(format: "%.3f", ingestRate / copyRate))")
                if pair == options.pairs {
                    try replay(connection: connection, database: database)
                    try settle(connection, before: "history")
                    try HistoryBench.run(on: connection)
                    try settle(connection, before: "reports")
                    try ReportsBench.run(on: connection)
                    try settle(connection, before: "console")
                    try ConsoleBench.run(database: database, on: connection)
                }
            }
        }
        let summary = Summary(
            ingestVsCopy: String(format: "%.3f", median(ratios)),
            copyEventsPerSecond: String(format: "%.0f", median(copyRates)),
            durability: durability)
        emit("ingest_vs_copy_each=\(ratios.map { String(format: "%.3f", $0) }.joined(separator: ","))")
        emit("ingest_vs_copy_median=\(summary.ingestVsCopy)")
        emit("copy_events_per_s_median=\(summary.copyEventsPerSecond)")
        return summary
    }

    /// `geoledger-bench history`: the workload ingested (untimed) into a fresh database, then the history stage.
    static func runHistory(server: PostgresConfiguration, options: Options) throws {
        try withIngestedWorkload(server: server, options: options) { connection, _ in
            try settle(connection, before: "history")
            try HistoryBench.run(on: connection)
        }
    }

    /// Writes the workload of `options` to a temporary file, ingests it (untimed) into a fresh database of its own and
    /// runs `body` on that database: the setting of the stages that time queries rather than the ingest.
    static func withIngestedWorkload(
        server: PostgresConfiguration, options: Options, _ body: (Connection, PostgresConfiguration) throws -> Void
    ) throws {
        let admin = try Connection.connect(server)
        defer { admin.close() }
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("geoledger-bench-\(UUID().uuidString.lowercased()).ndjson").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let counts = try options.spec.write(to: path)
        emit("workload_events=\(counts.valid)")
        try withDatabase(server, admin: admin) { connection, database in
            let service = IngestService(
                classifier: try BoundaryClassifier.bundled(), projector: ProjectorRunner(configuration: database))
            let descriptor = open(path, O_RDONLY)
            guard descriptor >= 0 else { throw BenchError("cannot open \(path)") }
            defer { close(descriptor) }
            let decider = try Connection.connect(database)
            defer { decider.close() }
            let totals = try StreamIngestor(service: service, batchSize: options.batchSize)
                .run(SubmissionReader(fileDescriptor: descriptor), on: connection, decidingOn: decider)
            emit("ingest_appended=\(totals.appended)")
            try body(connection, database)
        }
    }

    /// Runs `body` on a fresh, migrated database of its own, dropped afterwards.
    /// - Parameter cluster: the Citus cluster `server` is the coordinator of, whose nodes each get the database.
    static func withDatabase<T>(
        _ server: PostgresConfiguration, admin: Connection, cluster: LocalCitusCluster? = nil,
        _ body: (Connection, PostgresConfiguration) throws -> T
    ) throws -> T {
        let name = "bench_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(16)
        if let cluster { try cluster.createDatabase(String(name)) } else { try admin.execute("CREATE DATABASE \(name)") }
        defer {
            if let cluster { try? cluster.dropDatabase(String(name)) } else { _ = try? admin.execute("DROP DATABASE IF EXISTS \(name) WITH (FORCE)") }
        }
        let database = server.withDatabase(String(name))
        let connection = try Connection.connect(database)
        defer { connection.close() }
        try Migrator(migrations: try Migration.bundled()).migrate(on: connection)
        return try body(connection, database)
    }

    /// Before each timed stage the database settles, as it does soon after any bulk load. Every table is vacuumed and
    /// analysed, so that no stage shares the machine with autovacuum's upkeep of an earlier stage's rows or pays for
    /// marking them visible. Then a checkpoint writes out every dirty page, so that no stage pays for writing what an
    /// earlier one left in the buffer cache (reading the log back for the COPY, for one, sets hint bits on every page
    /// it reads).
    static func settle(_ connection: Connection, before stage: String) throws {
        let (_, settling) = try timed {
            try connection.execute("VACUUM (ANALYZE)")
            try connection.execute("CHECKPOINT")
        }
        emit("settle_before_\(stage)_s=\(seconds(settling.wall))")
    }

    /// Ingests the workload into an empty database, then COPYs the stored rows into an empty copy of the events
    /// table, and answers the two rates in events per second.
    private static func ingestAgainstCopy(
        path: String, connection: Connection, database: PostgresConfiguration, options: Options, service: IngestService
    ) throws -> (ingest: Double, copy: Double) {
        // Ingest, exactly as `geoledger ingest` does.
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { throw BenchError("cannot open \(path)") }
        defer { close(descriptor) }
        let backend = connection.backendPID
        let decider = try Connection.connect(database)
        defer { decider.close() }
        // The projector follows the appends on a third connection, and the ingest ends with it caught up: the
        // server's CPU is that of all its processes.
        let service = service.handingOver(to: ProjectorRunner(configuration: database))
        let postgres = try ServerCPU(name: "server", server: database)
        try settle(connection, before: "ingest")
        if options.statements { try StatementStatistics.reset(on: connection) }
        let databaseBefore = postgres.seconds()
        var (totals, ingest) = try timed(backends: []) {
            try StreamIngestor(service: service, batchSize: options.batchSize).run(
                SubmissionReader(fileDescriptor: descriptor), on: connection, decidingOn: decider)
        }
        ingest.serverCPU = postgres.seconds() - databaseBefore
        if options.statements { try StatementStatistics.write("ingest", per: totals.appended, on: connection) }
        emit("ingest_items=\(totals.items)")
        emit("ingest_appended=\(totals.appended)")
        emit("ingest_duplicate=\(totals.duplicate)")
        emit("ingest_conflict=\(totals.conflict)")
        emit("ingest_invalid=\(totals.invalid)")
        emit("ingest_s=\(seconds(ingest.wall))")
        emit("ingest_client_cpu_s=\(seconds(ingest.clientCPU))")
        emit("ingest_server_cpu_s=\(ingest.serverCPU.map(seconds) ?? "n/a")")
        emit("ingest_client_us_per_event=\(microseconds(ingest.clientCPU, per: totals.appended))")
        emit("ingest_server_us_per_event=\(ingest.serverCPU.map { microseconds($0, per: totals.appended) } ?? "n/a")")
        emit("ingest_events_per_s=\(rate(totals.appended, ingest.wall))")

        // COPY of the same rows: read them first, time only the COPY. The rows are freed once copied.
        let (copied, copy) = try {
            let (rows, readBack) = try timed { try storedRows(on: connection) }
            emit("copy_read_back_s=\(seconds(readBack.wall))")
            try connection.execute("CREATE TABLE events_copy (LIKE events INCLUDING ALL)")
            try settle(connection, before: "copy")
            if options.statements { try StatementStatistics.reset(on: connection) }
            return try timed(backends: [backend]) {
                try connection.copyFrom("COPY events_copy (\(eventColumns)) FROM STDIN") { writer in
                    for row in rows { try writer.row(row) }
                }
            }
        }()
        if options.statements { try StatementStatistics.write("copy", per: copied, on: connection) }
        guard copied == totals.appended else {
            throw BenchError("COPY stored \(copied) rows, the ingest appended \(totals.appended)")
        }
        emit("copy_rows=\(copied)")
        emit("copy_s=\(seconds(copy.wall))")
        emit("copy_client_cpu_s=\(seconds(copy.clientCPU))")
        emit("copy_server_cpu_s=\(copy.serverCPU.map(seconds) ?? "n/a")")
        emit("copy_server_us_per_event=\(copy.serverCPU.map { microseconds($0, per: copied) } ?? "n/a")")
        emit("copy_events_per_s=\(rate(copied, copy.wall))")
        // The copy has served its purpose; left in place, it would be vacuumed before the replay for nothing.
        try connection.execute("DROP TABLE events_copy")
        try copyFixes(connection: connection, options: options, events: copied, eventsCopy: copy)
        return (Double(totals.appended) / ingest.wall, Double(copied) / copy.wall)
    }

    /// COPYs the stored fix history into an empty copy of its table (every index, as in `projections`), timed like the
    /// events' COPY, and prints the server CPU of both COPYs per event: what the server needs at least for the log and
    /// the one projection row the design writes per fix.
    private static func copyFixes(connection: Connection, options: Options, events: Int, eventsCopy: Timing) throws {
        let columns = try connection.query(
            """
            SELECT quote_ident(column_name) FROM information_schema.columns
            WHERE table_schema = 'projections' AND table_name = 'fixes' ORDER BY ordinal_position
            """
        ).map { try $0.decode(0, as: String.self) }
        let backend = connection.backendPID
        let (copied, copy) = try {
            let rows = try storedRows(of: "projections.fixes", columns: columns, on: connection)
            try connection.execute("CREATE TABLE fixes_copy (LIKE projections.fixes INCLUDING ALL)")
            try settle(connection, before: "copy_fixes")
            if options.statements { try StatementStatistics.reset(on: connection) }
            return try timed(backends: [backend]) {
                try connection.copyFrom("COPY fixes_copy (\(columns.joined(separator: ", "))) FROM STDIN") { writer in
                    for row in rows { try writer.row(row) }
                }
            }
        }()
        if options.statements { try StatementStatistics.write("copy_fixes", per: events, on: connection) }
        emit("copy_fixes_rows=\(copied)")
        emit("copy_fixes_server_cpu_s=\(copy.serverCPU.map(seconds) ?? "n/a")")
        let both = eventsCopy.serverCPU.flatMap { events in copy.serverCPU.map { events + $0 } }
        emit("copy_with_fixes_server_us_per_event=\(both.map { microseconds($0, per: events) } ?? "n/a")")
        try connection.execute("DROP TABLE fixes_copy")
    }

    /// Replays every projection (on connections of its own: their backends' CPU is not broken out).
    private static func replay(connection: Connection, database: PostgresConfiguration) throws {
        try settle(connection, before: "replay")
        let (replayed, replay) = try timed { try Replayer().replay(database) }
        emit("replay_events=\(replayed)")
        emit("replay_s=\(seconds(replay.wall))")
        emit("replay_events_per_s=\(rate(Int(replayed), replay.wall))")
    }

    /// Reads and prepares `items` lines without a database, as the ingest's reading thread does.
    private static func prepareOnlyPass(path: String, items: Int, batchSize: Int, service: IngestService) throws {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { throw BenchError("cannot open \(path)") }
        defer { close(descriptor) }
        var reader = SubmissionReader(fileDescriptor: descriptor)
        var done = 0
        while done < items {
            var batch: [IngestItem] = []
            while batch.count < min(batchSize, items - done), let item = reader.next() { batch.append(item.parsed) }
            if batch.isEmpty { break }
            done += service.prepare(batch).count
        }
    }

    /// Every stored event in its COPY text form, in position order, read in chunks.
    static func storedRows(on connection: Connection) throws -> [[String?]] {
        try storedRows(of: "events", columns: eventColumns.components(separatedBy: ", "), on: connection)
    }

    /// The `columns` of every row of `table` (which has a `position` column) in their COPY text form, in position
    /// order, read in chunks.
    static func storedRows(of table: String, columns: [String], on connection: Connection) throws -> [[String?]] {
        var rows: [[String?]] = []
        var after: Int64 = 0
        let texts = columns.map { "t.\($0)::text" }.joined(separator: ", ")
        while true {
            let chunk = try connection.query(
                "SELECT \(texts), t.position FROM \(table) t WHERE t.position > $1 ORDER BY t.position LIMIT 50000", [after])
            if chunk.isEmpty { return rows }
            for row in chunk {
                rows.append(try columns.indices.map { try row.decode($0, as: String?.self) })
                after = try row.decode(columns.count)
            }
        }
    }

    struct Timing {
        var wall: Double
        var clientCPU: Double
        /// CPU of the database backends serving the stage, when they run on this machine.
        var serverCPU: Double?
    }

    /// - Parameter backends: database backends serving the stage, whose CPU is added up.
    static func timed<T>(backends: [Int32] = [], _ body: () throws -> T) rethrows -> (T, Timing) {
        func serverCPU() -> Double? {
            let each = backends.compactMap { processCPU($0) }
            return !each.isEmpty && each.count == backends.count ? each.reduce(0, +) : nil
        }
        let serverBefore = serverCPU()
        let clientBefore = clientCPU()
        let start = DispatchTime.now()
        let value = try body()
        let wall = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
        let serverAfter = serverCPU()
        let server = serverBefore.flatMap { before in serverAfter.map { $0 - before } }
        return (value, Timing(wall: wall, clientCPU: clientCPU() - clientBefore, serverCPU: server))
    }

    static func clientCPU() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }

    /// User plus system CPU seconds of a local process, from /proc; nil when it is not visible.
    /// - Parameter reaped: add that of its children that ended and that it waited for.
    static func processCPU(_ pid: Int32, reaped: Bool = false) -> Double? {
        guard let fields = processStat(pid) else { return nil }
        // utime and stime are fields 14 and 15, cutime and cstime (the reaped children's) 16 and 17.
        let columns = reaped ? [11, 12, 13, 14] : [11, 12]
        let ticks = columns.compactMap { Double(fields[$0]) }
        guard ticks.count == columns.count else { return nil }
        return ticks.reduce(0, +) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// The fields of /proc/PID/stat after the command name (state, field 3, first); nil when it is not visible.
    static func processStat(_ pid: Int32) -> [Substring]? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let end = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: end)...].split(separator: " ")
        return fields.count > 14 ? fields : nil
    }

    static func seconds(_ value: Double) -> String { String(format: "%.2f", value) }

    /// CPU seconds per event, in microseconds.
    static func microseconds(_ cpu: Double, per events: Int) -> String {
        events > 0 ? String(format: "%.1f", cpu / Double(events) * 1e6) : "n/a"
    }

    static func rate(_ count: Int, _ seconds: Double) -> String { String(format: "%.0f", Double(count) / seconds) }
}

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

/// A benchmark that could not run or whose result does not add up (exit 1).
struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
