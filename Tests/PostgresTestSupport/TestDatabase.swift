import Foundation
import Postgres

/// A fresh database on the server named by DATABASE_URL (which `make test` starts), dropped by ``drop()``; or, for
/// tests that make their own uniquely named tables, that server's own database. Integration tests fail with a clear
/// message, never skip, when DATABASE_URL is missing.
///
/// DATABASE_URL names a superuser, who creates the databases and roles. Migrated databases come from
/// DatabaseTestSupport, which adds the event store's migrations to this.
public struct TestDatabase: Sendable {
    public let name: String
    public let configuration: PostgresConfiguration
    private let server: PostgresConfiguration
    /// The owner and application roles of a database from ``createEmptyWithRoles()``, dropped with it.
    public let roles: Roles?

    public struct Roles: Sendable {
        public let owner: String
        public let application: String
    }

    /// A fresh, empty database.
    public static func createEmpty() throws -> TestDatabase {
        let server = try serverConfiguration()
        let name = uniqueName("test")
        let admin = try Connection.connect(server)
        defer { admin.close() }
        try createDatabase(name, owner: nil, on: admin)
        return TestDatabase(name: name, configuration: server.withDatabase(name), server: server, roles: nil)
    }

    /// Creates the database: on PostgreSQL alone, with CREATE DATABASE; on a Citus cluster (GEOLEDGER_TEST_CITUS=1),
    /// on every node from that node's template, which holds the extension and the registered workers.
    private static func createDatabase(_ name: String, owner: String?, on admin: Connection) throws {
        let ownedBy = owner.map { " OWNER \($0)" } ?? ""
        guard let cluster = try CitusTestCluster.shared.get() else {
            try admin.execute("CREATE DATABASE \(name)\(ownedBy)")
            return
        }
        for node in cluster.nodes {
            let connection = try Connection.connect(node)
            defer { connection.close() }
            try connection.execute("CREATE DATABASE \(name) TEMPLATE \(CitusTestCluster.template)\(ownedBy)")
        }
    }

    /// A fresh, empty database as a server run with least privilege has it: two new login roles, an owner that owns
    /// the database and an application role with no privileges of its own. The roles connect as the server's
    /// authentication allows them (the test cluster trusts its socket).
    public static func createEmptyWithRoles() throws -> TestDatabase {
        let server = try serverConfiguration()
        let name = uniqueName("test")
        let roles = Roles(owner: uniqueName("test_owner"), application: uniqueName("test_app"))
        let admin = try Connection.connect(server)
        defer { admin.close() }
        try admin.execute("CREATE ROLE \(roles.owner) LOGIN; CREATE ROLE \(roles.application) LOGIN")
        try createDatabase(name, owner: roles.owner, on: admin)
        return TestDatabase(name: name, configuration: server.withDatabase(name), server: server, roles: roles)
    }

    /// The server and database DATABASE_URL names, as its superuser.
    public static func serverConfiguration() throws -> PostgresConfiguration {
        guard let url = ProcessInfo.processInfo.environment["DATABASE_URL"], !url.isEmpty else {
            throw MissingDatabase()
        }
        return PostgresConfiguration(connectionString: url)
    }

    /// A connection to the database DATABASE_URL names, for tests that make their own uniquely named tables.
    public static func connectToServer() throws -> Connection {
        try Connection.connect(serverConfiguration())
    }

    /// Whether the tests run against a Citus cluster (`make test-citus`). Citus reports an error that a worker raised
    /// during a COPY as XX000 with the worker's message (naming the shard), not with the worker's SQLSTATE.
    public static let onCitus = ProcessInfo.processInfo.environment["GEOLEDGER_TEST_CITUS"] == "1"

    /// A name (of a database, role or table) no other test uses.
    public static func uniqueName(_ prefix: String) -> String {
        prefix + "_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
    }

    /// A connection URL naming this database, for the command-line tool; as `role` when given, else as DATABASE_URL's
    /// user.
    public func url(as role: String?) -> String {
        let server = ProcessInfo.processInfo.environment["DATABASE_URL"] ?? ""
        if var components = URLComponents(string: server), components.scheme?.hasPrefix("postgres") == true {
            components.path = "/" + name
            if let role {
                // A `user` query parameter wins over the user before the host.
                components.queryItems = (components.queryItems ?? []).filter { $0.name != "user" } + [URLQueryItem(name: "user", value: role)]
            }
            return components.string ?? server
        }
        return server + " dbname=" + name + (role.map { " user=" + $0 } ?? "")
    }

    public var url: String { url(as: nil) }

    public func connect() throws -> Connection {
        try Connection.connect(configuration)
    }

    public func connect(as role: String) throws -> Connection {
        try Connection.connect(PostgresConfiguration(connectionString: url(as: role)))
    }

    /// Drops the database, ending its other sessions first, then its roles.
    public func drop() {
        guard let admin = try? Connection.connect(server) else { return }
        defer { admin.close() }
        _ = try? admin.execute("DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
        if case let cluster?? = try? CitusTestCluster.shared.get() {
            for worker in cluster.nodes.dropFirst() {
                guard let connection = try? Connection.connect(worker) else { continue }
                _ = try? connection.execute("DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
                connection.close()
            }
        }
        if let roles {
            _ = try? admin.execute("DROP ROLE IF EXISTS \(roles.application); DROP ROLE IF EXISTS \(roles.owner)")
        }
    }
}

public struct MissingDatabase: Error, CustomStringConvertible {
    public var description: String {
        "DATABASE_URL is not set: integration tests need a PostgreSQL server. Run them with 'make test', which starts a throwaway cluster."
    }
}

/// The nodes of the Citus cluster that DATABASE_URL's database is the coordinator of, when GEOLEDGER_TEST_CITUS=1
/// (`make test-citus`): each node, as DATABASE_URL's user, on its `postgres` database. Test databases are made on
/// every node from a template database of its own, which has the extension and, on the coordinator, the workers
/// registered; Citus connects to the database of the same name on each worker. (Citus's own propagation of CREATE
/// DATABASE accepts only template1, which its maintenance daemon keeps busy.)
struct CitusTestCluster: Sendable {
    static let template = "geoledger_citus_template"
    /// The coordinator first.
    let nodes: [PostgresConfiguration]

    static let shared: Result<CitusTestCluster?, any Error> = Result { try make() }

    private static func make() throws -> CitusTestCluster? {
        guard ProcessInfo.processInfo.environment["GEOLEDGER_TEST_CITUS"] == "1" else { return nil }
        let server = try TestDatabase.serverConfiguration()
        let coordinator = try Connection.connect(server)
        defer { coordinator.close() }
        guard try coordinator.query("SELECT 1 FROM pg_extension WHERE extname = 'citus'").count > 0 else {
            throw CitusTestClusterError("GEOLEDGER_TEST_CITUS=1 but DATABASE_URL's database has no citus extension: start the cluster with 'geoledger db start --citus'")
        }
        let user = try coordinator.query("SELECT current_user").first!.decode(0, as: String.self)
        let rows = try coordinator.query("SELECT nodename, nodeport FROM pg_dist_node WHERE noderole = 'primary' ORDER BY groupid")
        let addresses = try rows.map { (try $0.decode(0, as: String.self), try $0.decode(1, as: Int32.self)) }
        let nodes = addresses.map { host, port in
            PostgresConfiguration(connectionString: "host=\(host) port=\(port) user=\(user) dbname=postgres")
        }
        let cluster = CitusTestCluster(nodes: nodes)
        try cluster.makeTemplates(addresses: addresses)
        return cluster
    }

    /// Makes each node's template, when it has none: the extension on every node, then the nodes registered in the
    /// coordinator's; then no one may connect to them, and the maintenance daemons that Citus started in them are
    /// ended, so that they can be copied.
    private func makeTemplates(addresses: [(String, Int32)]) throws {
        let connections = try nodes.map { try Connection.connect($0) }
        defer { connections.forEach { $0.close() } }
        if try connections[0].query("SELECT 1 FROM pg_database WHERE datname = $1", [Self.template]).count > 0 { return }
        for (connection, node) in zip(connections, nodes) {
            try connection.execute("DROP DATABASE IF EXISTS \(Self.template) WITH (FORCE)")
            try connection.execute("CREATE DATABASE \(Self.template)")
            let template = try Connection.connect(node.withDatabase(Self.template))
            defer { template.close() }
            try template.execute("SET client_min_messages = warning; CREATE EXTENSION citus")
        }
        let template = try Connection.connect(nodes[0].withDatabase(Self.template))
        try template.query("SELECT citus_set_coordinator_host($1, $2)", [addresses[0].0, addresses[0].1])
        for (host, port) in addresses.dropFirst() {
            try template.query("SELECT citus_add_node($1, $2)", [host, port])
        }
        template.close()
        for connection in connections {
            try connection.execute("ALTER DATABASE \(Self.template) WITH ALLOW_CONNECTIONS false IS_TEMPLATE true")
            try connection.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1", [Self.template])
        }
    }
}

struct CitusTestClusterError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
