import Foundation
import Migrations
import Postgres

/// One SQL file of the top-level `Migrations/` folder, named `NNNN_description.sql`.
public struct Migration: Sendable, Equatable {
    public let name: String
    public let sql: String
    public var checksum: String { SHA256.digest(Array(sql.utf8)).hex }

    public init(name: String, sql: String) {
        self.name = name
        self.sql = sql
    }

    /// The migrations shipped with Geoledger (the top-level `Migrations/` folder), in the order they apply.
    public static func bundled() throws -> [Migration] {
        let files = try SQLFiles.all()
        guard !files.isEmpty else { throw EventStoreError.missingMigrations }
        return files.map { Migration(name: $0.name, sql: $0.sql) }
    }
}

/// What `migrate --status` shows for one migration.
public struct MigrationStatus: Sendable, Equatable {
    public let name: String
    public let appliedAt: Date?
    public var isApplied: Bool { appliedAt != nil }
}

/// Applies pending migrations in order, each in its own transaction, under an advisory lock so that
/// concurrent runs are safe. Refuses to run when an applied migration has changed since.
public struct Migrator {
    /// Arbitrary, fixed: the advisory lock key serialising migration runs.
    static let lockKey: Int64 = 0x6765_6f6c_6d69_6772
    let migrations: [Migration]

    public init(migrations: [Migration]) {
        self.migrations = migrations
    }

    /// Applies what is pending; returns the names applied (empty when up to date).
    @discardableResult
    public func migrate(on connection: Connection) throws -> [String] {
        try connection.query("SELECT pg_advisory_lock($1)", [Self.lockKey])
        defer { _ = try? connection.query("SELECT pg_advisory_unlock($1)", [Self.lockKey]) }
        try createLedger(on: connection)
        let applied = try appliedChecksums(on: connection)
        try checkUnchanged(applied)
        var names: [String] = []
        for migration in migrations where applied[migration.name] == nil {
            try connection.transaction { transaction in
                try transaction.execute(migration.sql)
                try transaction.query(
                    "INSERT INTO schema_migrations (name, checksum) VALUES ($1, $2)",
                    [migration.name, migration.checksum])
            }
            names.append(migration.name)
        }
        return names
    }

    /// Applied and pending migrations, in order; unchanged-ness is checked too.
    public func status(on connection: Connection) throws -> [MigrationStatus] {
        try createLedger(on: connection)
        let rows = try connection.query("SELECT name, checksum, applied_at FROM schema_migrations ORDER BY name")
        var appliedAt: [String: Date] = [:]
        var checksums: [String: String] = [:]
        for row in rows {
            let name = try row.decode(0, as: String.self)
            checksums[name] = try row.decode(1, as: String.self)
            appliedAt[name] = try row.decode(2, as: Date.self)
        }
        try checkUnchanged(checksums)
        return migrations.map { MigrationStatus(name: $0.name, appliedAt: appliedAt[$0.name]) }
    }

    private func createLedger(on connection: Connection) throws {
        try connection.execute("""
            SET client_min_messages = warning;
            CREATE TABLE IF NOT EXISTS schema_migrations (
                name       text        PRIMARY KEY,
                checksum   text        NOT NULL,
                applied_at timestamptz NOT NULL DEFAULT now()
            );
            RESET client_min_messages;
            """)
    }

    private func appliedChecksums(on connection: Connection) throws -> [String: String] {
        var result: [String: String] = [:]
        for row in try connection.query("SELECT name, checksum FROM schema_migrations") {
            result[try row.decode(0, as: String.self)] = try row.decode(1, as: String.self)
        }
        return result
    }

    private func checkUnchanged(_ applied: [String: String]) throws {
        let shipped = Dictionary(uniqueKeysWithValues: migrations.map { ($0.name, $0.checksum) })
        for name in applied.keys.sorted() {
            guard let checksum = shipped[name] else { throw EventStoreError.appliedButUnknown(name: name) }
            if checksum != applied[name] { throw EventStoreError.changedSinceApplied(name: name) }
        }
    }
}
