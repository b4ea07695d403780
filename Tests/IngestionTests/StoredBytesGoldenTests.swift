import CivilCalendar
@testable import EventStore
import Foundation
import Geo
@testable import Ingestion
import JSON
import LocationEvents
@testable import Postgres
@testable import Projections
import Testing

/// The exact bytes the ingest stores for a fixed input, pinned: a change to how an event's data, metadata, COPY
/// columns, canonical bytes or projection rows are made that changes a single stored byte fails here. The input is
/// 238 lines of the bench's workload (`geoledger-bench workload FILE --events 200 --duplicates 0.1 --invalid 0.1`),
/// with a fixed receive and recording time.
struct StoredBytesGoldenTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let recordedAt = Timestamp(microseconds: 1_800_000_000_123_456)

    /// The canonical bytes between an event's data and its metadata: `,"eventId":"…","metadata":`.
    static func eventIdMember(_ event: NewEvent) -> [UInt8] {
        Array((",\"eventId\":\"" + event.eventId.lowercasedText + "\",\"metadata\":").utf8)
    }

    /// The canonical bytes from an event's stream to its version: `,"stream":"…","type":"…","version":`.
    static func canonicalTail(_ event: NewEvent) -> [UInt8] {
        Array((",\"stream\":" + JSONValue.quoted(event.stream) + ",\"type\":" + JSONValue.quoted(event.type) + ",\"version\":").utf8)
    }

    /// The input's lines, prepared as the ingest's reading thread prepares them.
    static func prepared() throws -> PreparedBatch {
        let url = try #require(Bundle.module.url(forResource: "golden-workload", withExtension: "ndjson", subdirectory: "Fixtures"))
        var reader = SubmissionReader(data: try Data(contentsOf: url))
        var items: [IngestItem] = []
        while let item = reader.next() { items.append(item.parsed) }
        #expect(items.count == 238)
        let service = IngestService(classifier: try BoundaryClassifier.bundled())
        return service.prepare(items, now: now)
    }

    @Test func theHashChainsHeadIsPinned() throws {
        let batch = try Self.prepared()
        #expect(batch.events.count == 218)
        var plan = AppendPlan(events: batch.events, stored: [:], heads: [:], after: LogHead.empty, recordedAt: Self.recordedAt)
        plan.decide { _ in nil }
        #expect(plan.appended.count == 200)
        #expect(plan.logHead.position == 200)
        #expect(plan.logHead.hash.hex == "3ebffac5e6141b18140a4039b0ee826c61765e5e3151377d88aa986893390c10")
        #expect(plan.appended[0].hash.hex == "97fce72b6c65d89f1dffa5fab6303fe1c69c4ef7d7bdae9106f56ebb1ebb42e1")
    }

    @Test func theEventsAndProjectionRowsArePinned() throws {
        let batch = try Self.prepared()
        var events: [UInt8] = []
        for event in batch.events {
            events += event.data
            events += event.metadata
            events += event.firstColumnBytes
            events += Self.eventIdMember(event)
            events += Self.canonicalTail(event)
        }
        var rows: [UInt8] = []
        for event in batch.projected { rows += event.historyRowBytes }
        #expect(SHA256.digest(events).hex == "b7a3f24d3bc75de247a1c77a39a364dc2d609a024ae541fd61e2408268e3e7bd")
        #expect(SHA256.digest(rows).hex == "d0074c4a9278767dd7b7f510f32292c080e8cad0f84451643d90f91b929c49e8")
    }
}

extension CopyRow {
    /// The fields rendered so far, as bytes.
    var renderedBytes: [UInt8] {
        let count = byteCount
        return shared().withBytes(in: 0..<count) { Array($0) }
    }
}

extension NewEvent {
    /// The event's first COPY columns, event_id to metadata, as rendered: its row without the field count before them
    /// and the tail after.
    var firstColumnBytes: [UInt8] {
        row.rows.withBytes(in: (row.range.lowerBound + 2)..<(row.range.upperBound - NewEvent.tailBytes)) { Array($0) }
    }
}

extension ProjectedEvent {
    /// The event's rows in the history tables (fixes, failures, visits), all columns but the position, as the projector
    /// COPYs them: for each table, 1 and the row's bytes, or 0 when the event has no row there.
    var historyRowBytes: [UInt8] {
        func rendered<Part>(_ part: Part?, _ write: (ProjectedEvent, Part, inout CopyRow) -> Void) -> [UInt8] {
            guard let part else { return [0] }
            var row = CopyRow(format: .binary)
            write(self, part, &row)
            return [1] + row.renderedBytes
        }
        return rendered(fix, Projector.fixRow) + rendered(failure, Projector.failureRow) + rendered(visit, Projector.visitRow)
    }
}
