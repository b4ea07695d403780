import Foundation

/// An instant in whole microseconds since 1970-01-01 UTC, PostgreSQL's `timestamptz` resolution: the one time type of
/// the project, for the log's recording time, a device's capture time and the server's receive time alike, so that
/// what is hashed and stored is exactly what is read back. Its text (``format(_:)``, ``parse(_:)``) and RFC 3339 as
/// devices send it (``parseRFC3339(_:)``) are read and written here, without a formatter (thread-safe and fast).
public struct Timestamp: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let microseconds: Int64

    public init(microseconds: Int64) {
        self.microseconds = microseconds
    }

    /// `date` rounded to the microsecond.
    public init(_ date: Date) {
        microseconds = Self.microseconds(date)
    }

    /// An RFC 3339 time with its offset (`2026-11-29T10:00:00+08:00`); nil when the text is not one.
    public init?(rfc3339 text: String) {
        guard case .success(let date) = Self.parseRFC3339(text) else { return nil }
        self.init(date)
    }

    public static func now() -> Timestamp { Timestamp(Date()) }

    /// The instant as a `Date`, as its text reads back (``readBack(_:)``).
    public var date: Date {
        let (seconds, fraction) = Self.secondsAndFraction(microseconds)
        return Date(timeIntervalSince1970: Double(seconds) + Double(fraction) / 1_000_000)
    }

    /// ``format(_:)`` of the instant.
    public var description: String { Self.format(date) }

    public static func < (left: Timestamp, right: Timestamp) -> Bool { left.microseconds < right.microseconds }

    /// `yyyy-MM-ddTHH:mm:ss.ffffffZ`, rounded to the microsecond PostgreSQL keeps.
    public static func format(_ date: Date) -> String {
        // Written in place into the string's own storage: appending to an array digit by digit and then copying it into
        // a string cost many times the instructions of its 27 bytes (docs/performance.md), once per event stored.
        String(unsafeUninitializedCapacity: textCapacity) { write(date, into: $0) }
    }

    /// ``format(_:)`` of the instant's ``date``, written into a buffer on the stack and read in place: for a caller
    /// that copies the text on, without making a string of it.
    public func withText<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Self.textCapacity) { text in
            let count = Self.write(date, into: text)
            return try body(UnsafeBufferPointer(rebasing: text[..<count]))
        }
    }

    /// The UTC day the text of ``withText(_:)`` starts with, in days since 1970-01-01.
    public var day: Int {
        Int(Self.dayAndSecond(of: Self.secondsAndFraction(Self.microseconds(date)).seconds).day)
    }

    /// Within the range ``write(_:into:)`` writes a date in, the year has at most 4 digits, so 40 bytes always hold the
    /// text.
    private static let textCapacity = 40

    /// Writes the text of ``format(_:)`` into `text`; returns its length.
    private static func write(_ date: Date, into text: UnsafeMutableBufferPointer<UInt8>) -> Int {
        let micros = exactMicroseconds(date)
        guard micros.isFinite, abs(micros) < 2.5e17 else {
            return copy(micros < 0 ? "-infinity" : "infinity", into: text)
        }
        let (seconds, fraction) = secondsAndFraction(Int64(micros))
        let (days, secondOfDay) = dayAndSecond(of: seconds)
        let date = CivilDate(daysSince1970: Int(days))
        let (year, month, day) = (Int64(date.year), Int64(date.month), Int64(date.day))
        var count = 0
        func put(_ byte: UInt8) {
            text[count] = byte
            count += 1
        }
        func put(_ value: Int64, width: Int) {
            count = writeDigits(value, width: width, into: text, at: count)
        }
        put(year > 0 ? year : 1 - year, width: 4)
        put(UInt8(ascii: "-"))
        put(month, width: 2)
        put(UInt8(ascii: "-"))
        put(day, width: 2)
        put(UInt8(ascii: "T"))
        put(secondOfDay / 3600, width: 2)
        put(UInt8(ascii: ":"))
        put(secondOfDay / 60 % 60, width: 2)
        put(UInt8(ascii: ":"))
        put(secondOfDay % 60, width: 2)
        put(UInt8(ascii: "."))
        put(fraction, width: 6)
        put(UInt8(ascii: "Z"))
        if year <= 0 {
            for byte in " BC".utf8 { put(byte) }
        }
        return count
    }

    /// The day since 1970 a second since 1970 falls in, and the second of that day.
    private static func dayAndSecond(of seconds: Int64) -> (day: Int64, second: Int64) {
        floorDivision(seconds, by: 86_400)
    }

    private static func copy(_ word: StaticString, into text: UnsafeMutableBufferPointer<UInt8>) -> Int {
        UnsafeMutableRawBufferPointer(text).copyMemory(
            from: UnsafeRawBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount))
        return word.utf8CodeUnitCount
    }

    /// The instant the text ``format(_:)`` writes of `date` reads back as (``parse(_:)``): `date` rounded to the
    /// microsecond, its whole seconds and the microseconds after them added as the reading adds them.
    public static func readBack(_ date: Date) -> Date {
        let (seconds, fraction) = secondsAndFraction(microseconds(date))
        return Date(timeIntervalSince1970: Double(seconds) + Double(fraction) / 1_000_000)
    }

    /// Whole seconds since 1970, rounded down, and the microseconds after them (never negative), as the text has them.
    private static func secondsAndFraction(_ microseconds: Int64) -> (seconds: Int64, fraction: Int64) {
        floorDivision(microseconds, by: 1_000_000)
    }

    /// The quotient rounded down, and the remainder, never negative for a positive divisor.
    private static func floorDivision(_ value: Int64, by divisor: Int64) -> (Int64, Int64) {
        let (quotient, remainder) = value.quotientAndRemainder(dividingBy: divisor)
        return remainder < 0 ? (quotient - 1, remainder + divisor) : (quotient, remainder)
    }

    /// Microseconds since 1970-01-01 UTC, rounded to the microsecond; clamped to PostgreSQL's range.
    public static func microseconds(_ date: Date) -> Int64 {
        Int64(min(max(exactMicroseconds(date), -2.5e17), 2.5e17))
    }

    private static func exactMicroseconds(_ date: Date) -> Double {
        (date.timeIntervalSince1970 * 1_000_000).rounded()
    }

    /// Reads what PostgreSQL writes with `DateStyle ISO`: `2026-11-29 10:00:00.123456+00`,
    /// with an optional fraction, an offset of `±HH[:MM[:SS]]`, `Z`, or none (taken as UTC);
    /// also a bare date, ` BC`, `infinity` and `-infinity`.
    public static func parse(_ text: String) -> Date? {
        switch text {
        case "infinity": return .distantFuture
        case "-infinity": return .distantPast
        default: break
        }
        var text = text
        return text.withUTF8 { parse(utf8: $0) }
    }

    /// ``parse(_:)`` on the text's UTF-8 bytes, read in place.
    private static func parse(utf8 all: UnsafeBufferPointer<UInt8>) -> Date? {
        var isBC = false
        var end = all.count
        if end > 3, all[(end - 3)...].elementsEqual(" BC".utf8) {
            isBC = true
            end -= 3
        }
        var cursor = Cursor(bytes: UnsafeBufferPointer(rebasing: all[..<end]))

        guard var year = cursor.number(minDigits: 4, maxDigits: 9), cursor.expect("-"),
              let month = cursor.number(minDigits: 2, maxDigits: 2), cursor.expect("-"),
              let day = cursor.number(minDigits: 2, maxDigits: 2),
              (1...12).contains(month), (1...31).contains(day)
        else { return nil }
        if isBC { year = 1 - year }
        var secondOfDay: Int64 = 0
        var micros: Int64 = 0
        var offset: Int64 = 0
        if !cursor.atEnd {
            guard cursor.expect(" ") || cursor.expect("T"),
                  let hour = cursor.number(minDigits: 2, maxDigits: 2), cursor.expect(":"),
                  let minute = cursor.number(minDigits: 2, maxDigits: 2), cursor.expect(":"),
                  let second = cursor.number(minDigits: 2, maxDigits: 2),
                  hour <= 24, minute < 60, second <= 60
            else { return nil }
            secondOfDay = hour * 3600 + minute * 60 + second
            if cursor.expect(".") {
                let start = cursor.index
                guard let digits = cursor.number(minDigits: 1, maxDigits: 9) else { return nil }
                var count = cursor.index - start
                micros = digits
                while count < 6 { micros *= 10; count += 1 }
                while count > 6 { micros /= 10; count -= 1 }
            }
            if cursor.expect("Z") {
                offset = 0
            } else if !cursor.atEnd {
                let sign: Int64
                if cursor.expect("+") { sign = 1 } else if cursor.expect("-") { sign = -1 } else { return nil }
                guard let hours = cursor.number(minDigits: 2, maxDigits: 2) else { return nil }
                var minutes: Int64 = 0
                var seconds: Int64 = 0
                if cursor.expect(":") {
                    guard let m = cursor.number(minDigits: 2, maxDigits: 2) else { return nil }
                    minutes = m
                    if cursor.expect(":") {
                        guard let s = cursor.number(minDigits: 2, maxDigits: 2) else { return nil }
                        seconds = s
                    }
                }
                offset = sign * (hours * 3600 + minutes * 60 + seconds)
            }
        }
        guard cursor.atEnd else { return nil }
        let days = Int64(CivilDate(year: Int(year), month: Int(month), day: Int(day)).daysSince1970)
        let seconds = days * 86_400 + secondOfDay - offset
        return Date(timeIntervalSince1970: Double(seconds) + Double(micros) / 1_000_000)
    }

    /// Reads the text front to back.
    private struct Cursor {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0

        var atEnd: Bool { index == bytes.count }

        mutating func number(minDigits: Int, maxDigits: Int) -> Int64? {
            var value: Int64 = 0
            var count = 0
            while index < bytes.count, count < maxDigits, let digit = digitValue(bytes[index]) {
                value = value * 10 + digit
                index += 1
                count += 1
            }
            return count >= minDigits ? value : nil
        }

        mutating func expect(_ character: Unicode.Scalar) -> Bool {
            guard index < bytes.count, UInt32(bytes[index]) == character.value else { return false }
            index += 1
            return true
        }
    }

    private static func digitValue(_ byte: UInt8) -> Int64? {
        byte >= 48 && byte <= 57 ? Int64(byte - 48) : nil
    }

    /// Writes the decimal digits of a value that is not negative, zero-padded to at least `width`, into `text` from
    /// `start`; returns where they end.
    private static func writeDigits(_ value: Int64, width: Int, into text: UnsafeMutableBufferPointer<UInt8>, at start: Int) -> Int {
        var count = 1
        var rest = value
        while rest >= 10 {
            rest /= 10
            count += 1
        }
        let end = start + max(count, width)
        var index = end - 1
        rest = value
        while index >= start {
            text[index] = UInt8(ascii: "0") + UInt8(rest % 10)
            rest /= 10
            index -= 1
        }
        return end
    }
}
