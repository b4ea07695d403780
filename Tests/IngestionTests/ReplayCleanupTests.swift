import DatabaseTestSupport
import EventStore
import Foundation
import Postgres
import Projections
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A replay that does not finish leaves no rebuild behind for long: the next replay drops it, and never one that a
/// replay still running is building. Each test holds the append lock so that a replay stops at its swap, its rebuild
/// complete, for as long as the test needs.
@Suite("Replay after one that did not finish", .serialized)
struct ReplayCleanupTests {
    /// A database with a log and its inline projections.
    static func database() throws -> (IngestionDatabase, inline: [String: String]) {
        let db = try IngestionDatabase()
        try db.ingest(OrderWorkload(withUnbinds: true).shuffled(seed: 5), batchSize: 50)
        return (db, try db.allProjections())
    }

    static func rebuildTables(_ db: IngestionDatabase) throws -> Int {
        try db.count("SELECT count(*) FROM pg_tables WHERE schemaname = 'projections_rebuild'")
    }

    static func rebuildExists(_ db: IngestionDatabase) throws -> Bool {
        try db.count("SELECT count(*) FROM pg_namespace WHERE nspname = 'projections_rebuild'") == 1
    }

    /// Whether a session of the database waits for an advisory lock: a replay at its swap, behind the held append lock.
    static func replayWaits(_ db: IngestionDatabase) throws -> Bool {
        try db.count(
            """
            SELECT count(*) FROM pg_locks l JOIN pg_database d ON d.oid = l.database
            WHERE l.locktype = 'advisory' AND NOT l.granted AND d.datname = current_database()
            """) == 1
    }

    /// Whether no session holds the replay lock (taken and given back at once to find out).
    static func replayLockIsFree(_ db: IngestionDatabase) throws -> Bool {
        guard try db.connection.query("SELECT pg_try_advisory_lock($1)", [Replayer.replayLockKey]).first!.decode(0, as: Bool.self) else {
            return false
        }
        try db.connection.query("SELECT pg_advisory_unlock($1)", [Replayer.replayLockKey])
        return true
    }

    /// A second session of `db` holding the append lock until ``release(_:)``.
    static func holdAppendLock(_ db: IngestionDatabase) throws -> IngestionDatabase {
        let holder = try IngestionDatabase(sharing: db)
        try holder.connection.execute("BEGIN")
        try EventLog().lockAppends(on: holder.connection)
        return holder
    }

    static func release(_ holder: IngestionDatabase) throws {
        try holder.connection.execute("COMMIT")
    }

    /// Runs a replay on a thread of its own; `wait` gives its outcome.
    static func replayInBackground(_ configuration: PostgresConfiguration) -> () -> Result<Int64, any Error> {
        let outcome = Mutex<Result<Int64, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let result = Result { try Replayer(chunkSize: 7, workers: 2).replay(configuration) }
            outcome.withLock { $0 = result }
            done.signal()
        }
        return {
            done.wait()
            return outcome.withLock { $0! }
        }
    }

    @Test("a replay killed at its swap leaves its rebuild; its server session ends with it, and the next replay drops the rebuild")
    func killedReplay() throws {
        let (db, inline) = try Self.database()
        defer { db.drop() }
        let holder = try Self.holdAppendLock(db)
        defer { holder.connection.close() }
        let replay = try RunningGeoledger(["replay", "--quiet"], environment: ["DATABASE_URL": db.url])
        replay.closeInput()
        #expect(try eventually(within: 60) { try Self.replayWaits(db) })
        #expect(try Self.rebuildTables(db) == inline.count)

        kill(replay.pid, SIGKILL)
        _ = replay.waitForExit(limit: 10)
        // Its server session was waiting for the append lock; it notices its client is gone and ends, giving the
        // replay lock back, instead of holding it until the lock comes.
        #expect(try eventually(within: 10) { try Self.replayLockIsFree(db) })
        try Self.release(holder)
        #expect(try Self.rebuildExists(db))

        let next = try GeoledgerProcess.run(["replay", "--quiet"], environment: ["DATABASE_URL": db.url])
        #expect(next.status == 0, "\(next.stderr)")
        #expect(try !Self.rebuildExists(db))
        #expect(try db.allProjections() == inline)
    }

    @Test("while a replay runs, a second one is refused and its rebuild stays whole; it then finishes")
    func concurrentReplay() throws {
        let (db, inline) = try Self.database()
        defer { db.drop() }
        let holder = try Self.holdAppendLock(db)
        defer { holder.connection.close() }
        let first = Self.replayInBackground(db.database.configuration)
        #expect(try eventually(within: 60) { try Self.replayWaits(db) })
        let rowsBefore = try db.count("SELECT count(*) FROM projections_rebuild.fixes")
        #expect(rowsBefore > 0)

        #expect(throws: ProjectionError.replayAlreadyRunning) { try Replayer().replay(db.database.configuration) }
        #expect(try Self.rebuildTables(db) == inline.count)
        #expect(try db.count("SELECT count(*) FROM projections_rebuild.fixes") == rowsBefore)

        try Self.release(holder)
        #expect(try first().get() == Int64(db.count("SELECT count(*) FROM events")))
        #expect(try !Self.rebuildExists(db))
        #expect(try db.allProjections() == inline)
    }

    @Test("a replay that fails drops its rebuild and leaves the live projections as they were")
    func failedReplay() throws {
        let (db, inline) = try Self.database()
        defer { db.drop() }
        // Copied into the rebuilt table, which then refuses every fix.
        try db.connection.execute("ALTER TABLE projections.fixes ADD CONSTRAINT refuse CHECK (false) NOT VALID")
        let error = try #require(throws: PostgresError.self) { try Replayer().replay(db.database.configuration) }
        #expect(error.isCheckViolation || (TestDatabase.onCitus && "\(error)".contains("violates check constraint")), "\(error)")
        #expect(try !Self.rebuildExists(db))
        #expect(try db.allProjections() == inline)
        #expect(try Self.replayLockIsFree(db))
    }

    @Test("replay has no statement timeout: a step that takes longer than the configured one does not stop it")
    func noStatementTimeout() throws {
        let (db, inline) = try Self.database()
        defer { db.drop() }
        let holder = try Self.holdAppendLock(db)
        defer { holder.connection.close() }
        let replay = Self.replayInBackground(db.database.configuration.withStatementTimeout(1))
        #expect(try eventually(within: 60) { try Self.replayWaits(db) })
        // Past the timeout and its grace, the replay still waits for the lock.
        usleep(2_500_000)
        try Self.release(holder)
        #expect(try replay().get() > 0)
        #expect(try db.allProjections() == inline)
    }
}
