import Foundation
import Postgres
import Testing

/// The database the integration tests use: `DATABASE_URL`, which `make test` sets.
enum TestDatabase {
    struct NotConfigured: Error, CustomStringConvertible {
        var description: String {
            "DATABASE_URL is not set: these tests need a PostgreSQL server. Run `make test`, or start one and export DATABASE_URL (e.g. postgresql://postgres@/postgres?host=/tmp/pgdev&port=55432)."
        }
    }

    static func configuration() throws -> PostgresConfiguration {
        guard let url = ProcessInfo.processInfo.environment["DATABASE_URL"], !url.isEmpty else {
            throw NotConfigured()
        }
        return PostgresConfiguration(connectionString: url)
    }

    static func connect() throws -> Connection {
        try Connection.connect(configuration())
    }

    /// A table name no other test uses.
    static func uniqueName(_ prefix: String) -> String {
        "\(prefix)_\(UUID().uuidString.prefix(8).lowercased())"
    }
}
