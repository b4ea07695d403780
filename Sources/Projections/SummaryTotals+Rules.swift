import Foundation

/// The rules of the summary tables: which provider an event counts under, the bucket of an accuracy, which fix is
/// the newest and which fixes count as an entity's newest.
extension SummaryTotals {
    /// The provider an event counts under in `daily_events`: its fix's or its failure's, else none.
    static func dailyProvider(_ event: ProjectedEvent) -> String {
        event.fix?.provider.rawValue ?? event.failure?.provider ?? ""
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

    /// Newest by (captured_at, event_id), as ``CurrentState`` reads them; a uuid's order in PostgreSQL is that of
    /// its lower-case text, which is that of its bytes.
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
}
