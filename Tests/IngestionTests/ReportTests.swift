import DatabaseTestSupport
import Foundation
import Geo
import JSON
import Output
import Postgres
import Projections
@testable import Queries
import Testing

/// Every report on a fixture written through the ingest, whose rows are worked out by hand: positions are sent in
/// WGS-84, so that distances follow from the coordinates sent.
@Suite("Reports", .serialized)
struct ReportTests {
    static let ios = #"{"userId": "sales-17", "app": "onboarding", "appVersion": "5.2.0", "deviceId": "A1B2", "os": "iOS 17.2"}"#
    static let android = #"{"app": "merchant", "deviceId": "P9", "os": "Android 13"}"#
    static let agent = #"{"app": "terminal-agent", "deviceId": "POS-1", "os": "android 10.0"}"#

    /// M1 in Shanghai; 5 km and 8 km north of it are about 0.045 and 0.072 degrees of latitude.
    static let m1 = (lat: 31.2304, lon: 121.4737)
    static let hongKong = (lat: 22.2800, lon: 114.1600)

    static func fix(
        _ lat: Double, _ lon: Double, accuracy: Double = 20, authorization: String = "full", provider: String = "amap",
        at capturedAt: String, claimedInRegion: Bool = true
    ) -> String {
        Client.fix(lat: lat, lon: lon, datum: "wgs84", horizontalAccuracy: accuracy, authorization: authorization,
                   provider: provider, capturedAt: capturedAt, address: nil, claimedInRegion: claimedInRegion)
    }

    static func sent(_ text: String, by actor: String) -> String {
        text.replacingOccurrences(of: Client.actor, with: actor)
    }

    static let events: [String] = [
        sent(Client.merchantAddressFixed(eventId(1), merchant: "M1", fix: fix(m1.lat, m1.lon, at: "2026-11-01T10:00:00+08:00")), by: ios),
        // Approximate, later: M1's newest fix of any quality, not its address position.
        sent(Client.merchantAddressFixed(eventId(2), merchant: "M1", fix: fix(m1.lat + 0.01, m1.lon, accuracy: 500, at: "2026-11-03T10:00:00+08:00")), by: ios),
        // Hong Kong, claimed in the region: outside mainland, and a claim mismatch.
        sent(Client.merchantAddressFixed(eventId(3), merchant: "M2", fix: fix(hongKong.lat, hongKong.lon, provider: "tencent", at: "2026-11-02T10:00:00+08:00")), by: android),
        // Silent since May.
        sent(Client.merchantAddressFixed(eventId(4), merchant: "M3", fix: fix(m1.lat + 0.2, m1.lon + 0.2, at: "2026-05-01T10:00:00+08:00")), by: ios),
        sent(Client.terminalBound(eventId(5), terminal: "T1", merchant: "M1", fix: fix(m1.lat, m1.lon, at: "2026-11-01T11:00:00+08:00")), by: ios),
        sent(Client.terminalLocated(eventId(6), terminal: "T1", fix: fix(m1.lat + 0.045, m1.lon, provider: "tencent", at: "2026-11-10T10:00:00+08:00")), by: agent),
        // 8 km away but unusable, and newer: no drift of its own, and T1's drift stays that of the precise fix.
        sent(Client.terminalLocated(eventId(7), terminal: "T1", fix: fix(m1.lat + 0.072, m1.lon, accuracy: 8000, provider: "tencent", at: "2026-11-20T10:00:00+08:00")), by: agent),
        sent(Client.terminalBound(eventId(8), terminal: "T2", merchant: "M1", fix: fix(m1.lat + 0.0018, m1.lon, at: "2026-11-01T12:00:00+08:00")), by: ios),
        sent(Client.terminalBound(eventId(9), terminal: "T3", merchant: "M2", fix: fix(m1.lat, m1.lon, at: "2026-11-02T12:00:00+08:00")), by: ios),
        sent(Client.terminalUnbound(eventId(10), terminal: "T3", merchant: "M2"), by: ios),
        sent(Client.visitRecorded(eventId(11), visit: "V1", merchant: "M1", visitor: "sales-17", fix: fix(m1.lat + 0.018, m1.lon, at: "2026-11-05T10:00:00+08:00")), by: ios),
        sent(Client.visitRecorded(eventId(12), visit: "V2", merchant: "M1", visitor: "sales-18", fix: fix(m1.lat + 0.0009, m1.lon, at: "2026-11-05T11:00:00+08:00")), by: ios),
        sent(Client.visitRecorded(eventId(13), visit: "V3", merchant: "M2", visitor: "sales-17", fix: fix(hongKong.lat + 0.0072, hongKong.lon, provider: "tencent", at: "2026-11-06T10:00:00+08:00")), by: ios),
        // A reduced fix: approximate.
        sent(Client.terminalLocated(eventId(14), terminal: "T2", fix: fix(m1.lat + 0.0018, m1.lon, accuracy: 1000, authorization: "reduced", at: "2026-11-01T13:00:00+08:00")), by: agent),
        sent(Client.locationFailed(eventId(15), entity: ("merchantId", "M1"), provider: "amap", errorCode: 4, capturedAt: "2026-11-04T10:00:00+08:00"), by: ios),
        sent(Client.locationFailed(eventId(16), entity: ("terminalId", "T1"), provider: "tencent", errorCode: 2, capturedAt: "2026-11-04T10:00:00+08:00"), by: agent),
    ]

    static func distance(_ a: (lat: Double, lon: Double), _ b: (lat: Double, lon: Double)) -> Double {
        Coordinate(latitude: a.lat, longitude: a.lon).distance(to: Coordinate(latitude: b.lat, longitude: b.lon))
    }

    static func at(_ text: String) -> Date { ReportFilters.instant(text)! }

    func fixture() throws -> IngestionDatabase {
        let db = try IngestionDatabase()
        let report = try db.ingest(Self.events)
        #expect(report.count(.appended) == Self.events.count, "\(report.results)")
        return db
    }

    func rows(_ db: IngestionDatabase, _ report: Report, _ filters: ReportFilters = ReportFilters()) throws -> [[Value]] {
        try Reports.table(report, filters, on: db.connection).rows
    }

    /// Compares numbers to 1e-6 (distances go through SQL's trigonometry), everything else exactly.
    func expectRows(_ actual: [[Value]], _ expected: [[Value]], sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(actual.count == expected.count, "\(actual)", sourceLocation: sourceLocation)
        for (a, e) in zip(actual, expected) {
            #expect(a.count == e.count, sourceLocation: sourceLocation)
            for (x, y) in zip(a, e) {
                if case .number(let u) = x, case .number(let v) = y {
                    #expect(abs(u - v) < 1e-6, "\(u) != \(v) in \(a)", sourceLocation: sourceLocation)
                } else {
                    #expect(x == y, "\(x) != \(y) in \(a)", sourceLocation: sourceLocation)
                }
            }
        }
    }

    @Test("terminal-drift: bound terminals past the threshold by their latest precise fix, largest first; the threshold and filters")
    func terminalDrift() throws {
        let db = try fixture()
        defer { db.drop() }
        let t1 = (lat: Self.m1.lat + 0.045, lon: Self.m1.lon)
        let t1Row: [Value] = [.text("T1"), .text("M1"), .number(Self.distance(Self.m1, t1)), .number(t1.lat), .number(t1.lon),
                              .time(Self.at("2026-11-10T10:00:00+08:00")), .text("tencent"), .text("terminal-agent"),
                              .number(Self.m1.lat), .number(Self.m1.lon)]
        // T3 is unbound; T2 is 200 m away; T1's newer 8 km fix is unusable.
        expectRows(try rows(db, .terminalDrift), [t1Row])
        let t2 = (lat: Self.m1.lat + 0.0018, lon: Self.m1.lon)
        let t2Row: [Value] = [.text("T2"), .text("M1"), .number(Self.distance(Self.m1, t2)), .number(t2.lat), .number(t2.lon),
                              .time(Self.at("2026-11-01T12:00:00+08:00")), .text("amap"), .text("onboarding"),
                              .number(Self.m1.lat), .number(Self.m1.lon)]
        expectRows(try rows(db, .terminalDrift, ReportFilters(threshold: 100)), [t1Row, t2Row])
        expectRows(try rows(db, .terminalDrift, ReportFilters(threshold: 6000)), [])
        expectRows(try rows(db, .terminalDrift, ReportFilters(provider: "amap", threshold: 100)), [t2Row])
        expectRows(try rows(db, .terminalDrift, ReportFilters(app: "terminal-agent", threshold: 100)), [t1Row])
        expectRows(try rows(db, .terminalDrift, ReportFilters(from: Self.at("2026-11-05T00:00:00Z"), threshold: 100)), [t1Row])
        expectRows(try rows(db, .terminalDrift, ReportFilters(to: Self.at("2026-11-05T00:00:00Z"), threshold: 100)), [t2Row])
    }

    @Test("the first rows of a report, for a page: the report's own first rows in its order, and how many it has in all")
    func firstRows() throws {
        let db = try fixture()
        defer { db.drop() }
        for report in Report.allCases {
            let filters = report.defaultThreshold == nil ? ReportFilters() : ReportFilters(threshold: 0)
            let all = try rows(db, report, filters)
            for limit in [1, 2, all.count + 1] {
                let first = try Reports.firstRows(report, filters, limit: limit, on: db.connection)
                #expect(first.total == all.count, "\(report) limit \(limit)")
                expectRows(first.table.rows, Array(all.prefix(limit)))
            }
        }
    }

    @Test("visit-distance: visit records past the threshold from the merchant's address position, by visitor")
    func visitDistance() throws {
        let db = try fixture()
        defer { db.drop() }
        let v1 = (lat: Self.m1.lat + 0.018, lon: Self.m1.lon)
        let v3 = (lat: Self.hongKong.lat + 0.0072, lon: Self.hongKong.lon)
        let v2 = (lat: Self.m1.lat + 0.0009, lon: Self.m1.lon)
        let v1Row: [Value] = [.text("sales-17"), .text("V1"), .text("M1"), .number(Self.distance(Self.m1, v1)), .number(v1.lat),
                              .number(v1.lon), .time(Self.at("2026-11-05T10:00:00+08:00")), .text("amap"), .text("onboarding")]
        let v3Row: [Value] = [.text("sales-17"), .text("V3"), .text("M2"), .number(Self.distance(Self.hongKong, v3)), .number(v3.lat),
                              .number(v3.lon), .time(Self.at("2026-11-06T10:00:00+08:00")), .text("tencent"), .text("onboarding")]
        let v2Row: [Value] = [.text("sales-18"), .text("V2"), .text("M1"), .number(Self.distance(Self.m1, v2)), .number(v2.lat),
                              .number(v2.lon), .time(Self.at("2026-11-05T11:00:00+08:00")), .text("amap"), .text("onboarding")]
        expectRows(try rows(db, .visitDistance), [v1Row, v3Row])
        expectRows(try rows(db, .visitDistance, ReportFilters(threshold: 50)), [v1Row, v3Row, v2Row])
        expectRows(try rows(db, .visitDistance, ReportFilters(threshold: 5000)), [])
        expectRows(try rows(db, .visitDistance, ReportFilters(provider: "tencent")), [v3Row])
        expectRows(try rows(db, .visitDistance, ReportFilters(app: "merchant")), [])
        expectRows(try rows(db, .visitDistance, ReportFilters(from: Self.at("2026-11-06T00:00:00Z"))), [v3Row])
        expectRows(try rows(db, .visitDistance, ReportFilters(to: Self.at("2026-11-06T00:00:00Z"))), [v1Row])
    }

    @Test("visit-distance reads each record's fix from the record: the projector writes the fix's columns, and migration 0023 gives the records stored before it the same")
    func visitRecordsCarryTheirFix() throws {
        let db = try fixture()
        defer { db.drop() }
        let agreeing = """
            SELECT count(*) FROM projections.visits v
            JOIN projections.fixes f ON f.position = v.position AND f.entity_id = v.visit_id AND f.entity_kind = 'visit'
            WHERE (v.lat, v.lon, v.provider, v.app) IS NOT DISTINCT FROM (f.lat, f.lon, f.provider, f.app)
            """
        #expect(try db.count("SELECT count(*) FROM projections.visits") == 3)
        #expect(try db.count(agreeing) == 3)
        let filters = [ReportFilters(), ReportFilters(threshold: 50), ReportFilters(provider: "tencent"), ReportFilters(app: "onboarding")]
        let before = try filters.map { try rows(db, .visitDistance, $0) }
        #expect(before[1].count == 3, "\(before[1])")

        // The records as they were stored before 0023, without the columns; then the migration.
        // A column at a time, as the migration adds them: Citus refuses one ALTER TABLE of several on a distributed table.
        for column in ["lat", "lon", "provider", "app"] {
            try db.connection.execute("ALTER TABLE projections.visits DROP COLUMN \(column)")
        }
        try db.connection.execute("DELETE FROM schema_migrations WHERE name = '0023_visit_fix_columns.sql'")
        try db.migrate()
        #expect(try db.count(agreeing) == 3)
        #expect(try filters.map { try rows(db, .visitDistance, $0) } == before)
    }

    @Test("outside-region and region-mismatch: the Hong Kong address claimed in the region")
    func outsideRegionAndMismatch() throws {
        let db = try fixture()
        defer { db.drop() }
        let m2 = Self.at("2026-11-02T10:00:00+08:00")
        expectRows(try rows(db, .outsideRegion), [[
            .text("M2"), .text("hong_kong"), .bool(false), .number(Self.hongKong.lat), .number(Self.hongKong.lon), .time(m2),
            .text("tencent"), .text("merchant"),
        ]])
        expectRows(try rows(db, .outsideRegion, ReportFilters(provider: "amap")), [])
        expectRows(try rows(db, .outsideRegion, ReportFilters(from: Self.at("2026-11-03"))), [])
        // M2's address and visit V3 are in Hong Kong with the claim true.
        let v3 = Self.at("2026-11-06T10:00:00+08:00")
        expectRows(try rows(db, .regionMismatch), [
            [.text("tencent"), .text("merchant"), .text("hong_kong"), .integer(1), .time(m2), .time(m2)],
            [.text("tencent"), .text("onboarding"), .text("hong_kong"), .integer(1), .time(v3), .time(v3)],
        ])
        expectRows(try rows(db, .regionMismatch, ReportFilters(app: "merchant")), [
            [.text("tencent"), .text("merchant"), .text("hong_kong"), .integer(1), .time(m2), .time(m2)],
        ])
        expectRows(try rows(db, .regionMismatch, ReportFilters(from: Self.at("2026-11-03"), to: Self.at("2026-11-07"))), [
            [.text("tencent"), .text("onboarding"), .text("hong_kong"), .integer(1), .time(v3), .time(v3)],
        ])
        expectRows(try rows(db, .regionMismatch, ReportFilters(provider: "amap")), [])
    }

    @Test("accuracy: shares by provider, app and day of capture (UTC)")
    func accuracy() throws {
        let db = try fixture()
        defer { db.drop() }
        let all = try rows(db, .accuracy, ReportFilters(app: nil, provider: "amap"))
        // amap fixes: M1 (11-01 02:00Z), M1 approximate (11-03), M3 (05-01), T1 and T2 binds (11-01), T3 bind (11-02),
        // V1, V2 (11-05), T2's reduced fix (11-01 05:00Z, terminal-agent).
        expectRows(all, [
            [.text("amap"), .text("onboarding"), .text("2026-05-01"), .integer(1), .number(1), .number(0), .number(0), .number(0)],
            [.text("amap"), .text("onboarding"), .text("2026-11-01"), .integer(3), .number(1), .number(0), .number(0), .number(0)],
            [.text("amap"), .text("onboarding"), .text("2026-11-02"), .integer(1), .number(1), .number(0), .number(0), .number(0)],
            [.text("amap"), .text("onboarding"), .text("2026-11-03"), .integer(1), .number(0), .number(1), .number(0), .number(0)],
            [.text("amap"), .text("onboarding"), .text("2026-11-05"), .integer(2), .number(1), .number(0), .number(0), .number(0)],
            [.text("amap"), .text("terminal-agent"), .text("2026-11-01"), .integer(1), .number(0), .number(1), .number(0), .number(1)],
        ])
        expectRows(try rows(db, .accuracy, ReportFilters(from: Self.at("2026-11-20"), app: "terminal-agent")), [
            [.text("tencent"), .text("terminal-agent"), .text("2026-11-20"), .integer(1), .number(0), .number(0), .number(1), .number(0)],
        ])
        expectRows(try rows(db, .accuracy, ReportFilters(to: Self.at("2026-01-01"))), [])
        // Days cut by --from and --to count only their fixes inside: of the 1st, T2's bind (04:00Z) and its reduced
        // fix (05:00Z), not M1's (02:00Z) nor T1's bind (03:00Z); of the 5th, V1 (02:00Z), not V2 (03:00Z).
        expectRows(try rows(db, .accuracy, ReportFilters(from: Self.at("2026-11-01T04:00:00Z"), to: Self.at("2026-11-05T02:30:00Z"), provider: "amap")), [
            [.text("amap"), .text("onboarding"), .text("2026-11-01"), .integer(1), .number(1), .number(0), .number(0), .number(0)],
            [.text("amap"), .text("onboarding"), .text("2026-11-02"), .integer(1), .number(1), .number(0), .number(0), .number(0)],
            [.text("amap"), .text("onboarding"), .text("2026-11-03"), .integer(1), .number(0), .number(1), .number(0), .number(0)],
            [.text("amap"), .text("onboarding"), .text("2026-11-05"), .integer(1), .number(1), .number(0), .number(0), .number(0)],
            [.text("amap"), .text("terminal-agent"), .text("2026-11-01"), .integer(1), .number(0), .number(1), .number(0), .number(1)],
        ])
    }

    @Test("providers: fixes, failures by their stored category, median and p90 accuracy, mismatch rate, per platform")
    func providers() throws {
        let db = try fixture()
        defer { db.drop() }
        func category(_ provider: String) throws -> String {
            try db.connection.query("SELECT category FROM projections.failures WHERE provider = $1", [provider])
                .map { try $0.decode(0, as: String.self) }.first!
        }
        // android: M2 (tencent, 20 m, mismatch), T1's two tencent fixes (20 m, 8000 m), T2's reduced amap fix (1000 m);
        // ios: amap's M1 (20 m, 500 m), M3, the binds of T1, T2, T3, V1, V2 (20 m): 8 fixes; tencent's V3 (mismatch).
        let amapIOS = [20.0, 500, 20, 20, 20, 20, 20, 20].sorted()
        expectRows(try rows(db, .providers), [
            [.text("amap"), .text("android"), .integer(1), .integer(0), .counts([:]), .number(1000), .number(1000), .number(0)],
            [.text("amap"), .text("ios"), .integer(8), .integer(1), .counts([try category("amap"): 1]), .number(20),
             .number(amapIOS[6] + 0.3 * (amapIOS[7] - amapIOS[6])), .number(0)],
            [.text("tencent"), .text("android"), .integer(3), .integer(1), .counts([try category("tencent"): 1]), .number(20),
             .number(20 + 0.8 * (8000 - 20)), .number(1.0 / 3)],
            [.text("tencent"), .text("ios"), .integer(1), .integer(0), .counts([:]), .number(20), .number(20), .number(1)],
        ])
        expectRows(try rows(db, .providers, ReportFilters(app: "merchant", provider: "tencent")), [
            [.text("tencent"), .text("android"), .integer(1), .integer(0), .counts([:]), .number(20), .number(20), .number(1)],
        ])
        expectRows(try rows(db, .providers, ReportFilters(from: Self.at("2026-11-04"), to: Self.at("2026-11-05"))), [
            [.text("amap"), .text("ios"), .integer(0), .integer(1), .counts([try category("amap"): 1]), .none, .none, .none],
            [.text("tencent"), .text("android"), .integer(0), .integer(1), .counts([try category("tencent"): 1]), .none, .none, .none],
        ])
        expectRows(try rows(db, .providers, ReportFilters(provider: "apple")), [])
        // Over a time range the percentiles come from the fix history: T1's fixes of the 10th and 20th.
        expectRows(try rows(db, .providers, ReportFilters(from: Self.at("2026-11-10"))), [
            [.text("tencent"), .text("android"), .integer(2), .integer(0), .counts([:]), .number(4010), .number(20 + 0.9 * 7980), .number(0)],
        ])
    }

    /// Horizontal accuracies on both sides of the summaries' bucket bounds (whole metres to one significant digit, and
    /// to two as before), repeated and spread over providers, platforms and apps; then values of a wider range.
    static let edges: [Double] = [0.5, 1, 9.99, 10, 15.5, 16, 19.99, 20, 99.9, 99.99, 100, 100.5, 101, 109.99, 110, 119.9,
                                  120, 199.9, 200, 999, 1000, 1049.5, 1050, 4567.8, 4999, 5000, 12345.6, 99_999]

    /// 600 fixes: the ``edges`` three times, then values of a wider range, over three providers, platforms and apps.
    static func percentileEvents() -> [String] {
        var state: UInt64 = 14
        func next(_ bound: UInt64) -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return (state >> 33) % bound
        }
        let actors = [Self.ios, Self.android, Self.agent]
        let providers = ["amap", "tencent", "apple"]
        return (0..<600).map { n -> String in
            let accuracy = n < 3 * Self.edges.count ? Self.edges[n % Self.edges.count]
                : next(4) == 0 ? Double(next(200_000)) / 10 + 0.1 : Double(next(1_500)) / 10 + 1
            let fix = Self.fix(Self.m1.lat + Double(next(100)) / 10_000, Self.m1.lon, accuracy: accuracy,
                               provider: providers[Int(next(3))], at: "2026-11-0\(1 + next(9))T10:00:00+08:00",
                               claimedInRegion: next(5) != 0)
            return Self.sent(Client.terminalLocated(eventId(100 + n), terminal: "T\(n % 7)", fix: fix), by: actors[Int(next(3))])
        }
    }

    @Test("migrating a database whose percentiles came from accuracy_values: the same providers report, with each filter, and exact after more appends")
    func percentilesAcrossTheMigration() throws {
        let db = try IngestionDatabase(migratedBefore: "0015")
        defer { db.drop() }
        let events = Self.percentileEvents()
        try db.ingest(Array(events.prefix(400)), batchSize: 100)
        // The summaries as the projector kept them before the migration: the buckets by the database's accuracy_bucket
        // of the time (two significant digits; the projector now counts by 0016's rule), and every value.
        try db.connection.execute("""
            DELETE FROM projections.accuracy_buckets;
            INSERT INTO projections.accuracy_buckets
            SELECT provider, platform, coalesce(app, ''), accuracy_bucket(horizontal_accuracy), count(*),
                   count(*) FILTER (WHERE claim_mismatch)
            FROM projections.fixes GROUP BY 1, 2, 3, 4;
            INSERT INTO projections.accuracy_values
            SELECT provider, platform, accuracy_bucket(horizontal_accuracy), horizontal_accuracy, coalesce(app, ''), count(*)
            FROM projections.fixes GROUP BY 1, 2, 3, 4, 5
            """)
        let filters = Self.percentileFilters.map { ReportFilters(app: $0.app, provider: $0.provider) }
        let before = try filters.map { try rows(db, .providers, $0) }
        #expect(before[0].count == 6 && before.allSatisfy { !$0.isEmpty }, "\(before)")

        try db.migrate()
        #expect(try db.count("SELECT count(*) FROM pg_tables WHERE schemaname = 'projections' AND tablename = 'accuracy_values'") == 0)
        #expect(try filters.map { try rows(db, .providers, $0) } == before)
        // The buckets counted again by the migration, and those the appends after it add to, alike.
        try db.ingest(Array(events.dropFirst(400)), batchSize: 100)
        try expectExactPercentiles(db)
    }

    @Test("providers: the median and p90 over the whole history, read from the summaries, are percentile_cont's over the fixes, with each filter")
    func exactPercentiles() throws {
        let db = try IngestionDatabase()
        defer { db.drop() }
        try db.ingest(Self.percentileEvents(), batchSize: 100)
        // Several values share a bucket, and buckets a value's neighbours.
        #expect(try db.count("SELECT count(*) FROM projections.accuracy_buckets")
                < (try db.count("SELECT count(DISTINCT (provider, platform, app, horizontal_accuracy)) FROM projections.fixes")))
        try expectExactPercentiles(db)
    }

    @Test("accuracy_buckets: the projector counts each fix into the bucket of migration 0016's rule, the edges included, before and after 0018")
    func accuracyBucketsFollowTheRule() throws {
        let db = try IngestionDatabase(migratedBefore: "0018")
        defer { db.drop() }
        let events = Self.percentileEvents()
        try db.ingest(Array(events.prefix(300)), batchSize: 100)
        try db.migrate()
        try db.ingest(Array(events.dropFirst(300)), batchSize: 100)
        // 0016's accuracy_bucket, which 0018 dropped, written out.
        let recounted = """
            SELECT provider, platform, coalesce(app, '') AS app,
                   floor(horizontal_accuracy)::bigint - floor(horizontal_accuracy)::bigint
                       % (10 ^ greatest(length(floor(horizontal_accuracy)::bigint::text) - 1, 0))::bigint AS bucket,
                   count(*) AS fixes, count(*) FILTER (WHERE claim_mismatch) AS mismatches
            FROM projections.fixes GROUP BY 1, 2, 3, 4
            """
        #expect(try db.count("SELECT count(*) FROM (\(recounted)) r") > 20)
        #expect(try db.count("SELECT count(*) FROM ((\(recounted)) EXCEPT ALL (SELECT * FROM projections.accuracy_buckets)) d") == 0)
        #expect(try db.count("SELECT count(*) FROM ((SELECT * FROM projections.accuracy_buckets) EXCEPT ALL (\(recounted))) d") == 0)
        #expect(try db.count("SELECT count(*) FROM pg_proc WHERE proname = 'accuracy_bucket'") == 0)
    }

    static let percentileFilters: [(app: String?, provider: String?)] = [
        (nil, nil), ("merchant", nil), (nil, "tencent"), ("terminal-agent", "amap"),
    ]

    /// The providers report's fixes, median, p90 and mismatch rate are percentile_cont's and the share over the fixes,
    /// over the whole history and over a range holding all of it, with each of ``percentileFilters``.
    func expectExactPercentiles(_ db: IngestionDatabase, sourceLocation: SourceLocation = #_sourceLocation) throws {
        for (app, provider) in Self.percentileFilters {
            let expected = try db.connection.query(
                """
                SELECT provider, platform, count(*), percentile_cont(0.5) WITHIN GROUP (ORDER BY horizontal_accuracy),
                       percentile_cont(0.9) WITHIN GROUP (ORDER BY horizontal_accuracy), avg(claim_mismatch::int)::float8
                FROM projections.fixes
                WHERE ($1::text IS NULL OR app = $1) AND ($2::text IS NULL OR provider = $2)
                GROUP BY 1, 2 ORDER BY 1, 2
                """, [app, provider]
            ).map { row -> [Value] in
                [.text(try row.decode(0, as: String.self)), .text(try row.decode(1, as: String.self)),
                 .integer(try row.decode(2, as: Int64.self)), .number(try row.decode(3, as: Double.self)),
                 .number(try row.decode(4, as: Double.self)), .number(try row.decode(5, as: Double.self))]
            }
            // Three providers on two platforms.
            #expect(app == nil && provider == nil ? expected.count == 6 : !expected.isEmpty, "\(app ?? "-") \(provider ?? "-")",
                    sourceLocation: sourceLocation)
            // The whole history (the summaries) and a range holding all of it (the fix history) alike.
            for from in [nil, Self.at("2026-01-01")] {
                let actual = try rows(db, .providers, ReportFilters(from: from, app: app, provider: provider)).map {
                    [$0[0], $0[1], $0[2], $0[5], $0[6], $0[7]]
                }
                expectRows(actual, expected, sourceLocation: sourceLocation)
            }
        }
    }

    @Test("stale: merchants and bound terminals whose newest fix is older than the days, counted back from --to")
    func stale() throws {
        let db = try fixture()
        defer { db.drop() }
        let m3 = Self.at("2026-05-01T10:00:00+08:00")
        let to = Self.at("2026-11-29T00:00:00Z")
        let m3Row: [Value] = [.text("merchant"), .text("M3"), .time(m3), .integer(211), .number(Self.m1.lat + 0.2),
                              .number(Self.m1.lon + 0.2), .text("amap"), .text("onboarding")]
        expectRows(try rows(db, .stale, ReportFilters(to: to)), [m3Row])
        // 20 days before the 29th: everything but T1 (its unusable fix of the 20th counts as a fix) and the unbound T3,
        // oldest first: M1's newest fix is its approximate one of the 3rd.
        let stale20 = try rows(db, .stale, ReportFilters(to: to, days: 20)).map { $0[1] }
        #expect(stale20 == [.text("M3"), .text("T2"), .text("M2"), .text("M1")], "\(stale20)")
        expectRows(try rows(db, .stale, ReportFilters(to: to, provider: "tencent")), [])
        expectRows(try rows(db, .stale, ReportFilters(to: to, app: "onboarding")), [m3Row])
        expectRows(try rows(db, .stale, ReportFilters(to: to, days: 365)), [])
    }

    @Test("daily: appended events per day of receipt and type")
    func daily() throws {
        let db = try fixture()
        defer { db.drop() }
        let day = Value.text("2026-11-29")
        expectRows(try rows(db, .daily), [
            [day, .text("LocationFailed"), .text("appended"), .integer(2)],
            [day, .text("MerchantAddressFixed"), .text("appended"), .integer(4)],
            [day, .text("TerminalBound"), .text("appended"), .integer(3)],
            [day, .text("TerminalLocated"), .text("appended"), .integer(3)],
            [day, .text("TerminalUnbound"), .text("appended"), .integer(1)],
            [day, .text("VisitRecorded"), .text("appended"), .integer(3)],
        ])
        expectRows(try rows(db, .daily, ReportFilters(app: "merchant")), [[day, .text("MerchantAddressFixed"), .text("appended"), .integer(1)]])
        expectRows(try rows(db, .daily, ReportFilters(app: "terminal-agent", provider: "tencent")), [
            [day, .text("LocationFailed"), .text("appended"), .integer(1)],
            [day, .text("TerminalLocated"), .text("appended"), .integer(2)],
        ])
        expectRows(try rows(db, .daily, ReportFilters(from: Self.at("2026-11-29T23:00:00Z"))), try rows(db, .daily))
        expectRows(try rows(db, .daily, ReportFilters(from: Self.at("2026-11-30"))), [])
        expectRows(try rows(db, .daily, ReportFilters(to: Self.at("2026-11-29"))), [])
    }

    @Test("every report's function runs without JIT compilation, which costs more than it saves on these queries")
    func noJIT() throws {
        let db = try IngestionDatabase()
        defer { db.drop() }
        for report in Report.allCases {
            let settings = try db.connection.query(
                "SELECT array_to_string(proconfig, ' ') FROM pg_proc WHERE proname = $1", [report.function]
            ).map { try $0.decode(0, as: String?.self) }
            #expect(settings == ["jit=off"], "\(report.function)")
        }
    }

    @Test("every report is empty on an empty database")
    func empty() throws {
        let db = try IngestionDatabase()
        defer { db.drop() }
        for report in Report.allCases {
            #expect(try rows(db, report).isEmpty, "\(report)")
        }
    }

    @Test("replay rebuilds the summary tables the appends kept, and the same reports")
    func replay() throws {
        let db = try IngestionDatabase()
        defer { db.drop() }
        try db.ingest(Self.events, batchSize: 3)
        let before = try Report.allCases.map { try rows(db, $0) }
        let tables = try db.allProjections()
        _ = try Replayer(chunkSize: 4, workers: 2).replay(db.database.configuration)
        #expect(try db.allProjections() == tables)
        #expect(try Report.allCases.map { try rows(db, $0) } == before)
    }

    @Test("filters a report does not take are refused, naming them")
    func refusedFilters() throws {
        #expect(throws: QueryError.filter(name: "threshold", message: "only terminal-drift and visit-distance take a threshold")) {
            try ReportFilters(threshold: 5).check(for: .daily)
        }
        #expect(throws: QueryError.filter(name: "days", message: "only stale takes days")) { try ReportFilters(days: 5).check(for: .accuracy) }
        #expect(throws: QueryError.self) { try ReportFilters(from: Self.at("2026-01-01")).check(for: .stale) }
        #expect(ReportFilters.instant("2026-11-01") == Self.at("2026-11-01T00:00:00Z"))
        #expect(ReportFilters.instant("2026-11-01T08:00:00+08:00") == Self.at("2026-11-01T00:00:00Z"))
        #expect(ReportFilters.instant("2026-02-30") == nil)
        #expect(ReportFilters.instant("yesterday") == nil)
    }

    @Test("the command: CSV of a report, geojson of one with positions, usage errors for the rest")
    func command() throws {
        let db = try fixture()
        defer { db.drop() }
        let environment = ["DATABASE_URL": db.url]
        let csv = try GeoledgerProcess.run(["report", "outside-region", "--format", "csv"], environment: environment)
        #expect(csv.status == 0, "\(csv.stderr)")
        #expect(csv.stdout == """
            merchantId,region,nearBoundary,lat,lon,capturedAt,provider,app
            M2,hong_kong,false,22.28,114.16,2026-11-02T02:00:00.000000Z,tencent,merchant

            """)
        let geojson = try GeoledgerProcess.run(["report", "terminal-drift", "--format", "geojson"], environment: environment)
        #expect(geojson.status == 0, "\(geojson.stderr)")
        let document = try JSONValue(parsing: Data(geojson.stdout.utf8))
        #expect(document["type"]?.stringValue == "FeatureCollection")
        #expect(document["features"]?.arrayValue?.count == 1)
        let unknown = try GeoledgerProcess.run(["report", "drift"], environment: environment)
        #expect(unknown.status == 64)
        #expect(unknown.stderr.contains(Report.allCases.map(\.rawValue).joined(separator: ", ")), "\(unknown.stderr)")
        let noPositions = try GeoledgerProcess.run(["report", "daily", "--format", "geojson"], environment: environment)
        #expect(noPositions.status == 64 && noPositions.stderr.contains("geojson"), "\(noPositions.stderr)")
        let badFilter = try GeoledgerProcess.run(["report", "daily", "--threshold", "5"], environment: environment)
        #expect(badFilter.status == 64 && badFilter.stderr.contains("--threshold"), "\(badFilter.stderr)")
        let help = try GeoledgerProcess.run(["report", "--help"])
        #expect(help.status == 0)
        #expect(Report.allCases.allSatisfy { help.stdout.contains($0.rawValue) && help.stdout.contains($0.example) })
    }
}
