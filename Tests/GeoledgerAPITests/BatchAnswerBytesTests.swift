import Foundation
@testable import GeoledgerAPI
import Ingestion
import Testing

@Suite("The batch answer's bytes")
struct BatchAnswerBytesTests {
    @Test("written straight from the report, the answer is byte for byte the canonical JSON of the report's document")
    func answerIsTheReportsCanonicalDocument() async throws {
        try await withAPI { server in
            let service = IngestService(classifier: classifier)
            func items(_ lines: [String]) -> [IngestItem] { lines.map { IngestItem.bytes(Data($0.utf8)) } }
            let id = UUID()
            let mixed = [
                Submissions.merchantFix("M1", id: id),
                Submissions.merchantFix("M1", id: id),
                Submissions.merchantFix("M1", expectedVersion: 7),
                Submissions.merchantFix("M1", lat: 91),
                #"{"eventId":"a \" quote, a \\ and a \n line break","type":"Nope"}"#,
                "not json",
            ]
            let atomic = [Submissions.merchantFix("M2"), Submissions.merchantFix("M2", lat: 91)]
            let reports = try server.pool.withConnection { connection in
                [try service.ingest(items(mixed), on: connection), try service.ingest(items(atomic), atomic: true, on: connection)]
            }
            #expect(reports[0].results.map(\.status) == [.appended, .duplicate, .conflict, .invalid, .invalid, .invalid])
            #expect(reports[1].results.map(\.status) == [.notAppended, .invalid])
            for report in reports {
                let answer = EventRoutes.answer(report)
                let document = Array(report.json.canonicalData())
                #expect(answer == document, "\(String(decoding: answer, as: UTF8.self))")
            }
        }
    }
}
