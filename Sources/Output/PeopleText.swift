import Foundation

/// Values as `show` writes them for people, one at a time, for a caller that lays them out itself (the web
/// console's pages): `(none)` when missing, metres to 0.1, degrees to 7 places, times to the second in the zone.
public struct PeopleText: Sendable {
    public let timeZone: TimeZone

    public init(timeZone: TimeZone) {
        self.timeZone = timeZone
    }

    /// The value as a table cell of its column's kind shows it.
    public func text(_ value: Value, _ kind: Column.Kind) -> String {
        ValueText(Presentation(timeZone: timeZone), format: .table).people(value, kind)
    }

    /// A time as a table shows it: `2026-11-29 10:00:00+08`.
    public func time(_ date: Date) -> String { text(.time(date), .time) }

    /// Metres to 0.1: `35.0 m`; `(none)` for nil.
    public func metres(_ metres: Double?) -> String { text(Value(metres), .metres) }

    /// Degrees to 7 places.
    public func degrees(_ degrees: Double?) -> String { text(Value(degrees), .latitude) }
}
