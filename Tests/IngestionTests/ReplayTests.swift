import Foundation
import Ingestion
import Projections
import Synchronization
import Testing

/// `replay` rebuilds from the log exactly the tables the appends kept, and so the same current state.
@Suite("Replay equals the inline projections", .serialized)
struct ReplayTests {
    @Test("after a mixed, shuffled workload with binds and unbinds: every table, full contents, and every current state, any chunk size",
          arguments: [(UInt64(11), 4), (UInt64(12), 1), (UInt64(13), 1000)])
    func replayEqualsInline(seed: UInt64, batchSize: Int) throws {
        let db = try IngestionDatabase()
        defer { db.drop() }
        let workload = OrderWorkload(withUnbinds: true)
        try db.ingest(workload.shuffled(seed: seed), batchSize: batchSize)
        let inline = try db.allProjections()
        #expect(inline.keys.sorted() == [
            "accuracy_buckets", "checkpoint", "daily_events", "failures", "fix_days", "fixes", "latest_fixes", "terminals",
            "visits",
        ])
        #expect(try db.count("SELECT count(*) FROM projections.terminals WHERE terminal_id IN ('T4', 'T5')") == 2)
        let inlineStates = try db.currentStates()
        #expect(["merchant M1", "merchant M4", "terminal T4", "terminal T5"].allSatisfy { (inlineStates[$0] ?? "null") != "null" })

        for (chunkSize, workers): (Int64, Int) in [(3, 2), (50_000, 1)] {
            let replayed = try Replayer(chunkSize: chunkSize, workers: workers).replay(db.database.configuration)
            #expect(replayed == Int64(try db.count("SELECT count(*) FROM events")))
            let rebuilt = try db.allProjections()
            #expect(rebuilt.keys.sorted() == inline.keys.sorted())
            for (table, contents) in inline.sorted(by: { $0.key < $1.key }) {
                #expect(rebuilt[table] == contents, "\(table), chunks of \(chunkSize)")
            }
            let rebuiltStates = try db.currentStates()
            #expect(rebuiltStates.keys.sorted() == inlineStates.keys.sorted())
            for (id, state) in inlineStates.sorted(by: { $0.key < $1.key }) {
                #expect(rebuiltStates[id] == state, "\(id), chunks of \(chunkSize)")
            }
        }
    }

    /// The replay's first chunk waits until another writer has appended the second half of the workload: those events
    /// come after the head the replay started from, so only the catch-up under the append lock can project them.
    @Test("events appended while a replay runs are caught up under the lock and in the swapped-in tables, once")
    func appendsDuringReplay() throws {
        let db = try IngestionDatabase()
        defer { db.drop() }
        let workload = OrderWorkload(withUnbinds: true).shuffled(seed: 21)
        let half = workload.count / 2
        try db.ingest(Array(workload[..<half]), batchSize: 10)
        let before = try db.count("SELECT count(*) FROM events")
        let configuration = db.database.configuration
        let firstChunk = Atomic(true)
        let startHead = Atomic<Int64>(-1)
        let replayRuns = DispatchSemaphore(value: 0)
        let appended = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        let outcome = Mutex<Result<Int64, any Error>?>(nil)
        Thread.detachNewThread {
            let result = Result {
                try Replayer(chunkSize: 1, workers: 2).replay(configuration) { _, head in
                    guard firstChunk.exchange(false, ordering: .relaxed) else { return }
                    startHead.store(head, ordering: .relaxed)
                    replayRuns.signal()
                    _ = appended.wait(timeout: .now() + 30)
                }
            }
            outcome.withLock { $0 = result }
            replayRuns.signal()  // should it fail before its first chunk
            finished.signal()
        }
        let writer = try IngestionDatabase(sharing: db)
        defer { writer.connection.close() }
        replayRuns.wait()
        do {
            defer { appended.signal() }
            try writer.ingest(Array(workload[half...]), batchSize: 3)
        }
        finished.wait()
        let replayed = try #require(outcome.withLock { $0 }).get()
        let after = try db.count("SELECT count(*) FROM events")

        // It started from the first half, and caught up, under the lock, everything the writer appended meanwhile.
        #expect(startHead.load(ordering: .relaxed) == Int64(before))
        #expect(after > before)
        #expect(replayed == Int64(after), "caught up \(replayed - Int64(before)) of the \(after - before) appended meanwhile")
        let afterConcurrentReplay = try db.allProjections()
        #expect(try db.count("SELECT count(*) FROM projections.fixes") == (try db.count(
            "SELECT count(*) FROM events WHERE type NOT IN ('TerminalUnbound', 'LocationFailed')")))
        try Replayer().replay(configuration)
        #expect(try db.allProjections() == afterConcurrentReplay)
    }

    @Test("a second replay at the same time is refused with a clear error")
    func oneReplayAtATime() throws {
        let db = try IngestionDatabase()
        defer { db.drop() }
        try db.connection.query("SELECT pg_advisory_lock($1)", [Replayer.replayLockKey])
        #expect(throws: ProjectionError.replayAlreadyRunning) { try Replayer().replay(db.database.configuration) }
    }

    /// On Citus (`make test-citus`), the tables swapped in are distributed as the replaced ones were: by the same
    /// column, in the same co-location group, with the same number of shards. A swap that left local tables behind
    /// would still answer every query, on the coordinator alone.
    @Test("on Citus, replay leaves every projection distributed by the same column, co-located, and the log a single shard",
          .enabled(if: ProcessInfo.processInfo.environment["GEOLEDGER_TEST_CITUS"] == "1"))
    func replayKeepsDistribution() throws {
        let db = try IngestionDatabase()
        defer { db.drop() }
        try db.ingest(OrderWorkload(withUnbinds: true).shuffled(seed: 31), batchSize: 7)
        let layoutQuery = """
            SELECT string_agg(format('%s by %s, group %s, %s shards', logicalrelid::regclass,
                                     coalesce(column_to_column_name(logicalrelid, partkey), 'none'), colocationid,
                                     (SELECT count(*) FROM pg_dist_shard s WHERE s.logicalrelid = p.logicalrelid)),
                              '; ' ORDER BY logicalrelid::regclass::text)
            FROM pg_dist_partition p
            """
        let before = try db.connection.query(layoutQuery).first!.decode(0, as: String.self)
        #expect(before.contains("events by none"))
        #expect(before.contains("projections.fixes by entity_id"))
        #expect(before.contains("projections.terminals by terminal_id"))
        let inline = try db.allProjections()
        try Replayer(chunkSize: 5, workers: 2).replay(db.database.configuration)
        // The co-location group is the live tables' own: the rebuilt ones joined it.
        #expect(try db.connection.query(layoutQuery).first!.decode(0, as: String.self) == before)
        #expect(try db.allProjections() == inline)
        // The live tables only, on the coordinator: the four histories and bindings, the reports' four summary
        // tables and the projector's checkpoint, nothing left of the rebuild.
        #expect(try db.count("SELECT count(*) FROM pg_tables WHERE schemaname LIKE 'projections%'") == 9)
        #expect(try db.count("SELECT count(*) FROM pg_tables WHERE schemaname LIKE 'projections%' AND schemaname <> 'projections'") == 0)
    }
}
