import Foundation
import LocationEvents
import Postgres

/// The summary tables the reports read: each merchant's and terminal's newest fix (`latest_fixes`), the events
/// appended per day (`daily_events`), the fixes per day of capture (`fix_days`) and per bucket of horizontal accuracy
/// (`accuracy_buckets`, by ``accuracyBucket(_:)``; the values in a bucket are read from the fix history's index
/// `fixes_accuracy`). Written with
/// the history rows, in the same transaction, as upserts: a batch adds its counts and replaces a newest fix only by a
/// newer one, so that the tables come out the same whatever the batches and their order, in an append or in replay's
/// chunks.
extension Projector {
    /// The tables written by upserts: replay gives them their keys before the rows, not after.
    static let summaryTables: Set<String> = ["accuracy_buckets", "daily_events", "fix_days", "latest_fixes"]

    func summarise(_ events: [ProjectedEvent], on connection: Connection) throws {
        // Every upsert goes in one order of its keys that all writers share (``inSharedOrder(_:_:)``), so that replay's
        // chunks, on connections of their own, wait for each other rather than deadlock.
        try addDailyCounts(of: events, on: connection)
        try addFixCounts(of: events, on: connection)
        try keepLatestFixes(of: events, on: connection)
    }

    private struct DayKey: Hashable {
        let day, type, app, provider: String
    }

    /// The rows of `counts` in one order of their keys that every writer shares, found cheaply: each key is compared
    /// as one string built once from its `fields`, each field after its length so that no two keys share one, not
    /// field by field (which measured a tenth of the ingest's client time).
    private static func inSharedOrder<Key>(_ counts: [Key: Int64], _ fields: (Key) -> [String]) -> [(key: Key, value: Int64)] {
        var order: [UInt8] = []
        return counts.map { row in
            order.removeAll(keepingCapacity: true)
            for field in fields(row.key) {
                order.append(contentsOf: String(field.utf8.count).utf8)
                order.append(UInt8(ascii: ":"))
                order.append(contentsOf: field.utf8)
            }
            return (String(decoding: order, as: UTF8.self), row)
        }
        .sorted { $0.0 < $1.0 }
        .map(\.1)
    }

    private func addDailyCounts(of events: [ProjectedEvent], on connection: Connection) throws {
        var counts: [DayKey: Int64] = [:]
        for event in events {
            guard let day = event.receivedDay else { continue }
            let provider = event.fix?.provider ?? event.failure?.provider ?? ""
            counts[DayKey(day: day, type: event.type, app: event.app ?? "", provider: provider), default: 0] += 1
        }
        guard !counts.isEmpty else { return }
        let rows = Self.inSharedOrder(counts) { [$0.day, $0.type, $0.app, $0.provider] }
        _ = try connection.query(
            """
            INSERT INTO \(schema).daily_events AS d (day, event_type, app, provider, events)
            SELECT * FROM unnest($1::date[], $2::text[], $3::text[], $4::text[], $5::bigint[])
            ON CONFLICT (day, event_type, app, provider) DO UPDATE SET events = d.events + excluded.events
            """,
            parameters: [
                .text(rows.map(\.key.day)), .binary(try BinaryArray(rows.map(\.key.type))),
                .binary(try BinaryArray(rows.map(\.key.app))), .binary(try BinaryArray(rows.map(\.key.provider))),
                .binary(BinaryArray(rows.map(\.value))),
            ])
    }

    private struct FixDayKey: Hashable {
        let day, provider, app, accuracy, authorization: String
        let claimMismatch: Bool
    }

    private struct AccuracyKey: Hashable {
        let provider, platform, app: String
        let bucket: Int64
    }

    /// The bucket of `accuracy_buckets` a horizontal accuracy falls in: its whole metres kept to one significant digit,
    /// as the bucket's lower bound (7.5 -> 7, 37.4 -> 30, 123.9 -> 100, 4567 -> 4000), some 9 buckets a tenfold range.
    /// Accuracies are positive and bounded (``ValidationLimits``). Counted here rather than by the server, a batch sends
    /// a row per bucket instead of one per value: values are rarely shared, buckets always.
    static func accuracyBucket(_ metres: Double) -> Int64 {
        let whole = Int64(metres.rounded(.down))
        var unit: Int64 = 1
        while unit <= whole / 10 { unit *= 10 }
        return whole - whole % unit
    }

    /// `fix_days` and `accuracy_buckets`.
    private func addFixCounts(of events: [ProjectedEvent], on connection: Connection) throws {
        var days: [FixDayKey: Int64] = [:]
        var buckets: [AccuracyKey: (fixes: Int64, mismatches: Int64)] = [:]
        days.reserveCapacity(events.count)
        // By index, as in keepLatestFixes: `for event in events` copies each event, strings and all.
        for index in events.indices {
            guard let fix = events[index].fix, let day = events[index].capturedDay else { continue }
            let app = events[index].app ?? ""
            days[FixDayKey(day: day, provider: fix.provider, app: app, accuracy: fix.accuracy,
                           authorization: fix.authorization, claimMismatch: fix.claimMismatch), default: 0] += 1
            let key = AccuracyKey(
                provider: fix.provider, platform: Platform.text(events[index].platform), app: app,
                bucket: Self.accuracyBucket(fix.horizontalAccuracy))
            buckets[key, default: (0, 0)].fixes += 1
            buckets[key, default: (0, 0)].mismatches += fix.claimMismatch ? 1 : 0
        }
        guard !days.isEmpty else { return }
        let dayRows = Self.inSharedOrder(days) {
            [$0.day, $0.provider, $0.app, $0.accuracy, $0.authorization, $0.claimMismatch ? "t" : "f"]
        }
        _ = try connection.query(
            """
            INSERT INTO \(schema).fix_days AS d (day, provider, app, accuracy, accuracy_authorization, claim_mismatch, fixes)
            SELECT * FROM unnest($1::date[], $2::text[], $3::text[], $4::text[], $5::text[], $6::boolean[], $7::bigint[])
            ON CONFLICT (day, provider, app, accuracy, accuracy_authorization, claim_mismatch)
            DO UPDATE SET fixes = d.fixes + excluded.fixes
            """,
            parameters: [
                .text(dayRows.map(\.key.day)), .binary(try BinaryArray(dayRows.map(\.key.provider))),
                .binary(try BinaryArray(dayRows.map(\.key.app))),
                .binary(try BinaryArray(dayRows.map(\.key.accuracy))), .binary(try BinaryArray(dayRows.map(\.key.authorization))),
                .binary(BinaryArray(dayRows.map(\.key.claimMismatch))), .binary(BinaryArray(dayRows.map(\.value))),
            ])
        // The rows go in key order, sorted there, as every writer sends them.
        let bucketRows = Array(buckets)
        _ = try connection.query(
            """
            INSERT INTO \(schema).accuracy_buckets AS b (provider, platform, app, bucket, fixes, mismatches)
            SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::bigint[], $6::bigint[])
            ORDER BY 1, 2, 3, 4
            ON CONFLICT (provider, platform, app, bucket)
            DO UPDATE SET fixes = b.fixes + excluded.fixes, mismatches = b.mismatches + excluded.mismatches
            """,
            parameters: [
                .binary(try BinaryArray(bucketRows.map(\.key.provider))), .binary(try BinaryArray(bucketRows.map(\.key.platform))),
                .binary(try BinaryArray(bucketRows.map(\.key.app))), .binary(BinaryArray(bucketRows.map(\.key.bucket))),
                .binary(BinaryArray(bucketRows.map(\.value.fixes))), .binary(BinaryArray(bucketRows.map(\.value.mismatches))),
            ])
    }

    private struct EntityKey: Hashable, Comparable {
        let kind, id, quality: String

        static func < (a: EntityKey, b: EntityKey) -> Bool { (a.kind, a.id, a.quality) < (b.kind, b.id, b.quality) }
    }

    /// Newest by (captured_at, event_id), as ``CurrentState`` reads them; a uuid's order in PostgreSQL is that of
    /// its lower-case text, which is that of its bytes.
    private static func isNewer(_ a: ProjectedEvent, than b: ProjectedEvent) -> Bool {
        guard let at = a.capturedAt, let bt = b.capturedAt else { return false }
        if at != bt { return at > bt }
        return withUnsafeBytes(of: a.eventId.uuid) { a in
            withUnsafeBytes(of: b.eventId.uuid) { b in b.lexicographicallyPrecedes(a) }
        }
    }

    private func keepLatestFixes(of events: [ProjectedEvent], on connection: Connection) throws {
        // The index of the newest event of each entity and quality.
        var newest: [EntityKey: Int] = [:]
        for index in events.indices {
            guard let accuracy = events[index].fix?.accuracy, events[index].capturedAt != nil else { continue }
            switch events[index].entityKind {
            case "terminal": break
            case "merchant" where events[index].type == "MerchantAddressFixed": break
            default: continue
            }
            for quality in accuracy == "precise" ? ["any", "precise"] : ["any"] {
                let key = EntityKey(kind: events[index].entityKind, id: events[index].entityId, quality: quality)
                if let kept = newest[key], !Self.isNewer(events[index], than: events[kept]) { continue }
                newest[key] = index
            }
        }
        guard !newest.isEmpty else { return }
        let sorted = newest.sorted { $0.key < $1.key }
        let keys = sorted.map(\.key)
        // Indices into `events`, not copies of them: a copy retains and releases each of an event's strings.
        let latest = sorted.map(\.value)
        let fixes = latest.map { events[$0].fix! }
        _ = try connection.query(
            """
            INSERT INTO \(schema).latest_fixes AS l (
                entity_kind, entity_id, quality, position, event_id, captured_at, lat, lon, horizontal_accuracy,
                accuracy, provider, region, near_boundary, app)
            SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::uuid[], $6::timestamptz[],
                                 $7::float8[], $8::float8[], $9::float8[], $10::text[], $11::text[], $12::text[],
                                 $13::boolean[], $14::text[])
            ON CONFLICT (entity_kind, entity_id, quality) DO UPDATE SET
                position = excluded.position, event_id = excluded.event_id, captured_at = excluded.captured_at,
                lat = excluded.lat, lon = excluded.lon, horizontal_accuracy = excluded.horizontal_accuracy,
                accuracy = excluded.accuracy, provider = excluded.provider, region = excluded.region,
                near_boundary = excluded.near_boundary, app = excluded.app
            WHERE (excluded.captured_at, excluded.event_id) > (l.captured_at, l.event_id)
            """,
            parameters: [
                .binary(try BinaryArray(keys.map(\.kind))), .binary(try BinaryArray(keys.map(\.id))),
                .binary(try BinaryArray(keys.map(\.quality))), .binary(BinaryArray(latest.map { events[$0].position })),
                .binary(BinaryArray(latest.map { events[$0].eventId })), .binary(BinaryArray(timestamps: latest.map { events[$0].capturedAt! })),
                .binary(BinaryArray(fixes.map(\.lat))), .binary(BinaryArray(fixes.map(\.lon))),
                .binary(BinaryArray(fixes.map(\.horizontalAccuracy))), .binary(try BinaryArray(fixes.map(\.accuracy))),
                .binary(try BinaryArray(fixes.map(\.provider))), .binary(try BinaryArray(fixes.map(\.region))),
                .binary(BinaryArray(fixes.map(\.nearBoundary))), .binary(try BinaryArray(latest.map { events[$0].app })),
            ])
    }
}
