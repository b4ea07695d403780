import Foundation
import Testing
@testable import JSON

@Suite struct JSONValueTests {
    private func parse(_ text: String) throws -> JSONValue {
        try JSONValue(parsing: Data(text.utf8))
    }

    @Test func booleansAreNotNumbersAndNumbersAreNotBooleans() throws {
        let value = try parse(#"{"t":true,"f":false,"one":1,"zero":0,"half":0.5}"#)
        #expect(value["t"] == .bool(true))
        #expect(value["f"] == .bool(false))
        #expect(value["one"] == .number(1))
        #expect(value["zero"] == .number(0))
        #expect(value["half"] == .number(0.5))
    }

    @Test func parsesEveryType() throws {
        let value = try parse(#"[null, "s", [1], {"a": {}}]"#)
        #expect(value == .array([.null, .string("s"), .array([.number(1)]), .object(["a": .object([:])])]))
        #expect(try parse("42") == .number(42))
    }

    @Test func rejectsMalformedAndUnrepresentable() {
        #expect(throws: JSONValueError.self) { try parse("{") }
        #expect(throws: JSONValueError.self) { try parse("[NaN]") }
        #expect(throws: JSONValueError.self) { try parse("[1e400]") }
        #expect(throws: JSONValueError.self) { try parse("[1e-400]") }
        #expect(throws: JSONValueError.self) { try parse("[-0.000000000000000000001e-400]") }
        #expect(throws: JSONValueError.self) { try parse(#""\ud800""#) }
        #expect(throws: JSONValueError.self) { try JSONValue(parsing: Data([0x22, 0xFF, 0x22])) }
    }

    @Test func zeroAndTinyNumbersInAnySpellingAreRead() throws {
        #expect(try parse("[0e-400, -0.0e999, 0.000000000000000000000000, 1e-310]") == .array([.number(0), .number(-0.0), .number(0), .number(1e-310)]))
    }

    @Test func deepNestingIsAnErrorNotACrash() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(throws: JSONValueError.self) { try parse(deep) }
    }

    @Test func canonicalFormSortsKeysAndDropsWhitespace() throws {
        let value = try parse(#"{ "b" : 1, "a" : [ true, false, null ], "C": "x" }"#)
        #expect(value.canonicalString() == #"{"C":"x","a":[true,false,null],"b":1}"#)
    }

    @Test(arguments: [
        (1.0, "1"), (-0.0, "0"), (35.0, "35"), (31.2304, "31.2304"), (121.4737, "121.4737"),
        (0.1, "0.1"), (1e-7, "1e-07"), (-2.5, "-2.5"), (1e20, "1e+20"),
        (9_007_199_254_740_991.0, "9007199254740991"), (123456789.125, "123456789.125"),
        (-42.0, "-42"), (-9_007_199_254_740_991.0, "-9007199254740991"), (9_007_199_254_740_992.0, "9007199254740992"),
        (1e16, "1e+16"), (10.0, "10"), (1000000.0, "1000000"),
    ])
    func canonicalNumbers(value: Double, expected: String) {
        #expect(JSONValue.number(value).canonicalString() == expected)
        #expect(Double(expected) == value)
    }

    @Test("integers are written as String writes them", arguments: [0, 7, -7, 10, 1_234_567_890, Int64.max, Int64.min])
    func integers(value: Int64) {
        var bytes: [UInt8] = [UInt8(ascii: "x")]
        JSONValue.writeInteger(value, into: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == "x\(value)")
    }

    @Test func canonicalNumbersRoundTrip() throws {
        for value in [0.1 + 0.2, 1.0 / 3.0, 6378245.0, 0.00669342162296594323, Double.leastNonzeroMagnitude, 1.7976931348623157e308] {
            let text = JSONValue.number(value).canonicalString()
            #expect(Double(text) == value, "\(text)")
        }
    }

    /// A number's text is written on the stack; it is the value's `description` (without a trailing `.0`) for
    /// values of every magnitude and sign, the longest texts and the extremes included, and reads back the same.
    @Test func canonicalNumbersAreTheDescriptionOfTheirValue() {
        var state: UInt64 = 0x0DD_BA11
        var values: [Double] = [
            -2.2250738585072014e-308, Double.leastNonzeroMagnitude, -Double.leastNormalMagnitude, Double.greatestFiniteMagnitude,
            -1.7976931348623157e308, 9_007_199_254_740_992.0, 1e22, -123456789012345680000.0, 31.228234567890123, -0.0,
        ]
        for _ in 0..<100_000 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            let value = Double(bitPattern: state)
            if value.isFinite { values.append(value) }
            // Coordinates and accuracies, as the metadata writes them.
            values.append(Double(Int64(bitPattern: state) % 180_000_000_000_000) / 1e12)
        }
        for value in values {
            var expected = value.description
            if value == value.rounded(.towardZero) {
                if abs(value) < 9_007_199_254_740_992.0 { expected = String(Int64(value)) } else if expected.hasSuffix(".0") { expected.removeLast(2) }
            }
            let text = JSONValue.canonicalNumber(value)
            guard text != expected || Double(text) != value else { continue }
            Issue.record("\(value.bitPattern): \(text), expected \(expected)")
            return
        }
    }

    @Test func canonicalStringsEscapePerRFC8259AndKeepUTF8() {
        let value = JSONValue.string("上海市\"q\"\\ /\n\t\r\u{08}\u{0C}\u{01}\u{1F}é😀")
        let expected = "\"上海市\\\"q\\\"\\\\ /\\n\\t\\r\\b\\f\\u0001\\u001fé😀\""
        #expect(value.canonicalString() == expected)
        #expect(value.canonicalData() == Data(expected.utf8))
        #expect(JSONValue.quoted("上海市\"q\"\\ /\n\t\r\u{08}\u{0C}\u{01}\u{1F}é😀") == expected)
    }

    @Test func canonicalKeysSortByCodePoint() {
        let value = JSONValue.object(["é": .null, "z": .null, "Z": .null, "上": .null, "aa": .null, "a": .null])
        #expect(value.canonicalString() == #"{"Z":null,"a":null,"aa":null,"z":null,"é":null,"上":null}"#)
    }

    @Test func canonicalFormIsStableAcrossParses() throws {
        let a = try parse(#"{"fix":{"lat":31.2304,"lon":121.4737,"address":{"province":"上海市","city":"上海市"}},"type":"X"}"#)
        let b = try parse(#"{"type":"X","fix":{"address":{"city":"上海市","province":"上海市"},"lon":121.4737,"lat":31.2304}}"#)
        #expect(a.canonicalData() == b.canonicalData())
        #expect(try parse(a.canonicalString()) == a)
    }

    @Test func nonFiniteNumbersAreWrittenAsNull() {
        #expect(JSONValue.array([.number(.nan), .number(.infinity)]).canonicalString() == "[null,null]")
    }
}

@Suite("JSON parser edge cases")
struct JSONParserTests {
    private func parse(_ text: String) throws -> JSONValue {
        try JSONValue(parsing: Data(text.utf8))
    }

    @Test("numbers read exactly as Double(text) does", arguments: [
        "0", "-0", "1", "-1", "31.2304", "121.4737", "0.0000001", "1e-7", "1E+3", "123456789012345",
        "1234567890123456789", "12345678901234567890123", "0.1", "2.5e-324", "1.7976931348623157e308",
        "3.141592653589793238462643383279", "100000000000000000000000", "-35.50",
    ])
    func numbers(text: String) throws {
        #expect(try parse(text) == .number(Double(text)!))
    }

    @Test("malformed input is an error", arguments: [
        "", " ", "01", "1.", ".5", "-", "+1", "1e", "tru", "nul", "[1,]", "{\"a\":1,}", "{\"a\" 1}", "{a:1}",
        "[1 2]", "\"abc", "\"\\x\"", "\"\\u12\"", "\"a\u{01}b\"", "{} {}", "\"\\udc00\"", "\"\\ud800\\u0041\"", "\"a\\u0000b\"",
    ])
    func malformed(text: String) {
        #expect(throws: JSONValueError.self) { try parse(text) }
    }

    @Test func stringsWithEscapesAndUnicode() throws {
        #expect(try parse(#""a\"b\\c\/d\b\f\n\r\t""#) == .string("a\"b\\c/d\u{08}\u{0C}\n\r\t"))
        #expect(try parse(#""\u4e0a\u6d77 \ud83d\ude00""#) == .string("上海 😀"))
        #expect(try parse("\"上海市黄浦区\"") == .string("上海市黄浦区"))
    }

    @Test("bytes that are not UTF-8 in a string are refused where the string ends, also where U+FFFD would take their place byte for byte", arguments: [
        [0xFF], [0xC3, 0x28], [0xF0, 0x90, 0x80], [0xED, 0xA0, 0x80], [0xC0, 0x80], [0xE4, 0xB8], [0xF4, 0x90, 0x80, 0x80],
    ] as [[UInt8]])
    func invalidUTF8(sequence: [UInt8]) {
        let n = sequence.count
        let plain = Data(#""a"#.utf8) + Data(sequence) + Data(#"b""#.utf8)
        let escaped = Data(#""\ta"#.utf8) + Data(sequence) + Data(#"""#.utf8)
        for (data, at) in [(plain, n + 3), (escaped, n + 5), (Data(#"{"k":"#.utf8) + plain + Data("}".utf8), n + 8), (Data(#"{"a":"#.utf8) + plain + Data("}".utf8), n + 8)] {
            let error = JSONValueError.malformed("invalid UTF-8 in a string at byte \(at)")
            #expect(throws: error) { try JSONValue(parsing: data) }
            JSONRecordTests.fixedFormats[1].withRecord(of: data) { read in
                guard case .failure(let other) = read else { Issue.record("\(read)"); return }
                #expect(other == error)
            }
        }
    }

    @Test func validUTF8IsKeptAsItCame() throws {
        for text in ["a\u{FFFD}b", "😀", "上海市", "é", "\u{10FFFF}x", "a\u{7F}\u{80}\u{7FF}\u{800}\u{FFFF}\u{10000}"] {
            let data = Data(("\"" + text + "\"").utf8)
            #expect(try JSONValue(parsing: data) == .string(text))
            let record = Data(("{\"a\":\"" + text + "\"}").utf8)
            JSONRecordTests.fixedFormats[1].withRecord(of: record) { read in
                guard case .success(let read) = read else { Issue.record("\(read)"); return }
                #expect(Data(read.canonicalBytes()) == record)
            }
        }
    }

    @Test("an object naming a member twice is refused, naming its path (I-JSON, RFC 7493)", arguments: [
        (#"{"lat":91,"lat":31.2}"#, "lat"),
        (#"{"fix":{"lat":91,"lon":1,"lat":31.2}}"#, "fix.lat"),
        (#"{"fix":{"address":{"city":"a","city":"b"}}}"#, "fix.address.city"),
        (#"{"a":[1,{"b":1},{"c":1,"c":2}]}"#, "a[2].c"),
        (#"[[{"x":1,"x":1}]]"#, "[0][0].x"),
        ("{" + (0..<100).map { "\"k\($0)\":\($0)" }.joined(separator: ",") + ",\"k7\":0}", "k7"),
    ])
    func duplicateKeysAreRefused(text: String, path: String) {
        #expect(throws: JSONValueError.duplicateKey(path: path)) { try parse(text) }
    }

    @Test("of a name given more than once, the first repeat in input order is named, however the names are ordered", arguments: [
        (#"{"b":1,"a":1,"b":2,"a":2}"#, "b"),
        (#"{"c":1,"b":1,"a":1,"a":2,"b":2}"#, "a"),
        (#"{"a":1,"\u0061":2}"#, "a"),
        (#"{"fix":{"z":1,"y":1,"z":2}}"#, "fix.z"),
        (#"{"abcdefghij":1,"abcdefgh":1,"abcdefghij":2}"#, "abcdefghij"),
    ])
    func firstRepeatIsNamed(text: String, path: String) {
        #expect(throws: JSONValueError.duplicateKey(path: path)) { try parse(text) }
    }

    @Test func membersInAnyOrderAreSortedByCodePointWithEscapesDecoded() throws {
        let members: [(String, JSONValue)] = [("z", .number(1)), ("é", .number(2)), ("a", .number(3)), ("ab", .number(4)), ("", .number(5)), ("b", .number(6)), ("上海", .number(7))]
        let expected = JSONValue.object(JSONObject(members: members))
        #expect(try parse(#"{"z":1,"é":2,"a":3,"ab":4,"":5,"b":6,"上海":7}"#) == expected)
        #expect(try parse(#"{"\u007a":1,"\u00e9":2,"a":3,"a\u0062":4,"":5,"b":6,"\u4e0a海":7}"#) == expected)
        let object = try #require(try parse(#"{"b":1,"\u0061":2}"#).objectValue)
        #expect(object.keys == ["a", "b"])
        let long = try #require(try parse(#"{"streetNumber":1,"street":2,"abcdefghz":3,"abcdefgh":4,"abcdefgha":5}"#).objectValue)
        #expect(long.keys == ["abcdefgh", "abcdefgha", "abcdefghz", "street", "streetNumber"])
    }

    @Test("errors name the byte found where it does not belong, and where", arguments: [
        ("{\"a\":1]", "expected ',' or '}', found ']' at byte 6"),
        ("\u{FEFF}{}", "unexpected byte order mark (U+FEFF) at byte 0"),
        ("[1,\u{0}]", "unexpected NUL byte at byte 3"),
        ("{} x", "expected the end of the JSON value, found 'x' at byte 3"),
        ("[tru]", "unexpected ']' at byte 4"),
        ("{\"a\"", "expected ':', found end of input at byte 4"),
    ])
    func errorsNameTheByte(text: String, message: String) {
        #expect(throws: JSONValueError.malformed(message)) { try parse(text) }
    }

    @Test func whitespaceAroundEverything() throws {
        #expect(try parse(" \r\n\t{ \"a\" : [ 1 , true , null ] }\n") == .object(["a": .array([.number(1), .bool(true), .null])]))
    }
}
