import Foundation
import Testing

/// The summary tables' keys are told apart as PostgreSQL tells text apart: by their bytes.
@Suite("Summary keys", .serialized)
struct SummaryKeyTests {
    @Test(
        "two apps whose names differ in their bytes but not as Swift strings (é composed, and e with an accent) count apart, in one batch as in two",
        arguments: [1, 2])
    func appsDifferingInTheirBytesCountApart(batchSize: Int) throws {
        let db = try IngestionDatabase()
        defer { db.drop() }
        let names = ["caf\u{E9}", "cafe\u{301}"]
        #expect(names[0] == names[1] && Array(names[0].utf8) != Array(names[1].utf8))
        let lines = names.enumerated().map { index, app in
            Client.merchantAddressFixed(merchant: "M\(index + 1)")
                .replacingOccurrences(of: #""app": "onboarding""#, with: #""app": "\#(app)""#)
        }
        try db.ingest(lines, batchSize: batchSize)
        for table in ["daily_events", "fix_days", "accuracy_buckets"] {
            #expect(try db.count("SELECT count(*) FROM projections.\(table)") == 2, "\(table)")
            #expect(try db.count("SELECT count(DISTINCT convert_to(app, 'UTF8')) FROM projections.\(table)") == 2, "\(table)")
        }
    }
}
