import Foundation
import Postgres

/// A private Citus cluster on this machine: a coordinator and two workers, each a ``LocalCluster`` of its own with
/// Citus preloaded, in `<folder>/coordinator`, `<folder>/worker1` and `<folder>/worker2`, on ports `port`, `port + 1`
/// and `port + 2`. The nodes reach each other through their Unix sockets. The `citus` extension is created in the
/// database on every node, and the workers are registered on the coordinator (`citus_add_node`); the application
/// connects to the coordinator only. Citus itself must be installed (`scripts/citus.sh`).
public struct LocalCitusCluster: Sendable {
    public let coordinator: LocalCluster
    public let workers: [LocalCluster]

    public init(folder: URL, port: Int = 5432, database: String = "geoledger") {
        let folder = folder.standardizedFileURL
        coordinator = LocalCluster(folder: folder.appendingPathComponent("coordinator"), port: port, database: database)
        workers = (1...2).map {
            LocalCluster(folder: folder.appendingPathComponent("worker\($0)"), port: port + $0, database: database)
        }
    }

    /// Whether `folder` holds a Citus cluster's nodes rather than a single cluster.
    public static func exists(in folder: URL) -> Bool {
        FileManager.default.fileExists(atPath: folder.appendingPathComponent("coordinator/pgdata").path)
    }

    public var nodes: [LocalCluster] { [coordinator] + workers }

    /// Citus needs prepared transactions for commits that span nodes, and opens connections between them.
    static let settings = """
        shared_preload_libraries = 'citus'
        max_prepared_transactions = 200
        max_connections = 200
        shared_buffers = 128MB

        """

    /// The coordinator's state: what the application sees.
    public func state() throws -> LocalCluster.State {
        try coordinator.state()
    }

    /// Starts every node (initialising what is new), creates the extension where missing and registers the workers.
    public func start(durable: Bool = true) throws {
        // The server's lib folder is next to its bin folder (/usr/lib/postgresql/15/{bin,lib} on Debian).
        let library = URL(fileURLWithPath: try LocalCluster.binary("postgres")).resolvingSymlinksInPath()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("lib/citus.so").path
        guard FileManager.default.fileExists(atPath: library) else { throw LocalClusterError.missingCitus(library) }
        for node in nodes {
            // A node connects to itself (a query's intermediate results, EXPLAIN ANALYZE) at citus.local_hostname,
            // localhost by default, where it does not listen: its socket instead.
            try node.start(durable: durable, settings: Self.settings + "citus.local_hostname = '\(node.socketDirectory.path)'\n")
        }
        try distribute(database: coordinator.database)
    }

    /// Creates a database of that name on every node (the superuser's, empty) and makes it a distributed one, as the
    /// cluster's own database is: Citus connects to the database of the same name on each worker.
    public func createDatabase(_ name: String) throws {
        for node in nodes {
            let connection = try Connection.connect(node.configuration(as: .superuser))
            defer { connection.close() }
            try connection.execute("CREATE DATABASE \(quotedIdentifier(name))")
        }
        try distribute(database: name)
    }

    /// Drops a database of ``createDatabase(_:)`` from every node, ending its sessions first.
    public func dropDatabase(_ name: String) throws {
        for node in nodes {
            let connection = try Connection.connect(node.configuration(as: .superuser))
            defer { connection.close() }
            try connection.execute("DROP DATABASE IF EXISTS \(quotedIdentifier(name)) WITH (FORCE)")
        }
    }

    /// Creates the extension in the database on every node where missing, and registers the coordinator and the
    /// workers in the coordinator's.
    private func distribute(database: String) throws {
        for node in nodes {
            let connection = try Connection.connect(node.configuration(as: .superuser).withDatabase(database))
            defer { connection.close() }
            try connection.execute("SET client_min_messages = warning; CREATE EXTENSION IF NOT EXISTS citus")
        }
        let connection = try Connection.connect(coordinator.configuration(as: .superuser).withDatabase(database))
        defer { connection.close() }
        try connection.query("SELECT citus_set_coordinator_host($1, $2)", [coordinator.socketDirectory.path, Int32(coordinator.port)])
        for worker in workers {
            let registered = try connection.query(
                "SELECT 1 FROM pg_dist_node WHERE nodename = $1 AND nodeport = $2", [worker.socketDirectory.path, Int32(worker.port)])
            if registered.count == 0 {
                try connection.query("SELECT citus_add_node($1, $2)", [worker.socketDirectory.path, Int32(worker.port)])
            }
        }
    }

    /// Stops the coordinator first, then the workers.
    public func stop() throws {
        for node in nodes { try node.stop() }
    }
}
