import CivilCalendar
import Foundation

/// Values as text: rounded, in the time zone, and readable for people in a table; exact for programs.
struct ValueText {
    private let timeZone: TimeZone
    /// Whether machine times end in `Z` rather than an offset.
    private let utc: Bool

    init(_ presentation: Presentation, format: Format) {
        timeZone = presentation.timeZone ?? (format.isForPrograms ? TimeZone(identifier: "UTC")! : .current)
        utc = presentation.timeZone == nil && format.isForPrograms
    }

    /// A value as a table shows it: `(none)` when missing, metres to 0.1, degrees to 7 places, times to the second
    /// in the zone with its offset, booleans as yes and no, control characters as pictures.
    func people(_ value: Value, _ kind: Column.Kind) -> String {
        switch value {
        case .none: return "(none)"
        case .text(let text): return TerminalText.visible(text)
        case .integer(let integer): return String(integer)
        case .number(let number):
            guard number.isFinite else { return String(number) }
            switch kind {
            case .metres: return FixedPoint.text(number, places: 1) + " m"
            case .latitude, .longitude: return FixedPoint.text(number, places: 7)
            case .integer: return FixedPoint.text(number, places: 0)
            default: return Self.exact(number) ?? String(number)
            }
        case .time(let date): return time(date, forPeople: true)
        case .bool(let bool): return bool ? "yes" : "no"
        case .counts(let counts): return TerminalText.visible(Self.flat(counts))
        }
    }

    /// A value as CSV holds it: empty when missing; numbers exact, in the shortest form that reads back the same;
    /// times in RFC 3339 with microseconds; booleans as true and false.
    func program(_ value: Value) -> String {
        switch value {
        case .none: return ""
        case .text(let text): return text
        case .integer(let integer): return String(integer)
        case .number(let number): return Self.exact(number) ?? ""
        case .time(let date): return time(date, forPeople: false)
        case .bool(let bool): return bool ? "true" : "false"
        case .counts(let counts): return Self.flat(counts)
        }
    }

    /// `a=1, b=2`, in name order.
    static func flat(_ counts: [String: Int64]) -> String {
        counts.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ", ")
    }

    /// A number in the shortest form that reads back to the same `Double`, integers without a fraction; nil when
    /// it is not finite, which neither JSON nor CSV can say.
    static func exact(_ number: Double) -> String? {
        guard number.isFinite else { return nil }
        if number == number.rounded(), abs(number) < 9_007_199_254_740_992 { return String(Int64(number)) }
        return number.description
    }

    /// For programs `2026-11-29T02:00:00.000000Z`, or with a named zone `2026-11-29T10:00:00.000000+08:00`;
    /// for people `2026-11-29 10:00:00+08`.
    func time(_ date: Date, forPeople: Bool) -> String {
        let microseconds = (date.timeIntervalSince1970 * 1_000_000).rounded()
        let seconds = (microseconds / 1_000_000).rounded(.down)
        let whole = Date(timeIntervalSince1970: seconds)
        // The day and clock from the seconds in the zone, on the proleptic Gregorian calendar RFC 3339 counts in.
        let offset = timeZone.secondsFromGMT(for: whole)
        let local = Int(seconds) + offset
        let (days, secondOfDay) = local.quotientAndRemainder(dividingBy: 86_400)
        let civil = CivilDate(daysSince1970: secondOfDay < 0 ? days - 1 : days)
        let clockSeconds = secondOfDay < 0 ? secondOfDay + 86_400 : secondOfDay
        func two(_ number: Int) -> String { Self.padded(number, to: 2) }
        let day = civil.text
        let clock = two(clockSeconds / 3600) + ":" + two(clockSeconds / 60 % 60) + ":" + two(clockSeconds % 60)
        let sign = offset < 0 ? "-" : "+"
        let hours = two(abs(offset) / 3600), minutes = two(abs(offset) / 60 % 60)
        if forPeople {
            return day + " " + clock + sign + hours + (minutes == "00" ? "" : ":" + minutes)
        }
        let fraction = "." + Self.padded(Int(microseconds - seconds * 1_000_000), to: 6)
        return day + "T" + clock + fraction + (utc ? "Z" : sign + hours + ":" + minutes)
    }

    private static func padded(_ number: Int, to width: Int) -> String {
        let digits = String(abs(number))
        return (number < 0 ? "-" : "") + String(repeating: "0", count: max(width - digits.count, 0)) + digits
    }
}
