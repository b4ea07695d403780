import Foundation
import Ingestion
import Testing

/// Streaming a large file in batches, twice: the second run stores nothing new.
@Suite("Streamed ingest", .serialized)
struct StreamIngestorTests {
    func run(_ path: String, _ db: IngestionDatabase) throws -> IngestTotals {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { throw Unexpected("cannot open \(path)") }
        defer { close(descriptor) }
        var rejected = 0
        let totals = try StreamIngestor(service: db.service).run(
            SubmissionReader(fileDescriptor: descriptor), on: db.connection, rejected: { _, _ in rejected += 1 })
        #expect(rejected == totals.conflict + totals.invalid)
        return totals
    }

    func expectTwoRuns(_ path: String, count: Int) throws {
        let db = try IngestionDatabase()
        defer { db.drop() }
        let clock = ContinuousClock()
        var first = IngestTotals()
        let firstTime = try clock.measure { first = try run(path, db) }
        #expect(first.items == count && first.appended == count && first.duplicate == 0 && first.allStored)
        #expect(try db.count("SELECT count(*) FROM events") == count)
        #expect(try db.count("SELECT max(position) FROM events") == count)
        let fixes = try db.count("SELECT count(*) FROM projections.fixes")
        #expect(fixes == count - count / 20)

        var second = IngestTotals()
        let secondTime = try clock.measure { second = try run(path, db) }
        #expect(second.items == count && second.appended == 0 && second.duplicate == count && second.allStored)
        #expect(try db.count("SELECT count(*) FROM events") == count)
        #expect(try db.count("SELECT count(*) FROM projections.fixes") == fixes)
        print("\(count) events from \((path as NSString).lastPathComponent): first run \(firstTime), second \(secondTime)")
    }

    @Test("100,000 events as NDJSON: all appended, then all duplicates")
    func ndjsonTwice() throws {
        let path = try BulkWorkload.ndjsonFile(count: 100_000)
        defer { try? FileManager.default.removeItem(atPath: path) }
        try expectTwoRuns(path, count: 100_000)
    }

    /// Fewer events: the array path differs from NDJSON only in the reader, which the reader tests cover.
    @Test("the same kind of events as one JSON array: all appended, then all duplicates")
    func arrayTwice() throws {
        let path = try BulkWorkload.arrayFile(count: 20_000)
        defer { try? FileManager.default.removeItem(atPath: path) }
        try expectTwoRuns(path, count: 20_000)
    }
}
