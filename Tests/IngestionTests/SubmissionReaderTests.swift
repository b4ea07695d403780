import Foundation
import Ingestion
import JSON
import LocationEvents
import Testing

/// Reading NDJSON and JSON arrays item by item, across the reader's 1 MiB chunks.
@Suite("Reading submissions")
struct SubmissionReaderTests {
    static let chunk = 1 << 20

    func readAll(_ reader: SubmissionReader) -> [SubmissionReader.RawItem] {
        var reader = reader
        var items: [SubmissionReader.RawItem] = []
        while let item = reader.next() { items.append(item) }
        return items
    }

    func json(_ item: SubmissionReader.RawItem) -> JSONValue? {
        guard case .bytes(let bytes) = item.parsed else { return nil }
        return try? JSONValue(parsing: bytes)
    }

    func isMalformed(_ item: SubmissionReader.RawItem) -> Bool {
        refusal(item) != nil
    }

    /// The same bytes through a file, as the CLI reads them.
    func readFile(_ data: Data, maximumItemBytes: Int = SubmissionReader.defaultMaximumItemBytes) throws -> [SubmissionReader.RawItem] {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("reader-\(UUID()).json").path
        try data.write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { throw Unexpected("cannot open \(path)") }
        defer { close(descriptor) }
        return readBounded(SubmissionReader(fileDescriptor: descriptor, maximumItemBytes: maximumItemBytes), cap: 100_000)
    }

    @Test("NDJSON: blank lines and CRLF skipped, each item with the line it is on, a bad line reported by number")
    func ndjson() throws {
        let text = "{\"a\": 1}\r\n\r\n   \r\n{\"b\": \"x\\r\\n\"}\r\n\n{\"c\": [1, 2]\r\nnot json\r\n\t\r\n{\"d\": null}"
        for items in [readAll(SubmissionReader(data: Data(text.utf8))), try readFile(Data(text.utf8))] {
            #expect(items.map(\.line) == [1, 4, 6, 7, 9])
            #expect(json(items[0]) == .object(["a": 1]))
            #expect(json(items[1]) == .object(["b": "x\r\n"]))
            #expect(isMalformed(items[2]))  // the object is not closed on its line
            #expect(isMalformed(items[3]))
            #expect(json(items[4]) == .object(["d": .null]))
        }
    }

    @Test("through a pipe written a few bytes at a time, each read short: every item intact, however the reads cut it")
    func shortReads() throws {
        let lines = (0..<300).map { #"{"n":\#($0),"text":"\#(String(repeating: "路", count: $0 % 40))"}"# }
        let bytes = Array((lines.joined(separator: "\n") + "\n").utf8)
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw Unexpected("pipe failed") }
        let (reading, writing) = (ends[0], ends[1])
        let writer = Thread {
            var offset = 0
            while offset < bytes.count {
                let piece = min(37, bytes.count - offset)
                let written = bytes[offset...].withUnsafeBytes { write(writing, $0.baseAddress, piece) }
                guard written > 0 else { break }
                offset += written
                usleep(offset % 1000 < 37 ? 1000 : 0)
            }
            close(writing)
        }
        writer.start()
        defer { close(reading) }
        let items = readBounded(SubmissionReader(fileDescriptor: reading), cap: 1000)
        #expect(items.count == lines.count)
        for (item, line) in zip(items, lines) {
            #expect(json(item) == (try JSONValue(parsing: Data(line.utf8))), "line \(item.line)")
        }
    }

    /// An array of objects whose strings hold brackets, braces, commas, escaped quotes and backslashes, one
    /// element per line after `[`, more than two chunks long.
    static func trickyArray() -> (text: String, elements: [JSONValue]) {
        var lines: [String] = []
        var elements: [JSONValue] = []
        var size = 0
        var n = 0
        while size < 2 * chunk + 50_000 {
            let pad = String(repeating: "p", count: 500 + (n * 37) % 700)
            let tricky = "a,b]c[d{e}f\"g\\h\\\\\",]"
            let value = JSONValue.object(["n": .number(Double(n)), "pad": .string(pad), "s": .string(tricky), "list": [1, "]", ","]])
            let line = value.canonicalString()
            lines.append(line)
            elements.append(value)
            size += line.utf8.count + 2
            n += 1
        }
        return ("[\n" + lines.joined(separator: ",\n") + "\n]\n", elements)
    }

    static let array = trickyArray()

    /// Where in the text a chunk boundary should fall: right after the first occurrence of `pattern` past the
    /// first chunk's last 20 kB, with `offset` bytes of `pattern` before the boundary.
    struct Boundary: Sendable, CustomTestStringConvertible {
        let name: String
        let pattern: String
        let offset: Int
        var testDescription: String { name }
    }

    @Test("a JSON array split across 1 MiB chunks: every element intact, with its line", arguments: [
        Boundary(name: "inside an escaped quote", pattern: "\\\"", offset: 1),
        Boundary(name: "between an escaped backslash pair", pattern: "\\\\\\\\", offset: 1),
        Boundary(name: "after an escaped backslash, before the closing quote", pattern: "\\\\\\\\\"", offset: 4),
        Boundary(name: "before the comma between elements", pattern: "},\n{", offset: 1),
        Boundary(name: "after the comma between elements", pattern: "},\n{", offset: 2),
        Boundary(name: "before a bracket in a string", pattern: "]c[", offset: 0),
        Boundary(name: "inside a nested array", pattern: "[1,", offset: 1),
        Boundary(name: "anywhere (no shift)", pattern: "", offset: 0),
    ])
    func arrayAcrossChunks(_ boundary: Boundary) throws {
        let (text, elements) = Self.array
        var shift = 0
        if !boundary.pattern.isEmpty {
            let bytes = Array(text.utf8)
            let pattern = Array(boundary.pattern.utf8)
            let from = Self.chunk - 20_000
            let found = try #require((from..<Self.chunk).first { Array(bytes[$0..<$0 + pattern.count]) == pattern })
            shift = Self.chunk - (found + boundary.offset)
        }
        let data = Data((String(repeating: " ", count: shift) + text).utf8)
        let items = readAll(SubmissionReader(data: data))
        #expect(items.count == elements.count)
        #expect(items.map { json($0) } == elements.map { $0 })
        #expect(items.map { $0.line } == Array(2..<(2 + elements.count)))
    }

    @Test("a JSON array from a file; elements spanning lines report the line they start on")
    func arrayFromFile() throws {
        let (text, elements) = Self.array
        let items = try readFile(Data(text.utf8))
        #expect(items.count == elements.count)
        #expect(items.map { json($0) } == elements.map { $0 })

        let multiline = "  [\n{\"a\":\n 1},\n\n  {\"b\": \"[,\\\"\"\n}\r\n, {\"c\": 3}]"
        let small = readAll(SubmissionReader(data: Data(multiline.utf8)))
        #expect(small.map(\.line) == [2, 5, 7])
        #expect(small.map { json($0) } == [.object(["a": 1]), .object(["b": "[,\""]), .object(["c": 3])])
    }

    @Test("an unterminated array ends with a malformed item", arguments: [
        ("[{\"a\": 1},\n{\"b\": 2}", 2),
        ("[{\"a\": 1},\n{\"b\": 2}\n", 2),
        ("[{\"a\": 1},\n", 1),
        ("[{\"a\": 1},\n{\"b\": ", 1),
        ("[{\"a\": 1}, {\"b\": \"]}", 1),
        ("[", 0),
    ])
    func unterminatedArray(text: String, complete: Int) throws {
        let items = readAll(SubmissionReader(data: Data(text.utf8)))
        #expect(items.count == complete + 1, "\(items.map { String(decoding: $0.bytes, as: UTF8.self) })")
        #expect(items.prefix(complete).allSatisfy { json($0) != nil })
        #expect(items.last.map { isMalformed($0) } == true)
    }

    @Test("a closed array, even empty, gives no malformed item")
    func closedArrays() {
        #expect(readAll(SubmissionReader(data: Data("[]".utf8))).isEmpty)
        #expect(readAll(SubmissionReader(data: Data(" \n[ \n ]\n".utf8))).isEmpty)
        #expect(readAll(SubmissionReader(data: Data("[{\"a\":1}]".utf8))).map { json($0) } == [.object(["a": 1])])
        #expect(readAll(SubmissionReader(data: Data()).self).isEmpty)
    }

    /// At most `cap` items, so that a reader that stops making progress fails the test instead of hanging it.
    func readBounded(_ reader: SubmissionReader, cap: Int = 100) -> [SubmissionReader.RawItem] {
        var reader = reader
        var items: [SubmissionReader.RawItem] = []
        while items.count < cap, let item = reader.next() { items.append(item) }
        #expect(items.count < cap, "the reader kept returning items: \(items.prefix(3).map { String(decoding: $0.bytes, as: UTF8.self) })")
        return items
    }

    /// The error of an item refused before validation (not JSON, too large, broken structure), or nil.
    /// Why the item is not a JSON value: refused while reading, or its bytes are not JSON.
    func refusal(_ item: SubmissionReader.RawItem) -> FieldError? {
        switch item.parsed {
        case .malformed(let error):
            return error
        case .bytes(let bytes):
            do {
                _ = try JSONValue(parsing: bytes)
                return nil
            } catch {
                return (error as? JSONValueError).map(FieldError.init)
            }
        }
    }

    static let event = #"{"eventId": "0b9c2a4e-3f1d-4a51-9a8e-5f7c1d2e3a40", "type": "TerminalLocated", "terminalId": "T1"}"#

    @Test("a stray } or ] where an array element should be: one item naming it, its line and byte, and the reading ends", arguments: [
        ("[}", 0, "unexpected '}' at line 1 (byte offset 1)"),
        ("[\n  ]]", 0, "content after the closing ] of the JSON array: ']' at line 2 (byte offset 5)"),
        ("[{\"a\":1]}]", 1, "expected ',' or ']' after the element on line 1, found '}' at line 1 (byte offset 8)"),
        ("[\(event)}]", 1, "expected ',' or ']' after the element on line 1, found '}' at line 1 (byte offset \(event.utf8.count + 1))"),
        ("[\(event),\n}, \(event)]", 1, "unexpected '}' at line 2 (byte offset \(event.utf8.count + 3))"),
        ("[\(event),,]", 1, "unexpected ',' at line 1"),
    ])
    func strayCloser(text: String, before: Int, message: String) throws {
        for items in [readBounded(SubmissionReader(data: Data(text.utf8))), try readFile(Data(text.utf8))] {
            #expect(items.count == before + 1)
            let error = try #require(items.last.flatMap(refusal))
            #expect(error.code == "invalid_json")
            #expect(error.message.contains(message), "\(error.message)")
        }
    }

    @Test("a UTF-8 byte order mark at the very start is skipped, in NDJSON and in an array")
    func byteOrderMarkAtTheStart() {
        let mark = "\u{FEFF}"
        let ndjson = readBounded(SubmissionReader(data: Data((mark + "{\"a\": 1}\n{\"b\": 2}\n").utf8)))
        #expect(ndjson.map { json($0) } == [.object(["a": 1]), .object(["b": 2])])
        let array = readBounded(SubmissionReader(data: Data((mark + "[{\"a\": 1}]").utf8)))
        #expect(array.map { json($0) } == [.object(["a": 1])])
    }

    @Test("a byte order mark anywhere else is an item of its own, named with its line")
    func byteOrderMarkElsewhere() throws {
        let mark = "\u{FEFF}"
        let ndjson = readBounded(SubmissionReader(data: Data("{\"a\": 1}\n\(mark){\"b\": 2}\n{\"c\": 3}".utf8)))
        #expect(ndjson.count == 3)
        #expect(json(ndjson[0]) == .object(["a": 1]) && json(ndjson[2]) == .object(["c": 3]))
        let line = try #require(refusal(ndjson[1]))
        #expect(ndjson[1].line == 2)
        #expect(line.message.contains("byte order mark (U+FEFF) starts line 2"), "\(line.message)")

        let array = readBounded(SubmissionReader(data: Data("[{\"a\": 1},\n \(mark){\"b\": 2}]".utf8)))
        #expect(array.count == 2)
        let element = try #require(array.last.flatMap(refusal))
        #expect(element.message.contains("byte order mark (U+FEFF) at line 2 (byte offset 12)"), "\(element.message)")

        // Inside one item, the parser names it too.
        let inside = readBounded(SubmissionReader(data: Data("{\"a\":\(mark)1}".utf8)))
        #expect(try #require(refusal(inside[0])).message.contains("unexpected byte order mark (U+FEFF) at byte 5"))
    }

    @Test("an unclosed array, a missing comma and content after the closing ] each say what and where", arguments: [
        ("[{\"a\": 1},\n{\"b\": 2}\n", 2, "the JSON array is not closed: the input ends at line 3 (byte offset 20)"),
        ("[{\"a\": 1},\n{\"b\": ", 1, "the input ends inside the element that starts on line 2: the JSON array is not closed"),
        ("[{\"a\": 1}\n{\"b\": 2}]", 1, "expected ',' or ']' after the element on line 1, found '{' at line 2 (byte offset 10)"),
        ("[{\"a\": 1}]\n[{\"b\": 2}]", 1, "content after the closing ] of the JSON array: '[' at line 2 (byte offset 11)"),
        ("[{\"a\": 1},]", 1, "a ',' before the closing ] at line 1 (byte offset 10)"),
    ])
    func structuralMessages(text: String, before: Int, message: String) throws {
        let items = readBounded(SubmissionReader(data: Data(text.utf8)))
        #expect(items.count == before + 1)
        #expect(items.prefix(before).allSatisfy { json($0) != nil })
        let error = try #require(items.last.flatMap(refusal))
        #expect(error.message.contains(message), "\(error.message)")
        #expect(!error.message.contains("byte 0"))
    }

    @Test("NDJSON whose first line is a stray [: the first object, then one item saying where the structure broke")
    func ndjsonAfterAStrayBracket() throws {
        let lines = (1...1000).map { "{\"n\": \($0)}" }
        let items = readBounded(SubmissionReader(data: Data(("[\n" + lines.joined(separator: "\n") + "\n").utf8)))
        #expect(items.count == 2)
        #expect(json(items[0]) == .object(["n": 1]))
        let error = try #require(refusal(items[1]))
        #expect(items[1].line == 3)
        #expect(error.message.contains("after the element on line 2, found '{' at line 3"), "\(error.message)")
        #expect(items[1].bytes.count <= 64)
    }

    @Test("an item over the size limit is too_large, naming the limit and its line, and the items around it are read")
    func itemOverTheLimit() throws {
        let big = "{\"pad\": \"" + String(repeating: "x", count: 3 * Self.chunk) + "\"}"
        let ndjson = "{\"a\": 1}\n" + big + "\n{\"b\": \"\(String(repeating: "y", count: 980))\"}\n"
        let array = "[{\"a\": 1},\n" + big + ",\n{\"b\": \"\(String(repeating: "y", count: 980))\"}]"
        for text in [ndjson, array] {
            let data = Data(text.utf8)
            for items in [readBounded(SubmissionReader(data: data, maximumItemBytes: 1000)), try readFile(data, maximumItemBytes: 1000)] {
                #expect(items.count == 3)
                #expect(json(items[0]) == .object(["a": 1]))
                #expect(json(items[2])?["b"]?.stringValue?.count == 980)
                let error = try #require(refusal(items[1]))
                #expect(error.code == "too_large")
                #expect(items[1].line == 2)
                #expect(error.message.contains("on line 2") || error.message.contains("line 2 is"), "\(error.message)")
                #expect(error.message.contains("\(big.utf8.count) bytes, over the limit of 1000 bytes"), "\(error.message)")
                // Only its first bytes are kept, for the rejects.
                #expect(items[1].bytes.count == SubmissionReader.keptBytes)
            }
        }
    }

    @Test("an item just at the limit is read; one byte over is too_large, within one chunk too")
    func itemAtTheLimit() throws {
        let exact = "{\"p\": \"" + String(repeating: "x", count: 991) + "\"}"
        let over = "{\"p\": \"" + String(repeating: "x", count: 992) + "\"}"
        #expect(exact.utf8.count == 1000)
        for text in [exact + "\n" + over + "\n", "[" + exact + ", " + over + "]"] {
            let items = readBounded(SubmissionReader(data: Data(text.utf8), maximumItemBytes: 1000))
            #expect(items.count == 2)
            #expect(json(items[0]) != nil)
            #expect(refusal(items[1])?.code == "too_large")
        }
    }

    @Test("an element too large that runs to the end of the input: too_large, and saying the array is not closed")
    func tooLargeToTheEnd() throws {
        let items = readBounded(SubmissionReader(data: Data(("[{\"a\": \"" + String(repeating: "z", count: 5000)).utf8), maximumItemBytes: 1000))
        #expect(items.count == 1)
        let error = try #require(refusal(items[0]))
        #expect(error.code == "too_large")
        #expect(error.message.contains("the JSON array is not closed"))
    }
}
