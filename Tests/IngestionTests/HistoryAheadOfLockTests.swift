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

    @Test("an append under the lock comes while a decided batch's rows are in, uncommitted, before that batch takes the lock: both are stored once")
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
        let written = try db.service.write(decided, on: db.connection, holds: {
            // The decided batch's fixes are in, uncommitted: the other writer's append starts, and waits (for the
            // decided batch to end, before it takes the lock). Only then does the decided batch go for the lock.
            Thread.detachNewThread {
                let result = Result { try other.service.append(otherBatch, on: other.connection) }
                otherAnswer.withLock { $0 = result }
                otherDone.signal()
            }
            let deadline = Date().addingTimeInterval(30)
            while Date() < deadline {
                // For the decided batch to end (appends under the lock wait for batches writing ahead of it), on
                // the coordinator on Citus too.
                let waiting = (try? watcher.query(
                    "SELECT count(*) FROM pg_stat_activity WHERE pid = $1 AND wait_event_type = 'Lock'", [otherBackend]
                ).first!.decode(0, as: Int64.self)) ?? 0
                if waiting == 1 { return true }
                Thread.sleep(forTimeInterval: 0.01)
            }
            Issue.record("the other append never waited for the decided batch")
            return true
        })
        otherDone.wait()
        let otherReport = try #require(try otherAnswer.withLock { $0 }?.get())
        #expect(otherReport.count(.appended) == 3)
        // Had PostgreSQL ended one of the two as a deadlock, it left nothing and was tried again, or is appended now.
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
        let written = try db.service.write(decided, on: db.connection, holds: {
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
        try db.expectReplayKeepsProjections()
    }

    @Test("an append under the lock that meets rows written ahead of the lock at its positions, batch after batch, is not ended")
    func appendUnderLockIsNotStarved() throws {
        let db = try IngestionDatabase()
        defer { db.drop() }
        let appender = try IngestionDatabase(sharing: db)
        defer { appender.connection.close() }
        let reader = try db.database.connect()
        defer { reader.close() }
        let watcher = try db.database.connect()
        defer { watcher.close() }
        // Another writer's batches, decided one after the other as a writer that is not told of the append decides
        // them: each writes its rows ahead of the lock at the positions the append takes next, once the one before
        // holds the lock.
        let rounds = 3
        let writers = try (0..<rounds).map { _ in try db.database.connect() }
        defer { for writer in writers { writer.close() } }
        let pids: [Int32] = try writers.map { try $0.query("SELECT pg_backend_pid()").first!.decode(0) }
        let appenderPid: Int32 = try appender.connection.query("SELECT pg_backend_pid()").first!.decode(0)
        let planner = IngestPlanner(inFlight: rounds)
        let batches = (0..<rounds).map { round in
            db.service.prepare(
                (1...3).map { Client.terminalLocated(eventId(970_000 + round * 10 + $0), terminal: "TA") }
                    .map(IngestionDatabase.item), now: serverNow)
        }
        let decided = try batches.map { try planner.decide($0, reading: reader) }
        let appended = appender.service.prepare(Self.otherLines.map(IngestionDatabase.item), now: serverNow)

        let watching = Mutex(watcher)
        /// Whether the append waits for a lock of `round`'s writer's transaction.
        @Sendable func appendWaits(for round: Int) -> Bool {
            do {
                return try watching.withLock {
                    try $0.query("SELECT $1 = ANY(pg_blocking_pids($2))", [pids[round], appenderPid]).first!
                        .decode(0, as: Bool.self)
                }
            } catch {
                Issue.record(error)
                return true
            }
        }
        let rowsIn = (0..<rounds).map { _ in DispatchSemaphore(value: 0) }
        let answers = Mutex<[Result<IngestReport?, any Error>?]>(Array(repeating: nil, count: rounds))
        /// Signalled by the last batch of the other writer that runs: the one that starts no next.
        let chainDone = DispatchSemaphore(value: 0)
        @Sendable func writeAhead(_ round: Int) {
            let next = Atomic(false)
            let result = Result {
                try db.service.write(
                    decided[round], on: writers[round],
                    holds: {
                        rowsIn[round].signal()
                        let deadline = Date().addingTimeInterval(30)
                        while Date() < deadline && !appendWaits(for: round) { Thread.sleep(forTimeInterval: 0.01) }
                        return true
                    },
                    locked: {
                        guard round + 1 < rounds else { return }
                        next.store(true, ordering: .relaxed)
                        Thread.detachNewThread { writeAhead(round + 1) }
                    },
                    beforeCommit: {
                        // The next batch's rows go in before this one commits, as a writer's next batch does.
                        if round + 1 < rounds { _ = rowsIn[round + 1].wait(timeout: .now() + 30) }
                    })
            }
            rowsIn[round].signal()
            answers.withLock { $0[round] = result }
            if !next.load(ordering: .relaxed) { chainDone.signal() }
        }
        let appending = Mutex<Result<IngestReport, any Error>?>(nil)
        let appendDone = DispatchSemaphore(value: 0)
        Thread.detachNewThread { writeAhead(0) }
        _ = rowsIn[0].wait(timeout: .now() + 30)
        Thread.detachNewThread {
            let result = Result { try appender.service.append(appended, on: appender.connection) }
            appending.withLock { $0 = result }
            appendDone.signal()
        }
        // Both writers are done before anything is checked: their connections close when the test ends.
        try #require(appendDone.wait(timeout: .now() + 60) == .success)
        try #require(chainDone.wait(timeout: .now() + 60) == .success)
        // The append is not ended, however often it meets the other writer's rows.
        let report = try #require(try appending.withLock { $0 }?.get())
        #expect(report.count(.appended) == 3)

        // Every batch of the other writer is written as decided, or, its decision outdated, appended under the lock.
        for round in 0..<rounds {
            guard let answer = answers.withLock({ $0[round] }) else { continue }
            if try answer.get() == nil {
                #expect(try db.service.append(batches[round], on: db.connection).count(.appended) == 3)
            }
        }
        let stored = 3 + 3 * answers.withLock { $0.filter { $0 != nil }.count }
        #expect(try db.count("SELECT count(*) FROM events") == stored)
        #expect(try db.count("SELECT count(DISTINCT event_id) FROM events") == stored)
        #expect(try db.count("SELECT count(*) FROM projections.fixes") == stored)
        #expect(try Verifier().verify(on: db.connection).firstBrokenLink == nil)
        try db.expectReplayKeepsProjections()
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
        try db.expectReplayKeepsProjections()
    }
}
