import DatabaseTestSupport
import EventStore
import Foundation
import Postgres
import Testing

@Suite("Stream heads kept between one writer's appends")
struct StreamHeadCacheTests {
    let store = EventLog()

    @Test("another writer's appends in between are seen: versions and hash chains stay right")
    func otherWriterInBetween() throws {
        let database = try TestDatabase.create()
        defer { database.drop() }
        let mine = try database.connect()
        let theirs = try database.connect()
        let cache = StreamHeadCache()
        #expect(try store.append([event("s-1", 0, expected: .noStream), event("s-2", 0)], cache: cache, on: mine)
            .results.map(\.version) == [0, 0])
        #expect(try store.append([event("s-1", 1, expected: .exact(0))], on: theirs).results.map(\.version) == [1])
        // The cache saw s-1 at version 0; the log is now at 1.
        let next = try store.append([event("s-1", 2, expected: .exact(1)), event("s-2", 1, expected: .exact(0))], cache: cache, on: mine)
        #expect(next.results.map(\.version) == [2, 1])
        #expect(try store.append([event("s-1", 3, expected: .exact(2))], cache: cache, on: mine).results.map(\.version) == [3])
        #expect(try Verifier().verify(on: mine).firstBrokenLink == nil)
    }

    @Test("an append that rolls back teaches the cache nothing")
    func rolledBack() throws {
        struct Refused: Error {}
        struct RefuseAfterWriting: AppendHooks {
            func rules(for events: [NewEvent], on connection: Connection) throws -> (Int) -> AppendConflict? { { _ in nil } }
            func didAppend(_ events: [AppendedEvent], on connection: Connection) throws { throw Refused() }
        }
        let database = try TestDatabase.create()
        defer { database.drop() }
        let connection = try database.connect()
        let cache = StreamHeadCache()
        _ = try store.append([event("s-1", 0)], cache: cache, on: connection)
        #expect(throws: Refused.self) {
            try store.append([event("s-1", 1)], hooks: RefuseAfterWriting(), cache: cache, on: connection)
        }
        #expect(try store.append([event("s-1", 2, expected: .exact(0))], cache: cache, on: connection).results.map(\.version) == [1])
        #expect(try Verifier().verify(on: connection).firstBrokenLink == nil)
    }
}
