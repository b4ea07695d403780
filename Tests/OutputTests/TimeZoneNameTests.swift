import Foundation
import Testing
@testable import Output

/// `--tz`: the names and offsets an operator may give.
@Suite("Output: --tz time zones")
struct TimeZoneNameTests {
    @Test("IANA names, UTC and offsets are read, each to its offset from UTC in November", arguments: [
        ("Asia/Shanghai", 8 * 3600), ("America/New_York", -5 * 3600), ("Asia/Kolkata", 19_800), ("UTC", 0), ("Z", 0),
        ("+08:00", 8 * 3600), ("+0800", 8 * 3600), ("+08", 8 * 3600), ("-05:30", -19_800), ("+00:00", 0), ("-18:00", -18 * 3600),
    ])
    func accepted(name: String, seconds: Int) throws {
        let zone = try #require(TimeZoneName.parse(name))
        #expect(zone.secondsFromGMT(for: utc("2026-11-29T02:00:00Z")) == seconds)
    }

    @Test("anything else is refused: unknown names, ambiguous abbreviations, malformed or impossible offsets", arguments: [
        "Mars/Olympus", "asia/shanghai", "CST", "EST", "", "8", "+8", "+8:00", "+080", "+08:0", "+19:00", "+08:60", "++08", "+0a:00",
        "+٠٨:٠٠",
    ])
    func refused(name: String) {
        #expect(TimeZoneName.parse(name) == nil)
    }
}
