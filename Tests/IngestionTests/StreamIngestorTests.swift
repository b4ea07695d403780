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
        try db.project()
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

    /// The caller closes the input once the ingest returns, and may open another file under the same descriptor
    /// number: the ingest's reading thread must be done with it by then, even when it was waiting for more of a pipe.
    @Test("stopped by an error while its reader waits on a pipe that stays open: it ends at once and reads nothing after",
          arguments: [false, true])
    func stoppedWhileReadingAPipe(decidingAhead: Bool) throws {
        let db = try IngestionDatabase()
        defer { db.drop() }
        let decider = decidingAhead ? try db.database.connect() : nil
        defer { decider?.close() }
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        defer {
            close(ends[0])
            close(ends[1])
        }
        let lines = (1...3).map { Client.merchantAddressFixed(merchant: "M\($0)") }.joined(separator: "\n") + "\n"
        try #require(write(ends[1], lines, lines.utf8.count) == lines.utf8.count)
        struct Stop: Error {}

        let clock = ContinuousClock()
        let started = clock.now
        let stopped = try #require(throws: IngestError.self) {
            _ = try StreamIngestor(service: db.service, batchSize: 1).run(
                SubmissionReader(fileDescriptor: ends[0]), on: db.connection, decidingOn: decider,
                progress: { _, _ in throw Stop() })
        }
        let elapsed = clock.now - started
        #expect(stopped.cause is Stop)
        // The first batch, and the second if it was being written meanwhile: never the third, which was not given.
        #expect(stopped.committed.items == 1 || stopped.committed.items == 2)
        #expect(try db.count("SELECT count(*) FROM events") == stopped.committed.appended)
        #expect(elapsed < .seconds(3), "the ingest took \(elapsed) to end")

        // Written once the ingest returned: still in the pipe for whoever reads it next, a moment later, when a reader
        // left waiting would have taken it.
        let later = "written after the ingest\n"
        try #require(write(ends[1], later, later.utf8.count) == later.utf8.count)
        usleep(200_000)
        try #require(fcntl(ends[0], F_SETFL, fcntl(ends[0], F_GETFL) | O_NONBLOCK) == 0)
        var buffer = [UInt8](repeating: 0, count: 256)
        let count = read(ends[0], &buffer, buffer.count)
        #expect(count == later.utf8.count, "read \(count), errno \(errno)")
        #expect(String(decoding: buffer.prefix(max(0, count)), as: UTF8.self) == later)
    }

    /// Five batches of the default size; thousands of merchant and terminal streams get events in several of them.
    /// Volume and speed are `make bench`'s (geoledger-bench ingest).
    @Test("20,000 events as NDJSON: all appended, then all duplicates")
    func ndjsonTwice() throws {
        let path = try BulkWorkload.ndjsonFile(count: 20_000)
        defer { try? FileManager.default.removeItem(atPath: path) }
        try expectTwoRuns(path, count: 20_000)
    }

    /// Fewer events: the array path differs from NDJSON only in the reader, which the reader tests cover.
    @Test("the same kind of events as one JSON array: all appended, then all duplicates")
    func arrayTwice() throws {
        let path = try BulkWorkload.arrayFile(count: 10_000)
        defer { try? FileManager.default.removeItem(atPath: path) }
        try expectTwoRuns(path, count: 10_000)
    }
}
