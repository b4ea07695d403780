import Foundation
import Ingestion
import LocationEvents
import Projections
import Queries
import Testing

/// The rules checked at append: one merchant per terminal, unbinding only from the bound merchant, expected
/// versions; and the required merchant of a visit.
@Suite("Domain rules at append", .serialized)
struct DomainRuleTests {
    func bind(_ terminal: String, to merchant: String, at time: String = "2026-11-29T10:00:00+08:00") -> String {
        Client.terminalBound(terminal: terminal, merchant: merchant, fix: Client.fix(capturedAt: time))
    }

    func boundMerchant(_ terminal: String, _ db: IngestionDatabase) throws -> String? {
        try CurrentState().terminal(terminal, on: db.connection)?.merchantId
    }

    @Test("binding a bound terminal to another merchant is terminal_already_bound; the binding stays")
    func bindToAnother() throws {
        let db = try IngestionDatabase()
        defer { db.drop() }
        #expect(try db.ingest([bind("T1", to: "A")]).results[0].status == .appended)
        let second = try db.ingest([bind("T1", to: "B")]).results[0]
        #expect(second.status == .conflict)
        #expect(second.conflict?.code == "terminal_already_bound")
        #expect(second.stream == "terminal-T1" && second.position == nil)
        #expect(try boundMerchant("T1", db) == "A")
        #expect(try db.count("SELECT count(*) FROM events") == 1)
    }

    @Test("unbinding from a merchant the terminal is not bound to is terminal_not_bound")
    func unbindNotBound() throws {
        let db = try IngestionDatabase()
        defer { db.drop() }
        try db.ingest([bind("T1", to: "A")])
        let report = try db.ingest([
            Client.terminalUnbound(terminal: "T1", merchant: "B"),
            Client.terminalUnbound(terminal: "T2", merchant: "A"),
        ])
        #expect(report.results.map(\.status) == [.conflict, .conflict])
        #expect(report.results.map(\.conflict?.code) == ["terminal_not_bound", "terminal_not_bound"])
        #expect(try boundMerchant("T1", db) == "A")
        #expect(try CurrentState().terminal("T2", on: db.connection) == nil)
    }

    @Test("unbind, then bind to another merchant: bound to it, since its bind")
    func unbindThenBindElsewhere() throws {
        let db = try IngestionDatabase()
        defer { db.drop() }
        try db.ingest([bind("T1", to: "A", at: "2026-11-28T09:00:00+08:00")])
        #expect(try db.ingest([Client.terminalUnbound(terminal: "T1", merchant: "A")]).results[0].status == .appended)
        #expect(try boundMerchant("T1", db) == nil)
        #expect(try db.ingest([bind("T1", to: "B", at: "2026-11-29T09:30:00+08:00")]).results[0].status == .appended)
        let state = try #require(try CurrentState().terminal("T1", on: db.connection))
        #expect(state.merchantId == "B" && state.lastMerchantId == "B")
        #expect(state.boundSince == instant("2026-11-29T01:30:00Z"))
        #expect(state.unboundAt == nil)
    }

    @Test("binding again to the same merchant is accepted, keeps bound_since and moves the terminal's fix")
    func rebindSameMerchant() throws {
        let db = try IngestionDatabase()
        defer { db.drop() }
        try db.ingest([bind("T1", to: "A", at: "2026-11-28T09:00:00+08:00")])
        let again = Client.terminalBound(
            terminal: "T1", merchant: "A", fix: Client.fix(lat: 31.2400, lon: 121.4800, capturedAt: "2026-11-29T09:00:00+08:00"))
        let result = try db.ingest([again]).results[0]
        #expect(result.status == .appended && result.version == 1)
        let state = try #require(try CurrentState().terminal("T1", on: db.connection))
        #expect(state.merchantId == "A")
        #expect(state.boundSince == instant("2026-11-28T01:00:00Z"))
        #expect(state.position?.capturedAt == instant("2026-11-29T01:00:00Z"))
    }

    @Test("bindings carried forward at append equal replay's recomputation from the whole stream", arguments: [1, 100])
    func bindingsCarriedForwardEqualReplay(batchSize: Int) throws {
        let db = try IngestionDatabase()
        defer { db.drop() }
        let history = [
            bind("T1", to: "A", at: "2026-11-28T12:00:00+08:00"),
            bind("T1", to: "A", at: "2026-11-27T12:00:00+08:00"),  // an earlier capture: bound since moves back
            bind("T1", to: "A", at: "2026-11-29T12:00:00+08:00"),
            Client.terminalUnbound(terminal: "T1", merchant: "A"),
            bind("T1", to: "B", at: "2026-11-29T13:00:00+08:00"),
            bind("T2", to: "B", at: "2026-11-29T14:00:00+08:00"),
            Client.terminalUnbound(terminal: "T2", merchant: "B"),
            bind("T3", to: "C", at: "2026-11-28T12:00:00+08:00"),
            bind("T3", to: "C", at: "2026-11-27T12:00:00+08:00"),
        ]
        try db.ingest(history, batchSize: batchSize)
        #expect(try db.count("SELECT count(*) FROM events") == history.count)
        #expect(try CurrentState().terminal("T1", on: db.connection)?.merchantId == "B")
        #expect(try CurrentState().terminal("T3", on: db.connection)?.boundSince == instant("2026-11-27T04:00:00Z"))
        let inline = try db.allProjections()["terminals"]
        try Replayer().replay(db.database.configuration)
        #expect(try db.allProjections()["terminals"] == inline)
    }

    @Test("within one batch: bind A then bind B conflicts; bind A, unbind A, bind B all pass")
    func rulesWithinOneBatch() throws {
        let db = try IngestionDatabase()
        defer { db.drop() }
        let first = try db.ingest([bind("T1", to: "A"), bind("T1", to: "B"), bind("T1", to: "A")])
        #expect(first.results.map(\.status) == [.appended, .conflict, .appended])
        #expect(first.results[1].conflict?.code == "terminal_already_bound")
        #expect(try boundMerchant("T1", db) == "A")

        let second = try db.ingest([
            Client.terminalUnbound(terminal: "T1", merchant: "A"), Client.terminalUnbound(terminal: "T1", merchant: "A"),
            bind("T1", to: "B"), bind("T2", to: "B"), Client.terminalUnbound(terminal: "T2", merchant: "A"),
        ])
        #expect(second.results.map(\.status) == [.appended, .conflict, .appended, .appended, .conflict])
        #expect(second.results.map(\.conflict?.code) == [nil, "terminal_not_bound", nil, nil, "terminal_not_bound"])
        #expect(try boundMerchant("T1", db) == "B")
        #expect(try boundMerchant("T2", db) == "B")
    }

    @Test("one id twice in a batch: the rule decides the first; a resend is its duplicate, other content is event_id_reused")
    func ruleDecidesTheFirstWithAnId() throws {
        let db = try IngestionDatabase()
        defer { db.drop() }
        let id = UUID()
        let toA = Client.terminalBound(id, terminal: "T1", merchant: "A")
        let answer = try db.ingest([toA, Client.terminalBound(id, terminal: "T1", merchant: "B"), toA, bind("T1", to: "B")])
        #expect(answer.results.map(\.status) == [.appended, .conflict, .duplicate, .conflict])
        #expect(answer.results.map(\.conflict?.code) == [nil, "event_id_reused", nil, "terminal_already_bound"])
        #expect(try boundMerchant("T1", db) == "A")
    }

    @Test("batches joined into one append: each bind and unbind is checked after those of the batches before it")
    func joinedBatches() throws {
        let db = try IngestionDatabase()
        defer { db.drop() }
        func prepared(_ lines: [String]) -> PreparedBatch {
            db.service.prepare(lines.map(IngestionDatabase.item), now: serverNow)
        }
        let first = prepared([Client.terminalLocated(terminal: "T2"), bind("T1", to: "A")])
        // The second batch's binds and unbinds are not where they were in it once joined: two places further on.
        let second = prepared([
            bind("T1", to: "B"), Client.terminalLocated(terminal: "T1"), Client.terminalLocated(terminal: "T1"),
            Client.terminalUnbound(terminal: "T1", merchant: "B"), Client.terminalUnbound(terminal: "T1", merchant: "A"),
            bind("T1", to: "B"),
        ])
        let report = try db.service.append(PreparedBatch(joining: [first, second]), on: db.connection)
        #expect(report.results.map(\.conflict?.code) == [
            nil, nil, "terminal_already_bound", nil, nil, "terminal_not_bound", nil, nil,
        ])
        #expect(report.results.map(\.status) == [.appended, .appended, .conflict, .appended, .appended, .conflict, .appended, .appended])
        #expect(try boundMerchant("T1", db) == "B")
    }

    @Test("a visit without merchantId is invalid: merchantId / required")
    func visitWithoutMerchant() throws {
        let db = try IngestionDatabase()
        defer { db.drop() }
        let id = UUID()
        let result = try db.ingest([Client.visitRecorded(id, visit: "V1", merchant: nil)]).results[0]
        #expect(result.status == .invalid)
        #expect(result.eventId == id.uuidString.lowercased())
        #expect(result.errors.map(\.field) == ["merchantId"])
        #expect(result.errors.map(\.code) == ["required"])
        #expect(try db.count("SELECT count(*) FROM events") == 0)
    }

    @Test("a wrong expectedVersion is wrong_expected_version; a right one appends")
    func expectedVersion() throws {
        let db = try IngestionDatabase()
        defer { db.drop() }
        let report = try db.ingest([
            Client.merchantAddressFixed(merchant: "M1", expectedVersion: "3"),
            Client.merchantAddressFixed(merchant: "M1", expectedVersion: #""no_stream""#),
            Client.merchantAddressFixed(merchant: "M1", expectedVersion: #""no_stream""#),
            Client.merchantAddressFixed(merchant: "M1", expectedVersion: "0"),
            Client.merchantAddressFixed(merchant: "M1", expectedVersion: "0"),
            Client.merchantAddressFixed(merchant: "M1", expectedVersion: #""any""#),
        ])
        #expect(report.results.map(\.status) == [.conflict, .appended, .conflict, .appended, .conflict, .appended])
        #expect(report.results.map(\.conflict?.code) == [
            "wrong_expected_version", nil, "wrong_expected_version", nil, "wrong_expected_version", nil,
        ])
        #expect(report.results.compactMap(\.version) == [0, 1, 2])
    }
}
