import Foundation
import Postgres

/// Configuration built once from the environment and handed down.
struct Settings {
    /// The private cluster's folder, `.data/` in the working directory unless GEOLEDGER_DATA_DIR says otherwise.
    let localCluster: LocalCluster
    let database: PostgresConfiguration

    static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> Settings {
        let folder = environment["GEOLEDGER_DATA_DIR"].map { URL(fileURLWithPath: $0) }
            ?? URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent(".data")
        let cluster = LocalCluster(folder: folder)
        let usesLibpqVariables = environment.keys.contains { ["PGHOST", "PGDATABASE", "PGPORT", "PGUSER", "PGSERVICE"].contains($0) }
        let database: PostgresConfiguration
        if environment["DATABASE_URL"] != nil || usesLibpqVariables {
            database = .fromEnvironment(environment)
        } else if FileManager.default.fileExists(atPath: folder.appendingPathComponent("pgdata").path) {
            database = cluster.configuration
        } else {
            database = .fromEnvironment(environment)
        }
        return Settings(localCluster: cluster, database: database)
    }

    /// A connection to the configured database, with a hint on failure.
    func connect() throws -> Connection {
        do {
            return try Connection.connect(database)
        } catch let error as PostgresError {
            throw ConnectionFailed(configuration: database, underlying: error)
        }
    }
}

struct ConnectionFailed: Error, CustomStringConvertible {
    let configuration: PostgresConfiguration
    let underlying: PostgresError

    var description: String {
        """
        cannot connect to \(configuration): \(underlying.message)
        Set DATABASE_URL (or libpq's PG* variables), or start the private cluster with 'geoledger db start'.
        """
    }
}
