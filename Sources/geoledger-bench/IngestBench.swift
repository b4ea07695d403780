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
    /// What the RESULT line reports.
    struct Summary {
        /// The median of the pairs' ratios of ingest rate to COPY rate.
        var ingestVsCopy: String
        /// The median of the pairs' COPY rates.
        var copyEventsPerSecond: String
        /// Each of `Bench.durabilitySettings` with its value on the server.
        var durability: [(String, String)]
    }

    /// Steps 2-5 on the workload at `path` (``Bench/withWorkload(_:_:)``), on a server whose ``Bench/durability(server:)`` was
    /// printed.
    static func run(
        server: PostgresConfiguration, options: Bench.Options, workload path: String, counts: WorkloadCounts,
        durability: [(String, String)]
    ) throws -> Summary {
        let admin = try Connection.connect(server)
        defer { admin.close() }

        let classifier = try BoundaryClassifier.bundled()
        let service = IngestService(classifier: classifier)

        // Validation and assessment alone, on one thread, on the head of the file.
        let sample = min(options.prepareSample, counts.lines)
        let (_, prepareOnly) = try Bench.timed { try prepareOnlyPass(path: path, items: sample, batchSize: options.batchSize, service: service) }
        emit("prepare_only_items_per_s=\(Bench.rate(sample, prepareOnly.wall))")

        // 2-4. The pairs; 5. replay and history after the last.
        var ratios: [Double] = []
        var copyRates: [Double] = []
        for pair in 1...options.pairs {
            emit("pair=\(pair)")
            try Bench.withDatabase(server, admin: admin) { connection, database in
                let (ingestRate, copyRate) = try ingestAgainstCopy(
                    path: path, connection: connection, database: database, options: options, service: service)
                ratios.append(ingestRate / copyRate)
                copyRates.append(copyRate)
                emit("ingest_vs_copy=\(String(format: "%.3f", ingestRate / copyRate))")
                if pair == options.pairs {
                    try replay(connection: connection, database: database)
                    try Bench.settle(connection, before: "history")
                    try HistoryBench.run(on: connection)
                    try Bench.settle(connection, before: "reports")
                    try ReportsBench.run(on: connection)
                    try Bench.settle(connection, before: "console")
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
    static func runHistory(server: PostgresConfiguration, options: Bench.Options) throws {
        try Bench.withIngestedWorkload(server: server, options: options) { connection, _ in
            try Bench.settle(connection, before: "history")
            try HistoryBench.run(on: connection)
        }
    }

    /// Ingests the workload into an empty database, then COPYs the stored rows into an empty copy of the events
    /// table, and answers the two rates in events per second.
    private static func ingestAgainstCopy(
        path: String, connection: Connection, database: PostgresConfiguration, options: Bench.Options, service: IngestService
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
        try Bench.settle(connection, before: "ingest")
        if options.statements { try StatementStatistics.reset(on: connection) }
        let databaseBefore = postgres.seconds()
        var (totals, ingest) = try Bench.timed(backends: []) {
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
        emit("ingest_s=\(Bench.seconds(ingest.wall))")
        emit("ingest_client_cpu_s=\(Bench.seconds(ingest.clientCPU))")
        emit("ingest_server_cpu_s=\(ingest.serverCPU.map(Bench.seconds) ?? "n/a")")
        emit("ingest_client_us_per_event=\(Bench.microseconds(ingest.clientCPU, per: totals.appended))")
        emit("ingest_server_us_per_event=\(ingest.serverCPU.map { Bench.microseconds($0, per: totals.appended) } ?? "n/a")")
        emit("ingest_events_per_s=\(Bench.rate(totals.appended, ingest.wall))")

        // COPY of the same rows: read them first, time only the COPY. The rows are freed once copied.
        let (copied, copy) = try {
            let (rows, readBack) = try Bench.timed { try Bench.storedRows(on: connection) }
            emit("copy_read_back_s=\(Bench.seconds(readBack.wall))")
            try connection.execute("CREATE TABLE events_copy (LIKE events INCLUDING ALL)")
            try Bench.settle(connection, before: "copy")
            if options.statements { try StatementStatistics.reset(on: connection) }
            return try Bench.timed(backends: [backend]) {
                try connection.copyFrom("COPY events_copy (\(Bench.eventColumns)) FROM STDIN") { writer in
                    for row in rows { try writer.row(row) }
                }
            }
        }()
        if options.statements { try StatementStatistics.write("copy", per: copied, on: connection) }
        guard copied == totals.appended else {
            throw BenchError("COPY stored \(copied) rows, the ingest appended \(totals.appended)")
        }
        emit("copy_rows=\(copied)")
        emit("copy_s=\(Bench.seconds(copy.wall))")
        emit("copy_client_cpu_s=\(Bench.seconds(copy.clientCPU))")
        emit("copy_server_cpu_s=\(copy.serverCPU.map(Bench.seconds) ?? "n/a")")
        emit("copy_server_us_per_event=\(copy.serverCPU.map { Bench.microseconds($0, per: copied) } ?? "n/a")")
        emit("copy_events_per_s=\(Bench.rate(copied, copy.wall))")
        // The copy has served its purpose; left in place, it would be vacuumed before the replay for nothing.
        try connection.execute("DROP TABLE events_copy")
        try copyFixes(connection: connection, options: options, events: copied, eventsCopy: copy)
        return (Double(totals.appended) / ingest.wall, Double(copied) / copy.wall)
    }

    /// COPYs the stored fix history into an empty copy of its table (every index, as in `projections`), timed like the
    /// events' COPY, and prints the server CPU of both COPYs per event: what the server needs at least for the log and
    /// the one projection row the design writes per fix.
    private static func copyFixes(connection: Connection, options: Bench.Options, events: Int, eventsCopy: Bench.Timing) throws {
        let columns = try connection.query(
            """
            SELECT quote_ident(column_name) FROM information_schema.columns
            WHERE table_schema = 'projections' AND table_name = 'fixes' ORDER BY ordinal_position
            """
        ).map { try $0.decode(0, as: String.self) }
        let backend = connection.backendPID
        let (copied, copy) = try {
            let rows = try Bench.storedRows(of: "projections.fixes", columns: columns, on: connection)
            try connection.execute("CREATE TABLE fixes_copy (LIKE projections.fixes INCLUDING ALL)")
            try Bench.settle(connection, before: "copy_fixes")
            if options.statements { try StatementStatistics.reset(on: connection) }
            return try Bench.timed(backends: [backend]) {
                try connection.copyFrom("COPY fixes_copy (\(columns.joined(separator: ", "))) FROM STDIN") { writer in
                    for row in rows { try writer.row(row) }
                }
            }
        }()
        if options.statements { try StatementStatistics.write("copy_fixes", per: events, on: connection) }
        emit("copy_fixes_rows=\(copied)")
        emit("copy_fixes_server_cpu_s=\(copy.serverCPU.map(Bench.seconds) ?? "n/a")")
        let both = eventsCopy.serverCPU.flatMap { events in copy.serverCPU.map { events + $0 } }
        emit("copy_with_fixes_server_us_per_event=\(both.map { Bench.microseconds($0, per: events) } ?? "n/a")")
        try connection.execute("DROP TABLE fixes_copy")
    }

    /// Replays every projection (on connections of its own: their backends' CPU is not broken out).
    private static func replay(connection: Connection, database: PostgresConfiguration) throws {
        try Bench.settle(connection, before: "replay")
        let (replayed, replay) = try Bench.timed { try Replayer().replay(database) }
        emit("replay_events=\(replayed)")
        emit("replay_s=\(Bench.seconds(replay.wall))")
        emit("replay_events_per_s=\(Bench.rate(Int(replayed), replay.wall))")
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

}
