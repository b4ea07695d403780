import Foundation
import Postgres

/// Writes what a batch of events changes in the read models.
///
/// One code path for both uses: after an append, in its transaction, with the events just written; and in
/// `replay`, over the whole log into fresh tables. The tables come out the same whatever order the events
/// arrived in and however the log is cut into batches: current positions keep the newest fix by (capture time,
/// event id), and bindings are recomputed from the terminal's whole stream.
public struct Projector: Sendable {
    /// The schema written: `projections`, or replay's fresh copy.
    let schema: String

    public static let live = Projector(schema: "projections")

    init(schema: String) {
        self.schema = schema
    }

    public func project(_ events: [ProjectedEvent], on connection: Connection) throws {
        let fixes = events.filter { $0.fix != nil }
        try copyFixes(fixes, on: connection)
        try copyFailures(events.filter { $0.failure != nil }, on: connection)
        try updateAddresses(fixes.filter { $0.type == "MerchantAddressFixed" || $0.type == "EnterpriseAddressFixed" }, on: connection)
        try updateTerminalFixes(fixes.filter { $0.type == "TerminalBound" || $0.type == "TerminalLocated" }, on: connection)
        try updateBindings(Set(events.filter { $0.type == "TerminalBound" || $0.type == "TerminalUnbound" }.map(\.stream)), on: connection)
        try updateVisits(fixes.filter { $0.type == "VisitRecorded" }, on: connection)
    }

    private func copyFixes(_ events: [ProjectedEvent], on connection: Connection) throws {
        guard !events.isEmpty else { return }
        try connection.copyFrom("COPY \(schema).fixes FROM STDIN") { writer in
            for event in events {
                guard let fix = event.fix else { continue }
                try writer.row([
                    String(event.position), event.eventId.uuidString, event.type, event.entityKind, event.entityId,
                    event.merchantId, event.purpose, event.capturedAt, event.receivedAt,
                    "\(fix.lat)", "\(fix.lon)", "\(fix.gcj02Lat)", "\(fix.gcj02Lon)", fix.datum, bool(fix.datumInferred),
                    "\(fix.horizontalAccuracy)", fix.authorization, fix.accuracy, fix.provider, fix.region,
                    bool(fix.nearBoundary), bool(fix.inRegion), fix.claimedInRegion.map(bool), bool(fix.claimMismatch),
                    fix.flags.postgresText, fix.province, fix.city, fix.district, fix.adcode, fix.formattedAddress,
                    event.actor.app, event.actor.appVersion, event.actor.userId, event.actor.deviceId,
                ])
            }
        }
    }

    private func copyFailures(_ events: [ProjectedEvent], on connection: Connection) throws {
        guard !events.isEmpty else { return }
        try connection.copyFrom("COPY \(schema).failures FROM STDIN") { writer in
            for event in events {
                guard let failure = event.failure else { continue }
                try writer.row([
                    String(event.position), event.eventId.uuidString, event.entityKind, event.entityId, event.purpose,
                    failure.provider, failure.errorCode, failure.category, failure.errorMessage,
                    event.capturedAt, event.receivedAt,
                    event.actor.app, event.actor.appVersion, event.actor.userId, event.actor.deviceId,
                ])
            }
        }
    }

    private func bool(_ value: Bool) -> String { value ? "t" : "f" }

    /// The newest event per key, by (capture time, event id): the order the tables keep.
    private func newest(_ events: [ProjectedEvent], by key: (ProjectedEvent) -> String) -> [ProjectedEvent] {
        var newest: [String: ProjectedEvent] = [:]
        for event in events {
            let id = key(event)
            if let current = newest[id], !Self.isNewer(event, than: current) { continue }
            newest[id] = event
        }
        return newest.keys.sorted().map { newest[$0]! }
    }

    static func isNewer(_ event: ProjectedEvent, than other: ProjectedEvent) -> Bool {
        let (mine, theirs) = (event.capturedAt ?? "", other.capturedAt ?? "")
        if mine != theirs { return mine > theirs }
        return event.eventId.uuidString.lowercased() > other.eventId.uuidString.lowercased()
    }

    /// The columns every current-position table keeps for a fix, one array per column; a missing event is NULL.
    private struct FixColumns {
        var positions: [Int64?] = [], eventIds: [UUID?] = [], capturedAt: [String?] = [], lats: [Double?] = []
        var lons: [Double?] = [], accuracies: [String?] = [], horizontalAccuracies: [Double?] = []
        var providers: [String?] = [], regions: [String?] = []

        init(_ events: [ProjectedEvent?]) {
            for event in events {
                positions.append(event?.position)
                eventIds.append(event?.eventId)
                capturedAt.append(event?.capturedAt)
                lats.append(event?.fix?.lat)
                lons.append(event?.fix?.lon)
                accuracies.append(event?.fix?.accuracy)
                horizontalAccuracies.append(event?.fix?.horizontalAccuracy)
                providers.append(event?.fix?.provider)
                regions.append(event?.fix?.region)
            }
        }

        var parameters: [(any PostgresEncodable)?] {
            [positions, eventIds, capturedAt, lats, lons, accuracies, horizontalAccuracies, providers, regions]
        }

        /// Without `accuracy`, which a precise position need not repeat.
        var preciseParameters: [(any PostgresEncodable)?] {
            [positions, eventIds, capturedAt, lats, lons, horizontalAccuracies, providers, regions]
        }
    }

    private func updateAddresses(_ events: [ProjectedEvent], on connection: Connection) throws {
        guard !events.isEmpty else { return }
        let latest = newest(events) { "\($0.entityKind)\u{0}\($0.entityId)" }
        let preciseByEntity = Dictionary(
            uniqueKeysWithValues: newest(events.filter { $0.fix?.accuracy == "precise" }) { "\($0.entityKind)\u{0}\($0.entityId)" }
                .map { ("\($0.entityKind)\u{0}\($0.entityId)", $0) })
        let precise = latest.map { preciseByEntity["\($0.entityKind)\u{0}\($0.entityId)"] }
        let newer = { (prefix: String) in
            "(excluded.\(prefix)_captured_at, excluded.\(prefix)_event_id) > (cur.\(prefix)_captured_at, cur.\(prefix)_event_id)"
        }
        let latestColumns = ["position", "event_id", "captured_at", "lat", "lon", "accuracy", "horizontal_accuracy", "provider", "region"]
        let preciseColumns = latestColumns.filter { $0 != "accuracy" }
        let setLatest = latestColumns.map {
            "latest_\($0) = CASE WHEN \(newer("latest")) THEN excluded.latest_\($0) ELSE cur.latest_\($0) END"
        }
        let preciseIsNewer = "excluded.precise_captured_at IS NOT NULL AND (cur.precise_captured_at IS NULL OR \(newer("precise")))"
        let setPrecise = preciseColumns.map {
            "precise_\($0) = CASE WHEN \(preciseIsNewer) THEN excluded.precise_\($0) ELSE cur.precise_\($0) END"
        }
        try connection.query(
            """
            INSERT INTO \(schema).address_positions AS cur (entity_kind, entity_id,
                \(latestColumns.map { "latest_\($0)" }.joined(separator: ", ")),
                \(preciseColumns.map { "precise_\($0)" }.joined(separator: ", ")))
            SELECT kind, id, lp, le, lc::timestamptz, llat, llon, lacc, lha, lprov, lreg,
                   pp, pe, pc::timestamptz, plat, plon, pha, pprov, preg
            FROM unnest($1::text[], $2::text[], $3::bigint[], $4::uuid[], $5::text[], $6::float8[], $7::float8[],
                        $8::text[], $9::float8[], $10::text[], $11::text[], $12::bigint[], $13::uuid[],
                        $14::text[], $15::float8[], $16::float8[], $17::float8[], $18::text[], $19::text[])
                AS b (kind, id, lp, le, lc, llat, llon, lacc, lha, lprov, lreg, pp, pe, pc, plat, plon, pha, pprov, preg)
            ON CONFLICT (entity_kind, entity_id) DO UPDATE SET
                \((setLatest + setPrecise).joined(separator: ",\n    "))
            """,
            [latest.map(\.entityKind), latest.map(\.entityId)] + FixColumns(latest).parameters
                + FixColumns(precise).preciseParameters)
    }

    private func updateTerminalFixes(_ events: [ProjectedEvent], on connection: Connection) throws {
        guard !events.isEmpty else { return }
        let latest = newest(events) { $0.entityId }
        try connection.query(
            """
            INSERT INTO \(schema).terminals AS cur (
                terminal_id, fix_position, fix_event_id, fix_captured_at, fix_lat, fix_lon, fix_accuracy,
                fix_horizontal_accuracy, fix_provider, fix_region)
            SELECT id, p, e, c::timestamptz, lat, lon, acc, ha, prov, reg
            FROM unnest($1::text[], $2::bigint[], $3::uuid[], $4::text[], $5::float8[], $6::float8[], $7::text[],
                        $8::float8[], $9::text[], $10::text[]) AS b (id, p, e, c, lat, lon, acc, ha, prov, reg)
            ON CONFLICT (terminal_id) DO UPDATE SET
                fix_position = excluded.fix_position, fix_event_id = excluded.fix_event_id,
                fix_captured_at = excluded.fix_captured_at, fix_lat = excluded.fix_lat, fix_lon = excluded.fix_lon,
                fix_accuracy = excluded.fix_accuracy, fix_horizontal_accuracy = excluded.fix_horizontal_accuracy,
                fix_provider = excluded.fix_provider, fix_region = excluded.fix_region
            WHERE cur.fix_captured_at IS NULL
               OR (excluded.fix_captured_at, excluded.fix_event_id) > (cur.fix_captured_at, cur.fix_event_id)
            """,
            [latest.map(\.entityId)] + FixColumns(latest).parameters)
    }

    /// The binding of every terminal bound or unbound in the batch, recomputed from its whole stream: the last
    /// bind/unbind decides; "bound since" is the first bind after the last unbind (binding again to the same
    /// merchant, to re-locate it, does not restart it).
    private func updateBindings(_ streams: Set<String>, on connection: Connection) throws {
        guard !streams.isEmpty else { return }
        try connection.query(
            """
            WITH changes AS (
                SELECT e.stream, e.version, e.type, e.data ->> 'merchantId' AS merchant_id,
                       coalesce(e.metadata ->> 'capturedAt', e.metadata ->> 'receivedAt')::timestamptz AS at
                FROM unnest($1::text[]) AS t (stream) JOIN events e ON e.stream = t.stream
                WHERE e.type IN ('TerminalBound', 'TerminalUnbound')
            ), last_change AS (
                SELECT DISTINCT ON (stream) * FROM changes ORDER BY stream, version DESC
            ), last_unbind AS (
                SELECT stream, max(version) AS version FROM changes WHERE type = 'TerminalUnbound' GROUP BY stream
            ), since AS (
                SELECT c.stream, min(c.at) AS at
                FROM changes c LEFT JOIN last_unbind u ON u.stream = c.stream
                WHERE c.type = 'TerminalBound' AND c.version > coalesce(u.version, -1)
                GROUP BY c.stream
            )
            INSERT INTO \(schema).terminals AS cur (terminal_id, merchant_id, bound_since, last_merchant_id, binding_version, unbound_at)
            SELECT substr(l.stream, strpos(l.stream, '-') + 1),
                   CASE WHEN l.type = 'TerminalBound' THEN l.merchant_id END,
                   CASE WHEN l.type = 'TerminalBound' THEN s.at END,
                   l.merchant_id, l.version,
                   CASE WHEN l.type = 'TerminalUnbound' THEN l.at END
            FROM last_change l LEFT JOIN since s ON s.stream = l.stream
            ON CONFLICT (terminal_id) DO UPDATE SET
                merchant_id = excluded.merchant_id, bound_since = excluded.bound_since,
                last_merchant_id = excluded.last_merchant_id, binding_version = excluded.binding_version,
                unbound_at = excluded.unbound_at
            """,
            [streams.sorted()])
    }

    private func updateVisits(_ events: [ProjectedEvent], on connection: Connection) throws {
        guard !events.isEmpty else { return }
        let latest = newest(events) { $0.entityId }
        try connection.query(
            """
            INSERT INTO \(schema).visits AS cur (visit_id, merchant_id, visitor_id, note, position, event_id, captured_at,
                                                 lat, lon, accuracy, horizontal_accuracy, provider, region)
            SELECT id, m, v, n, p, e, c::timestamptz, lat, lon, acc, ha, prov, reg
            FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::uuid[], $7::text[],
                        $8::float8[], $9::float8[], $10::text[], $11::float8[], $12::text[], $13::text[])
                AS b (id, m, v, n, p, e, c, lat, lon, acc, ha, prov, reg)
            ON CONFLICT (visit_id) DO UPDATE SET
                merchant_id = excluded.merchant_id, visitor_id = excluded.visitor_id, note = excluded.note,
                position = excluded.position, event_id = excluded.event_id, captured_at = excluded.captured_at,
                lat = excluded.lat, lon = excluded.lon, accuracy = excluded.accuracy,
                horizontal_accuracy = excluded.horizontal_accuracy, provider = excluded.provider, region = excluded.region
            WHERE (excluded.captured_at, excluded.event_id) > (cur.captured_at, cur.event_id)
            """,
            [latest.map(\.entityId), latest.map { $0.merchantId ?? "" }, latest.map { $0.visitorId ?? "" },
             latest.map(\.note)] + FixColumns(latest).parameters)
    }
}
