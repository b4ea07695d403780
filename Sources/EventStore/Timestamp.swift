import Foundation

/// A UTC instant with microsecond precision, PostgreSQL's `timestamptz` resolution, so that what is hashed at
/// append is exactly what is read back.
struct Timestamp: Equatable {
    let microseconds: Int64

    static func now() -> Timestamp { Timestamp(date: Date()) }

    init(date: Date) {
        microseconds = Int64((date.timeIntervalSince1970 * 1_000_000).rounded())
    }

    /// Parses `YYYY-MM-DDTHH:MM:SS.ffffffZ`, the form ``iso`` writes and the store reads back.
    init?(iso: String) {
        let parts = iso.split(whereSeparator: { "-T:.Z".contains($0) }).map { Int64($0) }
        guard parts.count == 7, !parts.contains(nil) else { return nil }
        let p = parts.map { $0! }
        var components = DateComponents()
        components.calendar = Calendar(identifier: .gregorian)
        components.timeZone = TimeZone(identifier: "UTC")
        (components.year, components.month, components.day) = (Int(p[0]), Int(p[1]), Int(p[2]))
        (components.hour, components.minute, components.second) = (Int(p[3]), Int(p[4]), Int(p[5]))
        guard let date = components.date else { return nil }
        microseconds = Int64(date.timeIntervalSince1970.rounded()) * 1_000_000 + p[6]
    }

    var date: Date { Date(timeIntervalSince1970: Double(microseconds) / 1_000_000) }

    var iso: String {
        let seconds = microseconds.floorDiv(1_000_000)
        let fraction = microseconds - seconds * 1_000_000
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        return String(
            format: "%04d-%02d-%02dT%02d:%02d:%02d.%06dZ", parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday,
            parts.tm_hour, parts.tm_min, parts.tm_sec, Int32(fraction))
    }
}

extension Int64 {
    fileprivate func floorDiv(_ divisor: Int64) -> Int64 {
        let quotient = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }
}
