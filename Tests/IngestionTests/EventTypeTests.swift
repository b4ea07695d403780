import EventStore
import Foundation
import Geo
import Ingestion
import JSON
import LocationEvents
import Queries
import Testing

/// One valid submission of each type: its answer, its stored event and its projection rows.
@Suite("Each event type, appended and projected", .serialized)
struct EventTypeTests {
    let converter: DatumConverter

    init() throws {
        converter = DatumConverter(classifier: try Boundaries.classifier())
    }

    /// DESIGN.md's example point (GCJ-02) in WGS-84.
    var shanghai: Coordinate { wgs84(31.2304, 121.4737) }

    func wgs84(_ lat: Double, _ lon: Double, from datum: Datum = .gcj02) -> Coordinate {
        converter.toWGS84(Coordinate(latitude: lat, longitude: lon), from: datum)
    }

    @Test("MerchantAddressFixed: appended, one flat fix row, and the merchant's address position",
          arguments: ["onboarding", "relocation", "edit", "shop"])
    func merchantAddressFixed(purpose: String) throws {
        let db = try IngestionDatabase()
        defer { db.drop() }
        let id = UUID()
        let report = try db.ingest([Client.merchantAddressFixed(id, merchant: "M0001", purpose: purpose)])
        expectAppended(report.results[0], id, stream: "merchant-M0001", version: 0, position: 1)

        let fix = try db.row("fixes", where: "event_id = $1", [id])
        let expected: JSONObject = [
            "position": 1, "event_id": .string(id.uuidString.lowercased()), "event_type": "MerchantAddressFixed",
            "entity_kind": "merchant", "entity_id": "M0001", "captured_at": "2026-11-29T02:00:00+00:00",
            "horizontal_accuracy": 35, "accuracy_authorization": "full", "accuracy": "precise", "provider": "amap",
            "region": "mainland", "near_boundary": false, "claim_mismatch": false, "adcode": "310101", "app": "onboarding",
            "os": "iOS 17.2", "platform": "ios",
        ]
        expectMembers(fix, expected)
        #expect(Set(fix.objectValue?.keys.map { $0 } ?? []) == Set(expected.keys).union(["lat", "lon"]))
        #expect(close(fix["lat"]?.double, shanghai.latitude))
        #expect(close(fix["lon"]?.double, shanghai.longitude))
        // The display position, kept in the event: the one sent, to well under a millimetre.
        let metadata = try db.metadata(of: id)
        let display = converter.fromWGS84(shanghai, to: .gcj02)
        #expect(close(metadata[path: "fix.gcj02.lat"]?.double, display.latitude))
        #expect(close(metadata[path: "fix.gcj02.lon"]?.double, display.longitude))
        #expect(close(metadata[path: "fix.gcj02.lat"]?.double, 31.2304, within: 1e-7))
        expectMembers(try #require(metadata["fix"]), ["datum": "gcj02", "datumInferred": false, "inRegion": true, "flags": []])

        // The only fix: both the address position and the latest fix.
        let state = try #require(try CurrentState().merchant("M0001", on: db.connection))
        for current in [state.addressPosition, state.latestFix] {
            expectFix(
                current, eventId: id.uuidString.lowercased(), position: 1, capturedAt: instant("2026-11-29T02:00:00Z"),
                lat: shanghai.latitude, lon: shanghai.longitude, accuracy: "precise", horizontalAccuracy: 35,
                provider: "amap", region: "mainland")
        }
        #expect(state.terminals.isEmpty && state.visits == 0)
    }

    @Test("EnterpriseAddressFixed: a fix row without a merchant; the datum inferred; a claim that disagrees is kept")
    func enterpriseAddressFixed() throws {
        let db = try IngestionDatabase()
        defer { db.drop() }
        let id = UUID()
        // Tencent without a datum, in mainland China: read as GCJ-02. The client claimed "not in region".
        let sent = Client.fix(datum: nil, horizontalAccuracy: 450, provider: "tencent", claimedInRegion: false)
        let report = try db.ingest([Client.enterpriseAddressFixed(id, enterprise: "E-77", fix: sent)])
        expectAppended(report.results[0], id, stream: "enterprise-E-77", version: 0, position: 1)

        // The enterprise's only fix, approximate: its latest fix and no precise address position.
        let fix = try db.row("fixes", where: "entity_kind = 'enterprise' AND entity_id = 'E-77'")
        expectMembers(fix, [
            "position": 1, "event_id": .string(id.uuidString.lowercased()), "event_type": "EnterpriseAddressFixed",
            "horizontal_accuracy": 450, "accuracy_authorization": "full", "accuracy": "approximate", "provider": "tencent",
            "region": "mainland", "claim_mismatch": true,
        ])
        #expect(close(fix["lat"]?.double, shanghai.latitude))
        #expect(close(fix["lon"]?.double, shanghai.longitude))
        expectMembers(try #require(try db.metadata(of: id)["fix"]), [
            "datum": "gcj02", "datumInferred": true, "inRegion": true, "claimMismatch": true,
        ])
        #expect(try db.count("SELECT count(*) FROM projections.fixes WHERE accuracy = 'precise'") == 0)
        #expect(try CurrentState().merchant("E-77", on: db.connection) == nil)
    }

    @Test("TerminalBound, TerminalLocated, TerminalUnbound: the binding, the device fix and the drift from the merchant")
    func terminalLifecycle() throws {
        let db = try IngestionDatabase()
        defer { db.drop() }
        let merchantFix = UUID(), bound = UUID(), located = UUID(), unbound = UUID()
        try db.ingest([Client.merchantAddressFixed(merchantFix, merchant: "M0001")])

        let bindFix = Client.fix(lat: 31.2330, lon: 121.4760, horizontalAccuracy: 20, capturedAt: "2026-11-29T10:05:00+08:00")
        let bind = try db.ingest([Client.terminalBound(bound, terminal: "T0001", merchant: "M0001", fix: bindFix)])
        expectAppended(bind.results[0], bound, stream: "terminal-T0001", version: 0, position: 2)
        let bindPoint = wgs84(31.2330, 121.4760)
        let bindRow = try db.row("fixes", where: "event_id = $1", [bound])
        expectMembers(bindRow, [
            "position": 2, "event_type": "TerminalBound", "entity_kind": "terminal", "entity_id": "T0001",
            "captured_at": "2026-11-29T02:05:00+00:00", "horizontal_accuracy": 20, "accuracy": "precise",
        ])
        #expect(close(bindRow["lat"]?.double, bindPoint.latitude))

        var terminal = try db.row("terminals", where: "terminal_id = 'T0001'")
        #expect(terminal == .object([
            "terminal_id": "T0001", "merchant_id": "M0001", "bound_since": "2026-11-29T02:05:00+00:00",
            "last_merchant_id": "M0001", "binding_version": 0, "unbound_at": .null,
        ]))
        var state = try #require(try CurrentState().terminal("T0001", on: db.connection))
        #expect(state.merchantId == "M0001" && state.lastMerchantId == "M0001" && state.unboundAt == nil)
        expectFix(
            state.position, eventId: bound.uuidString.lowercased(), position: 2, capturedAt: instant("2026-11-29T02:05:00Z"),
            lat: bindPoint.latitude, lon: bindPoint.longitude, accuracy: "precise", horizontalAccuracy: 20,
            provider: "amap", region: "mainland")
        #expect(close(state.driftMetres, bindPoint.distance(to: shanghai), within: 1e-6))
        #expect(state.boundSince == instant("2026-11-29T02:05:00Z"))
        let merchant = try #require(try CurrentState().merchant("M0001", on: db.connection))
        #expect(merchant.terminals.map(\.terminalId) == ["T0001"])
        #expect(close(merchant.terminals.first?.driftMetres, bindPoint.distance(to: shanghai), within: 1e-6))

        // Hong Kong, WGS-84 from CoreLocation: outside "the region", and the client claimed inside.
        let hongKong = Client.fix(
            lat: 22.2819, lon: 114.1582, datum: nil, horizontalAccuracy: 65, provider: "apple",
            capturedAt: "2026-11-29T11:00:00+08:00", address: nil, claimedInRegion: true)
        let locate = try db.ingest([Client.terminalLocated(located, terminal: "T0001", fix: hongKong)])
        expectAppended(locate.results[0], located, stream: "terminal-T0001", version: 1, position: 3)
        let locatedRow = try db.row("fixes", where: "event_id = $1", [located])
        expectMembers(locatedRow, [
            "event_type": "TerminalLocated", "entity_id": "T0001", "provider": "apple", "region": "hong_kong",
            "claim_mismatch": true, "adcode": .null, "app": "onboarding",
        ])
        expectMembers(try #require(try db.metadata(of: located)["fix"]), [
            "datum": "wgs84", "datumInferred": true, "inRegion": false, "claimMismatch": true,
        ])
        #expect(close(locatedRow["lat"]?.double, 22.2819) && close(locatedRow["lon"]?.double, 114.1582))
        terminal = try db.row("terminals", where: "terminal_id = 'T0001'")
        expectMembers(terminal, ["merchant_id": "M0001", "binding_version": 0])
        state = try #require(try CurrentState().terminal("T0001", on: db.connection))
        let hongKongPoint = Coordinate(latitude: 22.2819, longitude: 114.1582)
        expectFix(
            state.position, eventId: located.uuidString.lowercased(), position: 3, capturedAt: instant("2026-11-29T03:00:00Z"),
            lat: 22.2819, lon: 114.1582, accuracy: "precise", horizontalAccuracy: 65, provider: "apple", region: "hong_kong")
        #expect(close(state.driftMetres, hongKongPoint.distance(to: shanghai), within: 1e-6))

        let unbind = try db.ingest([Client.terminalUnbound(unbound, terminal: "T0001", merchant: "M0001")])
        expectAppended(unbind.results[0], unbound, stream: "terminal-T0001", version: 2, position: 4)
        #expect(try db.count("SELECT count(*) FROM projections.fixes WHERE event_id = '\(unbound.uuidString)'") == 0)
        terminal = try db.row("terminals", where: "terminal_id = 'T0001'")
        expectMembers(terminal, [
            "merchant_id": .null, "bound_since": .null, "last_merchant_id": "M0001", "binding_version": 2,
            // No fix, so no device time: the server's receive time.
            "unbound_at": "2026-11-29T12:00:00+00:00",
        ])
        state = try #require(try CurrentState().terminal("T0001", on: db.connection))
        #expect(state.merchantId == nil && state.driftMetres == nil && state.lastMerchantId == "M0001")
        #expect(state.unboundAt == serverNow && state.boundSince == nil)
        // Unbinding takes no fix: the device position stays the last one.
        #expect(state.position?.eventId == located.uuidString.lowercased() && state.position?.position == 3)
        #expect(try CurrentState().merchant("M0001", on: db.connection)?.terminals == [])
    }

    @Test("VisitRecorded: the visit row with its visitor and note, counted on the merchant")
    func visitRecorded() throws {
        let db = try IngestionDatabase()
        defer { db.drop() }
        let id = UUID()
        try db.ingest([Client.merchantAddressFixed(merchant: "M0001")])
        let visitFix = Client.fix(lat: 31.2310, lon: 121.4740, horizontalAccuracy: 12, capturedAt: "2026-11-29T10:30:00+08:00")
        let report = try db.ingest([Client.visitRecorded(id, visit: "V-1", merchant: "M0001", visitor: "sales-3", fix: visitFix)])
        expectAppended(report.results[0], id, stream: "visit-V-1", version: 0, position: 2)

        let point = wgs84(31.2310, 121.4740)
        let visit = try db.row("visits", where: "visit_id = 'V-1'")
        #expect(Set(visit.objectValue?.keys.map { $0 } ?? []) == [
            "position", "event_id", "visit_id", "merchant_id", "visitor_id", "note", "captured_at", "lat", "lon", "provider", "app",
        ])
        expectMembers(visit, [
            "position": 2, "event_id": .string(id.uuidString.lowercased()), "visit_id": "V-1", "merchant_id": "M0001",
            "visitor_id": "sales-3", "note": "quarterly check", "captured_at": "2026-11-29T02:30:00+00:00", "provider": "amap",
        ])
        // Where the visit was: its fix row, whose position and app the visit row carries too.
        let fix = try db.row("fixes", where: "event_id = $1", [id])
        expectMembers(fix, [
            "position": 2, "event_type": "VisitRecorded", "entity_kind": "visit", "entity_id": "V-1",
            "captured_at": "2026-11-29T02:30:00+00:00", "accuracy": "precise", "horizontal_accuracy": 12,
            "provider": "amap", "region": "mainland",
        ])
        #expect(close(fix["lat"]?.double, point.latitude) && close(fix["lon"]?.double, point.longitude))
        #expect(visit["lat"] == fix["lat"] && visit["lon"] == fix["lon"] && visit["app"] == fix["app"])
        #expect(try CurrentState().merchant("M0001", on: db.connection)?.visits == 1)
    }

    struct FailureCase: Sendable, CustomTestStringConvertible {
        let entityField: String
        let entityId: String
        let stream: String
        let provider: String
        let code: Int
        let category: String
        /// The actor's `os` and `platform` members, when sent; and the platform they make.
        var os: String? = "iOS 17.2"
        var explicitPlatform: String? = nil
        var platform = "ios"
        var testDescription: String {
            "\(entityField) \(provider) \(code) on \(explicitPlatform ?? os ?? "nothing") → \(platform) \(category)"
        }

        var actor: String {
            let members = [("app", "onboarding"), ("os", os), ("platform", explicitPlatform)]
            return "{" + members.compactMap { key, value in value.map { "\"\(key)\": \"\($0)\"" } }.joined(separator: ", ") + "}"
        }
    }

    @Test("LocationFailed: a failures row with the platform and the category from the provider error catalogue, and no fix", arguments: [
        FailureCase(entityField: "merchantId", entityId: "M0001", stream: "merchant-M0001", provider: "amap", code: 4, category: "timeout"),
        FailureCase(entityField: "terminalId", entityId: "T0001", stream: "terminal-T0001", provider: "apple", code: 1, category: "permission_denied"),
        FailureCase(entityField: "merchantId", entityId: "M0002", stream: "merchant-M0002", provider: "amap", code: 12, category: "no_full_accuracy"),
        FailureCase(entityField: "terminalId", entityId: "T0002", stream: "terminal-T0002", provider: "tencent", code: 99, category: "unknown"),
        // The same code from an Android terminal and from an iOS phone: two categories.
        FailureCase(entityField: "terminalId", entityId: "T0003", stream: "terminal-T0003", provider: "tencent", code: 1, category: "network",
                    os: "Android 13", platform: "android"),
        FailureCase(entityField: "merchantId", entityId: "M0003", stream: "merchant-M0003", provider: "tencent", code: 1, category: "permission_denied"),
        FailureCase(entityField: "terminalId", entityId: "T0004", stream: "terminal-T0004", provider: "amap", code: 12, category: "permission_denied",
                    os: "ANDROID 10.0", platform: "android"),
        // An explicit platform goes before the os.
        FailureCase(entityField: "terminalId", entityId: "T0005", stream: "terminal-T0005", provider: "tencent", code: 1, category: "network",
                    os: "iOS 17.2", explicitPlatform: "android", platform: "android"),
        FailureCase(entityField: "merchantId", entityId: "M0004", stream: "merchant-M0004", provider: "amap", code: 12, category: "no_full_accuracy",
                    os: nil, explicitPlatform: "ios", platform: "ios"),
        // No platform: unknown, not a guess; still CoreLocation's own answer for an apple code.
        FailureCase(entityField: "terminalId", entityId: "T0006", stream: "terminal-T0006", provider: "tencent", code: 1, category: "unknown",
                    os: nil, platform: "unknown"),
        FailureCase(entityField: "terminalId", entityId: "T0007", stream: "terminal-T0007", provider: "amap", code: 12, category: "unknown",
                    os: "HarmonyOS 4.0", platform: "unknown"),
        FailureCase(entityField: "merchantId", entityId: "M0005", stream: "merchant-M0005", provider: "apple", code: 1, category: "permission_denied",
                    os: nil, platform: "unknown"),
    ])
    func locationFailed(_ failure: FailureCase) throws {
        let db = try IngestionDatabase()
        defer { db.drop() }
        let id = UUID()
        let report = try db.ingest([Client.locationFailed(
            id, entity: (failure.entityField, failure.entityId), purpose: "terminal_binding", provider: failure.provider,
            errorCode: failure.code, errorMessage: "could not locate", capturedAt: "2026-11-29T09:59:00+08:00", actor: failure.actor)])
        expectAppended(report.results[0], id, stream: failure.stream, version: 0, position: 1)

        let row = try db.row("failures", where: "event_id = $1", [id])
        #expect(row == .object([
            "position": 1, "event_id": .string(id.uuidString.lowercased()),
            "entity_kind": .string(String(failure.stream.prefix { $0 != "-" })), "entity_id": .string(failure.entityId),
            "provider": .string(failure.provider), "error_code": .string(String(failure.code)),
            "category": .string(failure.category), "captured_at": "2026-11-29T01:59:00+00:00", "app": "onboarding",
            "platform": .string(failure.platform), "os": failure.os.map { .string($0) } ?? .null,
        ]))
        let provider = try #require(Provider(rawValue: failure.provider))
        let platform = Platform(rawValue: failure.platform)
        #expect(ProviderErrorCatalogue.category(provider: provider, platform: platform, code: failure.code).rawValue == failure.category)
        #expect(try db.count("SELECT count(*) FROM projections.fixes") == 0)
        #expect(try db.count("SELECT count(*) FROM projections.terminals") == 0)
        // No position for the entity whose locating failed: it is known through its failed attempt alone.
        if failure.entityField == "merchantId" {
            let merchant = try #require(try CurrentState().merchant(failure.entityId, on: db.connection))
            #expect(merchant.addressPosition == nil && merchant.latestFix == nil && merchant.failedAttempts == 1)
            #expect(merchant.recentFailures.map(\.errorCategory) == [failure.category])
            #expect(try CurrentState().terminal(failure.entityId, on: db.connection) == nil)
        } else {
            let terminal = try #require(try CurrentState().terminal(failure.entityId, on: db.connection))
            #expect(terminal.position == nil && terminal.latestFix == nil && terminal.merchantId == nil && terminal.failedAttempts == 1)
            #expect(terminal.recentFailures.map(\.errorCategory) == [failure.category])
            #expect(try CurrentState().merchant(failure.entityId, on: db.connection) == nil)
        }

        let stored = try #require(try EventLog().readStream(failure.stream, on: db.connection).first)
        let metadata = try JSONValue(parsing: stored.metadata)
        #expect(metadata[path: "failure.category"] == .string(failure.category))
        #expect(metadata[path: "failure.description"] == .string(ProviderErrorCatalogue.description(provider: provider, platform: platform, code: failure.code)))
        #expect(metadata[path: "failure.provider"] == .string(failure.provider))
        #expect(metadata[path: "failure.errorCode"] == .number(Double(failure.code)))
        #expect(metadata["app"] == "onboarding")
        #expect(metadata["capturedAt"] == "2026-11-29T01:59:00.000000Z")
        #expect(metadata["fix"] == nil)
    }

    @Test("the stored event: data is the submission in canonical JSON, eventId in lower case, without expectedVersion; metadata schema 1")
    func storedEvent() throws {
        let db = try IngestionDatabase()
        defer { db.drop() }
        let id = UUID()
        let text = Client.merchantAddressFixed(id, merchant: "M0001", expectedVersion: #""no_stream""#)
            .replacingOccurrences(of: id.uuidString.lowercased(), with: id.uuidString)
        let report = try db.ingest([text])
        expectAppended(report.results[0], id, stream: "merchant-M0001", version: 0, position: 1)

        let event = try #require(try EventLog().readStream("merchant-M0001", on: db.connection).first)
        #expect(event.eventId == id && event.type == "MerchantAddressFixed" && event.version == 0)
        guard case .object(var sent) = try JSONValue(parsing: Data(text.utf8)) else { throw Unexpected("not an object") }
        #expect(sent.removeValue(forKey: "expectedVersion") == "no_stream")
        sent["eventId"] = .string(id.uuidString.lowercased())
        #expect(String(decoding: event.data, as: UTF8.self) == JSONValue.object(sent).canonicalString())
        #expect(event.data != Data(text.utf8))
        #expect(String(decoding: event.data, as: UTF8.self).contains(#""eventId":"\#(id.uuidString.lowercased())""#))

        let metadata = try JSONValue(parsing: event.metadata)
        #expect(metadata["schema"] == 1)
        #expect(metadata["receivedAt"] == "2026-11-29T12:00:00.000000Z")
        #expect(metadata["capturedAt"] == "2026-11-29T02:00:00.000000Z")
        #expect(metadata["app"] == "onboarding")
        #expect(metadata["failure"] == nil)

        let classifier = try Boundaries.classifier()
        let submission = try SubmissionValidator().validate(Data(text.utf8), now: serverNow).get()
        let assessment = FixAssessor(classifier: classifier).assess(try #require(submission.body.fix))
        let fix = try #require(metadata["fix"])
        expectMembers(fix, [
            "datum": "gcj02", "datumInferred": false, "region": "mainland", "nearBoundary": false, "inRegion": true,
            "claimMismatch": false, "boundaryVersion": .string(classifier.boundaryVersion), "accuracy": "precise",
            "flags": [], "provider": "amap", "horizontalAccuracy": 35, "accuracyAuthorization": "full", "adcode": "310101",
        ])
        #expect(fix["datumInference"] == nil)
        // Read by PostgreSQL, which parses numbers exactly (Foundation's JSONSerialization may be an ulp off).
        let stored = try db.connection.query(
            """
            SELECT (metadata::jsonb #>> '{fix,wgs84,lat}')::float8, (metadata::jsonb #>> '{fix,wgs84,lon}')::float8,
                   (metadata::jsonb #>> '{fix,gcj02,lat}')::float8, (metadata::jsonb #>> '{fix,gcj02,lon}')::float8
            FROM events WHERE event_id = $1
            """, [id]).first!
        #expect(try stored.decode(0, as: Double.self) == assessment.wgs84.latitude)
        #expect(try stored.decode(1, as: Double.self) == assessment.wgs84.longitude)
        #expect(try stored.decode(2, as: Double.self) == assessment.gcj02.latitude)
        #expect(try stored.decode(3, as: Double.self) == assessment.gcj02.longitude)
        #expect(close(fix[path: "wgs84.lat"]?.double, shanghai.latitude))
        #expect(Set(fix.objectValue?.keys.map { $0 } ?? []) == [
            "wgs84", "gcj02", "datum", "datumInferred", "region", "nearBoundary", "inRegion", "claimMismatch",
            "boundaryVersion", "accuracy", "flags", "provider", "horizontalAccuracy", "accuracyAuthorization", "adcode",
        ])
    }
}

/// The item was appended as the `n`th event of the log.
func expectAppended(
    _ result: IngestItemResult, _ id: UUID, stream: String, version: Int64, position: Int64,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(result.status == .appended, "\(result.json.canonicalString())", sourceLocation: sourceLocation)
    #expect(result.eventId == id.uuidString.lowercased(), sourceLocation: sourceLocation)
    #expect(result.stream == stream, sourceLocation: sourceLocation)
    #expect(result.version == version, sourceLocation: sourceLocation)
    #expect(result.position == position, sourceLocation: sourceLocation)
}

/// Each member of `expected` is in `object` with that value (JSON null for a column that is NULL).
func expectMembers(_ object: JSONValue, _ expected: JSONObject, sourceLocation: SourceLocation = #_sourceLocation) {
    for (key, value) in expected.sorted(by: { $0.key < $1.key }) {
        #expect(object[key] == value, "\(key)", sourceLocation: sourceLocation)
    }
}
