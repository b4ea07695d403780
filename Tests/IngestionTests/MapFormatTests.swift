import DatabaseTestSupport
import Foundation
import SVGTestSupport
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing

/// `--format svg` of `history` and of `report terminal-drift`, run as an operator runs them.
@Suite("geoledger history and report terminal-drift as maps", .serialized)
struct MapFormatTests {
    static func fix(_ lat: Double, _ lon: Double, accuracy: Double = 20, at capturedAt: String) -> String {
        Client.fix(lat: lat, lon: lon, datum: "wgs84", horizontalAccuracy: accuracy, capturedAt: capturedAt, address: nil)
    }

    /// M1 in Shanghai with a precise, an approximate and an unusable fix and a failed attempt; T1 bound to it 3 km
    /// north, T2 504 m east of it; M2 with T3 bound 0.2 km from it.
    func withFixture(_ body: (IngestionDatabase) throws -> Void) throws {
        let db = try IngestionDatabase()
        defer { db.drop() }
        try db.ingest([
            Client.merchantAddressFixed(eventId(1), merchant: "M1", fix: Self.fix(31.2304, 121.4737, at: "2026-11-20T10:00:00+08:00")),
            Client.merchantAddressFixed(eventId(2), merchant: "M1", purpose: "shop", fix: Self.fix(31.2404, 121.4837, accuracy: 500, at: "2026-11-21T10:00:00+08:00")),
            Client.merchantAddressFixed(eventId(3), merchant: "M1", purpose: "shop", fix: Self.fix(31.2204, 121.4637, accuracy: 8000, at: "2026-11-22T10:00:00+08:00")),
            Client.locationFailed(eventId(4), entity: ("merchantId", "M1"), provider: "amap", errorCode: 4, capturedAt: "2026-11-23T10:00:00+08:00"),
            Client.terminalBound(eventId(5), terminal: "T1", merchant: "M1", fix: Self.fix(31.2574, 121.4737, at: "2026-11-20T11:00:00+08:00")),
            Client.terminalBound(eventId(6), terminal: "T2", merchant: "M1", fix: Self.fix(31.2304, 121.4790, at: "2026-11-20T11:00:00+08:00")),
            Client.merchantAddressFixed(eventId(7), merchant: "M2", fix: Self.fix(31.2000, 121.4400, at: "2026-11-20T10:00:00+08:00")),
            Client.terminalBound(eventId(8), terminal: "T3", merchant: "M2", fix: Self.fix(31.2018, 121.4400, at: "2026-11-20T11:00:00+08:00")),
        ])
        try body(db)
    }

    func geoledger(_ arguments: [String], _ db: IngestionDatabase) throws -> GeoledgerProcess.Outcome {
        try GeoledgerProcess.run(arguments, environment: ["DATABASE_URL": db.url])
    }

    @Test("history --format svg: well-formed XML; a dot by accuracy flag for each fix; the merchant's address position")
    func merchantHistory() throws {
        try withFixture { db in
            let outcome = try geoledger(["history", "merchant", "M1", "--format", "svg"], db)
            #expect(outcome.status == 0, "\(outcome.stderr)")
            let svg = try #require(SVGDocument.parse(outcome.stdout), "not well-formed XML")
            #expect(svg.elements.first?.name == "svg")
            // Each kind of mark is one path of all its marks (then its symbol in the legend): a move to each.
            #expect(svg.marks("precise-fix") == 1)
            #expect(svg.marks("approximate-fix") == 1)
            #expect(svg.marks("unusable-fix") == 1)
            #expect(svg.marks("merchant-address") == 1)
            #expect(svg.marks("terminal") == 0)
            let titles = svg.elements.filter { $0.name == "title" }.map(\.text)
            #expect(titles.contains { $0.contains("MerchantAddressFixed, approximate, within 500 m, amap") })
            #expect(titles.contains("M1: address position, 2026-11-20T02:00:00Z"))
            #expect(svg.texts.contains("History of merchant M1: 3 fixes"))
            #expect(svg.texts.contains("M1"))
            #expect(["merchant address", "precise fix", "approximate fix", "unusable fix"].allSatisfy(svg.texts.contains))
        }
    }

    @Test("a terminal's map has its bound merchant's address; a history without positions is an error, not an empty map")
    func terminalHistoryAndNothingToDraw() throws {
        try withFixture { db in
            let terminal = try geoledger(["history", "terminal", "T1", "--format", "svg"], db)
            #expect(terminal.status == 0, "\(terminal.stderr)")
            let svg = try #require(SVGDocument.parse(terminal.stdout))
            #expect(svg.marks("precise-fix") == 1)
            #expect(svg.marks("merchant-address") == 1)
            #expect(svg.texts.contains("M1"))

            let empty = try geoledger(["history", "enterprise", "E1", "--format", "svg"], db)
            #expect(empty.status == 1)
            #expect(empty.stdout == "")
            #expect(empty.stderr.contains("nothing to draw"))
        }
    }

    @Test("report terminal-drift --format svg: the terminals, their merchants once each, a line each labelled with the drift")
    func terminalDrift() throws {
        try withFixture { db in
            let outcome = try geoledger(["report", "terminal-drift", "--threshold", "400", "--format", "svg"], db)
            #expect(outcome.status == 0, "\(outcome.stderr)")
            let svg = try #require(SVGDocument.parse(outcome.stdout), "not well-formed XML")
            #expect(svg.marks("terminal") == 2, "T1 and T2; T3 is within 400 m")
            #expect(svg.marks("merchant-address") == 1)
            #expect(svg.marks("lines") == 2)
            #expect(svg.texts.contains("3 km") && svg.texts.contains("504 m"))
            #expect(["T1", "T2", "M1", "terminal", "merchant address"].allSatisfy(svg.texts.contains))
            #expect(!svg.texts.contains("T3"))
            #expect(svg.texts.contains("Terminal drift: 2 terminals away from their merchant"))

            let drawn = try geoledger(["report", "terminal-drift", "--format", "svg"], db)
            #expect(drawn.status == 0)
            #expect(try #require(SVGDocument.parse(drawn.stdout)).marks("terminal") == 1, "only T1 is over 1000 m")

            let none = try geoledger(["report", "terminal-drift", "--threshold", "5000", "--format", "svg"], db)
            #expect(none.status == 1)
            #expect(none.stderr.contains("no terminal is over the threshold"))

            let other = try geoledger(["report", "daily", "--format", "svg"], db)
            #expect(other.status == 64)
            #expect(other.stderr.contains("--format svg draws terminal-drift only"))
        }
    }
}
