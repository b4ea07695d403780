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
}
