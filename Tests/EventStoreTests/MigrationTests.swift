import DatabaseTestSupport
import EventStore
import Foundation
import Postgres
import Synchronization
import Testing

@Suite("Migrations")
struct MigrationTests {
    @Test("a second migrate is a no-op; status lists every migration as applied")
    func idempotent() throws {
        let database = try TestDatabase.create(migrated: false)
        defer { database.drop() }
        let connection = try database.connect()
        let migrator = Migrator(migrations: try Migration.bundled())
        let first = try migrator.migrate(on: connection)
        #expect(first == (try Migration.bundled()).map(\.name))
        #expect(try migrator.migrate(on: connection) == [])
        #expect(try migrator.status(on: connection).allSatisfy(\.isApplied))
    }

    @Test("an applied migration that changed is refused, naming the file")
    func editedMigrationRefused() throws {
        let database = try TestDatabase.create(migrated: false)
        defer { database.drop() }
        let connection = try database.connect()
        let original = [Migration(name: "0001_t.sql", sql: "CREATE TABLE t (a int);")]
        try Migrator(migrations: original).migrate(on: connection)
        let edited = [Migration(name: "0001_t.sql", sql: "CREATE TABLE t (a bigint);"),
                      Migration(name: "0002_u.sql", sql: "CREATE TABLE u (a int);")]
        #expect(throws: EventStoreError.changedSinceApplied(name: "0001_t.sql")) {
            try Migrator(migrations: edited).migrate(on: connection)
        }
        let tables = try connection.query("SELECT count(*) FROM pg_tables WHERE tablename = 'u'").first { _ in true }
        #expect(try tables?.decode(0, as: Int.self) == 0)
    }

    /// The migrations table of a database that `geoledger migrate` brought up to date while the SQL files lived in
    /// Sources/EventStore/Migrations: the names and checksums as that build stored them (`Fixtures/`, copied out of
    /// its `schema_migrations` with psql's `\copy`).
    @Test("a database migrated before the SQL files moved to Migrations/ has only the files added since pending; status lists each as applied")
    func migratedBeforeTheMove() throws {
        let url = try #require(Bundle.module.url(
            forResource: "schema_migrations-before-move", withExtension: "tsv", subdirectory: "Fixtures"))
        let recorded = try String(contentsOf: url, encoding: .utf8).split(separator: "\n").map {
            $0.split(separator: "\t").map(String.init)
        }
        let bundled = try Migration.bundled()
        // The files of that build, unchanged, first; then those added since.
        let before = Array(bundled.prefix(recorded.count))
        let since = bundled.dropFirst(recorded.count).map(\.name)
        #expect(before.map { [$0.name, $0.checksum] } == recorded)

        let database = try TestDatabase.create(migrated: false)
        defer { database.drop() }
        let connection = try database.connect()
        // The database as that build left it: the schema its files made, and its migrations table.
        try Migrator(migrations: []).migrate(on: connection)
        for migration in before { try connection.transaction { try $0.execute(migration.sql) } }
        try connection.copyFrom("COPY schema_migrations (name, checksum) FROM STDIN") { writer in
            for row in recorded { try writer.row(row) }
        }

        #expect(try Migrator(migrations: bundled).migrate(on: connection) == since)
        let status = try GeoledgerProcess.run(
            ["migrate", "--status", "--owner-url", database.url], environment: ["DATABASE_URL": database.url])
        #expect(status.status == 0, "\(status.stderr)")
        let lines = status.stdout.split(separator: "\n")
        #expect(lines.count == bundled.count)
        for (line, migration) in zip(lines, bundled) {
            #expect(line.hasPrefix("\(migration.name)  applied "), "\(line)")
        }

        // An applied file that changed is still refused.
        try connection.query(
            "UPDATE schema_migrations SET checksum = $1 WHERE name = $2", [String(repeating: "0", count: 64), recorded[1][0]])
        #expect(throws: EventStoreError.changedSinceApplied(name: recorded[1][0])) {
            try Migrator(migrations: bundled).migrate(on: connection)
        }
    }

    @Test("a failing migration leaves nothing of itself and is not recorded")
    func failingMigrationRollsBack() throws {
        let database = try TestDatabase.create(migrated: false)
        defer { database.drop() }
        let connection = try database.connect()
        let migrations = [Migration(name: "0001_bad.sql", sql: "CREATE TABLE v (a int); SELECT no_such_function();")]
        #expect(throws: PostgresError.self) { try Migrator(migrations: migrations).migrate(on: connection) }
        #expect(try Migrator(migrations: migrations).status(on: connection).map(\.isApplied) == [false])
        #expect(try connection.query("SELECT 1 FROM pg_tables WHERE tablename = 'v'").count == 0)
    }

    @Test("a log stored before the log chain gets it: verify passes and the head is the one the appends computed")
    func logChainBackfilled() throws {
        let bundled = try Migration.bundled()
        let chainAt = try #require(bundled.firstIndex { $0.name == "0004_log_head.sql" })
        // The same events appended to a database with the log chain, and copied without it into one migrated only
        // as far as before it.
        let current = try TestDatabase.create()
        defer { current.drop() }
        let source = try current.connect()
        for n in 0..<12 {
            _ = try EventLog().append([event("a-\(n % 3)", n), event("b-\(n % 2)", n)], on: source)
        }
        let computed = try EventLog().head(on: source)
        let columns = "position, event_id, stream, version, type, data, metadata, recorded_at, hash"
        let rows = try source.query(
            "SELECT position::text, event_id::text, stream, version::text, type, data::text, metadata::text, recorded_at::text, hash::text FROM events ORDER BY position"
        ).map { row in try (0..<9).map { try row.decode($0, as: String.self) } }

        let older = try TestDatabase.create(migrated: false)
        defer { older.drop() }
        let connection = try older.connect()
        try Migrator(migrations: Array(bundled[..<chainAt])).migrate(on: connection)
        try connection.copyFrom("COPY events (\(columns)) FROM STDIN") { writer in
            for row in rows { try writer.row(row) }
        }
        #expect(try Migrator(migrations: bundled).migrate(on: connection) == bundled[chainAt...].map(\.name))

        let report = try Verifier(pageSize: 5).verify(on: connection)
        #expect(report.firstBrokenLink == nil && report.eventsChecked == 24)
        #expect(report.head == computed)
        // The column is required from now on, and the trigger switched off for the backfill is on again.
        let notNull = try connection.query(
            "SELECT attnotnull FROM pg_attribute WHERE attrelid = 'events'::regclass AND attname = 'log_hash'"
        ).first!.decode(0, as: Bool.self)
        #expect(notNull)
        #expect { try connection.execute("UPDATE events SET type = 'Changed' WHERE position = 1") } throws: { error in
            (error as? PostgresError)?.sqlState == "42501"
        }
    }

    @Test("two concurrent runs apply each migration exactly once")
    func concurrentRuns() throws {
        let database = try TestDatabase.create(migrated: false)
        defer { database.drop() }
        let connections = [try database.connect(), try database.connect()]
        let applied = Mutex<[String]>([])
        let errors = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 2) { index in
            do {
                let names = try Migrator(migrations: try Migration.bundled()).migrate(on: connections[index])
                applied.withLock { $0 += names }
            } catch {
                errors.withLock { $0.append("\(error)") }
            }
        }
        #expect(errors.withLock { $0 } == [])
        #expect(applied.withLock { $0.sorted() } == (try Migration.bundled()).map(\.name))
    }
}
