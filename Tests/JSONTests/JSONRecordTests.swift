import Foundation
import Testing
@testable import JSON

/// A document read as a ``JSONRecord``, against a format of its own members: the canonical bytes written from the
/// record's spans are those of the parsed value made canonical, and reading a record takes and refuses the same texts
/// as parsing, with the same errors.
@Suite struct JSONRecordTests {
    /// A format whose objects are those of `value`: each object a member holds directly is a kind of its own.
    static func format(for value: JSONValue) -> JSONRecordFormat {
        var objects: [[(name: String, object: Int?)]] = [[]]
        func add(_ object: JSONObject, as kind: Int) {
            var members: [(name: String, object: Int?)] = []
            for member in object.members {
                if case .object(let inner) = member.value {
                    objects.append([])
                    let child = objects.count - 1
                    add(inner, as: child)
                    members.append((member.key, child))
                } else {
                    members.append((member.key, nil))
                }
            }
            objects[kind] = members
        }
        if case .object(let object) = value { add(object, as: 0) }
        return JSONRecordFormat(objects: objects)
    }

    /// Formats for texts that are not JSON: one naming nothing, one naming a few members at two levels.
    static let fixedFormats = [
        JSONRecordFormat(objects: [[]]),
        JSONRecordFormat(objects: [[("a", nil), ("b", 1), ("fix", nil)], [("x", nil), ("c", nil), ("a", nil)]]),
    ]

    private func expectSame(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let data = Data(text.utf8)
        let plain = Result { try JSONValue(parsing: data) }
        let formats = (try? plain.get()).map { [Self.format(for: $0)] } ?? Self.fixedFormats
        for format in formats {
            format.withRecord(of: data) { read in
                switch (plain, read) {
                case (.success(let value), .success(let record)):
                    if case .object = value {
                        #expect(record.documentKind == .object, "kind of \(text)", sourceLocation: sourceLocation)
                        #expect(Data(record.canonicalBytes()) == value.canonicalData(), "bytes of \(text)", sourceLocation: sourceLocation)
                        #expect(record.unknownMembers.isEmpty, "unknown members of \(text)", sourceLocation: sourceLocation)
                    } else {
                        #expect(record.documentKind.typeName == value.typeName, "kind of \(text)", sourceLocation: sourceLocation)
                    }
                case (.failure(let error), .failure(let other)):
                    #expect("\(other)" == "\(error)", "error of \(text)", sourceLocation: sourceLocation)
                default:
                    Issue.record("\(text): parsing gave \(plain), reading a record \(read)", sourceLocation: sourceLocation)
                }
            }
        }
    }

    @Test func membersChangedOrLeftOut() {
        let format = JSONRecordFormat(objects: [[("eventId", nil), ("b", nil), ("a", nil), ("expectedVersion", nil)]])
        let text = #"{"b": [1, {"y": 2, "x": 1.5}], "eventId": "ABC", "a": "\\", "expectedVersion": 3}"#
        format.withRecord(of: Data(text.utf8)) { read in
            guard case .success(let record) = read else { Issue.record("\(read)"); return }
            let changed = record.canonicalBytes(changing: [(member: 3, value: nil), (member: 0, value: "abc")])
            #expect(String(decoding: changed, as: UTF8.self) == #"{"a":"\\","b":[1,{"x":1.5,"y":2}],"eventId":"abc"}"#)
        }
    }

    @Test("a number that came canonical is kept with its text, and written again for its value alone", arguments: [
        ("31.230416", true), ("121.4737", true), ("18", true), ("0.001", true), ("-0.5", true),
        ("1.0", false), ("1e5", false), ("0.0001", false), ("31.2304160", false), ("123456789012345678", false),
    ])
    func canonicalNumbers(text: String, kept: Bool) throws {
        let format = JSONRecordFormat(objects: [[("n", nil)]])
        try format.withRecord(of: Data(#"{"n":\#(text)}"#.utf8)) { read in
            let record = try read.get()
            let number = record.canonicalNumber(record[0, 0])
            #expect((number != nil) == kept, "\(text)")
            guard let number else { return }
            var same = CanonicalObjectWriter()
            same.number("a", number.value, given: number)
            same.number("b", number.value + 1, given: number)
            var plain = CanonicalObjectWriter()
            plain.number("a", number.value)
            plain.number("b", number.value + 1)
            let (given, formatted) = (same.finish(), plain.finish())
            #expect(given == formatted)
            #expect(JSONValue.canonicalNumber(number.value) == text)
        }
    }

    @Test func membersTheFormatDoesNotNameAreKeptByNameInInputOrder() {
        let format = JSONRecordFormat(objects: [[("a", 1)], [("x", nil)]])
        let text = #"{"z":1,"a":{"y":[1,{"q":2}],"x":2},"b":null}"#
        format.withRecord(of: Data(text.utf8)) { read in
            guard case .success(let record) = read else { Issue.record("\(read)"); return }
            #expect(record.unknownMembers.map { "\($0.object) \($0.name)" } == ["0 z", "1 y", "0 b"])
            #expect(String(decoding: record.canonicalBytes(), as: UTF8.self) == #"{"a":{"x":2}}"#)
            #expect(record[1, 0].kind == .number && record[1, 0].number == 2)
        }
    }

    @Test("a member named twice is refused once its object is read, naming the first name given again", arguments: [
        (#"{"a":1,"b":{"x":1},"a":2,"b":3}"#, "a"), (#"{"z":1,"b":{"c":1,"c":2},"z":2}"#, "b.c"),
        (#"{"q":1,"a":1,"q":[{"r":1,"r":2}]}"#, "q[0].r"), (#"{"b":{"x":{"r":1,"r":2}}}"#, "b.x.r"),
        (#"{"a":1,"\u0061":2}"#, "a"),
    ])
    func duplicates(text: String, path: String) {
        Self.fixedFormats[1].withRecord(of: Data(text.utf8)) { read in
            guard case .failure(let error) = read else { Issue.record("\(read)"); return }
            #expect(error == .duplicateKey(path: path))
        }
        #expect(throws: JSONValueError.duplicateKey(path: path)) { try JSONValue(parsing: Data(text.utf8)) }
    }

    @Test(arguments: [
        #"{"type":"TerminalLocated","eventId":"5914E6AF-23CC-4A04-B656-0393762ECF9F","terminalId":"T1","expectedVersion":3,"fix":{"lat":31.286588,"lon":120.607367,"datum":"gcj02","horizontalAccuracy":33.8,"provider":"amap","capturedAt":"2026-05-22T05:32:50+08:00","address":{"country":"中国","province":"江苏省","poiName":"同心餐厅","adcode":"320508"},"claimedInRegion":true},"actor":{"app":"terminal-agent","os":"Android 10.0"}}"#,
        #"  { "b" : [ 1 , 2.50 , -0.0 , 1e2 , 1E-7 , 123456789012345678901234 , 0.1e1 ] , "a" : { } , "c" : [ ] , "d" : null , "e" : true , "f" : false }  "#,
        #"{"z":{"y":{"x":{"w":[{"b":1,"a":2},{"d":[{"f":0,"e":1}],"c":"s"}]}}},"a":"\u00e9\n\t\"\\\/\u0001\ud83d\ude00"}"#,
        #"{"\u0062":1,"a":2}"#,
        #"{"b\u00e9":1,"bé2":2,"a\"":3}"#,
        #"{"é":1,"e":2,"ü":3,"😀":4,"ﬀ":5}"#,
        #"{"abcdefgh2":1,"abcdefgh1":2,"abcdefgh":3,"abcdefg":4}"#,
        #"["x", {"b":1,"a":2}, "y\u0020z"]"#,
        "\"plain\"", "12", "-1.5e300", "null", "[]", "{}", "[{}]", #"{"a":[]}"#,
    ])
    func documentsGiveTheBytesOfTheirValue(_ text: String) {
        expectSame(text)
    }

    @Test func anObjectOfMoreMembersThanAreSortedInPlaceGivesTheBytesOfItsValue() {
        let members = (0..<40).reversed().map { #""m\#($0)":{"b":\#($0),"a":[\#($0),"\#($0)"]}"# }
        expectSame("{" + members.joined(separator: ",") + "}")
    }

    /// Exponents written out make the canonical bytes many times longer than the text: the buffer they are written
    /// to grows.
    @Test func canonicalBytesLongerThanTheTextGiveTheBytesOfTheirValue() {
        let long = "[" + Array(repeating: "1e9", count: 2_000).joined(separator: ",") + "]"
        expectSame(#"{"b":\#(long),"a":1}"#)
        expectSame(#"[{"b":1,"a":2},{"b":\#(long),"a":1},{"d":\#(long),"c":{"f":\#(long),"e":0}}]"#)
        expectSame(#"[{"b":1,"a":2},{"b":\#(long),"a":1,"a":3}]"#)
    }

    @Test(arguments: [
        #"{"a":1,"b":2,"a":3}"#, #"{"b":{"x":1,"x":2},"a":0}"#, #"[{"a":1},{"b":[{"c":1,"c":2}]}]"#, #"{"\u0061":1,"a":2}"#,
        #"{"a":1"#, #"{"a" 1}"#, #"[1,]"#, #"{"a":"\ud800"}"#, #"{"a":1e400}"#, #"{"a":tru}"#, "", "[1] x",
    ])
    func malformedTextsAreRefusedWithTheSameError(_ text: String) {
        expectSame(text)
    }

    /// Random documents: objects whose names come in any order, escaped or not, ASCII or not; strings with escapes;
    /// numbers in every spelling; nesting.
    @Test func randomDocumentsGiveTheBytesOfTheirValue() {
        var seeded = Seeded(state: 0x5EED)
        for _ in 0..<2_000 {
            expectSame(Self.document(depth: 0, &seeded))
        }
    }

    /// One room for the canonical bytes of many documents, one after another, as a batch keeps it for its events:
    /// each document's bytes are its own, whether the one before was longer or shorter, and once the room has grown.
    @Test func documentsWrittenOneAfterAnotherIntoTheSameRoomGiveTheirOwnBytes() throws {
        var seeded = Seeded(state: 0x2E05E)
        var room = CanonicalBytes(capacity: 1)
        var lengths = Set<Int>()
        for _ in 0..<2_000 {
            let data = Data(Self.document(depth: 0, &seeded).utf8)
            guard case .object = try? JSONValue(parsing: data), let value = try? JSONValue(parsing: data) else { continue }
            try Self.format(for: value).withRecord(of: data) { read in
                let record = try read.get()
                record.writeCanonical(into: &room)
                #expect(Array(room.bytes) == record.canonicalBytes())
                #expect(Data(room.bytes) == value.canonicalData())
                lengths.insert(room.bytes.count)
            }
        }
        #expect(lengths.count > 100, "documents of \(lengths.count) lengths")
    }

    /// Numbers in every spelling JSON allows: integers and decimals of 1 to 20 digits, with leading zeros after the
    /// point, trailing zeros, exponents, signs; those whose text is written as it came and those whose value is
    /// formatted again.
    @Test func randomNumbersGiveTheBytesOfTheirValue() {
        var random = Seeded(state: 0x4E_554D)
        var asRead = 0
        for _ in 0..<20_000 {
            let text = Self.number(&random)
            expectSame(text)
            expectSame("{\"n\":\(text)}")
            if text.utf8.withContiguousStorageIfAvailable({ JSONParser.isCanonical(number: $0) }) == true { asRead += 1 }
        }
        #expect(asRead > 5_000, "numbers written as they came: \(asRead)")
    }

    @Test(arguments: [
        ("0", true), ("-0", false), ("7", true), ("-12", true), ("123456789012345", true), ("1234567890123456", false),
        ("0.5", true), ("-0.5", true), ("0.50", false), ("1.0", false), ("0.001", true), ("0.0001", false), ("0.00123", true),
        ("12345678901234.5", true), ("123456789012345.5", false), ("0.123456789012345", true), ("0.1234567890123456", false),
        ("0.00123456789012345", true), ("1e2", false), ("1.5E3", false), ("31.286588", true), ("120.607367", true),
        ("100000000000000", true), ("-100000000000000", true), ("999999999999999", true), ("100000000000000.5", false),
        ("10000000000000.5", true), ("0.100000000000001", true), ("9007199254740993", false),
    ])
    func numbersWrittenAsTheyCame(_ text: String, _ asRead: Bool) throws {
        let verdict = text.utf8.withContiguousStorageIfAvailable { JSONParser.isCanonical(number: $0) }
        #expect(verdict == asRead)
        expectSame(text)
    }

    private static func number(_ random: inout Seeded) -> String {
        func digits(_ count: Int, nonZeroFirst: Bool) -> String {
            String((0..<count).map { index in
                Character(String(index == 0 && nonZeroFirst ? 1 + random.next() % 9 : random.next() % 10))
            })
        }
        var text = random.next() % 3 == 0 ? "-" : ""
        let integerDigits = Int(random.next() % 17)
        text += integerDigits == 0 ? "0" : digits(integerDigits, nonZeroFirst: true)
        if random.next() % 4 != 0 {
            text += "." + String(repeating: "0", count: Int(random.next() % 5)) + digits(1 + Int(random.next() % 17), nonZeroFirst: false)
        }
        if random.next() % 8 == 0 {
            text += ["e", "E", "e-", "e+"][Int(random.next() % 4)] + String(random.next() % 30)
        }
        return text
    }

    private struct Seeded: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    private static let names = ["a", "b", "eventId", "type", "fix", "lat", "lon", "é", "e\\u0301", "abcdefgh1", "abcdefgh", "\\u0061", "x y", "😀", "A", "Z"]
    private static let strings = ["", "s", "中国", "a\\\"b", "\\n", "\\u00e9", "\\ud83d\\ude00", "\\/", "plain text", "T00001173"]
    private static let numbers = ["0", "-0", "1", "-1", "33.8", "31.286588", "120.607367", "1e2", "1.5E-7", "2.50", "9007199254740993", "0.1", "-123.456e3", "1e21"]

    private static func document(depth: Int, _ random: inout Seeded) -> String {
        let space = ["", "", " ", "\n\t"][Int(random.next() % 4)]
        switch depth > 3 ? random.next() % 4 : random.next() % 7 {
        case 0: return numbers.randomElement(using: &random)!
        case 1: return "\"" + strings.randomElement(using: &random)! + "\""
        case 2: return ["true", "false", "null"].randomElement(using: &random)!
        case 3: return space + "\"" + strings.randomElement(using: &random)! + "\"" + space
        case 4:
            let count = Int(random.next() % 4)
            return "[" + (0..<count).map { _ in space + document(depth: depth + 1, &random) }.joined(separator: ",") + "]"
        default:
            let count = Int(random.next() % 9)
            var chosen: [String] = []
            for _ in 0..<count {
                let name = names.randomElement(using: &random)!
                if !chosen.contains(name) { chosen.append(name) }
            }
            let members = chosen.map { "\"\($0)\"" + space + ":" + space + document(depth: depth + 1, &random) }
            return "{" + space + members.joined(separator: "," + space) + "}"
        }
    }
}

/// The run of bytes a string holds as they are is found eight bytes at a time: it ends where it ends byte by byte.
@Suite struct PlainRunTests {
    /// Byte by byte: the first quote, backslash or control character from `start` on, and whether all before is ASCII.
    private static func expected(_ bytes: [UInt8], from start: Int) -> (end: Int, ascii: Bool) {
        var end = start
        while end < bytes.count, bytes[end] != UInt8(ascii: "\""), bytes[end] != UInt8(ascii: "\\"), bytes[end] >= 0x20 { end += 1 }
        return (end, bytes[start..<end].allSatisfy { $0 < 0x80 })
    }

    @Test func endsWhereItEndsByteByByte() {
        // Ordinary bytes around every kind of end, in every position of a word, and bytes just beside those that end a run.
        let alphabet: [UInt8] = [0x61, 0x7F, 0x80, 0xE4, 0xFF, 0x20, 0x21, 0x23, 0x5B, 0x5D, 0x1F, 0x00, 0x0A, 0x22, 0x5C, 0x01, 0xA2, 0xDC]
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        for _ in 0..<20_000 {
            let count = next(40)
            // Mostly ordinary bytes, so that runs are long.
            let bytes = (0..<count).map { _ in next(4) == 0 ? alphabet[next(alphabet.count)] : alphabet[next(5)] }
            let start = count == 0 ? 0 : next(count + 1)
            let found = bytes.withUnsafeBufferPointer { JSONParser.plainRun(in: $0, from: start) }
            let wanted = Self.expected(bytes, from: start)
            #expect(found.end == wanted.end && found.ascii == wanted.ascii, "\(bytes) from \(start)")
            if found.end != wanted.end || found.ascii != wanted.ascii { return }
        }
    }

    @Test("a control character is named at its byte, wherever it is in a string", arguments: 0..<20)
    func controlCharacterAtItsByte(offset: Int) {
        let text = "\"" + String(repeating: "a", count: offset) + "\u{01}" + String(repeating: "é", count: 10) + "\""
        #expect(throws: JSONValueError.malformed("control character in a string at byte \(offset + 1)")) {
            try JSONValue(parsing: Data(text.utf8))
        }
    }
}

extension JSONRecord {
    /// The canonical bytes of the object of kind `object`, written into room of their own, which starts small and
    /// grows.
    func canonicalBytes(of object: Int = 0, changing changes: [(member: Int, value: String?)] = []) -> [UInt8] {
        var bytes = CanonicalBytes(capacity: 1)
        writeCanonical(of: object, changing: changes, into: &bytes)
        return Array(bytes.bytes)
    }
}
