import EventStore
import Foundation
import Ingestion
import LocationEvents
import Postgres
import Projections
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
        {"table": "fixes", "row": {"app": "onboarding", "lat": 31.23232923903782, "lon": 121.4691622633299, "city": "上海市", "datum": "gcj02", "flags": [], "adcode": "310101", "region": "mainland", "purpose": "onboarding", "user_id": "sales-17", "accuracy": "precise", "district": "黄浦区", "event_id": "0b9c2a4e-3f1d-4a51-9a8e-5f7c1d2e3a40", "position": 1, "provider": "amap", "province": "上海市", "device_id": "A1B2", "entity_id": "M0001", "gcj02_lat": 31.230400000000312, "gcj02_lon": 121.4737000000004, "in_region": true, "event_type": "MerchantAddressFixed", "app_version": "5.2.0", "captured_at": "2026-11-29T02:00:00+00:00", "entity_kind": "merchant", "merchant_id": "M0001", "received_at": "2026-11-29T13:18:52.330915+00:00", "near_boundary": false, "claim_mismatch": false, "datum_inferred": false, "claimed_in_region": true, "formatted_address": "上海市黄浦区南京东路100号", "horizontal_accuracy": 35, "accuracy_authorization": "full"}}
        {"table": "fixes", "row": {"app": "merchant", "lat": 31.230933321496483, "lon": 121.47046649576616, "city": null, "datum": "gcj02", "flags": [], "adcode": null, "region": "mainland", "purpose": "shop", "user_id": "m-1", "accuracy": "approximate", "district": null, "event_id": "1c0d3b5f-4a2e-4b62-8b9f-6a8d2e3f4b51", "position": 2, "provider": "tencent", "province": null, "device_id": null, "entity_id": "M0001", "gcj02_lat": 31.229000000000326, "gcj02_lon": 121.47500000000043, "in_region": true, "event_type": "MerchantAddressFixed", "app_version": "3.1.0", "captured_at": "2026-11-29T03:00:00+00:00", "entity_kind": "merchant", "merchant_id": "M0001", "received_at": "2026-11-29T13:18:52.330915+00:00", "near_boundary": false, "claim_mismatch": false, "datum_inferred": true, "claimed_in_region": null, "formatted_address": null, "horizontal_accuracy": 8, "accuracy_authorization": "reduced"}}
        {"table": "fixes", "row": {"app": "onboarding", "lat": 31.234934153328748, "lon": 121.47146934659018, "city": null, "datum": "gcj02", "flags": [], "adcode": null, "region": "mainland", "purpose": null, "user_id": "sales-17", "accuracy": "precise", "district": null, "event_id": "2d1e4c6a-5b3f-4c73-9ca0-7b9e3f4a5c62", "position": 3, "provider": "amap", "province": null, "device_id": null, "entity_id": "T0001", "gcj02_lat": 31.23300000000034, "gcj02_lon": 121.47600000000045, "in_region": true, "event_type": "TerminalBound", "app_version": "5.2.0", "captured_at": "2026-11-29T02:05:00+00:00", "entity_kind": "terminal", "merchant_id": "M0001", "received_at": "2026-11-29T13:18:52.330915+00:00", "near_boundary": false, "claim_mismatch": false, "datum_inferred": false, "claimed_in_region": null, "formatted_address": null, "horizontal_accuracy": 20, "accuracy_authorization": "full"}}
        {"table": "fixes", "row": {"app": null, "lat": 22.2819, "lon": 114.1582, "city": null, "datum": "wgs84", "flags": [], "adcode": null, "region": "hong_kong", "purpose": null, "user_id": null, "accuracy": "precise", "district": null, "event_id": "3e2f5d7b-6c4a-4d84-8db1-8caf4a5b6d73", "position": 4, "provider": "apple", "province": null, "device_id": "POS-9", "entity_id": "T0001", "gcj02_lat": 22.279180820936375, "gcj02_lon": 114.16319478740677, "in_region": false, "event_type": "TerminalLocated", "app_version": null, "captured_at": "2026-11-29T03:30:00+00:00", "entity_kind": "terminal", "merchant_id": null, "received_at": "2026-11-29T13:18:52.330915+00:00", "near_boundary": false, "claim_mismatch": true, "datum_inferred": true, "claimed_in_region": true, "formatted_address": null, "horizontal_accuracy": 65, "accuracy_authorization": "full"}}
        {"table": "fixes", "row": {"app": "onboarding", "lat": 31.232929752500883, "lon": 121.46946315601964, "city": null, "datum": "gcj02", "flags": [], "adcode": null, "region": "mainland", "purpose": null, "user_id": "sales-17", "accuracy": "precise", "district": null, "event_id": "4f3a6e8c-7d5b-4e95-9ec2-9db05b6c7e84", "position": 5, "provider": "amap", "province": null, "device_id": null, "entity_id": "V0001", "gcj02_lat": 31.231000000000318, "gcj02_lon": 121.47400000000043, "in_region": true, "event_type": "VisitRecorded", "app_version": null, "captured_at": "2026-11-29T02:30:00+00:00", "entity_kind": "visit", "merchant_id": "M0001", "received_at": "2026-11-29T13:18:52.330915+00:00", "near_boundary": false, "claim_mismatch": false, "datum_inferred": false, "claimed_in_region": null, "formatted_address": null, "horizontal_accuracy": 12, "accuracy_authorization": "full"}}
        {"table": "fixes", "row": {"app": null, "lat": 31.23232923903782, "lon": 121.4691622633299, "city": null, "datum": "gcj02", "flags": [], "adcode": null, "region": "mainland", "purpose": null, "user_id": "ops-2", "accuracy": "approximate", "district": null, "event_id": "6b5c8a0e-9f7d-4ab7-9ae4-bf2d7d8e9a06", "position": 7, "provider": "tencent", "province": null, "device_id": null, "entity_id": "E-77", "gcj02_lat": 31.230400000000312, "gcj02_lon": 121.4737000000004, "in_region": true, "event_type": "EnterpriseAddressFixed", "app_version": null, "captured_at": "2026-11-29T02:00:00+00:00", "entity_kind": "enterprise", "merchant_id": null, "received_at": "2026-11-29T13:18:52.330915+00:00", "near_boundary": false, "claim_mismatch": true, "datum_inferred": true, "claimed_in_region": false, "formatted_address": null, "horizontal_accuracy": 450, "accuracy_authorization": "unknown"}}
        {"table": "address_positions", "row": {"entity_id": "E-77", "latest_lat": 31.23232923903782, "latest_lon": 121.4691622633299, "entity_kind": "enterprise", "precise_lat": null, "precise_lon": null, "latest_region": "mainland", "precise_region": null, "latest_accuracy": "approximate", "latest_event_id": "6b5c8a0e-9f7d-4ab7-9ae4-bf2d7d8e9a06", "latest_position": 7, "latest_provider": "tencent", "precise_event_id": null, "precise_position": null, "precise_provider": null, "latest_captured_at": "2026-11-29T02:00:00+00:00", "precise_captured_at": null, "latest_horizontal_accuracy": 450, "precise_horizontal_accuracy": null}}
        {"table": "address_positions", "row": {"entity_id": "M0001", "latest_lat": 31.230933321496483, "latest_lon": 121.47046649576616, "entity_kind": "merchant", "precise_lat": 31.23232923903782, "precise_lon": 121.4691622633299, "latest_region": "mainland", "precise_region": "mainland", "latest_accuracy": "approximate", "latest_event_id": "1c0d3b5f-4a2e-4b62-8b9f-6a8d2e3f4b51", "latest_position": 2, "latest_provider": "tencent", "precise_event_id": "0b9c2a4e-3f1d-4a51-9a8e-5f7c1d2e3a40", "precise_position": 1, "precise_provider": "amap", "latest_captured_at": "2026-11-29T03:00:00+00:00", "precise_captured_at": "2026-11-29T02:00:00+00:00", "latest_horizontal_accuracy": 8, "precise_horizontal_accuracy": 35}}
        {"table": "terminals", "row": {"fix_lat": 22.2819, "fix_lon": 114.1582, "fix_region": "hong_kong", "unbound_at": "2026-11-29T13:18:52.330915+00:00", "bound_since": null, "merchant_id": null, "terminal_id": "T0001", "fix_accuracy": "precise", "fix_event_id": "3e2f5d7b-6c4a-4d84-8db1-8caf4a5b6d73", "fix_position": 4, "fix_provider": "apple", "binding_version": 3, "fix_captured_at": "2026-11-29T03:30:00+00:00", "last_merchant_id": "M0001", "fix_horizontal_accuracy": 65}}
        {"table": "visits", "row": {"lat": 31.232929752500883, "lon": 121.46946315601964, "note": "quarterly check", "region": "mainland", "accuracy": "precise", "event_id": "4f3a6e8c-7d5b-4e95-9ec2-9db05b6c7e84", "position": 5, "provider": "amap", "visit_id": "V0001", "visitor_id": "sales-17", "captured_at": "2026-11-29T02:30:00+00:00", "merchant_id": "M0001", "horizontal_accuracy": 12}}
        {"table": "failures", "row": {"app": "onboarding", "purpose": "terminal_binding", "user_id": "sales-17", "category": "timeout", "event_id": "5a4b7f9d-8e6c-4fa6-8fd3-ae1c6c7d8f95", "position": 6, "provider": "amap", "device_id": null, "entity_id": "T0001", "error_code": "4", "app_version": null, "captured_at": "2026-11-29T01:59:00+00:00", "entity_kind": "terminal", "received_at": "2026-11-29T13:18:52.330915+00:00", "error_message": "timed out"}}
        """

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
        }, on: db.connection)
        #expect(results.enumerated().allSatisfy { index, result in
            result == .appended(stream: events[index].stream, version: events[index].version, position: events[index].position)
        })
        for range in ranges {
            try Projector.live.project(range, on: db.connection)
        }

        var expectedCounts: [String: Int] = [:]
        for line in Self.expectedRows.split(separator: "\n") {
            let entry = try JSONValue(parsing: Data(line.utf8))
            let table = try #require(entry["table"]?.stringValue)
            let expected = try #require(entry["row"]?.objectValue)
            expectedCounts[table, default: 0] += 1
            let key = expected["event_id"] != nil && table != "address_positions" && table != "terminals"
                ? ("event_id", expected["event_id"]!) : table == "terminals" ? ("terminal_id", expected["terminal_id"]!)
                : ("entity_id", expected["entity_id"]!)
            let actual = try db.row(table, where: "\(key.0)::text = $1", [key.1.stringValue])
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

        let merchant = try #require(try CurrentState().merchant("M0001", on: db.connection))
        #expect(merchant.addressPosition?.eventId == "0b9c2a4e-3f1d-4a51-9a8e-5f7c1d2e3a40")
        #expect(merchant.latestFix.eventId == "1c0d3b5f-4a2e-4b62-8b9f-6a8d2e3f4b51")
        #expect(merchant.visits == 1 && merchant.terminals.isEmpty)
    }

    @Test("the fixture is what today's ingest stores for the same submissions, apart from the receive time")
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
            #expect(String(decoding: now.metadata, as: UTF8.self) == event.metadata, "metadata of \(event.type)")
        }
    }
}
