import Foundation
import LocationEvents
import Postgres

/// The summary tables' rows for a set of events, kept in memory: counts added per key, and each entity's newest fix
/// and newest precise fix. The same rules as ``Projector/summaryUpserts(of:)``, which the live projector sends batch by
/// batch; replay adds every chunk's events into one of these instead, merges the workers' and writes each table once
/// into its fresh, empty copy, so that no upsert runs and no two chunks wait for each other's rows.
///
/// Keys tell their texts apart by their bytes, as PostgreSQL does: two strings Swift holds equal (a composed and a
/// decomposed é) are two keys, as they are two rows.
struct SummaryTotals {
    /// A text compared and hashed as its UTF-8 bytes.
    private struct Text: Hashable {
        let value: String

        init(_ value: String) { self.value = value }

        static func == (a: Text, b: Text) -> Bool { a.value.utf8.elementsEqual(b.value.utf8) }

        func hash(into hasher: inout Hasher) {
            var value = value
            value.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        }
    }

    private struct DailyKey: Hashable {
        let day, type, app, provider: Text
    }

    private struct FixDayKey: Hashable {
        let day, provider, app, accuracy, authorization: Text
        let claimMismatch: Bool
    }

    private struct BucketKey: Hashable {
        let provider, platform, app: Text
        let bucket: Int64
    }

    private struct LatestKey: Hashable {
        let kind, id: Text
        let precise: Bool
    }

    private var daily: [DailyKey: Int64] = [:]
    private var fixDays: [FixDayKey: Int64] = [:]
    private var buckets: [BucketKey: (fixes: Int64, mismatches: Int64)] = [:]
    private var latest: [LatestKey: Newest] = [:]

    /// What `latest_fixes` keeps of an entity's newest fix, without the rest of its event.
    private struct Newest {
        let capturedAt: Date
        let eventId: UUID
        let position: Int64
        let fix: ProjectedEvent.Fix
        let app: String?

        func isNewer(than other: Newest) -> Bool {
            Projector.isNewer((capturedAt, eventId), than: (other.capturedAt, other.eventId))
        }
    }

    mutating func add(_ events: [ProjectedEvent]) {
        for event in events {
            if let day = event.receivedDay {
                let key = DailyKey(
                    day: Text(day), type: Text(event.type), app: Text(event.app ?? ""),
                    provider: Text(Projector.dailyProvider(event)))
                daily[key, default: 0] += 1
            }
            guard let fix = event.fix else { continue }
            let app = Text(event.app ?? "")
            if let day = event.capturedDay {
                let key = FixDayKey(
                    day: Text(day), provider: Text(fix.provider), app: app, accuracy: Text(fix.accuracy),
                    authorization: Text(fix.authorization), claimMismatch: fix.claimMismatch)
                fixDays[key, default: 0] += 1
                let bucket = BucketKey(
                    provider: Text(fix.provider), platform: Text(Platform.text(event.platform)), app: app,
                    bucket: Projector.accuracyBucket(fix.horizontalAccuracy))
                let counted = buckets[bucket] ?? (0, 0)
                buckets[bucket] = (counted.fixes + 1, counted.mismatches + (fix.claimMismatch ? 1 : 0))
            }
            guard Projector.keepsLatestFix(of: event), let capturedAt = event.capturedAt else { continue }
            let newest = Newest(capturedAt: capturedAt, eventId: event.eventId, position: event.position, fix: fix, app: event.app)
            keepNewest(newest, as: LatestKey(kind: Text(event.entityKind), id: Text(event.entityId), precise: false))
            if fix.accuracy == "precise" {
                keepNewest(newest, as: LatestKey(kind: Text(event.entityKind), id: Text(event.entityId), precise: true))
            }
        }
    }

    private mutating func keepNewest(_ newest: Newest, as key: LatestKey) {
        if let kept = latest[key], !newest.isNewer(than: kept) { return }
        latest[key] = newest
    }

    /// Adds another's rows to these.
    mutating func merge(_ other: SummaryTotals) {
        daily.merge(other.daily, uniquingKeysWith: +)
        fixDays.merge(other.fixDays, uniquingKeysWith: +)
        buckets.merge(other.buckets) { ($0.fixes + $1.fixes, $0.mismatches + $1.mismatches) }
        for (key, newest) in other.latest { keepNewest(newest, as: key) }
    }

    /// The totals of several, merged into the one with the most rows.
    static func merged(_ all: [SummaryTotals]) -> SummaryTotals {
        var all = all.sorted { $0.latest.count + $0.fixDays.count > $1.latest.count + $1.fixDays.count }
        guard !all.isEmpty else { return SummaryTotals() }
        var total = all.removeFirst()
        for other in all { total.merge(other) }
        return total
    }

    /// Writes the rows into the summary tables of `schema`, which must hold none of their keys: a COPY each.
    func write(into schema: String, on connection: Connection) throws {
        func text(_ text: Text) -> String { text.value }
        try copy("\(schema).daily_events (day, event_type, app, provider, events)", daily, on: connection) { row, key, count in
            row.text(text(key.day))
            row.text(text(key.type))
            row.text(text(key.app))
            row.text(text(key.provider))
            row.integer(count)
        }
        try copy(
            "\(schema).fix_days (day, provider, app, accuracy, accuracy_authorization, claim_mismatch, fixes)", fixDays,
            on: connection
        ) { row, key, count in
            row.text(text(key.day))
            row.text(text(key.provider))
            row.text(text(key.app))
            row.text(text(key.accuracy))
            row.text(text(key.authorization))
            row.bool(key.claimMismatch)
            row.integer(count)
        }
        try copy("\(schema).accuracy_buckets (provider, platform, app, bucket, fixes, mismatches)", buckets, on: connection) {
            row, key, counts in
            row.text(text(key.provider))
            row.text(text(key.platform))
            row.text(text(key.app))
            row.integer(key.bucket)
            row.integer(counts.fixes)
            row.integer(counts.mismatches)
        }
        try copy(
            """
            \(schema).latest_fixes (entity_kind, entity_id, quality, position, event_id, captured_at, lat, lon,
                horizontal_accuracy, accuracy, provider, region, near_boundary, app, claim_mismatch)
            """, latest, on: connection
        ) { row, key, newest in
            let fix = newest.fix
            row.text(key.kind.value)
            row.text(key.id.value)
            row.text(key.precise ? "precise" : "any")
            row.integer(newest.position)
            row.uuid(newest.eventId)
            row.timestamp(newest.capturedAt)
            row.double(fix.lat)
            row.double(fix.lon)
            row.double(fix.horizontalAccuracy)
            row.text(fix.accuracy)
            row.text(fix.provider)
            row.text(fix.region)
            row.bool(fix.nearBoundary)
            row.text(newest.app)
            row.bool(fix.claimMismatch)
        }
    }

    private func copy<Key, Value>(
        _ table: String, _ rows: [Key: Value], on connection: Connection, row write: (inout CopyRow, Key, Value) -> Void
    ) throws {
        guard !rows.isEmpty else { return }
        // In text, where a day's `YYYY-MM-DD` is read as a date: a few rows per key, not per event.
        try connection.copyFrom("COPY \(table) FROM STDIN") { writer in
            for (key, value) in rows {
                try writer.row { row in write(&row, key, value) }
            }
        }
    }
}
