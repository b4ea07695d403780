import Foundation
import Ingestion
import LocationEvents
import Testing

/// Inputs an attacker or a careless operator might give `ingest`, read, validated and appended as the CLI does:
/// each ends, answers every item invalid with a named code, and stores nothing.
@Suite("Hostile input", .serialized)
struct HostileInputTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let bytes: Data
        /// The code of each item's first error, in order.
        let codes: [String]
        var testDescription: String { name }

        init(_ name: String, _ bytes: Data, _ codes: [String]) {
            self.name = name
            self.bytes = bytes
            self.codes = codes
        }

        init(_ name: String, _ text: String, _ codes: [String]) {
            self.init(name, Data(text.utf8), codes)
        }
    }

    static let event = Client.terminalLocated(eventId(1), terminal: "T1")

    static let cases: [Case] = [
        Case("a stray } in an array", "[}", ["invalid_json"]),
        Case("a ] closing an object, then a stray }", #"[{"a":1]}]"#, ["invalid_json", "invalid_json"]),
        Case("an event cut short", String(event.prefix(60)), ["invalid_json"]),
        Case("an array cut short inside its element", "[" + event.prefix(60), ["invalid_json"]),
        Case("nesting 30,000 deep in one item", "{\"a\":" + String(repeating: "[", count: 30_000) + String(repeating: "]", count: 30_000) + "}", ["invalid_json"]),
        Case("an array nested 1,000,000 deep, never closed", String(repeating: "[", count: 1_000_000), ["too_large"]),
        Case("invalid UTF-8 in a string", Data(#"{"eventId": "x"#.utf8) + Data([0xC3, 0x28]) + Data(#""}"#.utf8), ["invalid_json"]),
        Case("a NUL byte between tokens", Data(#"{"a":"#.utf8) + Data([0]) + Data("1}".utf8), ["invalid_json"]),
        Case("a megabyte of NUL bytes", Data(count: 1 << 20), ["too_large"]),
        Case("a number beyond any double", event.replacingOccurrences(of: "\"lat\": 31.2304", with: "\"lat\": 1e999999"), ["invalid_json"]),
        Case("a latitude of 300 digits", event.replacingOccurrences(of: "\"lat\": 31.2304", with: "\"lat\": " + String(repeating: "9", count: 300)), ["out_of_range"]),
        Case("an errorCode of 1e300", Client.locationFailed(entity: ("terminalId", "T1"), provider: "amap", errorCode: 1).replacingOccurrences(of: "\"errorCode\": 1", with: "\"errorCode\": 1e300"), ["wrong_type"]),
        Case("a member named twice", event.replacingOccurrences(of: "\"lat\": 31.2304", with: "\"lat\": 91, \"lat\": 31.2304"), ["duplicate_key"]),
        Case("a member the format does not have", event.replacingOccurrences(of: "\"lat\":", with: "\"alt\": 4, \"lat\":"), ["unknown_field"]),
        Case("thousands of unknown members", event.replacingOccurrences(of: "{\"eventId\"", with: "{" + (0..<3000).map { "\"m\($0)\": 0, " }.joined() + "\"eventId\""), ["unknown_field"]),
        Case("an item over 64 KiB", event.replacingOccurrences(of: "\"T1\"", with: "\"T1\", \"note\": \"" + String(repeating: "n", count: 70_000) + "\""), ["too_large"]),
        Case("UTF-16 with its byte order mark", Data([0xFF, 0xFE]) + Client.terminalLocated(terminal: "T1", fix: Client.fix(address: nil)).data(using: .utf16LittleEndian)!, ["invalid_json"]),
        Case("a byte order mark after the first", "\u{FEFF}\u{FEFF}" + event, ["invalid_json"]),
        Case("a lone surrogate", event.replacingOccurrences(of: "\"T1\"", with: #""T\ud800""#), ["invalid_json"]),
        Case("content after the closing ]", "[]\n" + event, ["invalid_json"]),
        Case("NDJSON after a stray [", "[\n" + Array(repeating: event.replacingOccurrences(of: "\"lat\": 31.2304", with: "\"lat\": 91"), count: 50).joined(separator: "\n"), ["out_of_range", "invalid_json"]),
    ]

    @Test("ends, every item invalid with a named code, nothing stored", arguments: cases)
    func endsInvalidStoringNothing(_ input: Case) throws {
        let db = try IngestionDatabase()
        defer { db.drop() }
        var reader = SubmissionReader(data: input.bytes)
        var raw: [SubmissionReader.RawItem] = []
        while raw.count < 1000, let item = reader.next() { raw.append(item) }
        #expect(raw.count < 1000, "the reader did not end")
        let report = try db.service.ingest(raw.map(\.parsed), now: serverNow, on: db.connection)
        #expect(report.results.allSatisfy { $0.status == .invalid })
        #expect(report.results.map { $0.errors.first?.code ?? "" } == input.codes)
        #expect(report.results.allSatisfy { $0.errors.allSatisfy { !$0.message.isEmpty } })
        #expect(try db.count("SELECT count(*) FROM events") == 0)
        #expect(try db.count("SELECT count(*) FROM projections.fixes") == 0)
    }
}
