import DatabaseTestSupport
import EventStore
import Foundation
import Postgres
import Synchronization
import Testing

@Suite("Concurrent writers and readers")
struct ConcurrencyTests {
    let store = EventLog()

    /// Each round, the writer that takes the append lock first is held inside its append until the other waits for
    /// that lock: both are inside `append` at once, and the second decides its version only after the first committed.
    @Test("two writers racing for each version of one stream, both inside append at once: exactly one wins each time")
    func racingWriters() throws {
        let database = try TestDatabase.create()
        defer { database.drop() }
        let connections = [try database.connect(), try database.connect()]
        let barrier = HeldUntilTheOtherWaits()
        let rounds = 40
        for version in 0..<rounds {
            let expected: ExpectedVersion = version == 0 ? .noStream : .exact(Int64(version - 1))
            let outcomes = Mutex<[AppendResult]>([])
            let failures = Mutex<[String]>([])
            barrier.nextRound()
            DispatchQueue.concurrentPerform(iterations: 2) { writer in
                do {
                    let result = try store.append(
                        [event("race-1", writer, expected: expected)], hooks: barrier, on: connections[writer])
                    outcomes.withLock { $0 += result.results }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
            try #require(failures.withLock { $0 } == [], "version \(version)")
            let results = outcomes.withLock { $0 }
            #expect(results.filter(\.isAppended).count == 1, "version \(version): \(results)")
            #expect(results.filter { $0.conflictCode == "wrong_expected_version" }.count == 1)
        }
        #expect(barrier.overlaps.load(ordering: .relaxed) == rounds)
        let versions = try store.readStream("race-1", limit: 1000, on: connections[0]).map(\.version)
        #expect(versions == (0..<Int64(rounds)).map { $0 })
    }

    @Test("a reader polling by position sees every event exactly once, in order, while writers append")
    func pollingReader() throws {
        let database = try TestDatabase.create()
        defer { database.drop() }
        let writers = 4
        let batchesPerWriter = 40
        let total = writers * batchesPerWriter * 3
        let writersDone = Atomic<Int>(0)
        let errors = Mutex<[String]>([])
        let writerConnections = try (0..<writers).map { _ in try database.connect() }
        let reader = try database.connect()

        let group = DispatchGroup()
        for writer in 0..<writers {
            DispatchQueue.global().async(group: group) {
                defer { writersDone.add(1, ordering: .sequentiallyConsistent) }
                do {
                    for batch in 0..<batchesPerWriter {
                        let stream = "w\(writer)-\(batch % 5)"
                        _ = try store.append(
                            [event(stream, batch), event(stream, batch + 1000), event("shared-\(writer)", batch)],
                            on: writerConnections[writer])
                    }
                } catch {
                    errors.withLock { $0.append("\(error)") }
                }
            }
        }
        var seen: [RecordedEvent] = []
        var after: Int64 = 0
        while true {
            let finished = writersDone.load(ordering: .sequentiallyConsistent) == writers
            let page = try store.readAll(after: after, limit: 7, on: reader)
            seen += page
            after = page.last?.position ?? after
            if page.isEmpty && finished { break }
        }
        group.wait()
        #expect(errors.withLock { $0 } == [])
        #expect(seen.count == total)
        #expect(seen.map(\.position) == (1...Int64(total)).map { $0 })
        #expect(Set(seen.map(\.eventId)).count == total)
    }
}

/// Holds the writer that takes the append lock first each round inside its append, under the lock, until another
/// session of the database waits for that lock.
private final class HeldUntilTheOtherWaits: AppendHooks, Sendable {
    private let first = Atomic(true)
    /// Rounds in which the other writer was seen waiting for the append lock.
    let overlaps = Atomic(0)

    struct NeverWaited: Error, CustomStringConvertible {
        var description: String { "the other writer did not wait for the append lock within 10 s" }
    }

    func nextRound() {
        first.store(true, ordering: .sequentiallyConsistent)
    }

    func rules(for events: [NewEvent], on connection: Connection) throws -> (Int) -> AppendConflict? {
        guard first.exchange(false, ordering: .sequentiallyConsistent) else { return { _ in nil } }
        let deadline = ContinuousClock.now + .seconds(10)
        while try !connection.query(
            """
            SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND NOT granted
                           AND database = (SELECT oid FROM pg_database WHERE datname = current_database()))
            """
        ).first!.decode(0, as: Bool.self) {
            guard ContinuousClock.now < deadline else { throw NeverWaited() }
            usleep(1000)
        }
        overlaps.add(1, ordering: .relaxed)
        return { _ in nil }
    }

    func didAppend(_ events: [AppendedEvent], on connection: Connection) throws {}
}
