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
        #expect(throws: MigrationError.changedSinceApplied(name: "0001_t.sql")) {
            try Migrator(migrations: edited).migrate(on: connection)
        }
        let tables = try connection.query("SELECT count(*) FROM pg_tables WHERE tablename = 'u'").first { _ in true }
        #expect(try tables?.decode(0, as: Int.self) == 0)
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
