import Foundation
import Testing
@testable import JSON

@Suite struct JSONObjectTests {
    @Test func membersAreKeptInCodePointOrderWhateverOrderTheyCameIn() {
        let object = JSONObject(members: [("z", .null), ("上", .null), ("a", .null), ("Z", .null), ("aa", .null), ("é", .null)])
        #expect(object.keys == ["Z", "a", "aa", "z", "é", "上"])
        #expect(object == JSONObject(members: object.keys.reversed().map { ($0, JSONValue.null) }))
    }

    @Test func theLastOfARepeatedNameWinsWhereverItSits() {
        let object = JSONObject(members: [("b", .number(1)), ("a", .number(1)), ("b", .number(2)), ("a", .number(2)), ("b", .number(3))])
        #expect(object.keys == ["a", "b"])
        #expect(object["a"] == .number(2) && object["b"] == .number(3))
        #expect(JSONObject(members: [("a", .number(1)), ("a", .number(2))])["a"] == .number(2))
        // Large objects are sorted another way: the same rule holds.
        let many = (0..<300).map { ("k\($0 % 100)", JSONValue.number(Double($0))) }
        let large = JSONObject(members: many)
        #expect(large.count == 100 && large["k7"] == .number(207) && large["k99"] == .number(299))
    }

    @Test func settingInsertsReplacesAndRemoves() {
        var object: JSONObject = ["m": .number(1)]
        object["a"] = .string("x")
        object["z"] = .bool(true)
        object["m"] = .number(2)
        #expect(object.keys == ["a", "m", "z"] && object["m"] == .number(2))
        #expect(object.removeValue(forKey: "a") == .string("x"))
        object["z"] = nil
        object["absent"] = nil
        #expect(object.keys == ["m"] && object.count == 1 && object["a"] == nil)
    }

    @Test func lookupFindsEveryMemberOfALargeObject() {
        let names = (0..<1000).map { "k\($0 * 7919 % 1000)" }
        let object = JSONObject(members: names.map { ($0, JSONValue.string($0)) })
        #expect(object.count == 1000)
        #expect(names.allSatisfy { object[$0] == .string($0) })
        #expect(object["k1000"] == nil && object[""] == nil)
    }

    @Test("names alike in their first 8 bytes, or one the start of another, are each found and kept in byte order")
    func lookupTellsApartNamesThatBeginAlike() throws {
        let names = [
            "accuracy", "accuracyAuthorization", "accuracyA", "accurac", "a", "", "a\u{0}", "a\u{0}b", "abcdefgh", "abcdefgi",
            "abcdefgh\u{0}", "上海市黄浦区", "上海市黄浦", "é",
        ]
        let built = JSONObject(members: names.map { ($0, JSONValue.string($0)) })
        #expect(built.keys == names.sorted(by: JSONObject.precedes))
        #expect(names.allSatisfy { built[$0] == .string($0) })
        #expect(built["accuracyB"] == nil && built["abcdefg"] == nil && built["上海"] == nil)
        // Parsed names without escapes come in with the heads the parser read; the same members are found.
        let parsed = names.filter { !$0.contains("\u{0}") }
        let text = "{" + parsed.reversed().map { "\(JSONValue.quoted($0)):\(JSONValue.quoted($0))" }.joined(separator: ",") + "}"
        let object = try #require(try JSONValue(parsing: Data(text.utf8)).objectValue)
        #expect(object.keys == parsed.sorted(by: JSONObject.precedes))
        #expect(parsed.allSatisfy { object[$0] == .string($0) })
        #expect(object["accuracyB"] == nil && object["abcdefg"] == nil)
        // Inserting and removing keeps every other name found.
        var changed = built
        changed["accuracyAuthorizatio"] = .null
        changed["accuracyA"] = nil
        #expect(changed["accuracyAuthorizatio"] == .null && changed["accuracyA"] == nil)
        #expect(names.filter { $0 != "accuracyA" }.allSatisfy { changed[$0] == .string($0) })
    }

    @Test("a parsed name spelt with escapes is found by its own bytes, and equals the same object built in code")
    func escapedNamesAreFoundAsTheNamesTheySpell() throws {
        // Escapes early and late in the name, in an object of a few members and in one past the insertion limit.
        let text = #"{"\u0062ravo":1,"abcdefg\u0068ij":2,"\u00e9":3,"a":4,"street\u004eumber":5}"#
        let names = ["bravo", "abcdefghij", "é", "a", "streetNumber"]
        let large = "{" + (0..<40).map { #""k\u0030\#($0)":\#($0)"# }.joined(separator: ",") + "}"
        for (text, names) in [(text, names), (large, (0..<40).map { "k0\($0)" })] {
            let object = try #require(try JSONValue(parsing: Data(text.utf8)).objectValue)
            #expect(names.allSatisfy { object[$0] != nil }, "\(text)")
            #expect(object == JSONObject(members: object.map { ($0.key, $0.value) }))
        }
    }

    @Test("a name's head is its first 8 bytes, big-endian, zeros after a shorter name; heads that differ order their names")
    func headsAreTheFirstEightBytes() {
        let names = ["", "a", "ab", "abcdefg", "abcdefgh", "abcdefghi", "accuracyAuthorization", "é", "上海", "上海市黄浦区", "zzzzzzzz", "\u{7F}\u{80}"]
        for name in names {
            let bytes = Array(name.utf8)
            var expected: UInt64 = 0
            for index in 0..<8 { expected = expected << 8 | UInt64(index < bytes.count ? bytes[index] : 0) }
            #expect(JSONObject.head(name) == expected, "\(name)")
            #expect(bytes.withUnsafeBufferPointer { JSONObject.head($0) } == expected, "\(name)")
        }
        for left in names {
            for right in names where JSONObject.head(left) != JSONObject.head(right) {
                #expect((JSONObject.head(left) < JSONObject.head(right)) == JSONObject.precedes(left, right), "\(left) \(right)")
            }
        }
    }

    @Test func iterationFollowsTheNames() {
        let object: JSONObject = ["b": .number(2), "a": .number(1)]
        #expect(object.map(\.key) == ["a", "b"] && object.map(\.value) == [.number(1), .number(2)])
    }
}
