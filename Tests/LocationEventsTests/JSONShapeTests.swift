import Foundation
import Testing
@testable import LocationEvents

@Suite struct JSONShapeTests {
    static func parse(_ text: String, keeping shape: JSONShape) throws -> JSONValue {
        try Array(text.utf8).withUnsafeBufferPointer { try JSONValue(parsing: $0, keeping: shape) }
    }

    @Test func onlyTheNamedMembersAreBuiltAndANilShapeKeepsTheWholeValue() throws {
        let shape = JSONShape(["a": nil, "fix": JSONShape(["lat": nil]), "all": nil])
        let value = try Self.parse(
            #"{"z": [1, {"q": "r"}], "a": "x", "fix": {"lat": 1.5, "lon": 2, "deep": {"k": [true]}}, "all": {"p": [null]}}"#,
            keeping: shape)
        #expect(value == JSONValue.object([
            "a": .string("x"), "fix": .object(["lat": .number(1.5)]), "all": .object(["p": .array([.null])]),
        ]))
    }

    @Test func aNameWrittenWithEscapesIsStillTheSameName() throws {
        let value = try Self.parse(#"{"\u0061": 1, "caf\u00e9": 2, "b\"": 3}"#, keeping: JSONShape(["a": nil, "café": nil]))
        #expect(value == JSONValue.object(["a": .number(1), "café": .number(2)]))
    }

    @Test func theLastOfARepeatedWantedNameWins() throws {
        #expect(try Self.parse(#"{"a": 1, "a": 2}"#, keeping: JSONShape(["a": nil])) == JSONValue.object(["a": .number(2)]))
    }

    @Test(arguments: [
        #"{"skipped": [1, }"#, "{\"skipped\": \"a raw tab:\t\"}", #"{"skipped": "\q"}"#, #"{"skipped": tru}"#,
        #"{"skipped": 01x}"#, #"{"skipped": {"k" 1}}"#, #"{"a": 1} trailing"#, #"{"skipped": "\ud800"}"#,
    ])
    func whatIsSkippedIsStillCheckedAsJSON(text: String) {
        #expect(throws: JSONValueError.self) { try Self.parse(text, keeping: JSONShape(["a": nil])) }
    }

    @Test func skippingIsBoundedByTheNestingLimit() {
        let deep = #"{"skipped": "# + String(repeating: "[", count: JSONParser.maximumDepth + 1) + "]}"
        #expect(throws: JSONValueError.self) { try Self.parse(deep, keeping: JSONShape(["a": nil])) }
    }
}

@Suite struct CanonicalObjectWriterTests {
    @Test func writesTheBytesOfTheSameObjectMadeCanonical() {
        var writer = CanonicalObjectWriter()
        writer.string("a", "tab\t \"quoted\" é 上")
        writer.string("absent", ifPresent: nil)
        writer.bool("b", false)
        writer.strings("flags", ["x", "y\n"])
        writer.number("n", 3)
        writer.object("o") { inner in
            inner.number("fraction", 0.1)
            inner.number("negativeZero", -0.0)
            inner.number("tiny", 1e-7)
        }
        writer.string("z", ifPresent: "last")
        let written = writer.finish()
        let same = JSONValue.object([
            "z": .string("last"), "o": .object(["tiny": .number(1e-7), "negativeZero": .number(-0.0), "fraction": .number(0.1)]),
            "n": .number(3), "flags": .array([.string("x"), .string("y\n")]), "b": .bool(false),
            "a": .string("tab\t \"quoted\" é 上"),
        ])
        #expect(written == Array(same.canonicalData()))
    }
}
