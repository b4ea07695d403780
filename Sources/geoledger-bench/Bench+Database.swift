import EventStore
import Foundation
import LocalPostgres
import Postgres

/// The databases the benches run on: each fresh and migrated, settled before a timed stage, read back in COPY's text form.
extension Bench {
    /// The server settings that decide what a commit costs.
    static let durabilitySettings = ["fsync", "synchronous_commit", "full_page_writes"]

    /// Prints and answers each of ``durabilitySettings`` as the server reports it: the figures mean little without them.
    static func durability(server: PostgresConfiguration) throws -> [(String, String)] {
        let admin = try Connection.connect(server)
        defer { admin.close() }
        var durability: [(String, String)] = []
        for setting in durabilitySettings {
            guard let value = try admin.query("SHOW \(setting)").first?.decode(0, as: String.self) else {
                throw BenchError("SHOW \(setting) answered no row")
            }
            durability.append((setting, value))
            emit("\(setting)=\(value)")
        }
        return durability
    }

    /// Runs `body` on a fresh, migrated database of its own, dropped afterwards.
    /// - Parameter cluster: the Citus cluster `server` is the coordinator of, whose nodes each get the database.
    static func withDatabase<T>(
        _ server: PostgresConfiguration, admin: Connection, cluster: LocalCitusCluster? = nil,
        _ body: (Connection, PostgresConfiguration) throws -> T
    ) throws -> T {
        let name = "bench_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(16)
        if let cluster { try cluster.createDatabase(String(name)) } else { try admin.execute("CREATE DATABASE \(name)") }
        defer {
            if let cluster { try? cluster.dropDatabase(String(name)) } else { _ = try? admin.execute("DROP DATABASE IF EXISTS \(name) WITH (FORCE)") }
        }
        let database = server.withDatabase(String(name))
        let connection = try Connection.connect(database)
        defer { connection.close() }
        try Migrator(migrations: try Migration.bundled()).migrate(on: connection)
        return try body(connection, database)
    }

    /// Before each timed stage the database settles, as it does soon after any bulk load. Every table is vacuumed and
    /// analysed, so that no stage shares the machine with autovacuum's upkeep of an earlier stage's rows or pays for
    /// marking them visible. Then a checkpoint writes out every dirty page, so that no stage pays for writing what an
    /// earlier one left in the buffer cache (reading the log back for the COPY, for one, sets hint bits on every page
    /// it reads).
    static func settle(_ connection: Connection, before stage: String) throws {
        let (_, settling) = try timed {
            try connection.execute("VACUUM (ANALYZE)")
            try connection.execute("CHECKPOINT")
        }
        emit("settle_before_\(stage)_s=\(seconds(settling.wall))")
    }

    /// Every column the ingest writes.
    static let eventColumns = "position, event_id, stream, version, type, data, metadata, recorded_at, hash, log_hash"

    /// Every stored event in its COPY text form, in position order, read in chunks.
    static func storedRows(on connection: Connection) throws -> [[String?]] {
        try storedRows(of: "events", columns: eventColumns.components(separatedBy: ", "), on: connection)
    }

    /// The `columns` of every row of `table` (which has a `position` column) in their COPY text form, in position
    /// order, read in chunks.
    static func storedRows(of table: String, columns: [String], on connection: Connection) throws -> [[String?]] {
        var rows: [[String?]] = []
        var after: Int64 = 0
        let texts = columns.map { "t.\($0)::text" }.joined(separator: ", ")
        while true {
            let chunk = try connection.query(
                "SELECT \(texts), t.position FROM \(table) t WHERE t.position > $1 ORDER BY t.position LIMIT 50000", [after])
            if chunk.isEmpty { return rows }
            for row in chunk {
                rows.append(try columns.indices.map { try row.decode($0, as: String?.self) })
                after = try row.decode(columns.count)
            }
        }
    }

    /// The entity of `kind` with the most fixes, then a repeatable sample of `count` others: the subjects of the
    /// stages that time reads of one entity.
    static func sampleEntities(_ kind: String, count: Int, on connection: Connection) throws -> [String] {
        let busiest = try connection.query(
            """
            SELECT entity_id FROM projections.fixes WHERE entity_kind = $1
            GROUP BY entity_id ORDER BY count(*) DESC, entity_id LIMIT 1
            """, [kind]
        ).map { try $0.decode(0, as: String.self) }
        let others = try connection.query(
            """
            SELECT DISTINCT entity_id FROM projections.fixes TABLESAMPLE BERNOULLI (1) REPEATABLE (20261129)
            WHERE entity_kind = $1 ORDER BY entity_id LIMIT $2
            """, [kind, count]
        ).map { try $0.decode(0, as: String.self) }
        return busiest + others.filter { !busiest.contains($0) }
    }
}
