import Foundation
import Ingestion
import JSON
import LocationEvents
import Testing

/// The per-item answers of a mixed batch, and atomic batches.
@Suite("Batch answers", .serialized)
struct BatchAnswerTests {
    let stored = UUID(), valid1 = UUID(), valid2 = UUID(), badLat = UUID(), unknownType = UUID()

    /// A merchant fix already in the log before each batch, and the terminal T1 bound to M1.
    func prepare(_ db: IngestionDatabase) throws {
        let report = try db.ingest([
            Client.merchantAddressFixed(stored, merchant: "M1"), Client.terminalBound(terminal: "T1", merchant: "M1"),
        ])
        #expect(report.results.map(\.status) == [.appended, .appended])
    }

    var mixed: [String] {
        [
            Client.merchantAddressFixed(valid1, merchant: "M2"),
            Client.merchantAddressFixed(badLat, merchant: "M3", fix: Client.fix(lat: 91)),
            Client.submission(unknownType, "MerchantTeleported", [("merchantId", #""M4""#)]),
            #"{"eventId": "4f0c1c5e-5f0a-4c1e-9a55-1f0f0f0f0f0f", "type": "MerchantAddressFixed", "merchantId": "#,
            Client.merchantAddressFixed(stored, merchant: "M1"),  // resent: duplicate of position 1
            Client.merchantAddressFixed(valid1, merchant: "M2"),  // resent in the same batch
            Client.merchantAddressFixed(stored, merchant: "M9"),  // the same id with other content
            Client.merchantAddressFixed(merchant: "M1", expectedVersion: "7"),
            Client.terminalBound(terminal: "T1", merchant: "M2"),
            Client.visitRecorded(valid2, visit: "V1", merchant: "M1"),
        ]
    }

    @Test("valid, invalid, malformed, duplicate and conflicting items: answered in order, only the valid stored")
    func mixedBatch() throws {
        let db = try IngestionDatabase()
        defer { db.drop() }
        try prepare(db)
        let report = try db.ingest(mixed)
        let results = report.results
        #expect(results.map(\.status) == [
            .appended, .invalid, .invalid, .invalid, .duplicate, .duplicate, .conflict, .conflict, .conflict, .appended,
        ])
        expectAppended(results[0], valid1, stream: "merchant-M2", version: 0, position: 3)
        #expect(results[1].eventId == badLat.uuidString.lowercased())
        #expect(results[1].errors.map { "\($0.field) \($0.code)" } == ["fix.lat out_of_range"])
        #expect(results[2].eventId == unknownType.uuidString.lowercased())
        #expect(results[2].errors.map { "\($0.field) \($0.code)" } == ["type unknown_type"])
        #expect(results[3].eventId == nil)
        #expect(results[3].errors.map { "\($0.field) \($0.code)" } == [" invalid_json"])
        #expect(results[4].stream == "merchant-M1" && results[4].version == 0 && results[4].position == 1)
        #expect(results[5].stream == "merchant-M2" && results[5].version == 0 && results[5].position == 3)
        #expect(results[6].conflict?.code == "event_id_reused")
        #expect(results[7].conflict?.code == "wrong_expected_version")
        #expect(results[8].conflict?.code == "terminal_already_bound")
        expectAppended(results[9], valid2, stream: "visit-V1", version: 0, position: 4)

        #expect([report.count(.appended), report.count(.duplicate), report.count(.conflict), report.count(.invalid)] == [2, 2, 3, 3] as [Int])
        let json = report.json
        #expect([json["appended"], json["duplicate"], json["conflict"], json["invalid"]] == [2, 2, 3, 3] as [JSONValue?])
        #expect(json["not_appended"] == nil)
        #expect(json["results"]?.arrayValue?[8][path: "error.code"] == "terminal_already_bound")
        #expect(json["results"]?.arrayValue?[1]["errors"]?.arrayValue?.first?["field"] == "fix.lat")
        // The log's head after the batch, in the form `verify --head` takes.
        #expect(report.head.position == 4)
        #expect(try report.head == db.service.head(on: db.connection))
        #expect(json["head"] == .string(report.head.description))

        #expect(try db.count("SELECT count(*) FROM events") == 4)
        #expect(try db.count("SELECT count(*) FROM projections.fixes") == 4)
        #expect(try db.count("SELECT count(*) FROM events WHERE event_id = '\(badLat.uuidString)'") == 0)
        #expect(try boundMerchant(db, "T1") == "M1")
    }

    @Test("atomic with an invalid item: nothing stored; the rest answered not_appended")
    func atomicWithInvalid() throws {
        let db = try IngestionDatabase()
        defer { db.drop() }
        try prepare(db)
        let report = try db.ingest(mixed, atomic: true)
        #expect(report.results.map(\.status) == [
            .notAppended, .invalid, .invalid, .invalid, .notAppended, .notAppended, .notAppended, .notAppended,
            .notAppended, .notAppended,
        ])
        #expect(report.results[1].errors.first?.code == "out_of_range")
        #expect(report.json["not_appended"] == 7)
        #expect(report.head.position == 2)
        #expect(try report.head == db.service.head(on: db.connection))
        #expect(try db.count("SELECT count(*) FROM events") == 2)
        #expect(try db.count("SELECT count(*) FROM projections.fixes") == 2)
    }

    @Test("atomic with a conflict only: nothing stored; the conflict named, the rest not_appended")
    func atomicWithConflict() throws {
        let db = try IngestionDatabase()
        defer { db.drop() }
        try prepare(db)
        let report = try db.ingest([
            Client.merchantAddressFixed(valid1, merchant: "M2"),
            Client.terminalBound(terminal: "T1", merchant: "M2"),
            Client.visitRecorded(valid2, visit: "V1", merchant: "M1"),
        ], atomic: true)
        #expect(report.results.map(\.status) == [.notAppended, .conflict, .notAppended])
        #expect(report.results[1].conflict?.code == "terminal_already_bound")
        #expect(report.head.position == 2)
        #expect(try report.head == db.service.head(on: db.connection))
        #expect(try db.count("SELECT count(*) FROM events") == 2)
        #expect(try db.count("SELECT count(*) FROM projections.visits") == 0)

        let good = try db.ingest([
            Client.merchantAddressFixed(valid1, merchant: "M2"), Client.visitRecorded(valid2, visit: "V1", merchant: "M1"),
        ], atomic: true)
        #expect(good.results.map(\.status) == [.appended, .appended])
        #expect(good.results.map(\.position) == [3, 4])
        #expect(good.head.position == 4)
        #expect(try good.head == db.service.head(on: db.connection))
        #expect(try db.count("SELECT count(*) FROM projections.visits") == 1)
    }

    func boundMerchant(_ db: IngestionDatabase, _ terminal: String) throws -> String? {
        try db.connection.query("SELECT merchant_id FROM projections.terminals WHERE terminal_id = $1", [terminal]).first?.decode(0)
    }
}
