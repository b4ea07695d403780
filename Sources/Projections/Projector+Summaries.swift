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
    /// The upserts that add the events' counts and newest fixes to the summary tables, built to be sent later: an
    /// append builds them before it takes the append lock, and sends them under it.
    public func summaryUpserts(of events: [ProjectedEvent]) throws -> SummaryUpserts {
        // Every upsert goes in one order of its keys that all writers share (``SharedOrder``), so that replay's
        // chunks, on connections of their own, wait for each other rather than deadlock. Each reads its rows from
        // arrays, one per column, unnested side by side in its select list: they give their values in step, row by
        // row, where `FROM unnest(a, b, ...)` first copies every array's values into a store of its own.
        var upserts = SummaryUpserts()
        try addDailyCounts(of: events, into: &upserts)
        try addFixCounts(of: events, into: &upserts)
        try keepLatestFixes(of: events, into: &upserts)
        return upserts
    }

    /// Rows grouped by keys of text fields, the groups in the one order of their keys that every writer shares. Each
    /// key is written once into one buffer, each field after its length (so that no two keys share their bytes), and
    /// keys are sorted and told apart as those bytes, as PostgreSQL tells text apart: no string and no hash per
    /// key, which a dictionary of keys and a sort of strings built from them took (a tenth of an append).
    struct SharedOrder {
        private var bytes: [UInt8] = []
        /// Per key: where its bytes start (they end where the next key's start), and the row it stands for.
        private var starts: [(start: Int, row: Int)] = []

        init(capacity: Int) {
            bytes.reserveCapacity(capacity * 64)
            starts.reserveCapacity(capacity)
        }

        /// Starts the key of `row`; its fields follow with ``field(_:)``.
        mutating func key(row: Int) {
            starts.append((bytes.count, row))
        }

        mutating func field(_ text: String) {
            // Its bytes in place: appending `utf8` goes through the general path for sequences. Read through the
            // UTF-8 view's storage, as ``JSONObject`` reads names: `withUTF8` on a copy of the string cost more.
            if text.utf8.withContiguousStorageIfAvailable({ field(bytes: $0) }) != nil { return }
            var text = text
            text.withUTF8 { field(bytes: $0) }
        }

        /// An integer's field: its eight bytes, most significant first, rather than a string made of its digits.
        mutating func field(_ value: Int64) {
            withUnsafeBytes(of: value.bigEndian) { field(bytes: $0.assumingMemoryBound(to: UInt8.self)) }
        }

        private mutating func field(bytes field: UnsafeBufferPointer<UInt8>) {
            // Its length, most significant byte first, a byte at a time: the loop over the shifts cost more.
            let count = UInt32(field.count)
            bytes.append(UInt8(truncatingIfNeeded: count >> 24))
            bytes.append(UInt8(truncatingIfNeeded: count >> 16))
            bytes.append(UInt8(truncatingIfNeeded: count >> 8))
            bytes.append(UInt8(truncatingIfNeeded: count))
            bytes.append(contentsOf: field)
        }

        /// The rows in the order of their keys, those of equal keys in the order given, in runs of equal keys.
        func runs() -> [ArraySlice<Int>] {
            var keys = starts.indices.map { index in
                (start: starts[index].start, end: index + 1 < starts.count ? starts[index + 1].start : bytes.count,
                 row: starts[index].row)
            }
            var runs: [Range<Int>] = []
            let rows = bytes.withUnsafeBufferPointer { bytes -> [Int] in
                let base = bytes.baseAddress
                func compare(_ a: (start: Int, end: Int, row: Int), _ b: (start: Int, end: Int, row: Int)) -> Int {
                    let (left, right) = (a.end - a.start, b.end - b.start)
                    if let base, Swift.min(left, right) > 0 {
                        let order = memcmp(base + a.start, base + b.start, Swift.min(left, right))
                        if order != 0 { return Int(order) }
                    }
                    return left - right
                }
                keys.sort { a, b in
                    let order = compare(a, b)
                    return order != 0 ? order < 0 : a.row < b.row
                }
                var start = 0
                for index in keys.indices.dropFirst() where compare(keys[index - 1], keys[index]) != 0 {
                    runs.append(start..<index)
                    start = index
                }
                if !keys.isEmpty { runs.append(start..<keys.count) }
                return keys.map(\.row)
            }
            return runs.map { rows[$0] }
        }
    }

    private func addDailyCounts(of events: [ProjectedEvent], into upserts: inout SummaryUpserts) throws {
        var order = SharedOrder(capacity: events.count)
        for index in events.indices {
            guard let day = events[index].receivedDay else { continue }
            order.key(row: index)
            order.field(day)
            order.field(events[index].type)
            order.field(events[index].app ?? "")
            order.field(Self.dailyProvider(events[index]))
        }
        let runs = order.runs()
        guard !runs.isEmpty else { return }
        let firsts = runs.map { events[$0.first!] }
        upserts.statements.append((
            """
            INSERT INTO \(schema).daily_events AS d (day, event_type, app, provider, events)
            SELECT unnest($1::date[]), unnest($2::text[]), unnest($3::text[]), unnest($4::text[]), unnest($5::bigint[])
            ON CONFLICT (day, event_type, app, provider) DO UPDATE SET events = d.events + excluded.events
            """,
            parameters: [
                .text(firsts.map { $0.receivedDay! }), .binary(try BinaryArray(firsts.map(\.type))),
                .binary(try BinaryArray(firsts.map { $0.app ?? "" })), .binary(try BinaryArray(firsts.map(Self.dailyProvider))),
                .binary(BinaryArray(runs.map { Int64($0.count) })),
            ]))
    }

    /// The provider an event counts under in `daily_events`: its fix's or its failure's, else none.
    static func dailyProvider(_ event: ProjectedEvent) -> String {
        event.fix?.provider ?? event.failure?.provider ?? ""
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
    private func addFixCounts(of events: [ProjectedEvent], into upserts: inout SummaryUpserts) throws {
        var days = SharedOrder(capacity: events.count)
        var buckets = SharedOrder(capacity: events.count)
        // By index, as in keepLatestFixes: `for event in events` copies each event, strings and all.
        for index in events.indices {
            guard let fix = events[index].fix, let day = events[index].capturedDay else { continue }
            days.key(row: index)
            days.field(day)
            days.field(fix.provider)
            days.field(events[index].app ?? "")
            days.field(fix.accuracy)
            days.field(fix.authorization)
            days.field(fix.claimMismatch ? "t" : "f")
            buckets.key(row: index)
            buckets.field(fix.provider)
            buckets.field(Platform.text(events[index].platform))
            buckets.field(events[index].app ?? "")
            buckets.field(Self.accuracyBucket(fix.horizontalAccuracy))
        }
        let runs = days.runs()
        guard !runs.isEmpty else { return }
        let fixes = runs.map { events[$0.first!].fix! }
        upserts.statements.append((
            """
            INSERT INTO \(schema).fix_days AS d (day, provider, app, accuracy, accuracy_authorization, claim_mismatch, fixes)
            SELECT unnest($1::date[]), unnest($2::text[]), unnest($3::text[]), unnest($4::text[]), unnest($5::text[]),
                   unnest($6::boolean[]), unnest($7::bigint[])
            ON CONFLICT (day, provider, app, accuracy, accuracy_authorization, claim_mismatch)
            DO UPDATE SET fixes = d.fixes + excluded.fixes
            """,
            parameters: [
                .text(runs.map { events[$0.first!].capturedDay! }), .binary(try BinaryArray(fixes.map(\.provider))),
                .binary(try BinaryArray(runs.map { events[$0.first!].app ?? "" })),
                .binary(try BinaryArray(fixes.map(\.accuracy))), .binary(try BinaryArray(fixes.map(\.authorization))),
                .binary(BinaryArray(fixes.map(\.claimMismatch))), .binary(BinaryArray(runs.map { Int64($0.count) })),
            ]))
        // A row per bucket; the rows go in key order, sorted there, as every writer sends them.
        let bucketRuns = buckets.runs()
        let bucketed = bucketRuns.map { events[$0.first!] }
        upserts.statements.append((
            """
            INSERT INTO \(schema).accuracy_buckets AS b (provider, platform, app, bucket, fixes, mismatches)
            SELECT unnest($1::text[]), unnest($2::text[]), unnest($3::text[]), unnest($4::bigint[]), unnest($5::bigint[]),
                   unnest($6::bigint[])
            ORDER BY 1, 2, 3, 4
            ON CONFLICT (provider, platform, app, bucket)
            DO UPDATE SET fixes = b.fixes + excluded.fixes, mismatches = b.mismatches + excluded.mismatches
            """,
            parameters: [
                .binary(try BinaryArray(bucketed.map { $0.fix!.provider })),
                .binary(try BinaryArray(bucketed.map { Platform.text($0.platform) })),
                .binary(try BinaryArray(bucketed.map { $0.app ?? "" })),
                .binary(BinaryArray(bucketed.map { Self.accuracyBucket($0.fix!.horizontalAccuracy) })),
                .binary(BinaryArray(bucketRuns.map { Int64($0.count) })),
                .binary(BinaryArray(bucketRuns.map { run in Int64(run.count(where: { events[$0].fix!.claimMismatch })) })),
            ]))
    }

    /// Newest by (captured_at, event_id), as ``CurrentState`` reads them; a uuid's order in PostgreSQL is that of
    /// its lower-case text, which is that of its bytes.
    static func isNewer(_ a: ProjectedEvent, than b: ProjectedEvent) -> Bool {
        guard let at = a.capturedAt, let bt = b.capturedAt else { return false }
        return isNewer((at, a.eventId), than: (bt, b.eventId))
    }

    /// The same order, of a fix's capture time and its event's id.
    static func isNewer(_ a: (capturedAt: Date, eventId: UUID), than b: (capturedAt: Date, eventId: UUID)) -> Bool {
        if a.capturedAt != b.capturedAt { return a.capturedAt > b.capturedAt }
        return withUnsafeBytes(of: a.eventId.uuid) { a in
            withUnsafeBytes(of: b.eventId.uuid) { b in b.lexicographicallyPrecedes(a) }
        }
    }

    /// Whether the event's fix counts in `latest_fixes`: a terminal's fix, or a merchant's address fix, with a capture time.
    static func keepsLatestFix(of event: ProjectedEvent) -> Bool {
        guard event.fix != nil, event.capturedAt != nil else { return false }
        switch event.entityKind {
        case "terminal": return true
        case "merchant": return event.type == "MerchantAddressFixed"
        default: return false
        }
    }

    private func keepLatestFixes(of events: [ProjectedEvent], into upserts: inout SummaryUpserts) throws {
        // Per event with a fix, its entity's key for any fix, and for a precise one its key for precise fixes too:
        // row 2i is event i's key for any fix, row 2i + 1 its key for precise fixes.
        var order = SharedOrder(capacity: events.count * 2)
        for index in events.indices {
            guard Self.keepsLatestFix(of: events[index]), let accuracy = events[index].fix?.accuracy else { continue }
            func key(row: Int, quality: String) {
                order.key(row: row)
                order.field(events[index].entityKind)
                order.field(events[index].entityId)
                order.field(quality)
            }
            key(row: 2 * index, quality: "any")
            if accuracy == "precise" { key(row: 2 * index + 1, quality: "precise") }
        }
        let runs = order.runs()
        guard !runs.isEmpty else { return }
        // The newest event of each entity and quality, by its row.
        let newest = runs.map { run in
            run.dropFirst().reduce(run.first!) { kept, row in Self.isNewer(events[row / 2], than: events[kept / 2]) ? row : kept }
        }
        // Indices into `events`, not copies of them: a copy retains and releases each of an event's strings.
        let latest = newest.map { $0 / 2 }
        let qualities = newest.map { $0 % 2 == 1 ? "precise" : "any" }
        let fixes = latest.map { events[$0].fix! }
        upserts.statements.append((
            """
            INSERT INTO \(schema).latest_fixes AS l (
                entity_kind, entity_id, quality, position, event_id, captured_at, lat, lon, horizontal_accuracy,
                accuracy, provider, region, near_boundary, app, claim_mismatch)
            SELECT unnest($1::text[]), unnest($2::text[]), unnest($3::text[]), unnest($4::bigint[]), unnest($5::uuid[]),
                   unnest($6::timestamptz[]), unnest($7::float8[]), unnest($8::float8[]), unnest($9::float8[]),
                   unnest($10::text[]), unnest($11::text[]), unnest($12::text[]), unnest($13::boolean[]), unnest($14::text[]),
                   unnest($15::boolean[])
            ON CONFLICT (entity_kind, entity_id, quality) DO UPDATE SET
                position = excluded.position, event_id = excluded.event_id, captured_at = excluded.captured_at,
                lat = excluded.lat, lon = excluded.lon, horizontal_accuracy = excluded.horizontal_accuracy,
                accuracy = excluded.accuracy, provider = excluded.provider, region = excluded.region,
                near_boundary = excluded.near_boundary, app = excluded.app, claim_mismatch = excluded.claim_mismatch
            WHERE (excluded.captured_at, excluded.event_id) > (l.captured_at, l.event_id)
            """,
            parameters: [
                .binary(try BinaryArray(latest.map { events[$0].entityKind })),
                .binary(try BinaryArray(latest.map { events[$0].entityId })), .binary(try BinaryArray(qualities)), .binary(BinaryArray(latest.map { events[$0].position })),
                .binary(BinaryArray(latest.map { events[$0].eventId })), .binary(BinaryArray(timestamps: latest.map { events[$0].capturedAt! })),
                .binary(BinaryArray(fixes.map(\.lat))), .binary(BinaryArray(fixes.map(\.lon))),
                .binary(BinaryArray(fixes.map(\.horizontalAccuracy))), .binary(try BinaryArray(fixes.map(\.accuracy))),
                .binary(try BinaryArray(fixes.map(\.provider))), .binary(try BinaryArray(fixes.map(\.region))),
                .binary(BinaryArray(fixes.map(\.nearBoundary))), .binary(try BinaryArray(latest.map { events[$0].app })),
                .binary(BinaryArray(fixes.map(\.claimMismatch))),
            ]))
    }
}

/// Upserts into the summary tables, built and not sent yet (``Projector/summaryUpserts(of:)``).
public struct SummaryUpserts {
    fileprivate var statements: [(sql: String, parameters: [QueryParameter])] = []

    /// Sends them, in the order built.
    public func write(on connection: Connection) throws {
        for statement in statements { try connection.query(statement.sql, parameters: statement.parameters) }
    }
}
