import CommandLineArguments
import EventStore
import Foundation
import Geo
import Ingestion
import Postgres
import Projections
import Workload

/// The workload the benches share: its options, written to a temporary file, or ingested into a database of its own.
extension Bench {
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
            let totals = try withIngest(of: path, into: database, batchSize: options.batchSize) { ingest in
                try ingest(connection)
            }
            emit("ingest_appended=\(totals.appended)")
            try body(connection, database)
        }
    }

    /// Runs `body` with the ingest of the NDJSON file at `path` into `database`, as `geoledger ingest` does it (its
    /// projector, a second connection deciding each batch), ready to run on the connection `body` gives it: so that
    /// a caller may settle the database first, and time the ingest alone.
    static func withIngest<T>(
        of path: String, into database: PostgresConfiguration, batchSize: Int,
        _ body: ((Connection) throws -> IngestTotals) throws -> T
    ) throws -> T {
        let service = IngestService(
            classifier: try BoundaryClassifier.bundled(), projector: ProjectorRunner(configuration: database))
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { throw BenchError("cannot open \(path)") }
        defer { close(descriptor) }
        let decider = try Connection.connect(database)
        defer { decider.close() }
        return try body { connection in
            try StreamIngestor(service: service, batchSize: batchSize)
                .run(SubmissionReader(fileDescriptor: descriptor), on: connection, decidingOn: decider)
        }
    }
}
