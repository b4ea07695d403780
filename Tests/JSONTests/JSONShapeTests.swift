import Foundation
import Testing
@testable import JSON

@Suite struct JSONShapeTests {
    static func read(_ text: String, _ paths: [[String]]) throws -> [JSONValue?] {
        try Array(text.utf8).withUnsafeBufferPointer { try JSONShape(paths: paths).read($0) }
    }

    @Test func readsTheValuesAtThePathsInTheirOrderAndNilWhereThereIsNone() throws {
        let values = try Self.read(
            #"{"z": [1, {"q": "r"}], "a": "x", "fix": {"lat": 1.5, "lon": 2, "deep": {"k": [true]}}, "all": {"p": [null]}}"#,
            [["fix", "lat"], ["a"], ["all"], ["fix", "deep", "k"], ["missing"], ["fix", "nothing"], ["a", "below"]])
        #expect(values == [
            .number(1.5), .string("x"), .object(["p": .array([.null])]), .array([.bool(true)]), nil, nil, nil,
        ])
    }

    @Test func aPathOthersGoOnFromTellsItsPresence() throws {
        let paths = [["fix"], ["fix", "lat"]]
        #expect(try Self.read(#"{"fix": {"lon": 2}}"#, paths) == [.object([:]), nil])
        #expect(try Self.read(#"{"fix": null}"#, paths) == [.null, nil])
        #expect(try Self.read(#"{"other": {"lat": 1}}"#, paths) == [nil, nil])
    }

    @Test func aNameWrittenWithEscapesIsStillTheSameName() throws {
        #expect(try Self.read(#"{"\u0061": 1, "caf\u00e9": 2, "b\"": 3}"#, [["a"], ["café"]]) == [.number(1), .number(2)])
    }

    @Test func theLastOfARepeatedNameWins() throws {
        #expect(try Self.read(#"{"a": 1, "a": 2}"#, [["a"]]) == [.number(2)])
    }

    @Test func aDocumentThatIsNotAnObjectHasNoneOfTheValues() throws {
        #expect(try Self.read("[1, 2]", [["a"]]) == [nil])
    }

    @Test(arguments: [
        #"{"skipped": [1, }"#, "{\"skipped\": \"a raw tab:\t\"}", #"{"skipped": "\q"}"#, #"{"skipped": tru}"#,
        #"{"skipped": 01x}"#, #"{"skipped": 1.}"#, #"{"skipped": -}"#, #"{"skipped": {"k" 1}}"#, #"{"a": 1} trailing"#,
        #"{"skipped": "\ud800"}"#, #"{"a": {"b": 1,}}"#,
    ])
    func whatIsSkippedIsStillCheckedAsJSON(text: String) {
        #expect(throws: JSONValueError.self) { try Self.read(text, [["a", "b"]]) }
    }

    @Test func skippingIsBoundedByTheNestingLimit() {
        let deep = #"{"skipped": "# + String(repeating: "[", count: JSONParser.maximumDepth + 1) + "]}"
        #expect(throws: JSONValueError.self) { try Self.read(deep, [["a"]]) }
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

    /// The writer starts with room for a few bytes: its buffer grows, and moves, while nested objects are written.
    @Test func objectsNestedAndListedGiveTheSameBytesHoweverTheBufferGrows() {
        var writer = CanonicalObjectWriter(capacity: 1)
        writer.number("big", -9_007_199_254_740_991)
        writer.objects("list", count: 30) { members, index in
            members.string("escaped", "line \(index)\n\u{01}")
            members.object("inner") { inner in
                inner.number("n", Double(index) * -1.5)
                inner.strings("words", Array(repeating: "上海市黄浦区", count: index))
            }
        }
        writer.bool("z", true)
        let written = writer.finish()
        let same = JSONValue.object([
            "big": .number(-9_007_199_254_740_991), "z": .bool(true),
            "list": .array((0..<30).map { index in
                .object([
                    "escaped": .string("line \(index)\n\u{01}"),
                    "inner": .object([
                        "n": .number(Double(index) * -1.5),
                        "words": .array(Array(repeating: .string("上海市黄浦区"), count: index)),
                    ]),
                ])
            }),
        ])
        #expect(written == Array(same.canonicalData()))
    }

    /// Objects written one after another into one room kept for them: each gives the bytes of its own, as the
    /// writer's own buffer gives them, whether the one before was longer or shorter.
    @Test func objectsWrittenIntoTheSameRoomGiveTheirOwnBytes() {
        var room = CanonicalBytes(capacity: 1)
        for count in [40, 0, 3, 200, 1, 0, 17] {
            let write = { (writer: inout CanonicalObjectWriter) in
                writer.strings("words", Array(repeating: "上海市黄浦区", count: count))
                writer.object("z") { $0.number("n", Double(count) / 3) }
            }
            CanonicalObjectWriter.write(into: &room, write)
            var own = CanonicalObjectWriter()
            write(&own)
            let ownBytes = own.finish()
            #expect(Array(room.bytes) == ownBytes, "\(count) words")
        }
    }

    /// Whether a string is written as it is or escaped is decided eight bytes at a time: a character to escape at
    /// any place, in a whole word or in the bytes after the last one, is found, and written escaped.
    @Test(arguments: [
        ("", ""), ("\"", "\\\""), ("\\", "\\\\"), ("\n", "\\n"), ("\u{1F}", "\\u001f"), ("\u{7F}", "\u{7F}"), ("é", "é"),
    ])
    func aCharacterToEscapeIsFoundAtAnyPlace(special: String, written: String) {
        for length in 0..<20 {
            for place in 0...length {
                let (before, after) = (String(repeating: "a", count: place), String(repeating: "b", count: length - place))
                let value = before + special + after
                let plain = !value.utf8.contains { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }
                #expect(Array(value.utf8).withUnsafeBufferPointer(JSONValue.needsNoEscape) == plain, "\(value.debugDescription)")
                var writer = CanonicalObjectWriter()
                writer.string("s", value)
                #expect(writer.finish() == Array("{\"s\":\"\(before)\(written)\(after)\"}".utf8), "\(value.debugDescription)")
            }
        }
    }
}
