import DatabaseTestSupport
import Foundation
import JSON
import LocationEvents
import Testing

/// `show merchant|terminal` in each format, against a real database.
@Suite("geoledger show: formats and time zones", .serialized)
struct ShowCommandTests {
    /// A merchant with a precise address fix, a later approximate one, a bound terminal and a visit, all in WGS-84 so
    /// that the stored positions are the ones sent.
    func withMerchant(_ body: (IngestionDatabase) throws -> Void) throws {
        let db = try IngestionDatabase()
        defer { db.drop() }
        let address = Client.fix(datum: "wgs84")
        try db.ingest([
            Client.merchantAddressFixed(eventId(1), merchant: "M0001", fix: address),
            Client.merchantAddressFixed(eventId(2), merchant: "M0001", purpose: "shop", fix: Client.fix(
                lat: 31.231, lon: 121.474, datum: "wgs84", horizontalAccuracy: 900, capturedAt: "2026-11-29T11:00:00+08:00")),
            Client.terminalBound(eventId(3), terminal: "T0001", merchant: "M0001", fix: Client.fix(
                datum: "wgs84", capturedAt: "2026-11-29T10:05:00+08:00")),
            Client.visitRecorded(eventId(4), visit: "V1", merchant: "M0001", fix: address),
        ])
        try body(db)
    }

    func show(_ arguments: [String], _ db: IngestionDatabase, zone: String = "Asia/Shanghai") throws -> GeoledgerProcess.Outcome {
        try GeoledgerProcess.run(["show"] + arguments, environment: ["DATABASE_URL": db.url, "TZ": zone, "COLUMNS": "40"])
    }

    @Test("table: real columns, rounded for people, times in the machine's zone; piped, nothing is cut")
    func merchantTable() throws {
        try withMerchant { db in
            let outcome = try show(["merchant", "M0001"], db)
            #expect(outcome.status == 0, "\(outcome.stderr)")
            #expect(outcome.stdout == """
                merchant         M0001
                visits           1
                failed attempts  0

                Address position (latest precise fix)
                CAPTURED                       LAT          LON  ACCURACY  WITHIN  PROVIDER  REGION    NEAR BOUNDARY  CLAIM MISMATCH  ADDRESS                    LOG POSITION  EVENT
                2026-11-29 10:00:00+08  31.2304000  121.4737000  precise   35.0 m  amap      mainland  no             no              上海市黄浦区南京东路100号             1  00000000-0000-4000-8000-000000000001

                Latest fix
                CAPTURED                       LAT          LON  ACCURACY      WITHIN  PROVIDER  REGION    NEAR BOUNDARY  CLAIM MISMATCH  ADDRESS                    LOG POSITION  EVENT
                2026-11-29 11:00:00+08  31.2310000  121.4740000  approximate  900.0 m  amap      mainland  no             no              上海市黄浦区南京东路100号             2  00000000-0000-4000-8000-000000000002

                Bound terminals (drift from their latest precise fix)
                TERMINAL  BOUND SINCE             DRIFT
                T0001     2026-11-29 10:05:00+08  0.0 m

                Recent visits (the ten newest)
                VISIT  VISITOR   CAPTURED                DISTANCE
                V1     sales-17  2026-11-29 10:00:00+08     0.0 m

                Failed attempts (the ten newest)
                (none)

                """)
        }
    }

    /// `script` (util-linux, in every Debian) runs the command on a terminal of its own, 70 columns wide.
    @Test("on a terminal, the table fits the terminal's width (its window size, over COLUMNS)")
    func terminalWidth() throws {
        try withMerchant { db in
            let command = "stty cols 70 rows 24; exec '\(GeoledgerProcess.binary)' show merchant M0001"
            let outcome = try GeoledgerProcess.run(
                ["-qec", command, "/dev/null"], environment: ["DATABASE_URL": db.url, "TZ": "Asia/Shanghai", "COLUMNS": "200"],
                executable: "/usr/bin/script")
            #expect(outcome.status == 0, "\(outcome.stderr)")
            let lines = outcome.stdout.replacingOccurrences(of: "\r\n", with: "\n").split(separator: "\n")
            #expect(lines.count > 10)
            #expect(lines.allSatisfy { $0.count <= 70 }, "\(lines.joined(separator: "\n"))")
            // The fixes' columns come in blocks, each starting with the capture time; the event id stays whole.
            #expect(lines.contains("CAPTURED                EVENT"))
            #expect(lines.contains("2026-11-29 10:00:00+08  00000000-0000-4000-8000-000000000001"))
        }
    }

    @Test("--tz gives the zone of the times, whatever the machine's", arguments: [
        ("UTC", "2026-11-29 02:05:00+00"), ("+05:30", "2026-11-29 07:35:00+05:30"), ("America/New_York", "2026-11-28 21:05:00-05"),
    ])
    func timeZone(zone: String, boundSince: String) throws {
        try withMerchant { db in
            let outcome = try show(["terminal", "T0001", "--tz", zone], db)
            #expect(outcome.status == 0, "\(outcome.stderr)")
            #expect(outcome.stdout.contains("bound since      \(boundSince)\n"), "\(outcome.stdout)")
        }
    }

    @Test("an unknown --tz is a usage error that says what is accepted")
    func unknownZone() throws {
        let outcome = try GeoledgerProcess.run(["show", "merchant", "M0001", "--tz", "CST"])
        #expect(outcome.status == 64)
        #expect(outcome.stderr.contains("--tz must be an IANA time zone name (Asia/Shanghai), UTC, or a UTC offset"), "\(outcome.stderr)")
    }

    @Test("json keeps the names show has always written; missing values are null; times in UTC")
    func merchantJSON() throws {
        try withMerchant { db in
            let outcome = try show(["merchant", "M0001", "--format", "json"], db)
            #expect(outcome.status == 0, "\(outcome.stderr)")
            let shown = try JSONValue(parsing: Data(outcome.stdout.utf8))
            #expect(shown.objectValue.map { Set($0.keys) } == [
                "merchantId", "addressPosition", "latestFix", "terminals", "visits", "recentVisits", "failedAttempts", "recentFailures",
            ])
            let fixNames: Set<String> = [
                "position", "eventId", "capturedAt", "lat", "lon", "accuracy", "horizontalAccuracy", "provider", "region",
                "nearBoundary", "claimMismatch", "address",
            ]
            #expect(shown["addressPosition"]?.objectValue.map { Set($0.keys) } == fixNames)
            #expect(shown["latestFix"]?.objectValue.map { Set($0.keys) } == fixNames)
            #expect(shown[path: "addressPosition.capturedAt"] == "2026-11-29T02:00:00.000000Z")
            #expect(shown[path: "addressPosition.lat"] == 31.2304)
            #expect(shown[path: "latestFix.horizontalAccuracy"] == 900)
            #expect(shown[path: "latestFix.address"] == "上海市黄浦区南京东路100号")
            #expect(shown[path: "latestFix.nearBoundary"] == false && shown[path: "latestFix.claimMismatch"] == false)
            #expect(shown["failedAttempts"] == 0 && shown["recentFailures"] == [])
            #expect(shown["terminals"] == .array([.object(["terminalId": "T0001", "boundSince": "2026-11-29T02:05:00.000000Z", "driftMetres": 0])]))
            #expect(shown["recentVisits"] == .array([.object([
                "visitId": "V1", "visitorId": "sales-17", "capturedAt": "2026-11-29T02:00:00.000000Z", "distanceMetres": 0,
            ])]))
        }
    }

    @Test("ndjson: the json document on one line")
    func merchantNDJSON() throws {
        try withMerchant { db in
            let json = try show(["merchant", "M0001", "--format", "json"], db)
            let ndjson = try show(["merchant", "M0001", "--format", "ndjson"], db)
            #expect(ndjson.status == 0, "\(ndjson.stderr)")
            #expect(ndjson.stdout.filter { $0 == "\n" }.count == 1 && ndjson.stdout.hasSuffix("\n"))
            #expect(try JSONValue(parsing: Data(ndjson.stdout.utf8)) == JSONValue(parsing: Data(json.stdout.utf8)))
        }
    }

    @Test("csv: a row for each fix, terminal and visit, the merchant's fields on each")
    func merchantCSV() throws {
        try withMerchant { db in
            let outcome = try show(["merchant", "M0001", "--format", "csv"], db)
            #expect(outcome.status == 0, "\(outcome.stderr)")
            #expect(outcome.stdout == """
                merchantId,visits,failedAttempts,section,capturedAt,lat,lon,accuracy,horizontalAccuracy,provider,region,nearBoundary,claimMismatch,address,position,eventId,terminalId,boundSince,driftMetres,visitId,visitorId,distanceMetres,errorCode,errorCategory,errorMessage,app
                M0001,1,0,addressPosition,2026-11-29T02:00:00.000000Z,31.2304,121.4737,precise,35,amap,mainland,false,false,上海市黄浦区南京东路100号,1,00000000-0000-4000-8000-000000000001,,,,,,,,,,
                M0001,1,0,latestFix,2026-11-29T03:00:00.000000Z,31.231,121.474,approximate,900,amap,mainland,false,false,上海市黄浦区南京东路100号,2,00000000-0000-4000-8000-000000000002,,,,,,,,,,
                M0001,1,0,terminals,,,,,,,,,,,,,T0001,2026-11-29T02:05:00.000000Z,0,,,,,,,
                M0001,1,0,recentVisits,2026-11-29T02:00:00.000000Z,,,,,,,,,,,,,,,V1,sales-17,0,,,,

                """)
        }
    }

    @Test("geojson: the address position and latest fix as Points, [lon, lat]")
    func merchantGeoJSON() throws {
        try withMerchant { db in
            let outcome = try show(["merchant", "M0001", "--format", "geojson"], db)
            #expect(outcome.status == 0, "\(outcome.stderr)")
            let collection = try JSONValue(parsing: Data(outcome.stdout.utf8))
            #expect(collection["type"] == "FeatureCollection")
            let features = try #require(collection["features"]?.arrayValue)
            #expect(features.map { $0[path: "properties.section"] } == ["addressPosition", "latestFix"])
            #expect(features.map { $0[path: "geometry.type"] } == ["Point", "Point"])
            #expect(features.map { $0[path: "geometry.coordinates"] } == [[121.4737, 31.2304], [121.474, 31.231]])
            #expect(features[0][path: "properties.merchantId"] == "M0001")
            #expect(features[0][path: "properties.eventId"] == "00000000-0000-4000-8000-000000000001")
            #expect(features[0][path: "properties.lat"] == nil)
        }
    }

    @Test("show terminal in every format agrees on its fields", arguments: ["table", "json", "ndjson", "csv", "geojson"])
    func terminal(format: String) throws {
        try withMerchant { db in
            let outcome = try show(["terminal", "T0001", "--format", format, "--tz", "UTC"], db)
            #expect(outcome.status == 0, "\(outcome.stderr)")
            switch format {
            case "table":
                #expect(outcome.stdout.hasPrefix("""
                    terminal         T0001
                    bound to         M0001
                    bound since      2026-11-29 02:05:00+00
                    unbound at       (none)
                    last merchant    M0001
                    drift            0.0 m
                    failed attempts  0

                    Position (latest precise fix)
                    """), "\(outcome.stdout)")
            case "json", "ndjson":
                let shown = try JSONValue(parsing: Data(outcome.stdout.utf8))
                #expect(shown["merchantId"] == "M0001" && shown["unboundAt"] == .null && shown["driftMetres"] == 0)
                #expect(shown["boundSince"] == "2026-11-29T02:05:00.000000+00:00")
                #expect(shown[path: "position.eventId"] == "00000000-0000-4000-8000-000000000003")
                #expect(shown[path: "latestFix.eventId"] == "00000000-0000-4000-8000-000000000003")
            case "csv":
                let lines = outcome.stdout.split(separator: "\n")
                #expect(lines.count == 3)
                #expect(lines.first == "terminalId,merchantId,boundSince,unboundAt,lastMerchantId,driftMetres,failedAttempts,section,capturedAt,lat,lon,accuracy,horizontalAccuracy,provider,region,nearBoundary,claimMismatch,address,position,eventId,errorCode,errorCategory,errorMessage,app")
                #expect(lines[1].hasPrefix("T0001,M0001,2026-11-29T02:05:00.000000+00:00,,M0001,0,0,position,") == true)
                #expect(lines[2].hasPrefix("T0001,M0001,2026-11-29T02:05:00.000000+00:00,,M0001,0,0,latestFix,") == true)
            default:
                let collection = try JSONValue(parsing: Data(outcome.stdout.utf8))
                // The position and the latest fix: the same precise fix at binding.
                #expect(collection[path: "features"]?.arrayValue?.count == 2)
                #expect(collection["features"]?.arrayValue?.map { $0[path: "geometry.coordinates"] } == [[121.4737, 31.2304], [121.4737, 31.2304]])
            }
        }
    }
    @Test("a merchant known only through failed attempts is shown with them: (none) for its positions, not 'no merchant'")
    func failuresOnly() throws {
        let db = try IngestionDatabase()
        defer { db.drop() }
        try db.ingest([
            Client.locationFailed(eventId(1), entity: ("merchantId", "M0009"), provider: "amap", errorCode: 4, errorMessage: "network",
                                  capturedAt: "2026-11-29T09:00:00+08:00"),
            Client.locationFailed(eventId(2), entity: ("merchantId", "M0009"), provider: "apple", errorCode: 1, errorMessage: "kCLErrorDenied",
                                  capturedAt: "2026-11-29T10:00:00+08:00"),
        ])
        let categories = try db.rows("failures").compactMap { $0["category"]?.stringValue }
        let table = try show(["merchant", "M0009"], db)
        #expect(table.status == 0, "\(table.stderr)")
        #expect(table.stdout.hasPrefix("""
            merchant         M0009
            visits           0
            failed attempts  2

            Address position (latest precise fix)
            (none)

            Latest fix
            (none)

            """), "\(table.stdout)")
        #expect(table.stdout.contains("2026-11-29 10:00:00+08  apple     1"), "\(table.stdout)")
        #expect(table.stdout.contains("kCLErrorDenied") && table.stdout.contains("network"))

        let json = try show(["merchant", "M0009", "--format", "json"], db)
        #expect(json.status == 0, "\(json.stderr)")
        let shown = try JSONValue(parsing: Data(json.stdout.utf8))
        #expect(shown["addressPosition"] == .null && shown["latestFix"] == .null && shown["failedAttempts"] == 2)
        let failures = try #require(shown["recentFailures"]?.arrayValue)
        #expect(failures.map { $0["eventId"] } == ["00000000-0000-4000-8000-000000000002", "00000000-0000-4000-8000-000000000001"])
        #expect(failures.map { $0["errorCode"] } == ["1", "4"])
        #expect(Set(failures.compactMap { $0["errorCategory"]?.stringValue }) == Set(categories))
        #expect(failures[0]["errorMessage"] == "kCLErrorDenied" && failures[0]["capturedAt"] == "2026-11-29T02:00:00.000000Z")

        let unknown = try show(["merchant", "M0010"], db)
        #expect(unknown.status == 1 && unknown.stderr.contains("no merchant M0010"))
    }
}

