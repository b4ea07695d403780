import DatabaseTestSupport
import Foundation
import Geo
import Ingestion
import LocationEvents
import Postgres
import Projections
import Queries
import Testing

/// Inputs at the edges: an id reused inside one batch, characters PostgreSQL cannot store, input that is not
/// all read, and privileges that must survive a replay.
@Suite("Edge cases of ingest and replay", .serialized)
struct EdgeCaseTests {
    @Test("an id sent twice in one batch with other content: the first is stored and projected, the second is a conflict")
    func idReusedInsideOneBatch() throws {
        let db = try IngestionDatabase()
        defer { db.drop() }
        let id = UUID()
        let report = try db.ingest([
            Client.merchantAddressFixed(id, merchant: "M1", fix: Client.fix(lat: 31.2304, lon: 121.4737)),
            Client.merchantAddressFixed(id, merchant: "M1", fix: Client.fix(lat: 39.9042, lon: 116.4074)),
        ])
        #expect(report.results.map(\.status) == [.appended, .conflict])
        #expect(report.results[1].conflict?.code == "event_id_reused")
        let state = try #require(try CurrentState().merchant("M1", on: db.connection))
        #expect(abs((state.latestFix?.lat ?? .nan) - 31.23) < 0.01, "the fix stored is the first one, so is the projection")
    }

    @Test("a re-binding reusing an id inside the batch is judged on its own content")
    func bindingRuleUsesTheFirstItem() throws {
        let db = try IngestionDatabase()
        defer { db.drop() }
        try db.ingest([Client.terminalBound(terminal: "T1", merchant: "M1")])
        let id = UUID()
        let report = try db.ingest([
            Client.terminalBound(id, terminal: "T1", merchant: "M1"),
            Client.terminalBound(id, terminal: "T1", merchant: "M2"),
        ])
        #expect(report.results.map(\.status) == [.appended, .conflict])
        #expect(report.results[1].conflict?.code == "event_id_reused")
    }

    @Test("an eventId resent in upper case is a duplicate of the stored event, either way round")
    func eventIdCaseIsNotContent() throws {
        let db = try IngestionDatabase()
        defer { db.drop() }
        let lower = UUID(), upper = UUID()
        let first = try db.ingest([
            Client.merchantAddressFixed(lower, merchant: "M1"),
            Client.merchantAddressFixed(upper, merchant: "M2").replacingOccurrences(of: upper.uuidString.lowercased(), with: upper.uuidString),
        ])
        #expect(first.results.map(\.status) == [.appended, .appended])
        let again = try db.ingest([
            Client.merchantAddressFixed(lower, merchant: "M1").replacingOccurrences(of: lower.uuidString.lowercased(), with: lower.uuidString),
            Client.merchantAddressFixed(upper, merchant: "M2"),
        ])
        #expect(again.results.map(\.status) == [.duplicate, .duplicate], "\(again.results.map { $0.conflict?.message ?? "" })")
        #expect(again.results.map(\.position) == first.results.map(\.position))
        // Stored in one spelling, the lower case the answers use.
        let stored = try db.connection.query("SELECT data->>'eventId' FROM events ORDER BY position").map { try $0.decode(0, as: String.self) }
        #expect(stored == [lower.uuidString.lowercased(), upper.uuidString.lowercased()])
    }

    @Test("a \\u0000 in any string makes that item invalid, and the rest of the batch is stored")
    func nulCharacterIsOneInvalidItem() throws {
        let db = try IngestionDatabase()
        defer { db.drop() }
        let poisoned = Client.submission(UUID(), "VisitRecorded", [
            ("visitId", #""V1""#), ("merchantId", #""M1""#), ("visitorId", #""S1""#), ("fix", Client.fix()),
            ("note", #""before\u0000after""#),
        ])
        let report = try db.ingest([Client.merchantAddressFixed(merchant: "M1"), poisoned, Client.merchantAddressFixed(merchant: "M2")])
        #expect(report.results.map(\.status) == [.appended, .invalid, .appended])
        #expect(report.results[1].errors.map(\.code) == ["invalid_json"])
    }

    @Test("content after the closing ] of a JSON array is reported, not dropped")
    func contentAfterTheArray() {
        var reader = SubmissionReader(data: Data("[{\"a\":1}]\n[{\"b\":2}]\n".utf8))
        var items: [SubmissionReader.RawItem] = []
        while let item = reader.next() { items.append(item) }
        #expect(items.count == 2)
        guard case .malformed(let error) = items.last?.parsed else {
            Issue.record("the trailing array was not reported")
            return
        }
        #expect(error.message.contains("content after the closing ] of the JSON array: '[' at line 2"), "\(error.message)")
    }

    @Test("white space after the closing ] is fine")
    func whitespaceAfterTheArray() {
        var reader = SubmissionReader(data: Data("[{\"a\":1}]\n\n  ".utf8))
        var count = 0
        while reader.next() != nil { count += 1 }
        #expect(count == 1)
    }

    @Test("ingest of a directory fails with a clear message")
    func ingestOfADirectory() throws {
        let db = try IngestionDatabase()
        defer { db.drop() }
        let outcome = try GeoledgerProcess.run(
            ["ingest", FileManager.default.temporaryDirectory.path], environment: ["DATABASE_URL": db.url])
        #expect(outcome.status == 1)
        #expect(outcome.stderr.contains("is a directory"))
    }

    @Test("grants on the projections survive a replay")
    func grantsSurviveReplay() throws {
        let db = try IngestionDatabase()
        defer { db.drop() }
        let role = "analyst_" + db.database.name.suffix(8)
        try db.connection.execute("CREATE ROLE \(role) NOLOGIN")
        defer { _ = try? db.connection.execute("DROP OWNED BY \(role); DROP ROLE \(role)") }
        try db.connection.execute("GRANT USAGE ON SCHEMA projections TO \(role); GRANT SELECT ON ALL TABLES IN SCHEMA projections TO \(role)")
        try db.ingest([Client.merchantAddressFixed(merchant: "M1")])
        try Replayer().replay(db.database.configuration)
        let rights = try db.connection.query(
            "SELECT has_schema_privilege($1, 'projections', 'USAGE'), has_table_privilege($1, 'projections.fixes', 'SELECT')",
            [role]).first
        #expect(try rights?.decode(0, as: Bool.self) == true)
        #expect(try rights?.decode(1, as: Bool.self) == true)
    }

    @Test("a merchant's visits: counted by their current record, listed with the distance from the address position")
    func visitsOfAMerchant() throws {
        let db = try IngestionDatabase()
        defer { db.drop() }
        try db.ingest([
            Client.merchantAddressFixed(merchant: "M1", fix: Client.fix(lat: 31.2304, lon: 121.4737)),
            Client.merchantAddressFixed(merchant: "M2", fix: Client.fix(lat: 31.3000, lon: 121.5000)),
            Client.visitRecorded(visit: "V1", merchant: "M1", fix: Client.fix(lat: 31.2314, lon: 121.4737, capturedAt: "2026-11-29T11:00:00+08:00")),
            Client.visitRecorded(visit: "V2", merchant: "M1", fix: Client.fix(lat: 31.2304, lon: 121.4737, capturedAt: "2026-11-29T12:00:00+08:00")),
        ])
        let m1 = try #require(try CurrentState().merchant("M1", on: db.connection))
        #expect(m1.visits == 2)
        #expect(m1.recentVisits.map(\.visitId) == ["V2", "V1"])
        let address = try #require(m1.addressPosition)
        let v1 = try db.connection.query("SELECT lat, lon FROM projections.fixes WHERE entity_kind = 'visit' AND entity_id = 'V1'").first
        let expected = Coordinate(latitude: try #require(try v1?.decode(0, as: Double.self)), longitude: try #require(try v1?.decode(1, as: Double.self)))
            .distance(to: Coordinate(latitude: address.lat, longitude: address.lon))
        #expect(abs((m1.recentVisits[1].distanceMetres ?? -1) - expected) < 0.01)
        #expect(abs(expected - 111) < 5, "0.001 degree of latitude is about 111 m")

        // V1 re-recorded later for M2: its current record no longer names M1.
        try db.ingest([Client.visitRecorded(visit: "V1", merchant: "M2", fix: Client.fix(capturedAt: "2026-11-29T13:00:00+08:00"))])
        #expect(try CurrentState().merchant("M1", on: db.connection)?.visits == 1)
        #expect(try CurrentState().merchant("M2", on: db.connection)?.recentVisits.map(\.visitId) == ["V1"])
    }
}
