import Foundation
import Ingestion
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
        if case .json(let value) = item.parsed { return value }
        return nil
    }

    func isMalformed(_ item: SubmissionReader.RawItem) -> Bool {
        if case .malformed = item.parsed { return true }
        return false
    }

    /// The same bytes through a file, as the CLI reads them.
    func readFile(_ data: Data) throws -> [SubmissionReader.RawItem] {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("reader-\(UUID()).json").path
        try data.write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { throw Unexpected("cannot open \(path)") }
        defer { close(descriptor) }
        return readAll(SubmissionReader(fileDescriptor: descriptor))
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
}
