import CivilCalendar
import Foundation
import LocationEvents

/// What a report is asked for: each filter nil for none, the report's default where it has one.
public struct ReportFilters: Sendable, Equatable {
    /// Captured at or after this instant.
    public var from: Date?
    /// Captured before this instant; for `stale`, the instant the days are counted back from (default now).
    public var to: Date?
    public var app: String?
    public var provider: String?
    /// Metres, for `terminal-drift` and `visit-distance`.
    public var threshold: Double?
    /// For `stale`.
    public var days: Int?

    public init(
        from: Date? = nil, to: Date? = nil, app: String? = nil, provider: String? = nil, threshold: Double? = nil,
        days: Int? = nil
    ) {
        (self.from, self.to, self.app, self.provider, self.threshold, self.days) = (from, to, app, provider, threshold, days)
    }

    /// An instant as `--from` and `--to` take it: RFC 3339 (`2026-11-01T08:00:00+08:00`), or a date
    /// (`2026-11-01`), which is its midnight in UTC. nil when the text is neither.
    public static func instant(_ text: String) -> Date? {
        if let timestamp = Timestamp(rfc3339: text) { return timestamp.date }
        guard let date = CivilDate(text) else { return nil }
        return Date(timeIntervalSince1970: Double(date.daysSince1970) * 86_400)
    }

    /// Checks that `report` takes every filter given and that each is in range.
    /// - Throws: ``QueryError/filter(name:message:)`` naming the filter.
    public func check(for report: Report) throws {
        if threshold != nil, report.defaultThreshold == nil {
            throw QueryError.filter(name: "threshold", message: "only terminal-drift and visit-distance take a threshold")
        }
        if let threshold, !(threshold.isFinite && threshold >= 0) {
            throw QueryError.filter(name: "threshold", message: "must be metres, 0 or more")
        }
        if days != nil, report.defaultDays == nil {
            throw QueryError.filter(name: "days", message: "only stale takes days")
        }
        if let days, days < 0 { throw QueryError.filter(name: "days", message: "must be 0 or more") }
        if from != nil, !report.takesFrom {
            throw QueryError.filter(name: "from", message: "stale counts days back from one instant: give --to")
        }
        if let from, let to, from >= to, report.takesFrom {
            throw QueryError.filter(name: "to", message: "must be after from")
        }
    }
}

