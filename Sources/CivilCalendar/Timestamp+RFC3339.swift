import Foundation

/// A strict RFC 3339 `date-time` parser that can tell a missing offset from other faults.
extension Timestamp {
    public enum RFC3339Failure: Error, Equatable {
        case malformed
        case missingOffset
    }

    /// The instant an RFC 3339 `date-time` denotes, to the precision it was written with.
    public static func parseRFC3339(_ text: String) -> Result<Date, RFC3339Failure> {
        var text = text
        return text.withUTF8(parseRFC3339)
    }

    /// The instant an RFC 3339 `date-time` denotes, given as its UTF-8.
    public static func parseRFC3339(_ bytes: UnsafeBufferPointer<UInt8>) -> Result<Date, RFC3339Failure> {
        var index = 0

        func digits(_ count: Int) -> Int? {
            guard index + count <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[index..<index + count] {
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            index += count
            return value
        }
        func expect(_ character: UInt8, or other: UInt8? = nil, or third: UInt8? = nil) -> Bool {
            guard index < bytes.count, bytes[index] == character || bytes[index] == other || bytes[index] == third else { return false }
            index += 1
            return true
        }

        guard let year = digits(4), expect(UInt8(ascii: "-")), let month = digits(2), expect(UInt8(ascii: "-")), let day = digits(2),
              expect(UInt8(ascii: "T"), or: UInt8(ascii: "t"), or: UInt8(ascii: " ")), let hour = digits(2), expect(UInt8(ascii: ":")),
              let minute = digits(2), expect(UInt8(ascii: ":")), let second = digits(2)
        else { return .failure(.malformed) }

        var fraction = 0.0
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            let start = index
            while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
                index += 1
            }
            guard index > start, let value = Double("0." + String(decoding: bytes[start..<index], as: UTF8.self))
            else { return .failure(.malformed) }
            fraction = value
        }

        var offsetSeconds = 0
        if index == bytes.count {
            return .failure(.missingOffset)
        } else if expect(UInt8(ascii: "Z"), or: UInt8(ascii: "z")) {
            offsetSeconds = 0
        } else if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
            let sign = bytes[index] == UInt8(ascii: "-") ? -1 : 1
            index += 1
            guard let offsetHour = digits(2), expect(UInt8(ascii: ":")), let offsetMinute = digits(2),
                  offsetHour <= 23, offsetMinute <= 59
            else { return .failure(.malformed) }
            offsetSeconds = sign * (offsetHour * 3600 + offsetMinute * 60)
        } else {
            return .failure(.malformed)
        }
        guard index == bytes.count else { return .failure(.malformed) }

        // A leap second (:60) is accepted and folded into the next second, as most clocks do.
        guard (1...12).contains(month), day >= 1, day <= CivilDate.days(inMonth: month, year: year),
              hour <= 23, minute <= 59, second <= 60
        else { return .failure(.malformed) }

        let days = CivilDate(year: year, month: month, day: day).daysSince1970
        let seconds = Double(days * 86_400 + hour * 3600 + minute * 60 + second - offsetSeconds) + fraction
        return .success(Date(timeIntervalSince1970: seconds))
    }
}
