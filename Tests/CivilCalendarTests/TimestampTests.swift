import CivilCalendar
import Foundation
import Testing

@Suite struct TimestampTests {
    @Test(arguments: [
        ("2026-11-29T10:00:00+08:00", 1_795_917_600.0),
        ("2026-11-29T02:00:00Z", 1_795_917_600.0),
        ("2026-11-29t02:00:00z", 1_795_917_600.0),
        ("2026-11-29 02:00:00Z", 1_795_917_600.0),
        ("2026-11-28T21:30:00-04:30", 1_795_917_600.0),
        ("2026-11-29T02:00:00.250Z", 1_795_917_600.25),
        ("2024-02-29T00:00:00Z", 1_709_164_800.0),
        ("1970-01-01T00:00:00Z", 0.0),
    ])
    func parses(text: String, seconds: Double) throws {
        let timestamp = try #require(Timestamp(rfc3339: text))
        #expect(timestamp.date.timeIntervalSince1970 == seconds)
        #expect(timestamp.microseconds == Int64(seconds * 1_000_000))
    }

    @Test(arguments: ["2026-11-29T10:00:00", "2026-11-29T10:00:00.5"])
    func missingOffset(text: String) {
        #expect(Timestamp.parseRFC3339(text) == .failure(.missingOffset))
    }

    @Test(arguments: [
        "", "2026-11-29", "2026-13-01T00:00:00Z", "2025-02-29T00:00:00Z", "2026-11-29T24:00:00Z",
        "2026-11-29T10:00:00+8:00", "2026-11-29T10:00:00+08", "2026-11-29T10:00:00.Z", "yesterday",
        "2026-11-29T10:00:00Z ", "1764381600",
    ])
    func malformed(text: String) {
        #expect(Timestamp.parseRFC3339(text) == .failure(.malformed))
    }

    @Test("a time's text read in place is its formatted text, and its day the date that text starts with")
    func textInPlaceAndDay() throws {
        var microseconds: [Int64] = [
            0, -1, 1, 86_400_000_000 - 1, -86_400_000_000, 1_795_917_600_250_000, 1_199_145_600_000_001,
            253_402_300_799_999_999, -62_135_596_800_000_000, -62_135_596_800_000_001, 249_999_999_999_999_999,
            -249_999_999_999_999_999, 250_000_000_000_000_000, Int64.max, Int64.min,
        ]
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for _ in 0..<10_000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            microseconds.append(Int64(bitPattern: state) % 300_000_000_000_000_000)
        }
        for value in microseconds {
            let time = Timestamp(microseconds: value)
            let text = Timestamp.format(time.date)
            #expect(time.withText { String(decoding: $0, as: UTF8.self) } == text, "\(value)")
            // A date of the common era, as the time of a fix always is, starts the text.
            if let date = CivilDate(startOf: text), !text.hasSuffix(" BC") {
                #expect(time.day == date.daysSince1970, "\(value): \(text)")
            }
        }
        #expect(Timestamp(microseconds: Int64.max).withText { String(decoding: $0, as: UTF8.self) } == "infinity")
        #expect(Timestamp(microseconds: -86_400_000_000).day == -1)
    }
}
