import CivilCalendar
import Foundation
import Testing

@Suite("CivilDate: the proleptic Gregorian calendar")
struct CivilDateTests {
    @Test("known days: the epoch, leap days, a century that is not a leap year, and 1 BC", arguments: [
        (0, 1970, 1, 1), (-1, 1969, 12, 31), (11_016, 2000, 2, 29), (11_017, 2000, 3, 1),
        (-25_508, 1900, 3, 1), (-25_509, 1900, 2, 28), (20_786, 2026, 11, 29), (-719_468, 0, 3, 1),
        (-719_528, 0, 1, 1), (-719_529, -1, 12, 31), (-719_162, 1, 1, 1),
    ])
    func knownDays(days: Int, year: Int, month: Int, day: Int) {
        #expect(CivilDate(daysSince1970: days) == CivilDate(year: year, month: month, day: day))
        #expect(CivilDate(year: year, month: month, day: day).daysSince1970 == days)
    }

    @Test("every day from 4000 BC to AD 6000 follows the day before it, and agrees with Foundation's calendar since it is Gregorian")
    func consecutiveDays() throws {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try #require(TimeZone(identifier: "UTC"))
        var previous = CivilDate(daysSince1970: -2_180_000)
        for days in -2_179_999...1_470_000 {
            let date = CivilDate(daysSince1970: days)
            let next = previous.day < CivilDate.days(inMonth: previous.month, year: previous.year)
                ? CivilDate(year: previous.year, month: previous.month, day: previous.day + 1)
                : previous.month < 12 ? CivilDate(year: previous.year, month: previous.month + 1, day: 1)
                : CivilDate(year: previous.year + 1, month: 1, day: 1)
            guard date == next, date.daysSince1970 == days else {
                Issue.record("day \(days) is \(date) (back to \(date.daysSince1970) days), not \(next)")
                return
            }
            previous = date
        }
        // Foundation's Gregorian calendar is Julian before October 1582.
        for days in stride(from: -140_000, through: 1_470_000, by: 997) {
            let date = CivilDate(daysSince1970: days)
            let parts = calendar.dateComponents([.year, .month, .day], from: Date(timeIntervalSince1970: Double(days) * 86_400))
            #expect([parts.year, parts.month, parts.day] == [date.year, date.month, date.day], "day \(days)")
        }
    }

    @Test("days in a month", arguments: [
        (2, 2024, 29), (2, 2026, 28), (2, 1900, 28), (2, 2000, 29), (4, 2026, 30), (12, 2026, 31), (1, 0, 31), (2, 0, 29),
    ])
    func daysInMonth(month: Int, year: Int, days: Int) {
        #expect(CivilDate.days(inMonth: month, year: year) == days)
    }

    @Test("yyyy-MM-dd is written and read back, for every day from AD 1 to 9999 a step apart")
    func textRoundTrip() {
        for days in stride(from: CivilDate(year: 1, month: 1, day: 1).daysSince1970, through: CivilDate(year: 9999, month: 12, day: 31).daysSince1970, by: 13) {
            let date = CivilDate(daysSince1970: days)
            #expect(CivilDate(date.text) == date, "\(date.text)")
        }
        #expect(CivilDate(year: 2026, month: 3, day: 7).text == "2026-03-07")
        #expect(CivilDate(year: 12, month: 11, day: 30).text == "0012-11-30")
        #expect(CivilDate(year: -44, month: 3, day: 15).text == "-0044-03-15")
    }

    @Test("a text other than yyyy-MM-dd, or a month or day out of range, is not a date", arguments: [
        "", "2026-3-07", "2026-03-7", "26-03-07", "2026/03/07", "2026-03-07 ", " 2026-03-07", "2026-00-07", "2026-13-07",
        "2026-02-29", "2026-04-31", "2026-03-00", "20a6-03-07", "2026-03-07T00:00:00Z", "２026-03-07",
    ])
    func notADate(text: String) {
        #expect(CivilDate(text) == nil)
    }

    @Test("the date a time stamp's text starts with")
    func startOfText() {
        let date = CivilDate(year: 2026, month: 3, day: 7)
        #expect(CivilDate(startOf: "2026-03-07T12:00:00.000000Z") == date)
        #expect(CivilDate(startOf: "2026-03-07 12:00:00+00") == date)
        #expect(CivilDate(startOf: "2026-03-07") == date)
        for text in ["2026-03-0", "2026-03-7 12:00:00+00", "2026-02-30 12:00:00+00", "infinity", ""] {
            #expect(CivilDate(startOf: text) == nil, "\(text)")
        }
    }
}
