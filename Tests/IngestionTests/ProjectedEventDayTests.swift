import CivilCalendar
import Foundation
@testable import Projections
import Testing

/// The daily counts key on the day an event's times start with, as a count of days.
@Suite("The day of a time")
struct ProjectedEventDayTests {
    @Test("the date a time's text starts with, in days since 1970", arguments: [
        "2026-12-02 05:53:35.123456+00", "2026-12-02T05:53:35.123456Z", "2026-12-02",
    ])
    func day(text: String) throws {
        #expect(try ProjectedEvent.day(of: text, "metadata.receivedAt", position: 7) == CivilDate(year: 2026, month: 12, day: 2).daysSince1970)
    }

    @Test("a text that does not start with a date is refused, naming the member and the event", arguments: [
        "2026-12", "", "2026-13-02 05:53:35+00", "2026-02-30 05:53:35+00", "2026-12-0\r\nx", "\u{1F600}026-12-02 05",
        "infinity",
    ])
    func notADay(text: String) {
        #expect(throws: ProjectionError(7, "metadata.receivedAt \(text) is not a timestamp")) {
            try ProjectedEvent.day(of: text, "metadata.receivedAt", position: 7)
        }
    }
}
