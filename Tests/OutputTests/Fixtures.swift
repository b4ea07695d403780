import Foundation
@testable import Output

#if canImport(Glibc)
import Glibc
#endif

/// A write to a pipe without a reader then fails with EPIPE instead of ending the test process, as in geoledger.
/// Never undone: tests run at the same time.
func ignoreBrokenPipes() {
    signal(SIGPIPE, SIG_IGN)
}

/// The instant an RFC 3339 text with `Z` denotes, to the microsecond.
func utc(_ text: String) -> Date {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    if let date = formatter.date(from: text) { return date }
    formatter.formatOptions = [.withInternetDateTime]
    guard let date = formatter.date(from: text) else { fatalError("not RFC 3339: \(text)") }
    return date
}

func zone(_ name: String) -> TimeZone {
    guard let zone = TimeZone(identifier: name) else { fatalError("no time zone \(name)") }
    return zone
}

/// Two shops and what is known of them: every kind of column, a missing value in each kind.
enum Shops {
    static let columns = [
        Column("name"), Column("visits", .integer), Column("radius", .metres), Column("lat", .latitude),
        Column("lon", .longitude), Column("seenAt", .time, title: "SEEN"), Column("open", .bool), Column("note"),
    ]

    static let rows: [[Value]] = [
        [.text("Shanghai office"), .integer(12), .number(35.04), .number(31.230_412_345), .number(121.473_7),
         .time(utc("2026-11-29T02:00:00.250000Z")), .bool(true), .text("first floor")],
        [.text("HK"), .integer(3), .number(1234.56), .number(22.285_5), .number(114.157_749_999), .none, .bool(false), .none],
    ]

    static let table = Table(columns: columns, rows: rows)
}

/// Whether `parsed`, as `JSONSerialization` read it, is an object with exactly the members of `expected` (strings,
/// numbers, booleans and `NSNull`), comparing numbers as `Double`.
func same(_ parsed: Any?, _ expected: [String: Any]) -> Bool {
    guard let object = parsed as? [String: Any], Set(object.keys) == Set(expected.keys) else { return false }
    return expected.allSatisfy { key, value in
        let got = object[key]!
        switch value {
        case let bool as Bool: return (got as? Bool) == bool
        case let text as String: return got as? String == text
        case is NSNull: return got is NSNull
        case let integer as Int: return (got as? Double) == Double(integer)
        case let number as Double: return (got as? Double) == number
        default: return false
        }
    }
}
