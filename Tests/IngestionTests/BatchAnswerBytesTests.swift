import EventStore
import Foundation
@testable import Ingestion
import JSON
import LocationEvents
import Testing

/// The batch answer written straight from the results: the same bytes as the report's JSON document made canonical.
@Suite struct BatchAnswerBytesTests {
    static let head = LogHead(position: 9_007_199_254_740_993, hash: Digest(bytes: [UInt8](repeating: 0xAB, count: 32))!)

    @Test("every member of an answer, escapes, an empty batch and an atomic one that failed")
    func canonicalJSONIsTheDocumentsCanonicalBytes() {
        let reports = [
            IngestReport(results: [], head: .empty),
            IngestReport(results: [
                IngestItemResult(eventId: "a", status: .appended, stream: "merchant-M1", version: 1, position: 12),
                IngestItemResult(eventId: "b", status: .duplicate, stream: "merchant-M1", version: 1, position: 12),
                IngestItemResult(
                    eventId: "c", status: .conflict, stream: "terminal-T1",
                    conflict: AppendConflict(code: "wrong_expected_version", message: "expected 7, \"at\" 2\n")),
                IngestItemResult(eventId: "d \\ \u{1}", status: .invalid, errors: [
                    FieldError(field: "fix.lat", code: .outOfRange, message: "latitude 91 is outside -90...90"),
                    FieldError(field: "", code: .invalidJSON, message: "a \"quote\"\tand a tab"),
                ]),
                IngestItemResult(status: .invalid, errors: [FieldError(field: "", code: .invalidJSON, message: "not JSON")]),
                IngestItemResult(eventId: "e", status: .appended, stream: "s-1", version: 9_007_199_254_740_993, position: -1),
            ], head: Self.head),
            IngestReport(results: [
                IngestItemResult(eventId: "f", status: .notAppended, stream: "merchant-M2"),
                IngestItemResult(eventId: "g", status: .invalid, errors: [FieldError(field: "type", code: .invalidValue, message: "no")]),
            ], head: Self.head),
        ]
        for report in reports {
            let written = report.canonicalJSON()
            let document = Array(report.json.canonicalData())
            #expect(written == document, "\(String(decoding: written, as: UTF8.self))")
        }
        #expect(String(decoding: reports[0].canonicalJSON(), as: UTF8.self).hasSuffix(#","invalid":0,"results":[]}"#))
    }
}
