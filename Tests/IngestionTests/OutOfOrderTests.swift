import Foundation
import Ingestion
import LocationEvents
import Queries
import Testing

/// Late, out-of-order records are normal: the projections must not depend on arrival order.
@Suite("Out-of-order arrival", .serialized)
struct OutOfOrderTests {
    /// Columns that legitimately differ with arrival order: global positions, and the stream version of a
    /// terminal's last binding change (its stream interleaves located fixes in arrival order). Everything else,
    /// and which event is current, must not differ.
    static let orderDependent: [String: [String]] = [
        "fixes": ["position"],
        "failures": ["position"],
        "terminals": ["binding_version"],
        "visits": ["position"],
        "latest_fixes": ["position"],
    ]

    /// How each table's rows are matched across arrival orders: history rows by event, bindings by terminal.
    static let key: [String: String] = [
        "fixes": "t.event_id", "failures": "t.event_id", "terminals": "t.terminal_id", "visits": "t.event_id",
        "latest_fixes": "t.entity_kind, t.entity_id, t.quality", "daily_events": "t.day, t.event_type, t.app, t.provider",
        "fix_days": "t.day, t.provider, t.app, t.accuracy, t.accuracy_authorization, t.claim_mismatch",
        "accuracy_buckets": "t.provider, t.platform, t.app, t.bucket", "checkpoint": "t.one",
    ]

    /// Every projection table without the order-dependent columns, in key order; and ``CurrentState``'s answer
    /// for every merchant and terminal, without log positions.
    static func snapshot(_ db: IngestionDatabase) throws -> [String: String] {
        let tables = try db.connection.query(
            "SELECT tablename FROM pg_tables WHERE schemaname = 'projections' ORDER BY tablename"
        ).map { try $0.decode(0, as: String.self) }
        var snapshot: [String: String] = [:]
        for table in tables {
            let key = try #require(key[table], "a new projection table: say how its rows compare across orders")
            snapshot[table] = try db.contents(table, excluding: orderDependent[table] ?? [], orderBy: key)
        }
        for (id, state) in try db.currentStates(withoutPositions: true) {
            snapshot["current state of \(id)"] = state
        }
        return snapshot
    }

    struct Arrival: Sendable, CustomTestStringConvertible {
        let name: String
        let seed: UInt64?
        let reversed: Bool
        let batchSize: Int
        var testDescription: String { name }

        func order(_ workload: OrderWorkload) -> [String] {
            if let seed { return workload.shuffled(seed: seed) }
            return reversed ? workload.inCaptureOrder.reversed() : workload.inCaptureOrder
        }
    }

    static let arrivals = [
        Arrival(name: "newest first, one at a time", seed: nil, reversed: true, batchSize: 1),
        Arrival(name: "shuffled (seed 1), batches of 5", seed: 1, reversed: false, batchSize: 5),
        Arrival(name: "shuffled (seed 2), batches of 7", seed: 2, reversed: false, batchSize: 7),
        Arrival(name: "shuffled (seed 3), one batch", seed: 3, reversed: false, batchSize: 1000),
    ]

    @Test("any arrival order and batch size gives the tables of capture order", arguments: arrivals)
    func sameTables(_ arrival: Arrival) throws {
        let workload = OrderWorkload()
        let reference = try IngestionDatabase()
        defer { reference.drop() }
        try reference.ingest(workload.inCaptureOrder, batchSize: 1000)
        let expected = try Self.snapshot(reference)
        #expect(expected["fixes"]?.contains("M4") == true)
        #expect(["merchant M4", "terminal T3"].allSatisfy { (expected["current state of \($0)"] ?? "null") != "null" })

        let db = try IngestionDatabase()
        defer { db.drop() }
        try db.ingest(arrival.order(workload), batchSize: arrival.batchSize)
        #expect(try db.count("SELECT count(*) FROM events") == workload.items.count)
        let actual = try Self.snapshot(db)
        #expect(actual.keys.sorted() == expected.keys.sorted())
        for (name, contents) in expected.sorted(by: { $0.key < $1.key }) {
            #expect(actual[name] == contents, "\(name)")
        }

        for merchant in ["M1", "M2", "M3", "M4"] {
            let state = try #require(try CurrentState().merchant(merchant, on: db.connection))
            #expect(state.addressPosition?.eventId == workload.newest(merchant, .precise)?.uuidString.lowercased(), "\(merchant)")
            #expect(state.latestFix?.eventId == workload.newest(merchant)?.uuidString.lowercased(), "\(merchant)")
        }
        // M1's newest fix says 5 m under reduced authorisation: the latest fix, never the address position.
        let m1 = try #require(try CurrentState().merchant("M1", on: db.connection))
        #expect(m1.latestFix?.accuracy == "approximate" && m1.latestFix?.horizontalAccuracy == 5)
        #expect(m1.addressPosition?.horizontalAccuracy == 30)
        #expect(m1.addressPosition?.capturedAt == OrderWorkload.date(minute: 500))
    }

    @Test("a late older fix never replaces a newer current position, address, terminal or visit")
    func lateOlderFix() throws {
        let db = try IngestionDatabase()
        defer { db.drop() }
        let newer = UUID(), newerTerminal = UUID(), newerVisit = UUID()
        let at10 = "2026-11-29T10:00:00+08:00", at9 = "2026-11-29T09:00:00+08:00"
        try db.ingest([
            Client.merchantAddressFixed(newer, merchant: "M1", fix: Client.fix(lat: 31.2304, capturedAt: at10)),
            Client.terminalLocated(newerTerminal, terminal: "T1", fix: Client.fix(lat: 31.2304, capturedAt: at10)),
            Client.visitRecorded(newerVisit, visit: "V1", merchant: "M1", fix: Client.fix(capturedAt: at10), note: "newer"),
        ])
        let report = try db.ingest([
            Client.merchantAddressFixed(merchant: "M1", fix: Client.fix(lat: 31.1000, capturedAt: at9)),
            Client.merchantAddressFixed(merchant: "M1", fix: Client.fix(lat: 31.1100, horizontalAccuracy: 900, capturedAt: at9)),
            Client.terminalLocated(terminal: "T1", fix: Client.fix(lat: 31.1000, capturedAt: at9)),
            Client.visitRecorded(visit: "V1", merchant: "M1", fix: Client.fix(capturedAt: at9), note: "older"),
        ])
        #expect(report.count(.appended) == 4)
        let merchant = try #require(try CurrentState().merchant("M1", on: db.connection))
        #expect(merchant.addressPosition?.eventId == newer.uuidString.lowercased())
        #expect(merchant.latestFix?.eventId == newer.uuidString.lowercased())
        #expect(try CurrentState().terminal("T1", on: db.connection)?.position?.eventId == newerTerminal.uuidString.lowercased())
        // Both records of the visit are kept; its current record is the newer by capture time.
        let visits = try db.connection.query(
            "SELECT event_id, note FROM projections.visits WHERE visit_id = 'V1' ORDER BY captured_at DESC, event_id DESC")
        #expect(visits.count == 2)
        #expect(try visits.first?.decode(0, as: UUID.self) == newerVisit)
        #expect(try visits.first?.decode(1, as: String.self) == "newer")
        #expect(merchant.visits == 1)
        #expect(try db.count("SELECT count(*) FROM projections.fixes") == 7)
    }

    @Test("a reduced-accuracy fix claiming 5 m is approximate and never the precise address position")
    func reducedNeverPrecise() throws {
        let db = try IngestionDatabase()
        defer { db.drop() }
        let precise = UUID(), reduced = UUID()
        try db.ingest([
            Client.merchantAddressFixed(precise, merchant: "M1", fix: Client.fix(horizontalAccuracy: 60, capturedAt: "2026-11-29T09:00:00+08:00")),
            Client.merchantAddressFixed(reduced, merchant: "M1", fix: Client.fix(
                lat: 31.3, horizontalAccuracy: 5, authorization: "reduced", provider: "apple", capturedAt: "2026-11-29T10:00:00+08:00")),
        ])
        expectMembers(try db.row("fixes", where: "event_id = $1", [reduced]), ["accuracy": "approximate", "accuracy_authorization": "reduced"])
        let merchant = try #require(try CurrentState().merchant("M1", on: db.connection))
        #expect(merchant.latestFix?.eventId == reduced.uuidString.lowercased())
        #expect(merchant.addressPosition?.eventId == precise.uuidString.lowercased())
    }
}
