import DatabaseTestSupport
import Foundation
import JSON
import Projections
import Queries
import Testing

/// A terminal's position is reported like a merchant's: its latest precise fix, and next to it its latest fix of
/// any quality. Drift runs from the latest precise terminal fix to the merchant's address position, and from
/// nothing else.
@Suite("terminal position and drift", .serialized)
struct TerminalPositionTests {
    /// The merchant's address, in WGS-84.
    static let lat = 31.2304, lon = 121.4737
    /// Degrees of latitude and, here, of longitude per metre (mean earth radius, as `geo_distance_m`).
    static let latitudePerMetre = 1 / 111_195.08, longitudePerMetre = 1 / (111_195.08 * cos(31.2304 * .pi / 180))

    /// A WGS-84 fix `north` and `east` metres from the merchant's address.
    static func fix(
        north: Double = 0, east: Double = 0, accuracy: Double, provider: String = "amap", authorization: String? = "full",
        at capturedAt: String
    ) -> String {
        Client.fix(
            lat: lat + north * latitudePerMetre, lon: lon + east * longitudePerMetre, datum: "wgs84", horizontalAccuracy: accuracy,
            authorization: authorization, provider: provider, capturedAt: capturedAt, address: nil, claimedInRegion: nil)
    }

    @Test("an 8 km IP fix or an approximate one never makes a drift: drift runs from the latest precise fix")
    func driftIgnoresFixesThatAreNotPrecise() throws {
        let db = try IngestionDatabase()
        defer { db.drop() }
        try db.ingest([
            Client.merchantAddressFixed(eventId(1), merchant: "M1", fix: Self.fix(accuracy: 20, at: "2026-11-29T08:00:00+08:00")),
            // Bound 50 m north of the address, precisely.
            Client.terminalBound(eventId(2), terminal: "T1", merchant: "M1", fix: Self.fix(north: 50, accuracy: 30, at: "2026-11-29T09:00:00+08:00")),
            // Then an IP fix 8 km east, unusable, and an approximate one 2 km west: both newer.
            Client.terminalLocated(eventId(3), terminal: "T1", fix: Self.fix(
                east: 8000, accuracy: 5000, provider: "ip", authorization: nil, at: "2026-11-29T10:00:00+08:00")),
            Client.terminalLocated(eventId(4), terminal: "T1", fix: Self.fix(east: -2000, accuracy: 800, at: "2026-11-29T11:00:00+08:00")),
            // T2 has only an approximate fix: no position, no drift.
            Client.terminalBound(eventId(5), terminal: "T2", merchant: "M1", fix: Self.fix(east: 6000, accuracy: 1500, at: "2026-11-29T09:00:00+08:00")),
        ])
        let t1 = try #require(try CurrentState().terminal("T1", on: db.connection))
        #expect(t1.position?.eventId == eventId(2).uuidString.lowercased())
        #expect(t1.latestFix?.eventId == eventId(4).uuidString.lowercased())
        #expect(close(t1.driftMetres, 50, within: 0.5), "\(String(describing: t1.driftMetres))")
        let t2 = try #require(try CurrentState().terminal("T2", on: db.connection))
        #expect(t2.position == nil && t2.latestFix?.eventId == eventId(5).uuidString.lowercased())
        #expect(t2.driftMetres == nil)
        let merchant = try #require(try CurrentState().merchant("M1", on: db.connection))
        #expect(merchant.terminals.map(\.terminalId) == ["T1", "T2"])
        #expect(close(merchant.terminals[0].driftMetres, 50, within: 0.5))
        #expect(merchant.terminals[1].driftMetres == nil)

        // A newer precise fix 300 m south moves the position and the drift.
        try db.ingest([Client.terminalLocated(eventId(6), terminal: "T1", fix: Self.fix(north: -300, accuracy: 15, at: "2026-11-29T12:00:00+08:00"))])
        let moved = try #require(try CurrentState().terminal("T1", on: db.connection))
        #expect(moved.position?.eventId == eventId(6).uuidString.lowercased() && moved.latestFix == moved.position)
        #expect(close(moved.driftMetres, 300, within: 0.5), "\(String(describing: moved.driftMetres))")

        // show terminal says the same.
        let outcome = try GeoledgerProcess.run(["show", "terminal", "T2", "--format", "json"], environment: ["DATABASE_URL": db.url])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let shown = try JSONValue(parsing: Data(outcome.stdout.utf8))
        #expect(shown["position"] == .null && shown["driftMetres"] == .null)
        #expect(shown[path: "latestFix.accuracy"] == "approximate" && shown[path: "latestFix.eventId"] == .string(eventId(5).uuidString.lowercased()))
    }

    @Test("replay gives the same positions and drifts as the append did, and the history's indexes")
    func replayAgrees() throws {
        let db = try IngestionDatabase()
        defer { db.drop() }
        try db.ingest([
            Client.merchantAddressFixed(merchant: "M1", fix: Self.fix(accuracy: 20, at: "2026-11-29T08:00:00+08:00")),
            Client.terminalBound(terminal: "T1", merchant: "M1", fix: Self.fix(north: 50, accuracy: 30, at: "2026-11-29T09:00:00+08:00")),
            Client.terminalLocated(terminal: "T1", fix: Self.fix(east: 8000, accuracy: 5000, provider: "ip", authorization: nil, at: "2026-11-29T10:00:00+08:00")),
        ])
        let before = try db.currentStates()
        try Replayer().replay(db.database.configuration)
        #expect(try db.currentStates() == before)
        // The history's indexes are rebuilt with the tables.
        let indexes = try db.connection.query("SELECT indexname FROM pg_indexes WHERE schemaname = 'projections'").map { try $0.decode(0, as: String.self) }
        #expect(Set(["failures_entity", "fixes_enterprise", "visits_visitor", "fixes_entity"]).isSubset(of: Set(indexes)), "\(indexes)")
        #expect(before["terminal T1"]?.contains(#""driftMetres":50."#) == true, "\(before["terminal T1"] ?? "")")
    }
}
