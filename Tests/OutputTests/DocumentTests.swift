import Foundation
import Testing
@testable import Output

/// A document: one thing's fields, then its sections, as `show` prints them.
@Suite("Output: documents")
struct DocumentTests {
    static let fixColumns = [
        Column("capturedAt", .time, title: "CAPTURED"), Column("lat", .latitude), Column("lon", .longitude),
        Column("within", .metres),
    ]
    static let visitColumns = [Column("visitId", title: "VISIT"), Column("capturedAt", .time, title: "CAPTURED")]

    static let shop = Document(
        fields: [Document.Field(Column("shopId", title: "shop"), .text("S1")), Document.Field(Column("visits", .integer, title: "visits"), .integer(2))],
        sections: [
            Document.Section("address", title: "Address", columns: fixColumns, row: [
                .time(utc("2026-11-29T02:00:00Z")), .number(31.2304), .number(121.4737), .number(35),
            ]),
            Document.Section("previous", title: "Previous address", columns: fixColumns, row: nil),
            Document.Section("recentVisits", title: "Visits", table: Table(columns: visitColumns, rows: [
                [.text("V1"), .time(utc("2026-11-30T02:00:00Z"))], [.text("V2"), .time(utc("2026-12-01T02:00:00Z"))],
            ])),
            Document.Section("notes", title: "Notes", table: Table(columns: [Column("text")], rows: [])),
        ])

    @Test("table: the fields as label and value, then each section under its title; an empty one says (none)")
    func table() throws {
        #expect(try Self.shop.rendered(as: .table, Presentation(timeZone: zone("Asia/Shanghai"))) == """
            shop    S1
            visits  2

            Address
            CAPTURED                       LAT          LON  WITHIN
            2026-11-29 10:00:00+08  31.2304000  121.4737000  35.0 m

            Previous address
            (none)

            Visits
            VISIT  CAPTURED
            V1     2026-11-30 10:00:00+08
            V2     2026-12-01 10:00:00+08

            Notes
            (none)

            """)
    }

    @Test("JSON: one object; a single section is an object or null, the others arrays")
    func json() throws {
        let text = try Self.shop.rendered(as: .json)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(object["shopId"] as? String == "S1")
        #expect(same(object["address"], ["capturedAt": "2026-11-29T02:00:00.000000Z", "lat": 31.2304, "lon": 121.4737, "within": 35]))
        #expect(object["previous"] is NSNull)
        #expect((object["visits"] as? Int) == 2)
        #expect((object["recentVisits"] as? [[String: Any]])?.map { $0["visitId"] as? String } == ["V1", "V2"])
        #expect((object["notes"] as? [Any])?.isEmpty == true)
        #expect(text.hasPrefix("{\n  \"shopId\": \"S1\",\n  \"visits\": 2,\n  \"address\": {"))
    }

    @Test("NDJSON: the same object on one line")
    func ndjson() throws {
        let line = try Self.shop.rendered(as: .ndjson)
        #expect(line.hasSuffix("}\n") && line.dropLast().split(separator: "\n").count == 1)
        // Read back, the compact line and the indented document are the same object.
        let pretty = try JSONSerialization.jsonObject(with: Data(try Self.shop.rendered(as: .json).utf8))
        let compact = try JSONSerialization.jsonObject(with: Data(line.utf8))
        let again = { (value: Any) in try JSONSerialization.data(withJSONObject: value, options: [.sortedKeys]) }
        #expect(try again(pretty) == again(compact))
    }

    @Test("CSV: a row for each row of each section after the fields and the section's name; a single section without a row still has one")
    func csv() throws {
        #expect(try Self.shop.rendered(as: .csv) == """
            shopId,visits,section,capturedAt,lat,lon,within,visitId,text
            S1,2,address,2026-11-29T02:00:00.000000Z,31.2304,121.4737,35,,
            S1,2,previous,,,,,,
            S1,2,recentVisits,2026-11-30T02:00:00.000000Z,,,,V1,
            S1,2,recentVisits,2026-12-01T02:00:00.000000Z,,,,V2,

            """)
    }

    @Test("GeoJSON: a feature for each row of the sections with positions, properties the fields, section and the row")
    func geojson() throws {
        #expect(try Self.shop.rendered(as: .geojson) == """
            {"type":"FeatureCollection","features":[
            {"type":"Feature","geometry":{"type":"Point","coordinates":[121.4737,31.2304]},"properties":{"shopId":"S1","visits":2,"section":"address","capturedAt":"2026-11-29T02:00:00.000000Z","within":35}},
            {"type":"Feature","geometry":null,"properties":{"shopId":"S1","visits":2,"section":"previous","capturedAt":null,"within":null}}
            ]}

            """)
    }
}
