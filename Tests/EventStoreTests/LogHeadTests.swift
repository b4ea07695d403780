import CivilCalendar
import DatabaseTestSupport
@testable import EventStore
import Foundation
import Postgres
import Testing

@Suite("The log chain and kept heads")
struct LogHeadTests {
    let store = EventLog()

    /// `count` events over three streams, in batches of 10.
    func appendEvents(_ count: Int, from start: Int = 0, on connection: Connection) throws {
        for batch in stride(from: start, to: start + count, by: 10) {
            _ = try store.append((batch..<min(batch + 10, start + count)).map { event("s-\($0 % 3)", $0) }, on: connection)
        }
    }

    /// What an administrator who wants a rewrite to pass `verify` does: changes an event behind the triggers, then
    /// recomputes every hash, per stream and for the log, exactly as the append computes them.
    func rewrite(position: Int64, data: String, on connection: Connection) throws {
        // On Citus, citus.enable_unsafe_triggers lets the owner switch the log's triggers, on its shard too; PostgreSQL
        // alone keeps the setting and ignores it.
        try connection.execute("SET citus.enable_unsafe_triggers = on")
        try connection.execute("ALTER TABLE events DISABLE TRIGGER events_no_update")
        try connection.query("UPDATE events SET data = $1::json WHERE position = $2", [data, position])
        var streamHashes: [String: Digest] = [:]
        var logHash = EventHash.genesis
        for event in try store.readAll(after: 0, limit: 100_000, on: connection) {
            let hash = EventHash.chain(
                previous: streamHashes[event.stream] ?? EventHash.genesis,
                canonical: EventHash.canonicalBytes(
                    position: event.position, eventId: event.eventId, stream: event.stream, version: event.version,
                    type: event.type, recordedAt: Timestamp(event.recordedAt), data: event.data,
                    metadata: event.metadata))
            streamHashes[event.stream] = hash
            logHash = EventHash.logChain(previous: logHash, hash: hash)
            try connection.query(
                "UPDATE events SET hash = $1, log_hash = $2 WHERE position = $3", [hash, logHash, event.position])
        }
        try connection.execute("ALTER TABLE events ENABLE TRIGGER events_no_update")
    }

    @Test("every append answers with the head it leaves; verify recomputes it; each log hash is sha256(the one before || hash)")
    func appendAnswersCarryTheHead() throws {
        let database = try TestDatabase.create()
        defer { database.drop() }
        let connection = try database.connect()
        #expect(try store.head(on: connection) == .empty)
        #expect(try Verifier().verify(on: connection).head == .empty)

        let batch = [event("a-1", 1), event("b-1", 2), event("a-1", 3)]
        let first = try store.append(batch, on: connection)
        #expect(first.head.position == 3)
        #expect(try store.head(on: connection) == first.head)
        // Nothing appended: duplicates, a failed atomic batch, an empty batch. The head is the log's, unchanged.
        #expect(try store.append(batch, on: connection).head == first.head)
        #expect(try store.appendAtomically([event("c-1", 4), event("a-1", 5, expected: .noStream)], on: connection).head == first.head)
        #expect(try store.append([], on: connection).head == first.head)
        let second = try store.append([event("c-1", 6)], on: connection)
        #expect(second.head.position == 4 && second.head.hash != first.head.hash)

        let report = try Verifier(pageSize: 2).verify(on: connection)
        #expect(report.firstBrokenLink == nil)
        #expect(report.head == second.head)
        // The definition, checked by PostgreSQL's own sha256.
        let chained = try connection.query(
            """
            SELECT count(*) FROM events e
            LEFT JOIN events p ON p.position = e.position - 1
            WHERE e.log_hash = sha256(coalesce(p.log_hash, decode(repeat('00', 32), 'hex')) || e.hash)
            """).first!.decode(0, as: Int.self)
        #expect(chained == 4)
    }

    @Test("events deleted from the end behind the triggers: the chains left are intact, but a head kept before is not held")
    func tailDeleted() throws {
        let database = try TestDatabase.create()
        defer { database.drop() }
        let connection = try database.connect()
        try appendEvents(300, on: connection)
        let kept = try store.head(on: connection)
        for statement in [
            "SET citus.enable_unsafe_triggers = on",
            "ALTER TABLE events DISABLE TRIGGER USER",
            "DELETE FROM events WHERE position > 200",
            "ALTER TABLE events ENABLE TRIGGER USER",
        ] {
            try connection.execute(statement)
        }
        #expect(try Verifier().verify(on: connection).firstBrokenLink == nil)
        let report = try Verifier().verify(on: connection, holding: kept)
        #expect(report.firstBrokenLink == nil)
        #expect(report.head.position == 200)
        #expect(report.keptHead == .logEndsBefore(report.head))
    }

    @Test("the last events replaced by others: the head kept has the same position but is not held")
    func tailReplaced() throws {
        let database = try TestDatabase.create()
        defer { database.drop() }
        let connection = try database.connect()
        try appendEvents(30, on: connection)
        let kept = try store.head(on: connection)
        for statement in [
            "SET citus.enable_unsafe_triggers = on",
            "ALTER TABLE events DISABLE TRIGGER USER",
            "DELETE FROM events WHERE position > 20",
            "ALTER TABLE events ENABLE TRIGGER USER",
        ] {
            try connection.execute(statement)
        }
        try appendEvents(10, from: 1000, on: connection)
        let report = try Verifier().verify(on: connection, holding: kept)
        #expect(report.firstBrokenLink == nil)
        #expect(report.head.position == kept.position)
        #expect(report.keptHead == .differs(report.head))
    }

    @Test("an early event rewritten with every later hash recomputed: verify passes, heads kept after it are not held, before it are")
    func consistentRewrite() throws {
        let database = try TestDatabase.create()
        defer { database.drop() }
        let connection = try database.connect()
        try appendEvents(2, on: connection)
        let beforeRewrite = try store.head(on: connection)
        try appendEvents(48, from: 2, on: connection)
        let kept = try store.head(on: connection)
        let rewritten = try store.readAll(after: 2, limit: 1, on: connection)[0]

        try rewrite(position: 3, data: #"{"n":1000}"#, on: connection)
        #expect(try store.readAll(after: 2, limit: 1, on: connection)[0].data != rewritten.data)
        #expect(try Verifier().verify(on: connection).firstBrokenLink == nil)
        let report = try Verifier(pageSize: 7).verify(on: connection, holding: kept)
        #expect(report.firstBrokenLink == nil)
        #expect(report.keptHead == .differs(report.head))
        #expect(try Verifier().verify(on: connection, holding: beforeRewrite).keptHead == .held)
    }

    @Test("an intact log holds every head it had, with more events appended since; the empty log's head too")
    func laterAppends() throws {
        let database = try TestDatabase.create()
        defer { database.drop() }
        let connection = try database.connect()
        #expect(try Verifier().verify(on: connection, holding: .empty).keptHead == .held)
        try appendEvents(20, on: connection)
        let kept = try store.head(on: connection)
        try appendEvents(30, from: 20, on: connection)
        let report = try Verifier(pageSize: 6).verify(on: connection, holding: kept)
        #expect(report.keptHead == .held)
        #expect(report.head.position == 50)
        #expect(try Verifier().verify(on: connection, holding: .empty).keptHead == .held)
        let wrongGenesis = LogHead(position: 0, hash: Digest(bytes: [UInt8](repeating: 1, count: 32))!)
        #expect(try Verifier().verify(on: connection, holding: wrongGenesis).keptHead == .differs(.empty))
    }

    @Test("a log hash altered behind the trigger is a broken link named like a broken stream chain")
    func logHashAltered() throws {
        let database = try TestDatabase.create()
        defer { database.drop() }
        let connection = try database.connect()
        try appendEvents(10, on: connection)
        for statement in [
            "SET citus.enable_unsafe_triggers = on",
            "ALTER TABLE events DISABLE TRIGGER events_no_update",
            "UPDATE events SET log_hash = sha256(log_hash) WHERE position = 5",
            "ALTER TABLE events ENABLE TRIGGER events_no_update",
        ] {
            try connection.execute(statement)
        }
        let report = try Verifier().verify(on: connection)
        #expect(report.firstBrokenLink?.position == 5)
        #expect(report.firstBrokenLink?.reason.contains("log hash") == true)
        #expect(report.eventsChecked == 4)
        #expect(report.head.position == 4)
    }

    @Test("a head reads back from POSITION:HASH, lower-case hex out, either case in")
    func headText() throws {
        let head = LogHead(position: 42, hash: Digest(bytes: (0..<32).map { UInt8($0 * 7) })!)
        #expect(head.description == "42:00070e151c232a31383f464d545b626970777e858c939aa1a8afb6bdc4cbd2d9")
        #expect(LogHead(head.description) == head)
        #expect(LogHead(head.description.uppercased()) == head)
        #expect(LogHead.empty.description == "0:" + String(repeating: "0", count: 64))
    }

    @Test("anything but POSITION:HASH is not a head", arguments: [
        "", "12", ":" + String(repeating: "a", count: 64), "12:", "12:abc",
        "12:" + String(repeating: "a", count: 63), "12:" + String(repeating: "a", count: 65),
        "12:" + String(repeating: "g", count: 64), "-1:" + String(repeating: "a", count: 64),
        "+1:" + String(repeating: "a", count: 64), " 1:" + String(repeating: "a", count: 64),
        "1:2:" + String(repeating: "a", count: 64), "99999999999999999999:" + String(repeating: "a", count: 64),
    ])
    func notAHead(text: String) {
        #expect(LogHead(text) == nil)
    }
}
