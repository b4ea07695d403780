import CivilCalendar
import Foundation
import LocationEvents
import Postgres

/// The summary tables the reports read, counted for a set of events: each merchant's and terminal's newest fix
/// (`latest_fixes`), the events appended per day (`daily_events`), the fixes per day of capture (`fix_days`) and per
/// bucket of horizontal accuracy (`accuracy_buckets`, by ``accuracyBucket(_:)``; the values in a bucket are read from
/// the fix history's index `fixes_accuracy`). The projector adds a batch's totals to the tables with an upsert per
/// table (``upsert(into:on:)``); replay adds every chunk's events into one of these, merges the workers' and writes
/// each table once into its fresh, empty copy (``write(into:on:)``). Either way the tables come out the same whatever
/// the batches and their order.
///
/// Keys tell their texts apart by their bytes, as PostgreSQL does: two strings Swift holds equal (a composed and a
/// decomposed é) are two keys, as they are two rows.
struct SummaryTotals {
    /// A text compared and hashed as its UTF-8 bytes.
    private struct Text: Hashable {
        let value: String

        init(_ value: String) { self.value = value }

        /// Compared as one block of bytes: element by element through the UTF-8 view took most of the time of
        /// counting a batch's totals. Read in place, not through a copy of the string, which would count a reference
        /// to it and then give it back.
        static func == (a: Text, b: Text) -> Bool {
            a.withBytes { a in b.withBytes { b in a.count == b.count && (a.isEmpty || memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0) } }
        }

        func hash(into hasher: inout Hasher) {
            withBytes { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        }

        private func withBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
            if let result = value.utf8.withContiguousStorageIfAvailable(body) { return result }
            var copy = value
            return copy.withUTF8(body)
        }
    }

    /// `day`: days since 1970-01-01 (``dayText(_:)``).
    private struct DailyKey: Hashable {
        let day: Int
        let type, app, provider: Text
    }

    /// The keys' values of the vocabulary are hashed by their cases (``Hasher/combine(case:)``).
    private struct FixDayKey: Hashable {
        let day: Int
        let provider: Provider
        let app: Text
        let accuracy: AccuracyClass
        let authorization: AccuracyAuthorization
        let claimMismatch: Bool

        func hash(into hasher: inout Hasher) {
            hasher.combine(day)
            hasher.combine(case: provider)
            hasher.combine(app)
            hasher.combine(case: accuracy)
            hasher.combine(case: authorization)
            hasher.combine(claimMismatch)
        }
    }

    private struct BucketKey: Hashable {
        let provider: Provider
        let platform: Platform?
        let app: Text
        let bucket: Int64

        func hash(into hasher: inout Hasher) {
            hasher.combine(case: provider)
            hasher.combine(case: platform)
            hasher.combine(app)
            hasher.combine(bucket)
        }
    }

    private struct EntityKey: Hashable {
        let kind, id: Text
    }

    private var daily: [DailyKey: Int64] = [:]
    private var fixDays: [FixDayKey: Int64] = [:]
    private var buckets: [BucketKey: (fixes: Int64, mismatches: Int64)] = [:]
    /// Per entity, its newest fix and its newest precise one: the rows of `latest_fixes` of quality `any` and
    /// `precise`.
    private var latest: [EntityKey: Kept] = [:]

    init() {}

    /// Totals about to count one batch of `events` events: room at once, rather than the table grown and every key
    /// hashed again at each doubling, for as many entities' newest fixes and as many fixes per day: a day of capture
    /// with the fix's provider, app, accuracy, authorization and claim is nearly one key a fix when the fixes were
    /// captured over months.
    init(batchOf events: Int) {
        latest.reserveCapacity(events)
        fixDays.reserveCapacity(events)
    }

    /// What `latest_fixes` keeps of an entity's newest fix, without the rest of its event.
    private struct Newest {
        let capturedAt: Date
        let eventId: UUID
        let position: Int64
        let fix: ProjectedEvent.Fix
        let app: String?

        func isNewer(than other: Newest) -> Bool {
            SummaryTotals.isNewer((capturedAt, eventId), than: (other.capturedAt, other.eventId))
        }
    }

    /// An entity's newest fix of any quality, and its newest precise one when it has one; neither before its first.
    /// Empty to start with, so that a dictionary's default for an entity not counted yet captures nothing: a default
    /// made from the fix was a closure holding it, allocated for every fix.
    private struct Kept {
        var any: Newest?
        var precise: Newest?

        /// Keeps `newest` where it is newer than what is kept; as the newest precise fix only when it is `precise`.
        mutating func keep(_ newest: Newest, precise: Bool) {
            Self.keep(newest, in: &any)
            if precise { Self.keep(newest, in: &self.precise) }
        }

        mutating func keep(_ other: Kept) {
            if let any = other.any { keep(any, precise: false) }
            if let precise = other.precise { keep(precise, precise: true) }
        }

        private static func keep(_ newest: Newest, in kept: inout Newest?) {
            if let current = kept, !newest.isNewer(than: current) { return }
            kept = newest
        }
    }

    /// The rows of `latest_fixes`: per entity, its newest fix (quality `any`) and its newest precise one (`precise`).
    private var latestRows: [(key: EntityKey, quality: String, newest: Newest)] {
        var rows: [(key: EntityKey, quality: String, newest: Newest)] = []
        rows.reserveCapacity(latest.count * 2)
        for (key, kept) in latest {
            if let any = kept.any { rows.append((key, "any", any)) }
            if let precise = kept.precise { rows.append((key, "precise", precise)) }
        }
        return rows
    }

    mutating func add(_ events: [ProjectedEvent]) {
        for event in events {
            if let day = event.receivedDay {
                let key = DailyKey(
                    day: day, type: Text(event.type), app: Text(event.app ?? ""),
                    provider: Text(Self.dailyProvider(event)))
                daily[key, default: 0] += 1
            }
            guard let fix = event.fix else { continue }
            let app = Text(event.app ?? "")
            if let day = event.capturedDay {
                let key = FixDayKey(
                    day: day, provider: fix.provider, app: app, accuracy: fix.accuracy,
                    authorization: fix.authorization, claimMismatch: fix.claimMismatch)
                fixDays[key, default: 0] += 1
                let bucket = BucketKey(
                    provider: fix.provider, platform: event.platform, app: app,
                    bucket: Self.accuracyBucket(fix.horizontalAccuracy))
                Self.count(fix, in: &buckets[bucket, default: (0, 0)])
            }
            guard Self.keepsLatestFix(of: event), let capturedAt = event.capturedAt else { continue }
            let newest = Newest(capturedAt: capturedAt, eventId: event.eventId, position: event.position, fix: fix, app: event.app)
            let precise = fix.accuracy == .precise
            // One lookup of the entity.
            let entity = EntityKey(kind: Text(event.entityKind), id: Text(event.entityId))
            latest[entity, default: Kept()].keep(newest, precise: precise)
        }
    }

    /// One lookup of a bucket for its two counts.
    private static func count(_ fix: ProjectedEvent.Fix, in counts: inout (fixes: Int64, mismatches: Int64)) {
        counts.fixes += 1
        if fix.claimMismatch { counts.mismatches += 1 }
    }

    /// A day's `yyyy-MM-dd`, as the tables' `day` columns read it.
    private static func dayText(_ daysSince1970: Int) -> String {
        CivilDate(daysSince1970: daysSince1970).text
    }

    /// Adds another's rows to these.
    mutating func merge(_ other: SummaryTotals) {
        daily.merge(other.daily, uniquingKeysWith: +)
        fixDays.merge(other.fixDays, uniquingKeysWith: +)
        buckets.merge(other.buckets) { ($0.fixes + $1.fixes, $0.mismatches + $1.mismatches) }
        for (key, kept) in other.latest { latest[key, default: Kept()].keep(kept) }
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
        try copy("\(schema).daily_events (day, event_type, app, provider, events)", daily, on: connection) {
            row, entry in
            let (key, count) = (entry.key, entry.value)
            row.text(Self.dayText(key.day))
            row.text(text(key.type))
            row.text(text(key.app))
            row.text(text(key.provider))
            row.integer(count)
        }
        try copy(
            "\(schema).fix_days (day, provider, app, accuracy, accuracy_authorization, claim_mismatch, fixes)", fixDays,
            on: connection
        ) { row, entry in
            let (key, count) = (entry.key, entry.value)
            row.text(Self.dayText(key.day))
            row.text(key.provider.rawValue)
            row.text(text(key.app))
            row.text(key.accuracy.rawValue)
            row.text(key.authorization.rawValue)
            row.bool(key.claimMismatch)
            row.integer(count)
        }
        try copy("\(schema).accuracy_buckets (provider, platform, app, bucket, fixes, mismatches)", buckets, on: connection) {
            row, entry in
            let (key, counts) = (entry.key, entry.value)
            row.text(key.provider.rawValue)
            row.text(Platform.text(key.platform))
            row.text(text(key.app))
            row.integer(key.bucket)
            row.integer(counts.fixes)
            row.integer(counts.mismatches)
        }
        try copy(
            """
            \(schema).latest_fixes (entity_kind, entity_id, quality, position, event_id, captured_at, lat, lon,
                horizontal_accuracy, accuracy, provider, region, near_boundary, app, claim_mismatch)
            """, latestRows, on: connection
        ) { row, latest in
            let (key, newest, fix) = (latest.key, latest.newest, latest.newest.fix)
            row.text(key.kind.value)
            row.text(key.id.value)
            row.text(latest.quality)
            row.integer(newest.position)
            row.uuid(newest.eventId)
            row.timestamp(newest.capturedAt)
            row.double(fix.lat)
            row.double(fix.lon)
            row.double(fix.horizontalAccuracy)
            row.text(fix.accuracy.rawValue)
            row.text(fix.provider.rawValue)
            row.text(fix.region.rawValue)
            row.bool(fix.nearBoundary)
            row.text(newest.app)
            row.bool(fix.claimMismatch)
        }
    }

    /// Adds the rows to the summary tables of `schema`, which may hold their keys: an upsert per table that adds
    /// the counts, and replaces a newest fix only by a newer one. Each sends its rows in the order of their keys,
    /// sorted by the server, so that two writers would wait for each other rather than deadlock.
    func upsert(into schema: String, on connection: Connection) throws {
        if !daily.isEmpty {
            let rows = Array(daily)
            try connection.query(
                """
                INSERT INTO \(schema).daily_events AS d (day, event_type, app, provider, events)
                SELECT unnest($1::date[]), unnest($2::text[]), unnest($3::text[]), unnest($4::text[]), unnest($5::bigint[])
                ORDER BY 1, 2, 3, 4
                ON CONFLICT (day, event_type, app, provider) DO UPDATE SET events = d.events + excluded.events
                """,
                parameters: [
                    .binary(BinaryArray(days: rows.map(\.key.day))),
                    .binary(try BinaryArray(rows.map(\.key.type.value))),
                    .binary(try BinaryArray(rows.map(\.key.app.value))),
                    .binary(try BinaryArray(rows.map(\.key.provider.value))), .binary(BinaryArray(rows.map(\.value))),
                ])
        }
        if !fixDays.isEmpty {
            let rows = Array(fixDays)
            try connection.query(
                """
                INSERT INTO \(schema).fix_days AS d (day, provider, app, accuracy, accuracy_authorization, claim_mismatch, fixes)
                SELECT unnest($1::date[]), unnest($2::text[]), unnest($3::text[]), unnest($4::text[]), unnest($5::text[]),
                       unnest($6::boolean[]), unnest($7::bigint[])
                ORDER BY 1, 2, 3, 4, 5, 6
                ON CONFLICT (day, provider, app, accuracy, accuracy_authorization, claim_mismatch)
                DO UPDATE SET fixes = d.fixes + excluded.fixes
                """,
                parameters: [
                    .binary(BinaryArray(days: rows.map(\.key.day))),
                    .binary(try BinaryArray(rows.map(\.key.provider.rawValue))),
                    .binary(try BinaryArray(rows.map(\.key.app.value))),
                    .binary(try BinaryArray(rows.map(\.key.accuracy.rawValue))),
                    .binary(try BinaryArray(rows.map(\.key.authorization.rawValue))),
                    .binary(BinaryArray(rows.map(\.key.claimMismatch))), .binary(BinaryArray(rows.map(\.value))),
                ])
        }
        if !buckets.isEmpty {
            let rows = Array(buckets)
            try connection.query(
                """
                INSERT INTO \(schema).accuracy_buckets AS b (provider, platform, app, bucket, fixes, mismatches)
                SELECT unnest($1::text[]), unnest($2::text[]), unnest($3::text[]), unnest($4::bigint[]),
                       unnest($5::bigint[]), unnest($6::bigint[])
                ORDER BY 1, 2, 3, 4
                ON CONFLICT (provider, platform, app, bucket)
                DO UPDATE SET fixes = b.fixes + excluded.fixes, mismatches = b.mismatches + excluded.mismatches
                """,
                parameters: [
                    .binary(try BinaryArray(rows.map(\.key.provider.rawValue))),
                    .binary(try BinaryArray(rows.map { Platform.text($0.key.platform) })),
                    .binary(try BinaryArray(rows.map(\.key.app.value))), .binary(BinaryArray(rows.map(\.key.bucket))),
                    .binary(BinaryArray(rows.map(\.value.fixes))), .binary(BinaryArray(rows.map(\.value.mismatches))),
                ])
        }
        if !latest.isEmpty {
            let rows = latestRows
            let newest = rows.map(\.newest)
            let fixes = newest.map(\.fix)
            try connection.query(
                """
                INSERT INTO \(schema).latest_fixes AS l (
                    entity_kind, entity_id, quality, position, event_id, captured_at, lat, lon, horizontal_accuracy,
                    accuracy, provider, region, near_boundary, app, claim_mismatch)
                SELECT unnest($1::text[]), unnest($2::text[]), unnest($3::text[]), unnest($4::bigint[]), unnest($5::uuid[]),
                       unnest($6::timestamptz[]), unnest($7::float8[]), unnest($8::float8[]), unnest($9::float8[]),
                       unnest($10::text[]), unnest($11::text[]), unnest($12::text[]), unnest($13::boolean[]),
                       unnest($14::text[]), unnest($15::boolean[])
                ORDER BY 1, 2, 3
                ON CONFLICT (entity_kind, entity_id, quality) DO UPDATE SET
                    position = excluded.position, event_id = excluded.event_id, captured_at = excluded.captured_at,
                    lat = excluded.lat, lon = excluded.lon, horizontal_accuracy = excluded.horizontal_accuracy,
                    accuracy = excluded.accuracy, provider = excluded.provider, region = excluded.region,
                    near_boundary = excluded.near_boundary, app = excluded.app, claim_mismatch = excluded.claim_mismatch
                WHERE (excluded.captured_at, excluded.event_id) > (l.captured_at, l.event_id)
                """,
                parameters: [
                    .binary(try BinaryArray(rows.map(\.key.kind.value))), .binary(try BinaryArray(rows.map(\.key.id.value))),
                    .binary(try BinaryArray(rows.map(\.quality))),
                    .binary(BinaryArray(newest.map(\.position))), .binary(BinaryArray(newest.map(\.eventId))),
                    .binary(BinaryArray(timestamps: newest.map(\.capturedAt))),
                    .binary(BinaryArray(fixes.map(\.lat))), .binary(BinaryArray(fixes.map(\.lon))),
                    .binary(BinaryArray(fixes.map(\.horizontalAccuracy))), .binary(try BinaryArray(fixes.map(\.accuracy.rawValue))),
                    .binary(try BinaryArray(fixes.map(\.provider.rawValue))), .binary(try BinaryArray(fixes.map(\.region.rawValue))),
                    .binary(BinaryArray(fixes.map(\.nearBoundary))), .binary(try BinaryArray(newest.map(\.app))),
                    .binary(BinaryArray(fixes.map(\.claimMismatch))),
                ])
        }
    }

    private func copy<Rows: Collection>(
        _ table: String, _ rows: Rows, on connection: Connection, row write: (inout CopyRow, Rows.Element) -> Void
    ) throws {
        guard !rows.isEmpty else { return }
        // In text, where a day's `YYYY-MM-DD` is read as a date: a few rows per key, not per event.
        try connection.copyFrom("COPY \(table) FROM STDIN") { writer in
            for element in rows {
                try writer.row { row in write(&row, element) }
            }
        }
    }
}
