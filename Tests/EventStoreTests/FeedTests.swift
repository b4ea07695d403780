import DatabaseTestSupport
import EventStore
import Foundation
import Testing

/// The feed's reads by position end where the positions stop running on: what a reader polling "after P" can rely
/// on when the log is spread over nodes that show a commit one at a time (the polling reader's test in
/// ConcurrencyTests covers the concurrent side).
@Suite("Reading the log by position")
struct FeedTests {
    let store = EventLog()

    @Test("a page ends before the first missing position, and one read after it goes on from there")
    func pageEndsAtGap() throws {
        let database = try TestDatabase.create()
        defer { database.drop() }
        let connection = try database.connect()
        for n in 0..<5 { _ = try store.append([event("a-1", n)], on: connection) }
        #expect(try store.readAll(after: 0, limit: 10, on: connection).map(\.position) == [1, 2, 3, 4, 5])
        for statement in [
            "SET citus.enable_unsafe_triggers = on",
            "ALTER TABLE events DISABLE TRIGGER events_no_delete",
            "DELETE FROM events WHERE position = 3",
            "ALTER TABLE events ENABLE TRIGGER events_no_delete",
        ] {
            try connection.execute(statement)
        }
        #expect(try store.readAll(after: 0, limit: 10, on: connection).map(\.position) == [1, 2])
        #expect(try store.readAll(after: 2, limit: 10, on: connection).map(\.position) == [])
        #expect(try store.readAll(after: 3, limit: 10, on: connection).map(\.position) == [4, 5])
        #expect(try store.readAll(after: 3, limit: 1, on: connection).map(\.position) == [4])
    }
}
