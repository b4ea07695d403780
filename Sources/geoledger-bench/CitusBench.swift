import CommandLineArguments
import EventStore
import Foundation
import Geo
import Ingestion
import LocalPostgres
import Postgres
import Projections
import Synchronization

/// `geoledger-bench citus`: one workload through the same stages on PostgreSQL alone (the server DATABASE_URL names)
/// and on a throwaway Citus cluster this command starts (a coordinator and two workers, ``LocalCitusCluster``), each
/// on a fresh database: ingest, `verify`, `replay`, then `history` (``HistoryBench``) and the reports
/// (``ReportsBench``). PostgreSQL's lines come first with a `plain_` prefix, then the cluster's with `citus_`.
///
/// Besides time and rate, each of ingest, verify and replay reports the CPU per event of this process and of each
/// node, all the node's processes together (``ServerCPU``): on one machine the cluster shows its overhead, not its
/// speedup; how the CPU spreads over the nodes predicts the speedup on machines of their own.
enum CitusBench {
    /// Events in the workload unless `--events` says otherwise: a few minutes in all on a 2-core machine.
    static let defaultEvents = 100_000
    static let defaultPort = 55446
    static let optionNames = Bench.Options.workloadNames.union(["port", "dir"])

    /// Where the stages run.
    struct Engine {
        /// Before each line: `plain_` or `citus_`.
        let prefix: String
        /// The server's superuser on its (coordinator's) maintenance database.
        let server: PostgresConfiguration
        /// The cluster the server is the coordinator of; nil for PostgreSQL alone.
        let cluster: LocalCitusCluster?
        /// Every node, the server (coordinator) first.
        let nodes: [ServerCPU]
    }

    static func run(_ arguments: Arguments) throws {
        var options = try Bench.Options(arguments)
        if arguments.value("events") == nil { options.events = defaultEvents }
        let port = try arguments.value("port").map { text in
            guard let port = Int(text), (1...65533).contains(port) else { throw UsageError("--port must be a port number up to 65533") }
            return port
        } ?? defaultPort
        if let folder = arguments.value("dir"), FileManager.default.fileExists(atPath: folder) {
            throw UsageError("--dir \(folder) exists: name a new folder (it is removed at the end)")
        }
        let plain = PostgresConfiguration.fromEnvironment()
        try Bench.withWorkload(options) { path, _ in
            try stages(Engine(prefix: "plain_", server: plain, cluster: nil, nodes: [try ServerCPU(name: "server", server: plain)]),
                       workload: path, options: options)
            try withCluster(port: port, folder: arguments.value("dir")) { cluster in
                let coordinator = cluster.coordinator.configuration(as: .superuser)
                let nodes = try [ServerCPU(name: "coordinator", server: coordinator)] + cluster.workers.enumerated().map {
                    try ServerCPU(name: "worker\($0.offset + 1)", server: $0.element.configuration(as: .superuser))
                }
                try stages(Engine(prefix: "citus_", server: coordinator, cluster: cluster, nodes: nodes), workload: path, options: options)
            }
        }
    }

    /// Starts a throwaway cluster (no fsync, as `make bench`'s server) in `folder`, or in a fresh folder under the
    /// temporary folder, runs `body` on it, then stops it and removes the folder.
    private static func withCluster(port: Int, folder: String?, _ body: (LocalCitusCluster) throws -> Void) throws {
        let url = URL(fileURLWithPath: folder ?? "/tmp/geoledger-bench-citus-\(UUID().uuidString.prefix(8).lowercased())")
        // The nodes run as the postgres user when this runs as root: it must be let into the folder.
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        defer { try? FileManager.default.removeItem(at: url) }
        let cluster = LocalCitusCluster(folder: url, port: port)
        defer { try? cluster.stop() }
        try cluster.start(durable: false)
        emit("citus_nodes=\(cluster.nodes.count)")
        try body(cluster)
    }

    /// Every stage on a fresh database of `engine`, with its prefix on every line.
    static func stages(_ engine: Engine, workload path: String, options: Bench.Options) throws {
        try EmitPrefix.with(engine.prefix) {
            let admin = try Connection.connect(engine.server)
            defer { admin.close() }
            try Bench.withDatabase(engine.server, admin: admin, cluster: engine.cluster) { connection, database in
                try Bench.withIngest(of: path, into: database, batchSize: options.batchSize) { ingest in
                    try settle(engine, connection, before: "ingest")
                    try stage("ingest", engine) {
                        let totals = try ingest(connection)
                        emit("ingest_duplicate=\(totals.duplicate)")
                        emit("ingest_invalid=\(totals.invalid)")
                        return totals.appended
                    }
                }
                try settle(engine, connection, before: "verify")
                try stage("verify", engine) {
                    let report = try Verifier().verify(on: connection)
                    if let broken = report.firstBrokenLink { throw BenchError("verify found a broken link: \(broken)") }
                    return report.eventsChecked
                }
                try settle(engine, connection, before: "replay")
                try stage("replay", engine) { Int(try Replayer().replay(database)) }
                try settle(engine, connection, before: "history")
                try HistoryBench.run(on: connection)
                try ReportsBench.run(on: connection)  // which settles the database first
            }
        }
    }

    /// Runs a stage that answers how many events it handled, and prints its time, its rate, and the CPU per event
    /// of this process (`client`), of each node and of all nodes (`server`).
    private static func stage(_ name: String, _ engine: Engine, _ body: () throws -> Int) throws {
        let before = engine.nodes.map { $0.seconds() }
        let (events, timing) = try Bench.timed(body)
        let used = zip(engine.nodes.map { $0.seconds() }, before).map { $0 - $1 }
        emit("\(name)_events=\(events)")
        emit("\(name)_s=\(Bench.seconds(timing.wall))")
        emit("\(name)_events_per_s=\(Bench.rate(events, timing.wall))")
        emit("\(name)_client_us_per_event=\(Bench.microseconds(timing.clientCPU, per: events))")
        if engine.nodes.count > 1 {
            for (node, cpu) in zip(engine.nodes, used) { emit("\(name)_\(node.name)_us_per_event=\(Bench.microseconds(cpu, per: events))") }
        }
        emit("\(name)_server_us_per_event=\(Bench.microseconds(used.reduce(0, +), per: events))")
    }

    /// ``Bench/settle(_:before:)`` on the coordinator (whose VACUUM reaches the shards), and a checkpoint on
    /// each worker.
    private static func settle(_ engine: Engine, _ connection: Connection, before stage: String) throws {
        try Bench.settle(connection, before: stage)
        for worker in engine.cluster?.workers ?? [] {
            let node = try Connection.connect(worker.configuration(as: .superuser))
            defer { node.close() }
            try node.execute("CHECKPOINT")
        }
    }
}

/// What ``emit(_:)`` puts before each line it prints (not before an indented one, which continues the line above).
enum EmitPrefix {
    private static let value = Mutex("")

    static var current: String { value.withLock { $0 } }

    /// Runs `body` with `prefix` before every line it emits.
    static func with<T>(_ prefix: String, _ body: () throws -> T) rethrows -> T {
        let outer = value.withLock { current in
            defer { current = prefix }
            return current
        }
        defer { value.withLock { $0 = outer } }
        return try body()
    }
}
