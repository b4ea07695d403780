import Foundation
import Testing
@testable import Output

/// The table format: what people read on a terminal.
@Suite("Output: tables for people")
struct TableTests {
    @Test("columns under their titles, numbers to the right; metres to 0.1, degrees to 7 places, times in the zone, yes/no and (none)")
    func aligned() throws {
        let text = try Shops.table.rendered(as: .table, Presentation(timeZone: zone("Asia/Shanghai")))
        #expect(text == """
            NAME             VISITS    RADIUS         LAT          LON  SEEN                    OPEN  NOTE
            Shanghai office      12    35.0 m  31.2304123  121.4737000  2026-11-29 10:00:00+08  yes   first floor
            HK                    3  1234.6 m  22.2855000  114.1577500  (none)                  no    (none)

            """)
    }

    @Test("a zone with a half-hour offset shows it, and the time shown is the zone's")
    func halfHourZone() throws {
        let table = Table(columns: [Column("seenAt", .time)], rows: [[.time(utc("2026-11-29T02:00:00Z"))]])
        let text = try table.rendered(as: .table, Presentation(timeZone: zone("Asia/Kolkata")))
        #expect(text == "SEEN AT\n2026-11-29 07:30:00+05:30\n")
    }

    @Test("daylight saving: the same zone has another offset in summer")
    func daylightSaving() throws {
        let table = Table(columns: [Column("at", .time)], rows: [[.time(utc("2026-01-15T17:00:00Z"))], [.time(utc("2026-07-15T16:00:00Z"))]])
        let text = try table.rendered(as: .table, Presentation(timeZone: zone("America/New_York")))
        #expect(text == "AT\n2026-01-15 12:00:00-05\n2026-07-15 12:00:00-04\n")
    }

    @Test("too wide: text columns are cut with …, widest first, and every line fits")
    func truncated() throws {
        let text = try Shops.table.rendered(as: .table, Presentation(timeZone: zone("UTC"), width: 95))
        #expect(text == """
            NAME        VISITS    RADIUS         LAT          LON  SEEN                    OPEN  NOTE
            Shanghai …      12    35.0 m  31.2304123  121.4737000  2026-11-29 02:00:00+00  yes   first flo…
            HK               3  1234.6 m  22.2855000  114.1577500  (none)                  no    (none)

            """)
        #expect(text.split(separator: "\n").allSatisfy { $0.count <= 95 })
    }

    @Test("far too wide: the columns go in blocks one below the other, each repeating the first, values whole")
    func wrapped() throws {
        let text = try Shops.table.rendered(as: .table, Presentation(timeZone: zone("UTC"), width: 40))
        #expect(text == """
            NAME             VISITS    RADIUS
            Shanghai office      12    35.0 m
            HK                    3  1234.6 m

            NAME                    LAT          LON
            Shanghai office  31.2304123  121.4737000
            HK               22.2855000  114.1577500

            NAME             SEEN
            Shanghai office  2026-11-29 02:00:00+00
            HK               (none)

            NAME             OPEN  NOTE
            Shanghai office  yes   first floor
            HK               no    (none)

            """)
        #expect(text.split(separator: "\n").allSatisfy { $0.count <= 40 })
    }

    @Test("no limit: nothing is cut however long")
    func unlimited() throws {
        let long = String(repeating: "x", count: 500)
        let text = try Table(columns: [Column("note")], rows: [[.text(long)]]).rendered(as: .table)
        #expect(text == "NOTE\n" + long + "\n")
    }

    @Test("Chinese characters take two columns each: the next column still lines up")
    func wideCharacters() throws {
        let table = Table(columns: [Column("city"), Column("code")], rows: [[.text("上海市"), .text("310101")], [.text("HK"), .text("810000")]])
        #expect(try table.rendered(as: .table) == "CITY    CODE\n上海市  310101\nHK      810000\n")
    }

    @Test("control characters are shown as pictures: a value cannot break the lines or command the terminal")
    func controlCharacters() throws {
        let table = Table(columns: [Column("note"), Column("n", .integer)], rows: [[.text("two\nlines\u{1B}[31m\t\u{7F}\u{9B}"), .integer(1)]])
        #expect(try table.rendered(as: .table) == "NOTE" + String(repeating: " ", count: 15) + "N\ntwo␊lines␛[31m␉␡�  1\n")
    }

    @Test("rounding to zero shows no minus sign; whole numbers and integers as they are")
    func rounding() throws {
        let table = Table(
            columns: [Column("drift", .metres), Column("lat", .latitude), Column("count", .integer), Column("ratio", .number)],
            rows: [[.number(-0.04), .number(-0.000_000_04), .integer(-3), .number(2)], [.number(0.05), .number(89.999_999_96), .integer(0), .number(0.5)]])
        #expect(try table.rendered(as: .table) == """
            DRIFT         LAT  COUNT  RATIO
            0.0 m   0.0000000     -3      2
            0.1 m  90.0000000      0    0.5

            """)
    }

    @Test("no rows: (none)")
    func empty() throws {
        #expect(try Table(columns: Shops.columns, rows: []).rendered(as: .table) == "(none)\n")
    }

    @Test("fixed decimals round half away from zero as people do", arguments: [
        (1234.56, 1, "1234.6"), (0.05, 1, "0.1"), (-2.25, 1, "-2.3"), (22.285_5, 7, "22.2855000"), (-0.000_000_01, 7, "0.0000000"),
        (39.915, 8, "39.91500000"), (7, 0, "7"),
    ])
    func fixedPoint(value: Double, places: Int, expected: String) {
        #expect(FixedPoint.text(value, places: places) == expected)
    }
}
