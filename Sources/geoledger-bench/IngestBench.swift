import CommandLineArguments
import EventStore
import Foundation
import Geo
import Ingestion
import Postgres
import Projections
import Workload

/// Ingest against COPY on a realistic workload, in a fresh database made for the run and dropped after it:
/// 1. generate the workload to an NDJSON file;
/// 2. ingest it as `geoledger ingest` does (validation, assessment, rules, projections, one transaction per batch);
/// 3. COPY the stored event rows into an empty copy of the events table (indexes, no triggers): the floor
///    PostgreSQL itself sets for writing these rows;
/// 4. replay every projection from the log.
/// Each timed stage starts on a settled database: vacuumed, analysed and checkpointed.
///
/// Next to each rate it reports the CPU used by this process and by the database backend, so that a slow stage
/// can be told apart as client-bound or server-bound.
enum IngestBench {
    struct Options {
        var events = 1_000_000
        var seed: UInt64 = 20_261_129
        var duplicateRate = 0.01
        var invalidRate = 0.001
        var batchSize = StreamIngestor.defaultBatchSize
        /// Items timed through `IngestService.prepare` alone (no database), to show its share of the ingest.
        var prepareSample = 100_000

        /// The options that set these.
        static let names: Set<String> = ["events", "seed", "duplicates", "invalid", "batch-size"]

        /// `--events N`, `--seed S`, `--duplicates R`, `--invalid R`, `--batch-size N`; the defaults for the others.
        init(_ arguments: Arguments) throws {
            if let text = arguments.value("events") { events = try Self.number(text, "--events") }
            if let text = arguments.value("seed") { seed = UInt64(try Self.number(text, "--seed")) }
            if let text = arguments.value("duplicates") { duplicateRate = try Self.rate(text, "--duplicates") }
            if let text = arguments.value("invalid") { invalidRate = try Self.rate(text, "--invalid") }
            if let text = arguments.value("batch-size") { batchSize = try Self.number(text, "--batch-size") }
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

        private static func rate(_ text: String, _ option: String) throws -> Double {
            guard let value = Double(text), (0...1).contains(value) else { throw UsageError("\(option) must be within 0...1") }
            return value
        }
    }

    /// Every column the ingest writes.
    static let eventColumns = "position, event_id, stream, version, type, data, metadata, recorded_at, hash, log_hash"

    static func run(server: PostgresConfiguration, options: Options) throws -> [(String, String)] {
        var results: [(String, String)] = []
        func record(_ name: String, _ value: String) {
            results.append((name, value))
            emit("\(name)=\(value)")
        }

        let database = "bench_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(16)
        let admin = try Connection.connect(server)
        try admin.execute("CREATE DATABASE \(database)")
        defer {
            _ = try? admin.execute("DROP DATABASE IF EXISTS \(database) WITH (FORCE)")
            admin.close()
        }
        let connection = try Connection.connect(server.withDatabase(database))
        defer { connection.close() }
        try Migrator(migrations: try Migration.bundled()).migrate(on: connection)
        // Before each timed stage the database settles, as it does soon after any bulk load. Every table is vacuumed
        // and analysed, so that no stage shares the machine with autovacuum's upkeep of an earlier stage's rows or
        // pays for marking them visible. Then a checkpoint writes out every dirty page, so that no stage pays for
        // writing what an earlier one left in the buffer cache (reading the log back for the COPY, for one, sets
        // hint bits on every page it reads).
        func settle(before stage: String) throws {
            let (_, settling) = try timed {
                try connection.execute("VACUUM (ANALYZE)")
                try connection.execute("CHECKPOINT")
            }
            record("settle_before_\(stage)_s", seconds(settling.wall))
        }

        // 1. The workload.
        let spec = options.spec
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("geoledger-bench-\(database).ndjson").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (counts, generation) = try timed { try spec.write(to: path) }
        record("workload_events", "\(counts.valid)")
        record("workload_duplicate_lines", "\(counts.duplicate)")
        record("workload_invalid_lines", "\(counts.invalid)")
        record("workload_merchants", "\(spec.merchants)")
        record("workload_terminals", "\(spec.terminals)")
        record("workload_bytes", "\(counts.bytes)")
        record("generation_s", seconds(generation.wall))
        // Write the file out before timing anything, so its writeback does not compete with the ingest.
        let written = open(path, O_RDONLY)
        if written >= 0 {
            fsync(written)
            close(written)
        }

        let classifier = try BoundaryClassifier.bundled()
        let service = IngestService(classifier: classifier)

        // Validation and assessment alone, on one thread, on the head of the file.
        let sample = min(options.prepareSample, counts.lines)
        let (_, prepareOnly) = try timed { try prepareOnlyPass(path: path, items: sample, batchSize: options.batchSize, service: service) }
        record("prepare_only_items_per_s", rate(sample, prepareOnly.wall))

        // 2. Ingest, exactly as `geoledger ingest` does.
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { throw BenchError("cannot open \(path)") }
        defer { close(descriptor) }
        let backend = connection.backendPID
        let decider = try Connection.connect(server.withDatabase(database))
        defer { decider.close() }
        try settle(before: "ingest")
        let (totals, ingest) = try timed(backends: [backend, decider.backendPID]) {
            try StreamIngestor(service: service, batchSize: options.batchSize).run(
                SubmissionReader(fileDescriptor: descriptor), on: connection, decidingOn: decider)
        }
        record("ingest_items", "\(totals.items)")
        record("ingest_appended", "\(totals.appended)")
        record("ingest_duplicate", "\(totals.duplicate)")
        record("ingest_conflict", "\(totals.conflict)")
        record("ingest_invalid", "\(totals.invalid)")
        record("ingest_s", seconds(ingest.wall))
        record("ingest_client_cpu_s", seconds(ingest.clientCPU))
        record("ingest_server_cpu_s", ingest.serverCPU.map(seconds) ?? "n/a")
        let ingestRate = Double(totals.appended) / ingest.wall
        record("ingest_events_per_s", rate(totals.appended, ingest.wall))

        // 3. COPY of the same rows: read them first, time only the COPY. The rows are freed once copied, before the
        // replay is timed.
        let (copied, copy) = try {
            let (rows, readBack) = try timed { try storedRows(on: connection) }
            record("copy_read_back_s", seconds(readBack.wall))
            try connection.execute("CREATE TABLE events_copy (LIKE events INCLUDING ALL)")
            try settle(before: "copy")
            return try timed(backends: [backend]) {
                try connection.copyFrom("COPY events_copy (\(eventColumns)) FROM STDIN") { writer in
                    for row in rows { try writer.row(row) }
                }
            }
        }()
        guard copied == totals.appended else {
            throw BenchError("COPY stored \(copied) rows, the ingest appended \(totals.appended)")
        }
        record("copy_rows", "\(copied)")
        record("copy_s", seconds(copy.wall))
        record("copy_client_cpu_s", seconds(copy.clientCPU))
        record("copy_server_cpu_s", copy.serverCPU.map(seconds) ?? "n/a")
        let copyRate = Double(copied) / copy.wall
        record("copy_events_per_s", rate(copied, copy.wall))
        // The copy has served its purpose; left in place, it would be vacuumed before the replay for nothing.
        try connection.execute("DROP TABLE events_copy")

        // 4. Replay (on connections of its own: their backends' CPU is not broken out).
        try settle(before: "replay")
        let (replayed, replay) = try timed { try Replayer().replay(server.withDatabase(database)) }
        record("replay_events", "\(replayed)")
        record("replay_s", seconds(replay.wall))
        record("replay_events_per_s", rate(Int(replayed), replay.wall))

        record("ingest_vs_copy", String(format: "%.3f", ingestRate / copyRate))
        return results
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
    private static func storedRows(on connection: Connection) throws -> [[String?]] {
        var rows: [[String?]] = []
        var after: Int64 = 0
        while true {
            let chunk = try connection.query(
                """
                SELECT position::text, event_id::text, stream, version::text, type, data::text, metadata::text,
                       recorded_at::text, hash::text, log_hash::text, position
                FROM events WHERE events.position > $1 ORDER BY events.position LIMIT 50000
                """, [after])
            if chunk.isEmpty { return rows }
            for row in chunk {
                rows.append(try (0..<10).map { try row.decode($0, as: String.self) })
                after = try row.decode(10)
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
    private static func timed<T>(backends: [Int32] = [], _ body: () throws -> T) rethrows -> (T, Timing) {
        func serverCPU() -> Double? {
            let each = backends.compactMap(processCPU)
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

    private static func clientCPU() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }

    /// User plus system CPU seconds of a local process, from /proc; nil when it is not visible.
    private static func processCPU(_ pid: Int32) -> Double? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let end = stat.lastIndex(of: ")") else { return nil }
        // Fields after the command name: state is field 3; utime and stime are fields 14 and 15.
        let fields = stat[stat.index(after: end)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    private static func seconds(_ value: Double) -> String { String(format: "%.2f", value) }

    private static func rate(_ count: Int, _ seconds: Double) -> String { String(format: "%.0f", Double(count) / seconds) }
}

/// A benchmark that could not run or whose result does not add up (exit 1).
struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
