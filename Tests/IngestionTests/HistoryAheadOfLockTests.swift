import DatabaseTestSupport
import Dispatch
import EventStore
import Foundation
import Ingestion
import Postgres
import Projections
import Synchronization
import Testing

/// A batch decided ahead writes its history rows (fixes, failures, visits) before it takes the append lock. While its
/// decision holds, no one else writes rows at its positions; once someone else appended, someone else may, and the
/// two must neither fail nor hang: the decided batch tells its decision outdated, writes nothing, and is appended
/// again under the lock.
@Suite("History rows written ahead of the append lock", .serialized)
struct HistoryAheadOfLockTests {
    /// Three fixes of a terminal, and three others of the same terminal: each batch's positions are 1 to 3 on an
    /// empty log, and so are its fixes' keys (on Citus, the fix history's key is the entity's and the position).
    static let decidedLines = (1...3).map { Client.terminalLocated(eventId(950_000 + $0), terminal: "TA") }
    static let otherLines = (1...3).map { Client.terminalLocated(eventId(960_000 + $0), terminal: "TA") }

    @Test("rows someone else committed at the positions decided: the batch is not written, then appended under the lock")
    func rowsAlreadyThere() throws {
        let writers = try Writers()
        defer { writers.close() }
        let (db, other, prepared, decided) = (writers.db, writers.other, writers.prepared, writers.decided)
        try #require(try other.ingest(Self.otherLines).count(.appended) == 3)
        // The fixes at positions 1 to 3 are the other writer's: the first COPY row of the decided batch is refused.
        #expect(try db.service.write(decided, on: db.connection) == nil)
        #expect(try db.count("SELECT count(*) FROM projections.fixes") == 3)

        let report = try db.service.append(prepared, on: db.connection)
        #expect(report.results.map(\.position) == [4, 5, 6])
        try Self.expectBothStoredOnce(db)
    }

    @Test("an append under the lock waits for the decided batch's rows while that batch waits for the lock: both are stored once")
    func deadlockIsResolved() throws {
        let writers = try Writers()
        defer { writers.close() }
        let (db, other, prepared, decided) = (writers.db, writers.other, writers.prepared, writers.decided)
        let watcher = try db.database.connect()
        defer { watcher.close() }
        let otherBackend: Int32 = try other.connection.query("SELECT pg_backend_pid()").first!.decode(0)
        let otherBatch = other.service.prepare(Self.otherLines.map(IngestionDatabase.item), now: serverNow)
        let otherAnswer = Mutex<Result<IngestReport, any Error>?>(nil)
        let otherDone = DispatchSemaphore(value: 0)
        var asked = 0
        let written = try db.service.write(decided, on: db.connection, holds: {
            // Asked before the rows are written, then after.
            asked += 1
            guard asked == 2 else { return true }
            // The decided batch's fixes are in, uncommitted: the other writer takes the lock, writes its events, and
            // waits for the first of those rows. Only then does the decided batch go for the lock.
            Thread.detachNewThread {
                let result = Result { try other.service.append(otherBatch, on: other.connection) }
                otherAnswer.withLock { $0 = result }
                otherDone.signal()
            }
            let deadline = Date().addingTimeInterval(30)
            while Date() < deadline {
                // On Citus the row is a worker's, and so is the wait.
                let waiting = (try? (TestDatabase.onCitus
                    ? watcher.query("SELECT count(*) FROM citus_lock_waits")
                    : watcher.query(
                        "SELECT count(*) FROM pg_stat_activity WHERE pid = $1 AND wait_event = 'transactionid'",
                        [otherBackend])
                ).first!.decode(0, as: Int64.self)) ?? 0
                if waiting == 1 { return true }
                Thread.sleep(forTimeInterval: 0.01)
            }
            Issue.record("the other append never waited for the decided batch's rows")
            return true
        })
        otherDone.wait()
        let otherReport = try #require(try otherAnswer.withLock { $0 }?.get())
        #expect(otherReport.count(.appended) == 3)
        // PostgreSQL ended one of the two; whichever it was left nothing and was tried again, or is appended now.
        if written == nil {
            #expect(try db.service.append(prepared, on: db.connection).count(.appended) == 3)
        } else {
            #expect(written?.count(.appended) == 3)
        }
        try Self.expectBothStoredOnce(db)
    }

    @Test("a replay swaps its tables in while a decided batch holds rows in the tables it replaces: both finish")
    func replaySwapsMeanwhile() throws {
        let writers = try Writers()
        defer { writers.close() }
        let (db, decided) = (writers.db, writers.decided)
        let watcher = try db.database.connect()
        defer { watcher.close() }
        let replayed = Mutex<Result<Int64, any Error>?>(nil)
        let replayDone = DispatchSemaphore(value: 0)
        var asked = 0
        let written = try db.service.write(decided, on: db.connection, holds: {
            // Asked before the rows are written, then after.
            asked += 1
            guard asked == 2 else { return true }
            // The decided batch's fixes are in the live tables, uncommitted: the replay, which will drop those tables,
            // comes to wait for the batch. Only then does the decided batch go for the append lock.
            Thread.detachNewThread {
                let result = Result { try Replayer().replay(db.database.configuration) }
                replayed.withLock { $0 = result }
                replayDone.signal()
            }
            let deadline = Date().addingTimeInterval(30)
            while Date() < deadline {
                let waiting = (try? watcher.query(
                    "SELECT count(*) FROM pg_locks WHERE NOT granted"
                ).first!.decode(0, as: Int64.self)) ?? 0
                if waiting > 0 { return true }
                Thread.sleep(forTimeInterval: 0.01)
            }
            Issue.record("the replay never waited for the decided batch's rows")
            return true
        })
        replayDone.wait()
        #expect(throws: Never.self) { try replayed.withLock { $0 }!.get() }
        // The replay waited for the batch, which went in as decided, before the swap.
        #expect(written?.count(.appended) == 3)
        let fixes = try db.connection.query("SELECT position FROM projections.fixes ORDER BY position")
            .map { try $0.decode(0, as: Int64.self) }
        #expect(fixes == [1, 2, 3])
        let inline = try db.allProjections()
        _ = try Replayer().replay(db.database.configuration)
        #expect(try db.allProjections() == inline)
    }

    /// A fresh database, another writer's connection to it, and the decided lines decided on a reading connection
    /// of their own, not written.
    struct Writers {
        let db: IngestionDatabase
        let other: IngestionDatabase
        let prepared: PreparedBatch
        let decided: DecidedBatch

        init() throws {
            db = try IngestionDatabase()
            other = try IngestionDatabase(sharing: db)
            let reader = try db.database.connect()
            defer { reader.close() }
            prepared = db.service.prepare(HistoryAheadOfLockTests.decidedLines.map(IngestionDatabase.item), now: serverNow)
            decided = try IngestPlanner().decide(prepared, reading: reader)
        }

        func close() {
            other.connection.close()
            db.drop()
        }
    }

    /// Six events, gap-free, each once, with its fix; the chain intact; the projections those of replay.
    static func expectBothStoredOnce(_ db: IngestionDatabase) throws {
        #expect(try db.count("SELECT count(*) FROM events") == 6)
        #expect(try db.count("SELECT count(DISTINCT event_id) FROM events") == 6)
        #expect(try db.count("SELECT max(position) FROM events") == 6)
        let fixes = try db.connection.query("SELECT position, event_id FROM projections.fixes ORDER BY position")
            .map { "\(try $0.decode(0, as: Int64.self)) \(try $0.decode(1, as: UUID.self))" }
        let events = try db.connection.query("SELECT position, event_id FROM events ORDER BY position")
            .map { "\(try $0.decode(0, as: Int64.self)) \(try $0.decode(1, as: UUID.self))" }
        #expect(fixes == events)
        #expect(try Verifier().verify(on: db.connection).firstBrokenLink == nil)
        let inline = try db.allProjections()
        _ = try Replayer().replay(db.database.configuration)
        #expect(try db.allProjections() == inline)
    }
}
