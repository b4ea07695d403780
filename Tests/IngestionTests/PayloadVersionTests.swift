import EventStore
import Foundation
import Geo
@testable import Ingestion
import JSON
import LocationEvents
import Postgres
import Projections
import Queries
import Testing

/// Events written by earlier versions must keep projecting the same rows as the code changes: a frozen
/// schema-1 log, projected by today's projector.
@Suite("Stored payloads of schema 1", .serialized)
struct PayloadVersionTests {
    struct FrozenEvent: Decodable {
        let position: Int64
        let eventId: UUID
        let stream: String
        let version: Int64
        let type: String
        let data: String
        let metadata: String
    }

    static func frozenEvents() throws -> [FrozenEvent] {
        let url = try #require(Bundle.module.url(forResource: "schema1-events", withExtension: "json", subdirectory: "Fixtures"))
        struct File: Decodable { let events: [FrozenEvent] }
        return try JSONDecoder().decode(File.self, from: Data(contentsOf: url)).events
    }

    /// The rows the frozen events must give, as `to_jsonb` shows them in UTC.
    static let expectedRows = """
        {"table": "fixes", "row": {"position": 1, "event_id": "0b9c2a4e-3f1d-4a51-9a8e-5f7c1d2e3a40", "event_type": "MerchantAddressFixed", "entity_kind": "merchant", "entity_id": "M0001", "captured_at": "2026-11-29T02:00:00+00:00", "lat": 31.23232923903782, "lon": 121.4691622633299, "horizontal_accuracy": 35, "accuracy_authorization": "full", "accuracy": "precise", "provider": "amap", "region": "mainland", "near_boundary": false, "claim_mismatch": false, "adcode": "310101", "app": "onboarding", "os": "iOS 17.2", "platform": "ios"}}
        {"table": "fixes", "row": {"position": 2, "event_id": "1c0d3b5f-4a2e-4b62-8b9f-6a8d2e3f4b51", "event_type": "MerchantAddressFixed", "entity_kind": "merchant", "entity_id": "M0001", "captured_at": "2026-11-29T03:00:00+00:00", "lat": 31.230933321496483, "lon": 121.47046649576616, "horizontal_accuracy": 8, "accuracy_authorization": "reduced", "accuracy": "approximate", "provider": "tencent", "region": "mainland", "near_boundary": false, "claim_mismatch": false, "adcode": null, "app": "merchant", "os": null, "platform": "unknown"}}
        {"table": "fixes", "row": {"position": 3, "event_id": "2d1e4c6a-5b3f-4c73-9ca0-7b9e3f4a5c62", "event_type": "TerminalBound", "entity_kind": "terminal", "entity_id": "T0001", "captured_at": "2026-11-29T02:05:00+00:00", "lat": 31.234934153328748, "lon": 121.47146934659018, "horizontal_accuracy": 20, "accuracy_authorization": "full", "accuracy": "precise", "provider": "amap", "region": "mainland", "near_boundary": false, "claim_mismatch": false, "adcode": null, "app": "onboarding", "os": null, "platform": "unknown"}}
        {"table": "fixes", "row": {"position": 4, "event_id": "3e2f5d7b-6c4a-4d84-8db1-8caf4a5b6d73", "event_type": "TerminalLocated", "entity_kind": "terminal", "entity_id": "T0001", "captured_at": "2026-11-29T03:30:00+00:00", "lat": 22.2819, "lon": 114.1582, "horizontal_accuracy": 65, "accuracy_authorization": "full", "accuracy": "precise", "provider": "apple", "region": "hong_kong", "near_boundary": false, "claim_mismatch": true, "adcode": null, "app": null, "os": null, "platform": "unknown"}}
        {"table": "fixes", "row": {"position": 5, "event_id": "4f3a6e8c-7d5b-4e95-9ec2-9db05b6c7e84", "event_type": "VisitRecorded", "entity_kind": "visit", "entity_id": "V0001", "captured_at": "2026-11-29T02:30:00+00:00", "lat": 31.232929752500883, "lon": 121.46946315601964, "horizontal_accuracy": 12, "accuracy_authorization": "full", "accuracy": "precise", "provider": "amap", "region": "mainland", "near_boundary": false, "claim_mismatch": false, "adcode": null, "app": "onboarding", "os": null, "platform": "unknown"}}
        {"table": "fixes", "row": {"position": 7, "event_id": "6b5c8a0e-9f7d-4ab7-9ae4-bf2d7d8e9a06", "event_type": "EnterpriseAddressFixed", "entity_kind": "enterprise", "entity_id": "E-77", "captured_at": "2026-11-29T02:00:00+00:00", "lat": 31.23232923903782, "lon": 121.4691622633299, "horizontal_accuracy": 450, "accuracy_authorization": "unknown", "accuracy": "approximate", "provider": "tencent", "region": "mainland", "near_boundary": false, "claim_mismatch": true, "adcode": null, "app": null, "os": null, "platform": "unknown"}}
        {"table": "terminals", "row": {"terminal_id": "T0001", "merchant_id": null, "bound_since": null, "last_merchant_id": "M0001", "binding_version": 3, "unbound_at": "2026-11-29T13:18:52.330915+00:00"}}
        {"table": "visits", "row": {"position": 5, "event_id": "4f3a6e8c-7d5b-4e95-9ec2-9db05b6c7e84", "visit_id": "V0001", "merchant_id": "M0001", "visitor_id": "sales-17", "note": "quarterly check", "captured_at": "2026-11-29T02:30:00+00:00", "lat": 31.232929752500883, "lon": 121.46946315601964, "provider": "amap", "app": "onboarding"}}
        {"table": "failures", "row": {"position": 6, "event_id": "5a4b7f9d-8e6c-4fa6-8fd3-ae1c6c7d8f95", "entity_kind": "terminal", "entity_id": "T0001", "provider": "amap", "error_code": "4", "category": "unknown", "captured_at": "2026-11-29T01:59:00+00:00", "app": "onboarding", "platform": "unknown", "os": null}}
        """

    /// What today's ingest writes differently for the fixture's submissions: the catalogue corrected since.
    ///
    /// The failure (AMap 4) was stored as `timeout`, the iOS SDK's meaning, but its actor names no platform and the
    /// Android SDK's 4 is a network fault: today it is `unknown`. Its stored metadata keeps what it was stored with;
    /// its failures row (``expectedRows``) is recomputed with today's catalogue whenever it is projected.
    static func todaysMetadata(_ event: FrozenEvent) -> String {
        guard event.type == "LocationFailed" else { return event.metadata }
        return event.metadata.replacingOccurrences(
            of: #""category":"timeout","description":"timed out""#,
            with: #""category":"unknown","description":"amap error code 4 on an unknown platform""#)
    }

    @Test("the frozen log, projected in one range or in several, gives the expected rows", arguments: [[1...8], [1...3, 4...4, 5...8]])
    func frozenLogProjects(ranges: [ClosedRange<Int64>]) throws {
        let db = try IngestionDatabase()
        defer { db.drop() }
        let events = try Self.frozenEvents()
        #expect(events.count == 8)
        let results = try EventLog().append(events.map { event in
            NewEvent(
                eventId: event.eventId, stream: event.stream, type: event.type,
                data: Data(event.data.utf8), metadata: Data(event.metadata.utf8))
        }, on: db.connection).results
        #expect(results.enumerated().allSatisfy { index, result in
            result == .appended(stream: events[index].stream, version: events[index].version, position: events[index].position)
        })
        for range in ranges {
            try Projector.live.project(range, on: db.connection)
        }

        try Self.expectRows(in: db)

        // The current positions, read from those rows: the precise onboarding fix is the address; the later
        // reduced 8 m shop fix is only the latest; the terminal, unbound, keeps its Hong Kong position.
        let merchant = try #require(try CurrentState().merchant("M0001", on: db.connection))
        expectFix(
            merchant.addressPosition, eventId: "0b9c2a4e-3f1d-4a51-9a8e-5f7c1d2e3a40", position: 1,
            capturedAt: instant("2026-11-29T02:00:00Z"), lat: 31.23232923903782, lon: 121.4691622633299,
            accuracy: "precise", horizontalAccuracy: 35, provider: "amap", region: "mainland")
        expectFix(
            merchant.latestFix, eventId: "1c0d3b5f-4a2e-4b62-8b9f-6a8d2e3f4b51", position: 2,
            capturedAt: instant("2026-11-29T03:00:00Z"), lat: 31.230933321496483, lon: 121.47046649576616,
            accuracy: "approximate", horizontalAccuracy: 8, provider: "tencent", region: "mainland")
        #expect(merchant.visits == 1 && merchant.terminals.isEmpty)
        let terminal = try #require(try CurrentState().terminal("T0001", on: db.connection))
        #expect(terminal.merchantId == nil && terminal.boundSince == nil && terminal.lastMerchantId == "M0001")
        #expect(abs(try #require(terminal.unboundAt).timeIntervalSince(instant("2026-11-29T13:18:52.330915Z"))) < 1e-6)
        expectFix(
            terminal.position, eventId: "3e2f5d7b-6c4a-4d84-8db1-8caf4a5b6d73", position: 4,
            capturedAt: instant("2026-11-29T03:30:00Z"), lat: 22.2819, lon: 114.1582,
            accuracy: "precise", horizontalAccuracy: 65, provider: "apple", region: "hong_kong")
        #expect(terminal.driftMetres == nil)
        #expect(try CurrentState().merchant("E-77", on: db.connection) == nil)
    }

    /// The projection tables hold exactly ``expectedRows``.
    static func expectRows(in db: IngestionDatabase) throws {
        var expectedCounts: [String: Int] = [:]
        for line in Self.expectedRows.split(separator: "\n") {
            let entry = try JSONValue(parsing: Data(line.utf8))
            let table = try #require(entry["table"]?.stringValue)
            let expected = try #require(entry["row"]?.objectValue)
            expectedCounts[table, default: 0] += 1
            let key = table == "terminals" ? ("terminal_id", expected["terminal_id"]!) : ("event_id", expected["event_id"]!)
            let actual = try db.row(table, where: "\(key.0)::text = $1", [key.1.stringValue])
            #expect(Set(actual.objectValue?.keys.map { $0 } ?? []) == Set(expected.keys), "columns of \(table)")
            for (column, value) in expected.sorted(by: { $0.key < $1.key }) {
                if case .number(let number) = value, let stored = actual[column]?.numberValue {
                    #expect(close(stored, number, within: 1e-9), "\(table).\(column) of \(key.1)")
                } else {
                    #expect(actual[column] == value, "\(table).\(column) of \(key.1)")
                }
            }
        }
        for (table, count) in expectedCounts {
            #expect(try db.count("SELECT count(*) FROM projections.\(table)") == count, "\(table)")
        }
    }

    @Test("the metadata written today for the fixture's submissions is the fixture's bytes, which the hash chain covers")
    func metadataIsWrittenAsStored() throws {
        let events = try Self.frozenEvents()
        let receivedAt = try #require(try JSONValue(parsing: Data(events[0].metadata.utf8))["receivedAt"]?.stringValue)
        let service = IngestService(classifier: try BoundaryClassifier.bundled())
        let batch = service.prepare(events.map { IngestItem.bytes(Data($0.data.utf8)) }, now: instant(receivedAt))
        #expect(batch.events.count == events.count)
        for (event, written) in zip(events, batch.events) {
            #expect(String(decoding: written.metadata, as: UTF8.self) == Self.todaysMetadata(event), "metadata of \(event.type)")
        }
    }

    @Test("the fixture is what today's ingest stores and projects for the same submissions, apart from the receive time")
    func fixtureMatchesTodaysPayload() throws {
        let db = try IngestionDatabase()
        defer { db.drop() }
        let events = try Self.frozenEvents()
        let receivedAt = try #require(try JSONValue(parsing: Data(events[0].metadata.utf8))["receivedAt"]?.stringValue)
        let report = try db.ingest(events.map(\.data), now: instant(receivedAt))
        #expect(report.count(.appended) == events.count)
        let stored = try EventLog().readAll(after: 0, limit: 100, on: db.connection)
        for (event, now) in zip(events, stored) {
            #expect(String(decoding: now.data, as: UTF8.self) == event.data, "data of \(event.type)")
            #expect(String(decoding: now.metadata, as: UTF8.self) == Self.todaysMetadata(event), "metadata of \(event.type)")
        }
        // Ingest projects from the values it computed, replay from the stored bytes: the same rows either way.
        try Self.expectRows(in: db)
    }

    /// A schema-1 fix's metadata with every member the projections read.
    static func fixMetadata(accuracy: String, provider: String = "amap") -> String {
        """
        {"schema": 1, "capturedAt": "2026-11-29T02:00:00.000000Z", "receivedAt": "2026-11-29T02:00:01.000000Z",
         "fix": {"wgs84": {"lat": 31.2, "lon": 121.4}, "horizontalAccuracy": 20, "accuracyAuthorization": "full",
                 "accuracy": "\(accuracy)", "provider": "\(provider)", "region": "mainland", "nearBoundary": false,
                 "claimMismatch": false}}
        """
    }

    @Test("a stored fix with every member read is projected")
    func fixMetadataIsReadable() throws {
        let event = try ProjectedEvent(
            position: 7, version: 0, eventId: UUID(), stream: "terminal-T1", type: "TerminalLocated",
            metadata: Data(Self.fixMetadata(accuracy: "precise").utf8), data: Data(#"{"terminalId": "T1"}"#.utf8))
        #expect(event.stream == "terminal-T1")
    }

    @Test("stored JSON that lacks what its type and schema promise is refused, naming the event and the field", arguments: [
        ("MerchantAddressFixed", #"{"schema": 1, "capturedAt": "2026-11-29T02:00:00.000000Z", "fix": {"wgs84": {"lon": 1}}}"#, nil,
         "event at position 7: metadata.fix.wgs84.lat is missing"),
        ("MerchantAddressFixed", #"{"schema": 2}"#, nil, "event at position 7: metadata schema 2 is not one this version reads"),
        ("TerminalBound", #"{"schema": 1, "receivedAt": "2026-11-29T02:00:00.000000Z"}"#, #"{"terminalId": "T1"}"#,
         "event at position 7: data.merchantId is missing"),
        ("VisitRecorded", #"{"schema": 1}"#, nil, "event at position 7: a VisitRecorded event needs its data"),
        ("LocationFailed", #"{"schema": 1, "failure": {"provider": "amap", "errorCode": 4, "category": "timeout"}}"#, #"{"terminalId": "T1"}"#,
         "event at position 7: metadata.capturedAt is missing"),
        ("LocationFailed", #"{"schema": 1, "capturedAt": "2026-11-29T02:00:00.000000Z", "failure": {"provider": "amap", "errorCode": 4}}"#, nil,
         "event at position 7: a LocationFailed event needs its data"),
        ("TerminalLocated", #"{"schema": 1, "fix": [}"#, nil, "event at position 7: malformed JSON"),
        ("TerminalLocated", Self.fixMetadata(accuracy: "exact"), nil,
         #"event at position 7: metadata.fix.accuracy "exact" is not one this version reads"#),
        ("TerminalLocated", Self.fixMetadata(accuracy: "precise", provider: "baidu"), nil,
         #"event at position 7: metadata.fix.provider "baidu" is not one this version reads"#),
    ])
    func unreadableStoredEvents(type: String, metadata: String, data: String?, message: String) {
        let error = #expect(throws: ProjectionError.self) {
            try ProjectedEvent(
                position: 7, version: 0, eventId: UUID(), stream: "merchant-M1", type: type, metadata: Data(metadata.utf8),
                data: data.map { Data($0.utf8) })
        }
        #expect(error?.description.hasPrefix(message) == true, "\(String(describing: error))")
    }
}
