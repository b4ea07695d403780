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
        try admin.execute("CREATE DATABASE \(name)")
        return TestDatabase(name: name, configuration: server.withDatabase(name), server: server, roles: nil)
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
        try admin.execute("CREATE DATABASE \(name) OWNER \(roles.owner)")
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
