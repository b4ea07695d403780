/// A day of the proleptic Gregorian calendar, the one RFC 3339 and PostgreSQL write dates in, and its count of
/// days from 1970-01-01, for code that reads and writes time stamps without a formatter.
///
/// Years are astronomical: 0 is 1 BC. The conversions are Howard Hinnant's `days_from_civil` and
/// `civil_from_days`, exact for every day an `Int` can count.
public struct CivilDate: Sendable, Hashable {
    public let year: Int
    /// 1 to 12.
    public let month: Int
    /// 1 to the month's last day.
    public let day: Int

    /// The date as given; the caller has checked the month and the day (see ``days(inMonth:year:)``).
    @inlinable
    public init(year: Int, month: Int, day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }

    /// The date `days` days after 1970-01-01 (before it, when negative).
    @inlinable
    public init(daysSince1970 days: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
    }

    /// Days from 1970-01-01 to this date (negative before it).
    @inlinable
    public var daysSince1970: Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The number of days in `month` (1 to 12) of `year`: 28 to 31.
    @inlinable
    public static func days(inMonth month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}

extension CivilDate {
    /// The date of a text `yyyy-MM-dd`: a year of four digits, a month and a day of two, in range; nil for anything
    /// else. PostgreSQL writes a date so, and RFC 3339 a full date.
    public init?(_ text: String) {
        guard let date = Self.read(text, startOnly: false) else { return nil }
        self = date
    }

    /// The date a text starts with: its first ten bytes, `yyyy-MM-dd` as ``init(_:)`` reads them, as a time stamp's
    /// text begins.
    public init?(startOf text: String) {
        guard let date = Self.read(text, startOnly: true) else { return nil }
        self = date
    }

    private static func read(_ text: String, startOnly: Bool) -> CivilDate? {
        var text = text
        return text.withUTF8 { utf8 in
            guard utf8.count == 10 || (startOnly && utf8.count > 10) else { return nil }
            var (year, month, day) = (0, 0, 0)
            for index in 0..<10 {
                let byte = utf8[index]
                if index == 4 || index == 7 {
                    guard byte == UInt8(ascii: "-") else { return nil }
                    continue
                }
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                let digit = Int(byte - UInt8(ascii: "0"))
                if index < 4 {
                    year = year * 10 + digit
                } else if index < 7 {
                    month = month * 10 + digit
                } else {
                    day = day * 10 + digit
                }
            }
            guard (1...12).contains(month), (1...days(inMonth: month, year: year)).contains(day) else { return nil }
            return CivilDate(year: year, month: month, day: day)
        }
    }

    /// `yyyy-MM-dd`, the year in at least four digits (`-` before it when it is negative).
    public var text: String {
        guard (0...9999).contains(year) else {
            func padded(_ number: Int, to width: Int) -> String {
                let digits = String(number)
                return String(repeating: "0", count: max(width - digits.count, 0)) + digits
            }
            return (year < 0 ? "-" : "") + padded(abs(year), to: 4) + "-" + padded(month, to: 2) + "-" + padded(day, to: 2)
        }
        // Written in place: the summaries write a day for nearly every fix.
        return String(unsafeUninitializedCapacity: 10) { text in
            func put(_ value: Int, width: Int, at start: Int) {
                var value = value
                for index in (start..<start + width).reversed() {
                    text[index] = UInt8(ascii: "0") + UInt8(value % 10)
                    value /= 10
                }
            }
            put(year, width: 4, at: 0)
            text[4] = UInt8(ascii: "-")
            put(month, width: 2, at: 5)
            text[7] = UInt8(ascii: "-")
            put(day, width: 2, at: 8)
            return 10
        }
    }
}
