import DatabaseTestSupport
import EventStore
import Foundation
import Postgres
import Testing

@Suite("Immutability and the hash chain")
struct ImmutabilityTests {
    let store = EventLog()

    @Test("UPDATE, DELETE and TRUNCATE on events fail, even for a superuser", arguments: [
        "UPDATE events SET type = 'Changed' WHERE position = 1",
        "DELETE FROM events WHERE position = 1",
        "TRUNCATE events",
    ])
    func immutable(statement: String) throws {
        let database = try TestDatabase.create()
        defer { database.drop() }
        let connection = try database.connect()
        _ = try store.append([event("a-1", 1)], on: connection)
        #expect {
            try connection.execute(statement)
        } throws: { error in
            (error as? PostgresError)?.sqlState == "42501"
        }
        #expect(try store.readStream("a-1", on: connection).map(\.type) == ["Noted"])
    }

    @Test("verify passes an intact log and names exactly the event a superuser altered behind the trigger")
    func verifyFindsTampering() throws {
        let database = try TestDatabase.create()
        defer { database.drop() }
        let connection = try database.connect()
        for n in 0..<5 {
            _ = try store.append([event("a-1", n), event("b-1", n)], on: connection)
        }
        let intact = try Verifier(pageSize: 3).verify(on: connection)
        #expect(intact.firstBrokenLink == nil)
        #expect(intact.eventsChecked == 10)
        #expect(intact.streamsChecked == 2)

        let victim = try store.readAll(after: 6, limit: 1, on: connection)[0]
        // On Citus, citus.enable_unsafe_triggers lets the owner switch the log's triggers, on its shard too; PostgreSQL
        // alone keeps the setting and ignores it.
        for statement in [
            "SET citus.enable_unsafe_triggers = on",
            "ALTER TABLE events DISABLE TRIGGER events_no_update",
            "UPDATE events SET data = '{\"n\":1000}' WHERE position = 7",
            "ALTER TABLE events ENABLE TRIGGER events_no_update",
        ] {
            try connection.execute(statement)
        }
        let report = try Verifier(pageSize: 3).verify(on: connection)
        #expect(report.firstBrokenLink?.position == 7)
        #expect(report.firstBrokenLink?.eventId == victim.eventId)
        #expect(report.eventsChecked == 6)
    }

    @Test("a deleted event is found as a gap in positions and versions")
    func verifyFindsDeletion() throws {
        let database = try TestDatabase.create()
        defer { database.drop() }
        let connection = try database.connect()
        for n in 0..<4 { _ = try store.append([event("a-1", n)], on: connection) }
        for statement in [
            "SET citus.enable_unsafe_triggers = on",
            "ALTER TABLE events DISABLE TRIGGER events_no_delete",
            "DELETE FROM events WHERE position = 2",
            "ALTER TABLE events ENABLE TRIGGER events_no_delete",
        ] {
            try connection.execute(statement)
        }
        let report = try Verifier().verify(on: connection)
        #expect(report.firstBrokenLink?.position == 3)
    }
}
