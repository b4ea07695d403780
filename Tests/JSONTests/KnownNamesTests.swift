import Foundation
import Testing
@testable import JSON

/// Known names are found by their bytes alone, each at its place among the names given.
@Suite struct KnownNamesTests {
    private static let given = ["a", "b", "abcdefgh", "abcdefgh1", "abcdefghij", "é", "eventId", "fix", "horizontalAccuracy"]
    private static let known = KnownNames(given)

    private static func place(_ text: String, in known: KnownNames = known) -> Int? {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBufferPointer { known.place(of: $0, head: JSONObject.head($0)) }
    }

    @Test func aNameIsFoundByItsBytesOnly() {
        for name in ["a", "abcdefgh", "abcdefgh1", "abcdefghij", "é", "horizontalAccuracy"] {
            #expect(Self.place(name) == Self.given.firstIndex(of: name))
        }
        for other in ["", "c", "ab", "abcdefg", "abcdefgh2", "abcdefghi", "abcdefghijk", "e", "horizontalAccuracZ", "horizontalAccurac"] {
            #expect(Self.place(other) == nil, "\(other)")
        }
    }

    /// Many names, so that slots are shared and probed past; a name given twice keeps its first place.
    @Test func everyOneOfManyNamesIsFound() {
        let names = (0..<300).map { "member\($0)" } + (0..<300).map { "m\($0)" }
        let known = KnownNames(names + ["member7"])
        for (place, name) in names.enumerated() {
            #expect(Self.place(name, in: known) == place)
        }
        #expect(Self.place("member300", in: known) == nil)
    }
}
