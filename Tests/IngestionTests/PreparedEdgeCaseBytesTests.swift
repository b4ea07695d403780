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

/// What the ingest makes of awkward input, pinned line by line: every event type, an upper-case eventId,
/// expectedVersion in each form, escapes, non-ASCII text, numbers written as `1e2`, `-0.0`, `35.0`, the platform
/// read from `actor.os` in many spellings, and bad input of many kinds. For each line of
/// `Fixtures/edge-submissions.ndjson`, `Fixtures/edge-submissions.expected` holds the stored data and metadata, the
/// event's hash in a chain of them all, a digest of its COPY columns and projection rows, and its platform; or the
/// errors that refuse it (field, code, message). A change to parsing, validation or to how an event is built that
/// changes a single byte stored or answered fails here.
struct PreparedEdgeCaseBytesTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let recordedAt = Timestamp(microseconds: 1_800_000_000_123_456)

    static func fixture(_ name: String, _ ext: String) throws -> Data {
        let url = try #require(Bundle.module.url(forResource: name, withExtension: ext, subdirectory: "Fixtures"))
        return try Data(contentsOf: url)
    }

    /// The report of every line, as the expected file holds it.
    static func report() throws -> String {
        var reader = SubmissionReader(data: try fixture("edge-submissions", "ndjson"))
        let service = IngestService(classifier: try BoundaryClassifier.bundled())
        var lines: [String] = []
        var events: [NewEvent] = []
        var described: [(line: Int, event: NewEvent, projected: ProjectedEvent)] = []
        var number = 0
        while let raw = reader.next() {
            number += 1
            let item = raw.parsed
            let batch = service.prepare([item], now: now)
            if let event = batch.events.first, let projected = batch.projected.first {
                events.append(event)
                described.append((lines.count, event, projected))
                lines.append("")
                continue
            }
            var errors: [FieldError]
            switch item {
            case .malformed(let error):
                errors = [error]
            case .bytes(let bytes):
                guard case .failure(let failure) = SubmissionValidator().validate(bytes, now: now) else {
                    Issue.record("item \(number) was neither prepared nor refused")
                    continue
                }
                errors = failure.errors
            }
            lines.append("refused: " + errors.map { "\($0.field) \($0.code) \($0.message)" }.joined(separator: " | "))
        }
        var plan = AppendPlan(events: events, stored: [:], heads: [:], after: LogHead.empty, recordedAt: recordedAt)
        plan.decide { _ in nil }
        for (index, (line, event, projected)) in described.enumerated() {
            var rest = event.firstColumnBytes + StoredBytesGoldenTests.eventIdMember(event)
                + StoredBytesGoldenTests.canonicalTail(event)
            rest += projected.historyRowBytes
            lines[line] = [
                "data: " + String(decoding: event.data, as: UTF8.self),
                "metadata: " + String(decoding: event.metadata, as: UTF8.self),
                "hash: " + hash(plan, index),
                "rest: " + SHA256.digest(rest).hex,
                "platform: " + Platform.text(projected.platform),
            ].joined(separator: "\n  ")
        }
        return lines.enumerated().map { "\($0.offset + 1) \($0.element)" }.joined(separator: "\n") + "\n"
    }

    @Test func everyLineIsStoredOrRefusedAsPinned() throws {
        let expected = String(decoding: try Self.fixture("edge-submissions", "expected"), as: UTF8.self)
        let report = try Self.report()
        let reportLines = report.split(separator: "\n", omittingEmptySubsequences: false)
        let expectedLines = expected.split(separator: "\n", omittingEmptySubsequences: false)
        for (index, (got, want)) in zip(reportLines, expectedLines).enumerated() where got != want {
            Issue.record("report line \(index + 1):\n  got  \(got)\n  want \(want)")
        }
        #expect(reportLines.count == expectedLines.count)
        #expect(report.contains("platform: ios") && report.contains("platform: android") && report.contains("platform: unknown"))
    }

    /// The event's hash where the plan appended it; a conflict (its expectedVersion) has none.
    private static func hash(_ plan: AppendPlan, _ index: Int) -> String {
        guard case .appended(_, _, let position) = plan.results[index] else { return "not appended" }
        return plan.appended[Int(position) - 1].hash.hex
    }
}
