import Foundation
import Postgres

/// Configuration built once from the environment and handed down.
struct Settings {
    /// The private cluster's folder, `.data/` in the working directory unless GEOLEDGER_DATA_DIR says otherwise.
    let localCluster: LocalCluster
    let database: PostgresConfiguration
    /// Why GEOLEDGER_STATEMENT_TIMEOUT cannot be used, thrown by ``connect()``.
    let invalidSetting: String?

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
        // Seconds a statement may take, and the client wait for the server's answer; 0: no limit.
        let timeoutText = environment["GEOLEDGER_STATEMENT_TIMEOUT"].flatMap { $0.isEmpty ? nil : $0 } ?? "60"
        let timeout = Int(timeoutText).flatMap { (0...2_000_000).contains($0) ? Double($0) : nil }
        return Settings(
            localCluster: cluster,
            database: database.withStatementTimeout(timeout, setBy: "GEOLEDGER_STATEMENT_TIMEOUT (seconds, 0 for no limit)"),
            invalidSetting: timeout == nil ? "GEOLEDGER_STATEMENT_TIMEOUT must be whole seconds from 0 (no limit) to 2000000, not '\(timeoutText)'" : nil)
    }

    /// A connection to the configured database, with a hint on failure.
    func connect() throws -> Connection {
        if let invalidSetting { throw CommandError(invalidSetting) }
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
