import DatabaseTestSupport
import Foundation
import JSON
import LocationEvents
import Queries
import Testing

/// `history` and `visits` in each format, against a real database.
@Suite("geoledger history and visits", .serialized)
struct HistoryCommandTests {
    static let shanghaiParts = #"{"province": "上海市", "city": "上海市", "district": "黄浦区", "street": "南京东路"}"#

    /// Merchant M0001: a precise onboarding fix, a failed attempt, a later reduced shop fix sent with the address in
    /// parts and a claim the server disagrees with; merchant M0002's fix, which M0001's history must leave out. All
    /// in WGS-84, so that the stored positions are the ones sent.
    func withMerchant(_ body: (IngestionDatabase) throws -> Void) throws {
        let db = try IngestionDatabase()
        defer { db.drop() }
        try db.ingest([
            Client.merchantAddressFixed(eventId(1), merchant: "M0001", fix: Client.fix(
                datum: "wgs84", capturedAt: "2026-11-20T10:00:00+08:00")),
            Client.locationFailed(
                eventId(2), entity: ("merchantId", "M0001"), provider: "apple", errorCode: 1, errorMessage: "kCLErrorDenied",
                capturedAt: "2026-11-25T09:00:00+08:00"),
            Client.merchantAddressFixed(eventId(3), merchant: "M0001", purpose: "shop", fix: Client.fix(
                lat: 31.231, lon: 121.474, datum: "wgs84", horizontalAccuracy: 900, authorization: "reduced", provider: "apple",
                capturedAt: "2026-11-28T11:00:00+08:00", address: Self.shanghaiParts, claimedInRegion: false)),
            Client.merchantAddressFixed(eventId(4), merchant: "M0002", fix: Client.fix(datum: "wgs84")),
        ])
        try body(db)
    }

    func geoledger(_ arguments: [String], _ db: IngestionDatabase, zone: String = "Asia/Shanghai") throws -> GeoledgerProcess.Outcome {
        try GeoledgerProcess.run(arguments, environment: ["DATABASE_URL": db.url, "TZ": zone, "COLUMNS": "80"])
    }

    /// The category the projection keeps for event `id`'s failed attempt.
    func category(_ db: IngestionDatabase, _ id: UUID) throws -> String {
        try #require(try db.row("failures", where: "event_id = $1", [id])["category"]?.stringValue)
    }

    @Test("csv, the default into a pipe: every fix and failed attempt, newest first, exactly")
    func csv() throws {
        try withMerchant { db in
            let outcome = try geoledger(["history", "merchant", "M0001"], db)
            #expect(outcome.status == 0, "\(outcome.stderr)")
            #expect(outcome.stderr == "")
            let denied = try category(db, eventId(2))
            #expect(outcome.stdout == """
                capturedAt,eventType,lat,lon,gcj02Lat,gcj02Lon,horizontalAccuracy,accuracy,accuracyAuthorization,provider,region,nearBoundary,claimMismatch,address,adcode,app,userId,errorCode,errorCategory,errorMessage,position,eventId
                2026-11-28T03:00:00.000000Z,MerchantAddressFixed,31.231,121.474,31.22905719645591,121.47852213200565,900,approximate,reduced,apple,mainland,false,true,上海市 上海市 黄浦区 南京东路,,onboarding,sales-17,,,,3,00000000-0000-4000-8000-000000000003
                2026-11-25T01:00:00.000000Z,LocationFailed,,,,,,,,apple,,,,,,onboarding,sales-17,1,\(denied),kCLErrorDenied,2,00000000-0000-4000-8000-000000000002
                2026-11-20T02:00:00.000000Z,MerchantAddressFixed,31.2304,121.4737,31.22845773757727,121.47822305927693,35,precise,full,amap,mainland,false,false,上海市黄浦区南京东路100号,310101,onboarding,sales-17,,,,1,00000000-0000-4000-8000-000000000001

                """)
        }
    }

    @Test("json parses, one object per row with every column, missing values null; ndjson the same rows a line each")
    func json() throws {
        try withMerchant { db in
            let outcome = try geoledger(["history", "merchant", "M0001", "--format", "json"], db)
            #expect(outcome.status == 0, "\(outcome.stderr)")
            let rows = try #require(try JSONValue(parsing: Data(outcome.stdout.utf8)).arrayValue)
            #expect(rows.map { $0["eventId"] } == [
                "00000000-0000-4000-8000-000000000003", "00000000-0000-4000-8000-000000000002", "00000000-0000-4000-8000-000000000001",
            ])
            #expect(rows.allSatisfy { $0.objectValue?.count == 22 })
            #expect(rows[0]["claimMismatch"] == true && rows[0]["accuracyAuthorization"] == "reduced")
            #expect(rows[0]["capturedAt"] == "2026-11-28T03:00:00.000000Z")
            #expect(rows[1]["lat"] == .null && rows[1]["errorCode"] == "1" && rows[1]["errorMessage"] == "kCLErrorDenied")
            #expect(rows[1]["errorCategory"] == .string(try category(db, eventId(2))))
            #expect(rows[2]["address"] == "上海市黄浦区南京东路100号" && rows[2]["adcode"] == "310101")

            let ndjson = try geoledger(["history", "merchant", "M0001", "--format", "ndjson"], db)
            #expect(ndjson.status == 0, "\(ndjson.stderr)")
            let lines = ndjson.stdout.split(separator: "\n").map { try? JSONValue(parsing: Data($0.utf8)) }
            #expect(lines == rows.map { Optional($0) })
        }
    }

    @Test("geojson: a FeatureCollection of the fixes as Points, [lon, lat] in WGS-84, their fields as properties")
    func geojson() throws {
        try withMerchant { db in
            let outcome = try geoledger(["history", "merchant", "M0001", "--format", "geojson"], db)
            #expect(outcome.status == 0, "\(outcome.stderr)")
            let collection = try JSONValue(parsing: Data(outcome.stdout.utf8))
            #expect(collection["type"] == "FeatureCollection")
            let features = try #require(collection["features"]?.arrayValue)
            // The failed attempt has no position: it is not a feature.
            #expect(features.count == 2)
            #expect(features.allSatisfy { $0["type"] == "Feature" && $0[path: "geometry.type"] == "Point" })
            #expect(features.map { $0[path: "geometry.coordinates"] } == [[121.474, 31.231], [121.4737, 31.2304]])
            #expect(features[0][path: "properties.eventType"] == "MerchantAddressFixed")
            #expect(features[0][path: "properties.accuracy"] == "approximate")
            #expect(features[0][path: "properties.gcj02Lat"] == 31.22905719645591)
            #expect(features[1][path: "properties.eventId"] == "00000000-0000-4000-8000-000000000001")
            #expect(features[1][path: "properties.lat"] == nil)
        }
    }

    @Test("table: times in the zone of --tz, else the machine's; --tz sets the zone of the formats for programs too")
    func timeZones() throws {
        try withMerchant { db in
            let table = try geoledger(["history", "merchant", "M0001", "--format", "table", "--tz", "Asia/Shanghai"], db, zone: "UTC")
            #expect(table.status == 0, "\(table.stderr)")
            let lines = table.stdout.split(separator: "\n", omittingEmptySubsequences: false)
            #expect(lines.first?.hasPrefix("CAPTURED                EVENT TYPE") == true, "\(table.stdout)")
            #expect(lines.dropFirst().first?.hasPrefix("2026-11-28 11:00:00+08  MerchantAddressFixed") == true, "\(table.stdout)")
            #expect(table.stdout.contains("2026-11-25 09:00:00+08  LocationFailed"))

            let machine = try geoledger(["history", "merchant", "M0001", "--format", "table"], db, zone: "America/New_York")
            #expect(machine.stdout.contains("2026-11-27 22:00:00-05  MerchantAddressFixed"), "\(machine.stdout)")

            let csv = try geoledger(["history", "merchant", "M0001", "--tz", "+08:00"], db)
            #expect(csv.stdout.split(separator: "\n")[1].hasPrefix("2026-11-28T11:00:00.000000+08:00,"), "\(csv.stdout)")
        }
    }

    @Test("--since 7d and --until: the capture times of the range, the bound of --until left out")
    func relativeRange() throws {
        let db = try IngestionDatabase()
        defer { db.drop() }
        let now = Date()
        func ago(_ days: Double) -> String {
            let formatter = ISO8601DateFormatter()
            formatter.timeZone = TimeZone(secondsFromGMT: 8 * 3600)
            return formatter.string(from: now.addingTimeInterval(-days * 86_400))
        }
        try db.ingest([
            Client.merchantAddressFixed(eventId(1), merchant: "M1", fix: Client.fix(capturedAt: ago(1))),
            Client.locationFailed(eventId(2), entity: ("merchantId", "M1"), provider: "amap", errorCode: 4, capturedAt: ago(3)),
            Client.merchantAddressFixed(eventId(3), merchant: "M1", fix: Client.fix(capturedAt: ago(10))),
        ], now: now)
        func listed(_ options: [String]) throws -> [String] {
            let outcome = try geoledger(["history", "merchant", "M1", "--format", "json"] + options, db)
            #expect(outcome.status == 0, "\(outcome.stderr)")
            return try #require(try JSONValue(parsing: Data(outcome.stdout.utf8)).arrayValue).compactMap { $0["eventId"]?.stringValue }
        }
        let id = { (n: Int) in eventId(n).uuidString.lowercased() }
        #expect(try listed([]) == [id(1), id(2), id(3)])
        #expect(try listed(["--since", "7d"]) == [id(1), id(2)])
        #expect(try listed(["--since", "14d", "--until", "2d"]) == [id(2), id(3)])
        #expect(try listed(["--until", ago(3)]) == [id(3)])
        #expect(try listed(["--since", ago(3)]) == [id(1), id(2)])
        #expect(try listed(["--since", "\(60 * 24 * 2)m"]) == [id(1)])

        let bad = try geoledger(["history", "merchant", "M1", "--since", "last week"], db)
        #expect(bad.status == 64)
        #expect(bad.stderr.contains("--since must be an RFC 3339 time with its offset"), "\(bad.stderr)")
        let inverted = try geoledger(["history", "merchant", "M1", "--since", "1d", "--until", "2d"], db)
        #expect(inverted.status == 64 && inverted.stderr.contains("--since must be before --until"), "\(inverted.stderr)")
    }

    @Test("--limit pages: each page's cursor, printed on stderr with the command for the next page, leads on to the next")
    func paging() throws {
        try withMerchant { db in
            var seen: [String] = []
            var arguments = ["history", "merchant", "M0001", "--limit", "1", "--format", "csv"]
            for _ in 0..<5 {
                let outcome = try geoledger(arguments, db)
                #expect(outcome.status == 0, "\(outcome.stderr)")
                let rows = outcome.stdout.split(separator: "\n").dropFirst()
                seen += rows.map { String($0.split(separator: ",").last!) }
                guard let line = outcome.stderr.split(separator: "\n").first(where: { $0.hasPrefix("more rows: geoledger ") }) else { break }
                #expect(rows.count == 1)
                arguments = line.dropFirst("more rows: geoledger ".count).split(separator: " ").map(String.init)
                #expect(arguments.prefix(7) == ["history", "merchant", "M0001", "--limit", "1", "--format", "csv"])
            }
            #expect(seen == [3, 2, 1].map { eventId($0).uuidString.lowercased() })

            let bad = try geoledger(["history", "merchant", "M0001", "--cursor", "nonsense"], db)
            #expect(bad.status == 64 && bad.stderr.contains("--cursor must be a cursor a page printed"), "\(bad.stderr)")
            let limit = try geoledger(["history", "merchant", "M0001", "--limit", "0"], db)
            #expect(limit.status == 64 && limit.stderr.contains("--limit must be a whole number in 1...10000"), "\(limit.stderr)")
        }
    }

    @Test("the library's pages: the same rows as one page, whatever the page size, and a last page without a cursor")
    func libraryPages() throws {
        try withMerchant { db in
            let whole = try History().page(of: .merchant("M0001"), HistoryRange(), on: db.connection)
            #expect(whole.entries.count == 3 && whole.next == nil)
            for size in 1...3 {
                var entries: [HistoryEntry] = []
                var range = HistoryRange(limit: size)
                while true {
                    let page = try History().page(of: .merchant("M0001"), range, on: db.connection)
                    #expect(page.entries.count <= size)
                    entries += page.entries
                    guard let next = page.next else { break }
                    #expect(HistoryCursor(next.description) == next)
                    range.cursor = next
                }
                #expect(entries == whole.entries, "page size \(size)")
            }
        }
    }

    @Test("a terminal's history: its fixes, failed attempts and its bindings over time, each bind and unbind naming the merchant")
    func terminal() throws {
        let db = try IngestionDatabase()
        defer { db.drop() }
        try db.ingest([
            Client.terminalBound(eventId(1), terminal: "T1", merchant: "M1", fix: Client.fix(capturedAt: "2026-11-20T10:00:00+08:00")),
            Client.terminalLocated(eventId(2), terminal: "T1", fix: Client.fix(capturedAt: "2026-11-21T10:00:00+08:00")),
            Client.locationFailed(eventId(3), entity: ("terminalId", "T1"), provider: "amap", errorCode: 4, capturedAt: "2026-11-22T10:00:00+08:00"),
        ], now: instant("2026-11-23T00:00:00Z"))
        try db.ingest([Client.terminalUnbound(eventId(4), terminal: "T1", merchant: "M1")], now: instant("2026-11-24T00:00:00Z"))
        try db.ingest([
            Client.terminalBound(eventId(5), terminal: "T1", merchant: "M2", fix: Client.fix(capturedAt: "2026-11-25T10:00:00+08:00")),
        ], now: instant("2026-11-26T00:00:00Z"))
        let outcome = try geoledger(["history", "terminal", "T1", "--format", "csv"], db)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let rows = outcome.stdout.split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false) }
        #expect(rows.first?.prefix(3) == ["capturedAt", "eventType", "merchantId"])
        #expect(rows.dropFirst().map { Array($0.prefix(3)) } == [
            ["2026-11-25T02:00:00.000000Z", "TerminalBound", "M2"],
            ["2026-11-24T00:00:00.000000Z", "TerminalUnbound", "M1"],
            ["2026-11-22T02:00:00.000000Z", "LocationFailed", ""],
            ["2026-11-21T02:00:00.000000Z", "TerminalLocated", ""],
            ["2026-11-20T02:00:00.000000Z", "TerminalBound", "M1"],
        ])
    }

    @Test("visits by merchant or by visitor: each record with its visitor and distance, and the failed attempts of those visits")
    func visits() throws {
        let db = try IngestionDatabase()
        defer { db.drop() }
        try db.ingest([
            Client.merchantAddressFixed(eventId(1), merchant: "M1", fix: Client.fix(datum: "wgs84")),
            Client.visitRecorded(eventId(2), visit: "V1", merchant: "M1", visitor: "sales-17", fix: Client.fix(
                lat: 31.2313, datum: "wgs84", capturedAt: "2026-11-21T10:00:00+08:00")),
            Client.visitRecorded(eventId(3), visit: "V2", merchant: "M2", visitor: "sales-17", fix: Client.fix(
                datum: "wgs84", capturedAt: "2026-11-22T10:00:00+08:00")),
            Client.visitRecorded(eventId(4), visit: "V3", merchant: "M1", visitor: "sales-99", fix: Client.fix(
                datum: "wgs84", capturedAt: "2026-11-23T10:00:00+08:00")),
            Client.locationFailed(eventId(5), entity: ("visitId", "V1"), purpose: "visit", provider: "amap", errorCode: 4,
                                  capturedAt: "2026-11-21T09:58:00+08:00"),
        ])
        func listed(_ options: [String]) throws -> [JSONValue] {
            let outcome = try geoledger(["visits", "--format", "json"] + options, db)
            #expect(outcome.status == 0, "\(outcome.stderr)")
            return try #require(try JSONValue(parsing: Data(outcome.stdout.utf8)).arrayValue)
        }
        let toM1 = try listed(["--merchant", "M1"])
        #expect(toM1.map { $0["visitId"] } == ["V3", "V1", "V1"])
        #expect(toM1.map { $0["eventType"] } == ["VisitRecorded", "VisitRecorded", "LocationFailed"])
        #expect(toM1.map { $0["visitorId"] } == ["sales-99", "sales-17", .null])
        #expect(toM1[0]["distanceMetres"] == 0)
        // 0.0009° of latitude north of the address: about 100 m.
        #expect(close(toM1[1]["distanceMetres"]?.numberValue, 100.07, within: 0.05), "\(String(describing: toM1[1]["distanceMetres"]))")
        #expect(toM1[2]["errorCode"] == "4" && toM1[2]["lat"] == .null)
        let bySales17 = try listed(["--visitor", "sales-17"])
        #expect(bySales17.map { $0["visitId"] } == ["V2", "V1", "V1"])
        #expect(bySales17.map { $0["merchantId"] } == ["M2", "M1", .null])
        #expect(bySales17[0]["distanceMetres"] == .null, "M2 has no address position")

        let neither = try geoledger(["visits"], db)
        #expect(neither.status == 64 && neither.stderr.contains("--merchant ID or --visitor ID"), "\(neither.stderr)")
        let both = try geoledger(["visits", "--merchant", "M1", "--visitor", "sales-17"], db)
        #expect(both.status == 64)
    }

    @Test("an enterprise's history reads its fixes through an index of their own")
    func enterprise() throws {
        let db = try IngestionDatabase()
        defer { db.drop() }
        try db.ingest([Client.enterpriseAddressFixed(eventId(1), enterprise: "E1"), Client.enterpriseAddressFixed(eventId(2), enterprise: "E2")])
        let outcome = try geoledger(["history", "enterprise", "E1", "--format", "json"], db)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(try JSONValue(parsing: Data(outcome.stdout.utf8)).arrayValue?.map { $0["eventId"] } == [.string(eventId(1).uuidString.lowercased())])
        try db.connection.execute("SET enable_seqscan = off")
        let plan = try History().plan(of: .enterprise("E1"), HistoryRange(), on: db.connection).joined(separator: "\n")
        #expect(plan.contains("fixes_enterprise") && plan.contains("failures_entity"), "\(plan)")
    }

    @Test("each history has indexes that read it in its order: no scan of the fixes, failures or visits tables")
    func indexes() throws {
        try withMerchant { db in
            // Tables this small are cheaper to scan; the bench shows the planner's choice on a million events.
            try db.connection.execute("SET enable_seqscan = off")
            let expected: [(HistorySubject, [String])] = [
                (.merchant("M0001"), ["fixes_entity", "failures_entity"]),
                (.terminal("T1"), ["fixes_entity", "failures_entity", "events_stream_version_key"]),
                (.visitsToMerchant("M0001"), ["visits_merchant", "failures_entity"]),
                (.visitsBy("sales-17"), ["visits_visitor", "failures_entity"]),
            ]
            for (subject, indexes) in expected {
                let plan = try History().plan(of: subject, HistoryRange(), on: db.connection).joined(separator: "\n")
                for index in indexes { #expect(plan.contains(index), "\(subject): \(plan)") }
                #expect(!plan.contains("Seq Scan"), "\(subject): \(plan)")
            }
        }
    }

    @Test("--help explains the options and gives examples", arguments: [["history", "merchant"], ["history", "terminal"], ["history", "enterprise"], ["visits"]])
    func help(words: [String]) throws {
        let outcome = try GeoledgerProcess.run(words + ["--help"])
        #expect(outcome.status == 0)
        #expect(outcome.stdout.hasPrefix("Usage: geoledger \(words.joined(separator: " "))"), "\(outcome.stdout)")
        for option in ["--since", "--until", "--limit", "--cursor", "--format", "--tz"] {
            #expect(outcome.stdout.contains(option), "\(option)")
        }
        #expect(outcome.stdout.contains("Examples:\n  geoledger \(words.joined(separator: " "))"), "\(outcome.stdout)")
    }
}
