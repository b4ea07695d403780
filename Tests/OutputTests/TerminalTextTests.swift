import Foundation
import Testing
@testable import Output

@Suite("Output: text widths on a terminal")
struct TerminalTextTests {
    @Test("columns: one per printable ASCII character, two for wide characters and emoji, none for combining marks", arguments: [
        ("M00017, tencent", 15),
        ("", 0),
        ("~ !", 3),
        ("上海市", 6),
        ("Shop 上海", 9),
        ("e\u{0301}", 1),
        ("\u{0301}", 0),
        ("📍 pin", 6),
        ("a\u{200B}b", 2),
        ("ＡＢ", 4),
    ])
    func width(text: String, columns: Int) {
        #expect(TerminalText.width(text) == columns)
        #expect(text.reduce(0) { $0 + TerminalText.width(of: $1) } == columns)
    }
}

@Suite("Output: times as text")
struct TimeTextTests {
    @Test("instants in a zone: its offset that day, half-hour zones, the day before 1970, microseconds for programs", arguments: [
        (1_795_946_400.0, "UTC", "2026-11-29T10:00:00.000000Z", "2026-11-29 10:00:00+00"),
        (1_795_946_400.0, "Asia/Shanghai", "2026-11-29T18:00:00.000000+08:00", "2026-11-29 18:00:00+08"),
        (1_795_946_400.0, "Asia/Kolkata", "2026-11-29T15:30:00.000000+05:30", "2026-11-29 15:30:00+05:30"),
        (1_795_946_400.0, "America/St_Johns", "2026-11-29T06:30:00.000000-03:30", "2026-11-29 06:30:00-03:30"),
        (1_783_000_000.123456, "America/New_York", "2026-07-02T09:46:40.123456-04:00", "2026-07-02 09:46:40-04"),
        (1_795_946_400.0, "America/New_York", "2026-11-29T05:00:00.000000-05:00", "2026-11-29 05:00:00-05"),
        (-1.5, "UTC", "1969-12-31T23:59:58.500000Z", "1969-12-31 23:59:58+00"),
        (951_782_400.0, "UTC", "2000-02-29T00:00:00.000000Z", "2000-02-29 00:00:00+00"),
    ])
    func times(seconds: Double, zoneName: String, forPrograms: String, forPeople: String) {
        let date = Date(timeIntervalSince1970: seconds)
        let named = zoneName == "UTC" ? nil : zone(zoneName)
        #expect(ValueText(Presentation(timeZone: named), format: .csv).time(date, forPeople: false) == forPrograms)
        #expect(ValueText(Presentation(timeZone: zone(zoneName)), format: .table).time(date, forPeople: true) == forPeople)
    }
}
