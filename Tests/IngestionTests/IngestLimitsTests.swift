import DatabaseTestSupport
import Foundation
import Testing

/// The built `geoledger ingest` on inputs that once looped forever or took memory without bound: each ends by
/// itself within seconds, under the memory ceiling `ingest --help` states, storing nothing invalid.
@Suite("geoledger ingest limits", .serialized)
struct IngestLimitsTests {
    /// The ceiling `ingest --help` promises, in bytes.
    static func statedCeiling() throws -> Int {
        let help = try GeoledgerProcess.run(["ingest", "--help"]).stdout
        let words = help.split(whereSeparator: \.isWhitespace)
        guard let under = words.firstIndex(of: "under"), under + 2 < words.count, words[under + 2] == "MB",
              let megabytes = Int(words[under + 1])
        else { throw Unexpected("ingest --help states no memory ceiling:\n\(help)") }
        return megabytes * 1_000_000
    }

    /// A fresh folder under the temporary directory, removed by the caller.
    func temporaryFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ingest-limits-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// Runs `script` (with `$GEOLEDGER` and `$DATABASE_URL` set) and checks that it ended by itself, fast, under the
    /// ceiling (and under `notHolding` bytes, when the input's one item is larger), with exit status 1 (items not
    /// stored).
    func expectBounded(
        _ script: String, _ db: IngestionDatabase, notHolding: Int? = nil, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let ceiling = min(try Self.statedCeiling(), notHolding ?? .max)
        let run = try GeoledgerProcess.measure(script, environment: ["DATABASE_URL": db.url], timeLimit: 120)
        #expect(!run.timedOut, "still running after 120 s", sourceLocation: sourceLocation)
        #expect(run.status == 1, sourceLocation: sourceLocation)
        #expect(run.seconds < 30, "took \(run.seconds) s", sourceLocation: sourceLocation)
        #expect(run.peakResidentBytes < ceiling, "peak \(run.peakResidentBytes / 1_000_000) MB", sourceLocation: sourceLocation)
        print("\(script): \(run.peakResidentBytes / 1_000_000) MB peak, \(run.seconds) s")
    }

    @Test("a 200 MB one-line file: one too_large item, under the memory ceiling, in seconds")
    func twoHundredMegabyteLine() throws {
        let db = try IngestionDatabase()
        defer { db.drop() }
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("line.json")
        #expect(FileManager.default.createFile(atPath: input.path, contents: nil))
        let handle = try FileHandle(forWritingTo: input)
        let (head, tail) = (Data(#"{"eventId": ""#.utf8), Data("\"}\n".utf8))
        try handle.write(contentsOf: head)
        let chunk = Data(repeating: UInt8(ascii: "a"), count: 1 << 20)
        for _ in 0..<200 { try handle.write(contentsOf: chunk) }
        try handle.write(contentsOf: tail)
        try handle.close()
        let lineBytes = head.count + 200 * chunk.count + tail.count - 1

        let out = folder.appendingPathComponent("out").path
        // Holding the line would take more than its 200 MB.
        try expectBounded(
            "\"$GEOLEDGER\" ingest '\(input.path)' --quiet --rejects '\(folder.path)/rejects' > '\(out)'", db, notHolding: 150_000_000)
        #expect(try String(contentsOfFile: out, encoding: .utf8).hasPrefix("appended 0, duplicate 0, conflict 0, invalid 1 (1 item in"))
        let rejects = try String(contentsOfFile: folder.path + "/rejects", encoding: .utf8)
        #expect(rejects.contains(#""code":"too_large""#) && rejects.contains("line 1 is \(lineBytes) bytes, over the limit of 65536 bytes"), "\(rejects.prefix(300))")
        #expect(rejects.utf8.count < 4096, "the rejects keep only the item's first bytes")
        #expect(try db.count("SELECT count(*) FROM events") == 0)
    }

    @Test("a gigabyte of zeros through a pipe: one too_large item, under the memory ceiling, in seconds")
    func gigabyteOfZeros() throws {
        let db = try IngestionDatabase()
        defer { db.drop() }
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("out").path
        try expectBounded("head -c 1G /dev/zero | \"$GEOLEDGER\" ingest - --quiet > '\(out)'", db, notHolding: 150_000_000)
        #expect(try String(contentsOfFile: out, encoding: .utf8).hasPrefix("appended 0, duplicate 0, conflict 0, invalid 1 (1 item in"))
        #expect(try db.count("SELECT count(*) FROM events") == 0)
    }

    @Test("NDJSON whose first line is a stray [: the first event, one item naming where the array broke, then the end")
    func strayBracketBeforeNDJSON() throws {
        let db = try IngestionDatabase()
        defer { db.drop() }
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("events.ndjson")
        let lines = (1...100_000).map { Client.terminalLocated(eventId($0), terminal: "T\($0)") }
        try Data(("[\n" + lines.joined(separator: "\n") + "\n").utf8).write(to: input)
        let out = folder.appendingPathComponent("out").path
        try expectBounded("\"$GEOLEDGER\" ingest '\(input.path)' --quiet --rejects '\(folder.path)/rejects' > '\(out)'", db)
        #expect(try String(contentsOfFile: out, encoding: .utf8).hasPrefix("appended 1, duplicate 0, conflict 0, invalid 1 (2 items in"))
        let rejects = try String(contentsOfFile: folder.path + "/rejects", encoding: .utf8)
        #expect(rejects.contains("expected ',' or ']' after the element on line 2, found '{' at line 3"), "\(rejects)")
        #expect(try db.count("SELECT count(*) FROM events") == 1)
    }

    @Test("hostile files through the binary: each ends by itself, answers each item invalid and stores nothing", arguments: [
        ("stray closer", Data("[}".utf8), 1),
        ("wrong closer then a stray one", Data(#"[{"a":1]}]"#.utf8), 2),
        ("deep nesting", Data((String(repeating: "[", count: 20_000) + String(repeating: "]", count: 20_000)).utf8), 1),
        ("nested objects, never closed", Data(String(repeating: #"{"a":"#, count: 200_000).utf8), 1),
        ("NUL bytes between lines", Data([0, 0, 0, 0x0A, 0x7B, 0, 0x7D, 0x0A]), 2),
        ("a byte order mark on each line", Data(String(repeating: "\u{FEFF}{}\n", count: 3).utf8), 3),
    ])
    func hostileFiles(name: String, bytes: Data, invalid: Int) throws {
        let db = try IngestionDatabase()
        defer { db.drop() }
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("input")
        try bytes.write(to: input)
        let out = folder.appendingPathComponent("out").path
        try expectBounded("\"$GEOLEDGER\" ingest '\(input.path)' --quiet > '\(out)'", db)
        #expect(try String(contentsOfFile: out, encoding: .utf8).hasPrefix(
            "appended 0, duplicate 0, conflict 0, invalid \(invalid) (\(invalid) item\(invalid == 1 ? "" : "s") in "))
        #expect(try Data(contentsOf: input) == bytes, "the input is untouched")
        #expect(try db.count("SELECT count(*) FROM events") == 0)
    }

    @Test("--max-item-bytes sets the limit the too_large answer names; outside 1024...1048576 it is a usage error")
    func maximumItemBytesOption() throws {
        let db = try IngestionDatabase()
        defer { db.drop() }
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("events.ndjson")
        let event = Client.visitRecorded(eventId(1), visit: "V1", merchant: "M1", note: String(repeating: "n", count: 600))
        #expect((1025...2048).contains(event.utf8.count))
        try Data((event + "\n").utf8).write(to: input)
        let rejects = folder.appendingPathComponent("rejects").path
        let small = try GeoledgerProcess.run(
            ["ingest", input.path, "--quiet", "--max-item-bytes", "1024", "--rejects", rejects], environment: ["DATABASE_URL": db.url])
        #expect(small.status == 1, "\(small.stderr)")
        #expect(try String(contentsOfFile: rejects, encoding: .utf8).contains(
            "line 1 is \(event.utf8.count) bytes, over the limit of 1024 bytes per item"))
        let enough = try GeoledgerProcess.run(["ingest", input.path, "--quiet", "--max-item-bytes", "2048"], environment: ["DATABASE_URL": db.url])
        #expect(enough.status == 0, "\(enough.stdout) \(enough.stderr)")
        for value in ["1023", "1048577", "lots"] {
            let refused = try GeoledgerProcess.run(["ingest", input.path, "--max-item-bytes", value], environment: ["DATABASE_URL": db.url])
            #expect(refused.status == 64)
            #expect(refused.stderr.contains("--max-item-bytes must be a whole number in 1024...1048576"), "\(refused.stderr)")
        }
    }
}
