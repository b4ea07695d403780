import Foundation
@testable import Projections
import Testing

/// The daily counts key on the day an event's times start with: its first ten characters, whatever the text.
@Suite("The day of a time")
struct ProjectedEventDayTests {
    @Test("the first ten characters, as counting characters gives them", arguments: [
        "2026-12-02 05:53:35.123456+00", "2026-12-02", "2026-12", "", "2026-12-02\u{301}x", "2026-12-0\r\nx",
        "2026-12-\u{E9}2 x", "\u{1F600}026-12-02 05", "2026-12-02\r\n",
    ])
    func day(text: String) {
        #expect(ProjectedEvent.day(of: text) == String(text.prefix(10)))
    }
}
