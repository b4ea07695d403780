import Foundation
import GeoledgerAPI
import HTTPServer
import HTTPTestSupport
import RawHTTPClient
import Testing

/// Submissions with positions sent in WGS-84 and capture times of the test's choosing.
enum Located {
    static let actor = #"{"userId":"sales-17","app":"onboarding","appVersion":"5.2.0","deviceId":"A1B2","os":"iOS 17.2"}"#
    /// Two days ago, to the second: well inside what the ingest accepts.
    static let start = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 / 60).rounded(.down) * 60 - 2 * 86_400)

    static func time(_ minutes: Int) -> String {
        start.addingTimeInterval(Double(minutes) * 60).formatted(Date.ISO8601FormatStyle(timeZone: TimeZone(identifier: "UTC")!))
    }

    /// The time as the answers write it: in UTC, to the microsecond.
    static func stored(_ minutes: Int) -> String {
        time(minutes).replacingOccurrences(of: "Z", with: ".000000Z")
    }

    static func fix(_ lat: Double, _ lon: Double, accuracy: Double = 20, minute: Int) -> String {
        #"{"lat":\#(lat),"lon":\#(lon),"datum":"wgs84","horizontalAccuracy":\#(accuracy),"accuracyAuthorization":"full","provider":"amap","capturedAt":"\#(time(minute))","claimedInRegion":true}"#
    }

    static func event(_ type: String, _ members: String, id: UUID = UUID()) -> String {
        #"{"eventId":"\#(id.uuidString.lowercased())","type":"\#(type)",\#(members),"actor":\#(actor)}"#
    }

    static func merchant(_ id: String, _ lat: Double, _ lon: Double, accuracy: Double = 20, minute: Int, eventId: UUID = UUID()) -> String {
        event("MerchantAddressFixed", #""merchantId":"\#(id)","purpose":"onboarding","fix":\#(fix(lat, lon, accuracy: accuracy, minute: minute))"#, id: eventId)
    }

    static func bound(_ terminal: String, to merchant: String, _ lat: Double, _ lon: Double, minute: Int) -> String {
        event("TerminalBound", #""terminalId":"\#(terminal)","merchantId":"\#(merchant)","fix":\#(fix(lat, lon, minute: minute))"#)
    }

    static func visit(_ visit: String, to merchant: String, by visitor: String, _ lat: Double, _ lon: Double, minute: Int) -> String {
        event("VisitRecorded", #""visitId":"\#(visit)","merchantId":"\#(merchant)","visitorId":"\#(visitor)","fix":\#(fix(lat, lon, minute: minute))"#)
    }
}

extension RawClient.Response {
    /// The `error.field` of an error document.
    var errorField: String? {
        ((try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any])
            .flatMap { $0["error"] as? [String: Any] }?["field"] as? String
    }

    /// The body as a JSON array of objects.
    var rows: [[String: Any]] {
        get throws {
            try #require(try JSONSerialization.jsonObject(with: Data(body)) as? [[String: Any]], "not a JSON array: \(text)")
        }
    }

    /// The target of `Link: <…>; rel="next"`; nil without one.
    var nextLink: String? {
        guard let link = headers["Link"], link.hasSuffix(#">; rel="next""#), link.hasPrefix("<") else { return nil }
        return String(link.dropFirst().dropLast(#">; rel="next""#.count))
    }
}

@Suite("Histories, visits and reports over HTTP")
struct QueryRoutesTests {
    @Test("a merchant's history in each format: JSON rows newest first, NDJSON, exact CSV header, GeoJSON [lon, lat]")
    func merchantHistoryFormats() async throws {
        try await withAPI { server in
            #expect(try server.post([
                Located.merchant("M1", 31.2304, 121.4737, minute: 0), Located.merchant("M1", 31.2404, 121.4737, accuracy: 500, minute: 10),
                Located.merchant("M2", 22.54, 114.05, minute: 5),
            ]).status == 200)

            let json = try server.call("GET", "/v1/merchants/M1/history", token: "read")
            #expect(json.status == 200, "\(json.text)")
            #expect(json.headers["Content-Type"] == "application/json")
            #expect(json.nextLink == nil)
            let rows = try json.rows
            #expect(rows.map { $0["eventType"] as? String } == ["MerchantAddressFixed", "MerchantAddressFixed"])
            #expect(rows.map { $0["accuracy"] as? String } == ["approximate", "precise"])
            #expect(rows.map { $0["lat"] as? Double } == [31.2404, 31.2304])
            #expect(rows.first?["capturedAt"] as? String == Located.stored(10))

            let ndjson = try server.call("GET", "/v1/merchants/M1/history?format=ndjson", token: "read")
            #expect(ndjson.headers["Content-Type"] == "application/x-ndjson")
            let lines = ndjson.text.split(separator: "\n")
            #expect(lines.count == 2)
            #expect(try lines.map { try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])["lat"] as? Double } == [31.2404, 31.2304])

            let csv = try server.call("GET", "/v1/merchants/M1/history?format=csv", token: "read")
            #expect(csv.headers["Content-Type"] == "text/csv; charset=utf-8; header=present")
            let csvLines = csv.text.split(separator: "\n", omittingEmptySubsequences: false)
            #expect(csvLines.first == "capturedAt,eventType,lat,lon,gcj02Lat,gcj02Lon,horizontalAccuracy,accuracy,accuracyAuthorization,provider,region,nearBoundary,claimMismatch,address,adcode,app,userId,errorCode,errorCategory,errorMessage,position,eventId")
            #expect(csvLines.count == 4 && csvLines.last == "")
            #expect(csvLines[1].hasPrefix("\(Located.stored(10)),MerchantAddressFixed,31.2404,121.4737,"))

            let geojson = try server.call("GET", "/v1/merchants/M1/history?format=geojson", token: "read")
            #expect(geojson.headers["Content-Type"] == "application/geo+json")
            let collection = try geojson.object
            #expect(collection["type"] as? String == "FeatureCollection")
            let features = try #require(collection["features"] as? [[String: Any]])
            #expect(features.count == 2)
            let geometry = features.first?["geometry"] as? [String: Any]
            #expect(geometry?["type"] as? String == "Point")
            #expect(geometry?["coordinates"] as? [Double] == [121.4737, 31.2404])
            #expect((features.first?["properties"] as? [String: Any])?["accuracy"] as? String == "approximate")

            // An id nobody sent: an empty history, not an error.
            let unknown = try server.call("GET", "/v1/merchants/M404/history", token: "read")
            #expect(unknown.status == 200)
            #expect(try unknown.rows.isEmpty)
        }
    }

    @Test("paging by the Link header's cursor sees every fix once, newest first, keeping since and until")
    func pagingSeesEveryFixOnce() async throws {
        try await withAPI { server in
            // 23 fixes, three at each capture time but the last two: ties broken by event id.
            var sent: [String] = []
            var ids: [String] = []
            for index in 0..<23 {
                let id = UUID()
                ids.append(id.uuidString.lowercased())
                sent.append(Located.merchant("M1", 31.23 + Double(index) * 0.001, 121.47, minute: index / 3, eventId: id))
            }
            sent.append(Located.merchant("M1", 31.3, 121.47, minute: 100))  // after until
            #expect(try server.post(sent).status == 200)

            var target: String? = "/v1/merchants/M1/history?limit=5&since=\(Located.time(0).replacingOccurrences(of: "+", with: "%2B"))&until=\(Located.time(99))"
            var seen: [String] = []
            var times: [String] = []
            var pages = 0
            while let next = target {
                let page = try server.call("GET", next, token: "read")
                #expect(page.status == 200, "\(page.text)")
                let rows = try page.rows
                #expect(rows.count == (page.nextLink == nil ? 3 : 5))
                seen += rows.compactMap { $0["eventId"] as? String }
                times += rows.compactMap { $0["capturedAt"] as? String }
                target = page.nextLink
                if let target { #expect(target.hasPrefix("/v1/merchants/M1/history?limit=5&since=") && target.contains("&cursor=")) }
                pages += 1
                try #require(pages <= 10, "the pages never end")
            }
            #expect(pages == 5)
            #expect(seen.count == 23)
            #expect(Set(seen) == Set(ids))
            #expect(times == times.sorted(by: >))
        }
    }

    @Test("a terminal's history has its binding; visits of a merchant or a visitor have their distance")
    func terminalHistoryAndVisits() async throws {
        try await withAPI { server in
            #expect(try server.post([
                Located.merchant("M1", 31.2304, 121.4737, minute: 0),
                Located.bound("T1", to: "M1", 31.2305, 121.4737, minute: 1),
                Located.visit("V1", to: "M1", by: "sales-17", 31.2394, 121.4737, minute: 2),
                Located.visit("V2", to: "M1", by: "sales-18", 31.2304, 121.4737, minute: 3),
            ]).status == 200)
            let terminal = try server.call("GET", "/v1/terminals/T1/history", token: "read")
            #expect(terminal.status == 200, "\(terminal.text)")
            let rows = try terminal.rows
            #expect(rows.map { $0["eventType"] as? String } == ["TerminalBound"])
            #expect(rows.first?["merchantId"] as? String == "M1")

            let visits = try server.call("GET", "/v1/visits?merchant=M1", token: "read")
            #expect(visits.status == 200, "\(visits.text)")
            let visitRows = try visits.rows
            #expect(visitRows.map { $0["visitId"] as? String } == ["V2", "V1"])
            let distance = try #require(visitRows.last?["distanceMetres"] as? Double)
            #expect(abs(distance - 1000.8) < 5, "about 0.009° of latitude")

            let byVisitor = try server.call("GET", "/v1/visits?visitor=sales-17&format=csv", token: "read")
            #expect(byVisitor.headers["Content-Type"] == "text/csv; charset=utf-8; header=present")
            #expect(byVisitor.text.split(separator: "\n").count == 2)
            #expect(byVisitor.text.split(separator: "\n").first?.hasPrefix("capturedAt,eventType,visitId,merchantId,visitorId,lat,lon,") == true)
        }
    }

    @Test("malformed parameters answer 400 naming the parameter", arguments: [
        ("/v1/merchants/M1/history?limit=0", "limit"),
        ("/v1/merchants/M1/history?limit=10001", "limit"),
        ("/v1/merchants/M1/history?limit=ten", "limit"),
        ("/v1/terminals/T1/history?since=yesterday", "since"),
        ("/v1/terminals/T1/history?until=2026-11-01", "until"),
        ("/v1/merchants/M1/history?cursor=not-a-cursor", "cursor"),
        ("/v1/merchants/M1/history?format=xml", "format"),
        ("/v1/merchants/M1/history?format=table", "format"),
        ("/v1/merchants/M1/history?limt=5", "limt"),
        ("/v1/merchants/M1/history?limit=5&limit=6", "limit"),
        ("/v1/events?limit=5&limit=6", "limit"),
        ("/v1/events?afterr=5", "afterr"),
        ("/v1/merchants/M%20one/history", "id"),
        ("/v1/visits", "merchant"),
        ("/v1/visits?merchant=M1&visitor=sales-17", "visitor"),
        ("/v1/visits?merchant=M%20one", "merchant"),
        ("/v1/visits?visitor=sales-17&limit=-1", "limit"),
        ("/v1/reports/terminal-drift?threshold=-1", "threshold"),
        ("/v1/reports/terminal-drift?threshold=far", "threshold"),
        ("/v1/reports/terminal-drift?days=3", "days"),
        ("/v1/reports/stale?days=many", "days"),
        ("/v1/reports/stale?from=2026-11-01", "from"),
        ("/v1/reports/accuracy?from=last-week", "from"),
        ("/v1/reports/daily?format=geojson", "format"),
        ("/v1/reports/daily?format=svg", "format"),
        ("/v1/reports/daily?since=2026-11-01", "since"),
        ("/v1/reports/daily?app=a&app=b", "app"),
        ("/v1/merchants/M1?x=1", "x"),
        ("/v1/terminals/T1?limit=5", "limit"),
        ("/v1/merchants/%2E%2E/history", "id"),
        ("/v1/terminals/%2E", "id"),
    ])
    func badParameters(target: String, field: String) async throws {
        try await withAPI { server in
            let response = try server.call("GET", target, token: "read")
            #expect(response.status == 400, "\(response.text)")
            #expect(response.errorField == field, "\(response.text)")
            #expect(response.headers["Content-Type"] == "application/json")
        }
    }

    @Test("an empty interval, until not after since or to not after from, answers no rows", arguments: [
        "/v1/merchants/M1/history?since=2026-11-02T00:00:00Z&until=2026-11-01T00:00:00Z",
        "/v1/reports/accuracy?from=2026-11-02&to=2026-11-01", "/v1/reports/daily?from=2026-11-01&to=2026-11-01",
    ])
    func emptyInterval(target: String) async throws {
        try await withAPI { server in
            #expect(try server.post([Located.merchant("M1", 31.2304, 121.4737, minute: 0)]).status == 200)
            let response = try server.call("GET", target, token: "read")
            #expect(response.status == 200, "\(response.text)")
            #expect(try response.rows.isEmpty)
        }
    }

    @Test("each query route answers 401 without a token or with an unknown one, 403 to a token without read")
    func access() async throws {
        try await withAPI { server in
            for target in ["/v1/merchants/M1/history", "/v1/terminals/T1/history", "/v1/visits?merchant=M1", "/v1/reports/daily"] {
                #expect(try server.call("GET", target).status == 401, "\(target)")
                #expect(try server.call("GET", target, token: "not-a-token").status == 401, "\(target)")
                let forbidden = try server.call("GET", target, token: "ingest")
                #expect(forbidden.status == 403, "\(target)")
                #expect(forbidden.errorCode == "insufficient_scope")
                #expect(try server.call("GET", target, token: "admin").status == 200, "\(target)")
            }
        }
    }

    @Test("a report's rows in JSON, CSV and GeoJSON, with its filters; an unknown report is 404")
    func reports() async throws {
        try await withAPI { server in
            // T1 about 1 km north of M1, T2 on it.
            #expect(try server.post([
                Located.merchant("M1", 31.2304, 121.4737, minute: 0),
                Located.bound("T1", to: "M1", 31.2394, 121.4737, minute: 1),
                Located.bound("T2", to: "M1", 31.2305, 121.4737, minute: 2),
            ]).status == 200)
            let drift = try server.call("GET", "/v1/reports/terminal-drift?threshold=500", token: "read")
            #expect(drift.status == 200, "\(drift.text)")
            #expect(drift.headers["Content-Type"] == "application/json")
            let rows = try drift.rows
            #expect(rows.map { $0["terminalId"] as? String } == ["T1"])
            #expect(rows.first?["merchantId"] as? String == "M1")
            #expect(abs((rows.first?["drift"] as? Double ?? 0) - 1000.8) < 5)

            #expect(try server.call("GET", "/v1/reports/terminal-drift", token: "read").rows.count == 1, "over 1000 m by default")
            #expect(try server.call("GET", "/v1/reports/terminal-drift?threshold=2000", token: "read").rows.isEmpty)
            #expect(try server.call("GET", "/v1/reports/terminal-drift?threshold=0&provider=tencent", token: "read").rows.isEmpty)
            #expect(try server.call("GET", "/v1/reports/terminal-drift?threshold=0&app=onboarding", token: "read").rows.count == 2)
            #expect(try server.call("GET", "/v1/reports/terminal-drift?threshold=0&from=2000-01-01&to=2000-01-02", token: "read").rows.isEmpty)

            let geojson = try server.call("GET", "/v1/reports/terminal-drift?threshold=500&format=geojson", token: "read")
            #expect(geojson.headers["Content-Type"] == "application/geo+json")
            let features = try #require(try geojson.object["features"] as? [[String: Any]])
            #expect((features.first?["geometry"] as? [String: Any])?["coordinates"] as? [Double] == [121.4737, 31.2394])

            let csv = try server.call("GET", "/v1/reports/daily?format=csv", token: "read")
            #expect(csv.status == 200, "\(csv.text)")
            #expect(csv.headers["Content-Type"] == "text/csv; charset=utf-8; header=present")
            let lines = csv.text.split(separator: "\n")
            #expect(lines.first == "day,eventType,answer,events")
            #expect(lines.dropFirst().contains { $0.hasSuffix(",MerchantAddressFixed,appended,1") })
            #expect(lines.dropFirst().contains { $0.hasSuffix(",TerminalBound,appended,2") })

            let ndjson = try server.call("GET", "/v1/reports/stale?days=0&format=ndjson", token: "read")
            #expect(ndjson.headers["Content-Type"] == "application/x-ndjson")
            #expect(ndjson.text.split(separator: "\n").count == 3, "M1, T1, T2: none has a fix from today on")

            let unknown = try server.call("GET", "/v1/reports/drift", token: "read")
            #expect(unknown.status == 404)
            #expect(unknown.errorCode == "not_found")
        }
    }

    @Test("the OpenAPI document gives each query route its formats, the Link header of the next page and its parameters")
    func openAPI() async throws {
        try await withAPI { server in
            let paths = try #require(try server.call("GET", "/openapi.json").object["paths"] as? [String: [String: Any]])
            for pattern in ["/v1/merchants/{id}/history", "/v1/terminals/{id}/history", "/v1/visits"] {
                let operation = try #require(paths[pattern]?["get"] as? [String: Any], "\(pattern)")
                #expect(operation["x-scope"] as? String == "read")
                let ok = try #require((operation["responses"] as? [String: Any])?["200"] as? [String: Any])
                #expect((ok["content"] as? [String: Any])?.keys.sorted()
                    == ["application/geo+json", "application/json", "application/x-ndjson", "text/csv"])
                #expect((ok["headers"] as? [String: Any])?["Link"] != nil)
                let names = (operation["parameters"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
                #expect(Set(["since", "until", "limit", "cursor", "format"]).isSubset(of: names), "\(pattern)")
            }
            for (report, expected) in [
                ("stale", ["to", "app", "provider", "days", "format"]),
                ("terminal-drift", ["from", "to", "app", "provider", "threshold", "format"]),
                ("daily", ["from", "to", "app", "provider", "format"]),
            ] {
                let operation = try #require(paths["/v1/reports/" + report]?["get"] as? [String: Any])
                let names = (operation["parameters"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
                #expect(names == expected, "\(report)")
            }
        }
    }
}
