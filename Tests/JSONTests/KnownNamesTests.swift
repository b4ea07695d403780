import Foundation
import Testing
@testable import JSON

/// Known names change what the parser makes a name from, never what it reads: the same values, canonical bytes and
/// errors as without them.
@Suite struct KnownNamesTests {
    private static let known = KnownNames(["a", "b", "abcdefgh", "abcdefgh1", "abcdefghij", "é", "eventId", "fix", "horizontalAccuracy"])

    @Test func aNameIsFoundByItsBytesOnly() {
        func lookUp(_ text: String) -> String? {
            let bytes = Array(text.utf8)
            return bytes.withUnsafeBufferPointer { Self.known.name($0, head: JSONObject.head($0)) }
        }
        for name in ["a", "abcdefgh", "abcdefgh1", "abcdefghij", "é", "horizontalAccuracy"] {
            #expect(lookUp(name) == name)
        }
        for other in ["", "c", "ab", "abcdefg", "abcdefgh2", "abcdefghi", "abcdefghijk", "e", "horizontalAccuracZ", "horizontalAccurac"] {
            #expect(lookUp(other) == nil, "\(other)")
        }
    }

    /// Many names, so that slots are shared and probed past.
    @Test func everyOneOfManyNamesIsFound() {
        let names = (0..<300).map { "member\($0)" } + (0..<300).map { "m\($0)" }
        let known = KnownNames(names)
        for name in names {
            let bytes = Array(name.utf8)
            #expect(bytes.withUnsafeBufferPointer { known.name($0, head: JSONObject.head($0)) } == name)
        }
        #expect(Array("member300".utf8).withUnsafeBufferPointer { known.name($0, head: JSONObject.head($0)) } == nil)
    }

    @Test(arguments: [
        #"{"eventId":"x","fix":{"horizontalAccuracy":5,"a":1,"b":[{"b":2,"a":3}]},"abcdefgh1":0,"abcdefgh":1,"abcdefghij":2}"#,
        #"{"b":1,"a":2,"abcdefgh2":3,"abcdefghi":4,"c":5,"":6}"#,
        #"{"\u0062":1,"a":2}"#, #"{"a\"":1,"a":2}"#, #"{"é":1,"e":2,"\u00e9x":3}"#,
        #"{"a":1,"b":2,"a":3}"#, #"{"a":1,"\u0061":2}"#, #"{"fix":{"a":1,"a":2}}"#,
        "{\"a\u{1}\":1}", #"{"a"#, #"{"abcdefgh"#, #"{"a":1,"b"}"#, #"{"a\x":1}"#,
    ])
    func knownNamesReadTheSameAsOthers(_ text: String) {
        let data = Data(text.utf8)
        let plain = Result { try JSONValue.parsingCanonical(data) }
        let named = Result { try JSONValue.parsingCanonical(data, knownNames: Self.known) }
        switch (plain, named) {
        case (.success(let value), .success(let read)):
            #expect(read.value == value.value)
            #expect(read.canonical == value.canonical)
            #expect(Array(read.value.objectValue?.keys ?? []) == Array(value.value.objectValue?.keys ?? []))
        case (.failure(let error), .failure(let other)):
            #expect("\(other)" == "\(error)")
        default:
            Issue.record("\(text): parsing gave \(plain), with known names \(named)")
        }
        let parsed = Result { try JSONValue(parsing: data, knownNames: Self.known) }
        #expect(String(describing: parsed) == String(describing: plain.map(\.value)))
    }
}
