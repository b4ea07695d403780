import DatabaseTestSupport
import EventStore
import Foundation
import Postgres
import Testing

@Suite("Appending events")
struct AppendTests {
    let store = EventLog()

    @Test("versions are gap-free per stream and positions gap-free across streams")
    func versionsAndPositions() throws {
        let database = try TestDatabase.create()
        defer { database.drop() }
        let connection = try database.connect()
        let results = try store.append(
            [event("a-1", 1), event("b-1", 2), event("a-1", 3)], on: connection).results
        #expect(results == [
            .appended(stream: "a-1", version: 0, position: 1),
            .appended(stream: "b-1", version: 0, position: 2),
            .appended(stream: "a-1", version: 1, position: 3),
        ])
        let more = try store.append([event("a-1", 4)], on: connection).results
        #expect(more == [.appended(stream: "a-1", version: 2, position: 4)])
        #expect(try store.readStream("a-1", on: connection).map(\.version) == [0, 1, 2])
        #expect(try store.readAll(after: 1, limit: 2, on: connection).map(\.position) == [2, 3])
    }

    @Test("the log stores each event's id, stream, type, data and metadata byte for byte, and the time it hashed")
    func storedAsAppended() throws {
        let database = try TestDatabase.create()
        defer { database.drop() }
        let connection = try database.connect()
        // What text COPY would have to escape (backslash, tab, newline, carriage return; in JSON, as white space
        // between tokens), quotes, and UTF-8 beyond ASCII: in data, in metadata, in the stream and the type.
        let awkward = NewEvent(
            eventId: UUID(uuidString: "0B9C2A4E-3F1D-4A51-9A8E-5F7C1D2E3A40")!, stream: "m-\\\t\n\r\"é", type: "T\\\t",
            data: Data(#"{"a":"\\ \t \n \r \" é 😀 \u0001","b":[1,2.5,-3e-7]}"#.utf8),
            metadata: Data("{\"m\":\"\\\\\",\t\"t\":\n\"x\"\r}".utf8))
        let events = [awkward, event("a-1", 1)]
        let answer = try store.append(events, on: connection)
        #expect(answer.results.map(\.isAppended) == [true, true])

        let stored = try store.readAll(after: 0, limit: 10, on: connection)
        #expect(stored.map(\.eventId) == events.map(\.eventId))
        #expect(stored.map(\.stream) == events.map(\.stream))
        #expect(stored.map(\.type) == events.map(\.type))
        #expect(stored.map(\.data) == events.map(\.data))
        #expect(stored.map(\.metadata) == events.map(\.metadata))
        let text = try connection.query("SELECT event_id::text FROM events ORDER BY position").map { try $0.decode(0, as: String.self) }
        #expect(text.first == "0b9c2a4e-3f1d-4a51-9a8e-5f7c1d2e3a40")
        // The stored time, position, version and hashes are those the chain was computed with.
        let report = try Verifier().verify(on: connection)
        #expect(report.firstBrokenLink == nil)
        #expect(report.head == answer.head)
    }

    @Test("expected version: no stream, exact, and the conflict that names the stream's version")
    func expectedVersion() throws {
        let database = try TestDatabase.create()
        defer { database.drop() }
        let connection = try database.connect()
        #expect(try store.append([event("s-1", expected: .noStream)], on: connection).results[0].isAppended)
        let again = try store.append([event("s-1", expected: .noStream)], on: connection).results
        #expect(again == [.conflict(AppendConflict(
            code: "wrong_expected_version", message: "stream s-1 is at version 0, expected no stream"))])
        #expect(try store.append([event("s-1", expected: .exact(0))], on: connection).results[0].isAppended)
        #expect(try store.append([event("s-1", expected: .exact(0))], on: connection).results[0].conflictCode == "wrong_expected_version")
        #expect(try store.append([event("s-2", expected: .exact(0))], on: connection).results[0].conflictCode == "wrong_expected_version")
    }

    @Test("resending a batch gives duplicates with the original positions; other content under one id is a conflict")
    func idempotency() throws {
        let database = try TestDatabase.create()
        defer { database.drop() }
        let connection = try database.connect()
        let batch = [event("a-1", 1), event("a-1", 2), event("b-1", 3)]
        let first = try store.append(batch, on: connection).results
        let second = try store.append(batch, on: connection).results
        #expect(second == [
            .duplicate(stream: "a-1", version: 0, position: 1),
            .duplicate(stream: "a-1", version: 1, position: 2),
            .duplicate(stream: "b-1", version: 0, position: 3),
        ])
        #expect(first.map(\.position) == second.map(\.position))
        let changed = changing(batch[0], data: Data("{\"n\":99}".utf8))
        #expect(try store.append([changed], on: connection).results[0].conflictCode == "event_id_reused")
        let moved = changing(batch[1], stream: "c-1")
        #expect(try store.append([moved], on: connection).results[0].conflictCode == "event_id_reused")
        #expect(try store.headPosition(on: connection) == 3)
        let count = try connection.query("SELECT count(*) FROM events").first { _ in true }?.decode(0, as: Int.self)
        #expect(count == 3)
    }

    @Test("the same id twice in one batch is stored once")
    func duplicateWithinBatch() throws {
        let database = try TestDatabase.create()
        defer { database.drop() }
        let connection = try database.connect()
        let one = event("a-1", 1)
        let other = changing(one, data: Data("{\"n\":2}".utf8))
        let results = try store.append([one, one, other], on: connection).results
        #expect(results[0] == .appended(stream: "a-1", version: 0, position: 1))
        #expect(results[1] == .duplicate(stream: "a-1", version: 0, position: 1))
        #expect(results[2].conflictCode == "event_id_reused")
        #expect(try store.headPosition(on: connection) == 1)
    }

    @Test("events made together share their rows: those appended are stored whole around a duplicate and a conflict between them, and the chain holds")
    func eventsMadeTogether() throws {
        let database = try TestDatabase.create()
        defer { database.drop() }
        let connection = try database.connect()
        let stored = event("a-1", 0)
        _ = try store.append([stored], on: connection)
        var batch = NewEvent.Batch()
        for (stream, n, expected) in [("a-1", 1, ExpectedVersion.any), ("b-1", 2, .exact(7)), ("c-1", 3, .noStream), ("a-1", 4, .exact(1))] {
            batch.append(
                eventId: UUID(), stream: stream, type: "Noted", data: Data("{\"n\":\(n)}".utf8),
                metadata: Data("{\"server\":\(n)}".utf8), expectedVersion: expected)
        }
        let made = batch.finish()
        let events = [made[0], stored, made[1], made[2], made[3]]
        let answer = try store.append(events, on: connection)
        #expect(answer.results == [
            .appended(stream: "a-1", version: 1, position: 2), .duplicate(stream: "a-1", version: 0, position: 1),
            .conflict(AppendConflict(code: "wrong_expected_version", message: "stream b-1 does not exist, expected version 7")),
            .appended(stream: "c-1", version: 0, position: 3), .appended(stream: "a-1", version: 2, position: 4),
        ])
        let log = try store.readAll(after: 1, limit: 10, on: connection)
        #expect(log.map(\.eventId) == [made[0], made[2], made[3]].map(\.eventId))
        #expect(log.map(\.data) == [made[0], made[2], made[3]].map(\.data))
        #expect(log.map(\.metadata) == [made[0], made[2], made[3]].map(\.metadata))
        let report = try Verifier().verify(on: connection)
        #expect(report.firstBrokenLink == nil)
        #expect(report.head == answer.head)
    }

    @Test("a NUL character in an event's stream or data, which PostgreSQL text cannot hold, fails its append, saying where; nothing of the batch is stored", arguments: [
        ("stream", "COPY field 2 contains a NUL character, which PostgreSQL text cannot hold"),
        ("data", "COPY field 4 contains a NUL character, which PostgreSQL text cannot hold"),
    ])
    func nulCharacter(holding member: String, message: String) throws {
        let database = try TestDatabase.create()
        defer { database.drop() }
        let connection = try database.connect()
        let bad = NewEvent(
            eventId: UUID(), stream: member == "stream" ? "a-\u{0}1" : "a-1", type: "Noted",
            data: Data((member == "data" ? "{\"n\":\"\u{0}\"}" : "{}").utf8), metadata: Data("{}".utf8))
        var thrown: PostgresError?
        #expect(throws: PostgresError.self) {
            do { _ = try store.append([event("b-1", 1), bad], on: connection) } catch let error as PostgresError {
                thrown = error
                throw error
            }
        }
        #expect(thrown?.kind == .encoding)
        #expect(thrown?.message == message)
        #expect(try store.headPosition(on: connection) == 0)
    }

    @Test("an atomic batch with one conflict writes nothing")
    func atomic() throws {
        let database = try TestDatabase.create()
        defer { database.drop() }
        let connection = try database.connect()
        let results = try store.appendAtomically(
            [event("a-1", 1), event("b-1", 2, expected: .exact(5))], on: connection).results
        #expect(results[0] == .notAppended)
        #expect(results[1].conflictCode == "wrong_expected_version")
        #expect(try store.headPosition(on: connection) == 0)
        #expect(try store.readStream("a-1", on: connection).isEmpty)
    }

    @Test("domain rules from hooks reject events and see the batch's earlier events; projections run in the transaction")
    func hooks() throws {
        let database = try TestDatabase.create()
        defer { database.drop() }
        let connection = try database.connect()
        try connection.execute("CREATE TABLE seen (position bigint PRIMARY KEY)")
        let results = try store.append(
            [event("a-1", 1), event("a-1", 2), event("a-1", 3)], hooks: AtMostTwoPerStream(), on: connection).results
        #expect(results.map(\.isAppended) == [true, true, false])
        #expect(results[2].conflictCode == "too_many")
        let seen = try connection.query("SELECT position FROM seen ORDER BY position").map { try $0.decode(0, as: Int64.self) }
        #expect(seen == [1, 2])
    }
}

/// A rule for the test: a stream takes at most two events per batch. Records each appended position.
struct AtMostTwoPerStream: AppendHooks {
    func rules(for events: [NewEvent], on connection: Connection) throws -> (Int) -> AppendConflict? {
        var counts: [String: Int] = [:]
        return { index in
            let stream = events[index].stream
            counts[stream, default: 0] += 1
            return counts[stream]! > 2 ? AppendConflict(code: "too_many", message: "two is enough") : nil
        }
    }

    func didAppend(_ events: [AppendedEvent], on connection: Connection) throws {
        try connection.query("INSERT INTO seen SELECT unnest($1::bigint[])", [events.map(\.position)])
    }
}
