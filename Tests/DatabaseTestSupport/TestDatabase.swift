import EventStore
import Foundation
import Postgres

/// A fresh, migrated database on the server named by DATABASE_URL (which `make test` starts), dropped by
/// ``drop()``. Integration tests fail with a clear message, never skip, when DATABASE_URL is missing.
public struct TestDatabase: Sendable {
    public let name: String
    public let configuration: PostgresConfiguration
    private let server: PostgresConfiguration

    public static func create(migrated: Bool = true) throws -> TestDatabase {
        guard let url = ProcessInfo.processInfo.environment["DATABASE_URL"], !url.isEmpty else {
            throw MissingDatabase()
        }
        let server = PostgresConfiguration(connectionString: url)
        let name = "test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        try Connection.connect(server).execute("CREATE DATABASE \(name)")
        let database = TestDatabase(name: name, configuration: server.withDatabase(name), server: server)
        if migrated {
            try Migrator(migrations: try Migration.bundled()).migrate(on: try database.connect())
        }
        return database
    }

    /// A connection URL naming this database, for the command-line tool.
    public var url: String {
        let server = ProcessInfo.processInfo.environment["DATABASE_URL"] ?? ""
        if var components = URLComponents(string: server), components.scheme?.hasPrefix("postgres") == true {
            components.path = "/" + name
            return components.string ?? server
        }
        return server + " dbname=" + name
    }

    public func connect() throws -> Connection {
        try Connection.connect(configuration)
    }

    /// Drops the database, ending its other sessions first.
    public func drop() {
        _ = try? Connection.connect(server).execute("DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
    }
}

public struct MissingDatabase: Error, CustomStringConvertible {
    public var description: String {
        "DATABASE_URL is not set: integration tests need a PostgreSQL server. Run them with 'make test', which starts a throwaway cluster."
    }
}
