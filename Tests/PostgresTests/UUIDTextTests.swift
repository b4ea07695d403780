import Foundation
import Testing
import Postgres

@Suite struct UUIDTextTests {
    @Test func writesWhatFoundationWritesInLowercase() {
        for _ in 0..<1000 {
            let id = UUID()
            #expect(id.lowercasedText == id.uuidString.lowercased())
        }
    }

    @Test func readsEitherCaseBack() {
        for _ in 0..<1000 {
            let id = UUID()
            #expect(UUID(text: id.lowercasedText) == id)
            #expect(UUID(text: id.uuidString) == id)
        }
    }

    @Test("refuses anything but the hyphenated form", arguments: [
        "", "0b9c2a4e3f1d4a519a8e5f7c1d2e3a40", "0b9c2a4e-3f1d-4a51-9a8e-5f7c1d2e3a4", "0b9c2a4e-3f1d-4a51-9a8e-5f7c1d2e3a400",
        "0b9c2a4e-3f1d-4a51-9a8e_5f7c1d2e3a40", "0b9c2a4e-3f1d-4a51-9a8e-5f7c1d2e3a4g", "{0b9c2a4e-3f1d-4a51-9a8e-5f7c1d2e3a40}",
        "0b9c2a4e-3f1d-4a51-9a8e-5f7c1d2e3a4é",
    ])
    func malformed(text: String) {
        #expect(UUID(text: text) == nil)
    }
}
