import CivilCalendar
import Foundation
@testable import Postgres
import Testing

@Suite struct CodecTests {
    @Test(arguments: [
        ("2026-11-29 10:00:00.123456+00", 1_795_946_400.123456),
        ("2026-11-29 18:00:00+08", 1_795_946_400.0),
        ("2026-11-29T10:00:00Z", 1_795_946_400.0),
        ("2026-11-29 15:30:00.5+05:30", 1_795_946_400.5),
        ("1970-01-01 00:00:00+00", 0.0),
        ("1969-12-31 23:59:59.999999+00", -0.000001),
        ("2000-02-29 00:00:00+00", 951_782_400.0),
        ("2026-11-29", 1_795_910_400.0),
    ])
    func timestampParsing(text: String, seconds: Double) throws {
        let date = try Date(postgresText: text)
        #expect(abs(date.timeIntervalSince1970 - seconds) < 0.000_001)
    }

    @Test func timestampFormatIsUTCWithMicroseconds() throws {
        #expect(Date(timeIntervalSince1970: 1_795_946_400.123456).postgresText == "2026-11-29T10:00:00.123456Z")
        #expect(Date(timeIntervalSince1970: -0.5).postgresText == "1969-12-31T23:59:59.500000Z")
        // Years are zero-padded to four digits; years before 1 are BC.
        for (read, written) in [
            ("0999-01-02 03:04:05+00", "0999-01-02T03:04:05.000000Z"),
            ("0044-03-15 12:00:00+00 BC", "0044-03-15T12:00:00.000000Z BC"),
            ("2999-12-31 23:59:59.5+00", "2999-12-31T23:59:59.500000Z"),
        ] {
            #expect(try Date(postgresText: read).postgresText == written, "\(read)")
        }
    }

    /// The text written in place agrees with Foundation's calendar on 2,000 instants spread from 1600 to 9000.
    @Test func timestampFormatAgreesWithTheCalendar() {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let first = -11_676_096_000.0  // 1600-01-01, seconds since 1970
        let last = 221_845_392_000.0  // 9000-01-01
        for index in 0..<2_000 {
            // Spread evenly, each with another fraction of a second.
            let spread = (last - first) * (Double(index) + 0.37) / 2_000
            let date = Date(timeIntervalSince1970: first + spread + Double(index % 997) * 0.001_003_7)
            // The instant as the text has it: rounded to the microsecond, whole seconds rounded down.
            let micros = Timestamp.microseconds(date)
            let fraction = (micros % 1_000_000 + 1_000_000) % 1_000_000
            let whole = Date(timeIntervalSince1970: Double((micros - fraction) / 1_000_000))
            let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: whole)
            let expected = String(
                format: "%04ld-%02ld-%02ldT%02ld:%02ld:%02ld.%06ldZ", parts.year!, parts.month!, parts.day!, parts.hour!, parts.minute!,
                parts.second!, Int(fraction))
            #expect(date.postgresText == expected, "\(date.timeIntervalSince1970)")
        }
    }

    @Test func malformedTimestampIsRejected() {
        #expect(throws: (any Error).self) { try Date(postgresText: "29/11/2026") }
        #expect(throws: (any Error).self) { try Date(postgresText: "2026-13-01 00:00:00+00") }
    }

    @Test func arrayLiteralQuotesEveryElement() {
        let values: [String?] = ["a", "", "NULL", nil, "say \"hi\"", "back\\slash", "a,b", "{x}"]
        #expect(values.postgresText == #"{"a","","NULL",NULL,"say \"hi\"","back\\slash","a,b","{x}"}"#)
        #expect([[1, 2], [3, 4]].postgresText == #"{{"1","2"},{"3","4"}}"#)
        #expect([Int]().postgresText == "{}")
    }

    @Test func arrayLiteralParsesWhatItWrites() throws {
        let values: [String?] = ["a", "", "NULL", nil, "say \"hi\"", "back\\slash", "a,b", "{x}", "中文 ✓"]
        #expect(try [String?](postgresText: values.postgresText) == values)
        #expect(try [[Int]](postgresText: "{{1,2},{3,4}}") == [[1, 2], [3, 4]])
        #expect(try [Int](postgresText: "[0:2]={1,2,3}") == [1, 2, 3])
    }

    @Test func arrayWithNullNeedsOptionalElements() {
        #expect(throws: (any Error).self) { try [String](postgresText: "{a,NULL}") }
    }

    @Test func bytesAreByteaHex() throws {
        #expect(Data([0x00, 0xAB, 0x10]).postgresText == "\\x00ab10")
        #expect([UInt8]([0xFF, 0x01]).postgresText == "\\xff01")
        #expect(try [UInt8](postgresText: "\\xFF01") == [0xFF, 0x01])
        #expect(throws: (any Error).self) { try Data(postgresText: "\\xabc") }
    }

    @Test func doublesUsePostgresSpellings() throws {
        #expect(Double.infinity.postgresText == "Infinity")
        #expect((-Double.infinity).postgresText == "-Infinity")
        #expect(Double.nan.postgresText == "NaN")
        #expect(try Double(postgresText: "-Infinity") == -.infinity)
        #expect(try Double(postgresText: "0.1") == 0.1)
    }
}

extension CodecTests {
    @Test func optionalNestedArraysAreDimensions() throws {
        let nested: [[Int]?] = [[1, 2], [3, 4]]
        #expect(nested.postgresText == #"{{"1","2"},{"3","4"}}"#)
        let blobs: [[UInt8]?] = [[1], nil]
        #expect(blobs.postgresText == #"{"\\x01",NULL}"#)
    }
}
