import Foundation

/// A UTC instant in whole microseconds since 1970, PostgreSQL's `timestamptz` resolution, so that what is
/// hashed at append is exactly what is read back.
struct Timestamp: Equatable {
    let microseconds: Int64

    static func now() -> Timestamp { Timestamp(date: Date()) }

    init(microseconds: Int64) {
        self.microseconds = microseconds
    }

    init(date: Date) {
        microseconds = Int64((date.timeIntervalSince1970 * 1_000_000).rounded())
    }

    var date: Date { Date(timeIntervalSince1970: Double(microseconds) / 1_000_000) }
}
