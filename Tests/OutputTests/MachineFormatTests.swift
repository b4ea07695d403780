import Foundation
import Testing
@testable import Output

/// CSV, JSON, NDJSON and GeoJSON: the same rows as the table, for programs.
@Suite("Output: formats for programs")
struct MachineFormatTests {
    /// Text that each format must carry through unharmed.
    static let awkward = "comma, \"quote\", back\\slash, new\nline, CR\r, tab\t, 上海市, ☕"

    @Test("CSV: a header of the names; exact values; times in UTC; missing values empty")
    func csv() throws {
        #expect(try Shops.table.rendered(as: .csv) == """
            name,visits,radius,lat,lon,seenAt,open,note
            Shanghai office,12,35.04,31.230412345,121.4737,2026-11-29T02:00:00.250000Z,true,first floor
            HK,3,1234.56,22.2855,114.157749999,,false,

            """)
    }

    @Test("CSV quotes fields holding a comma, a quote or a line break, and doubles the quotes (RFC 4180)")
    func csvQuoting() throws {
        let table = Table(
            columns: [Column("a"), Column("b, c"), Column("d")],
            rows: [[.text("plain"), .text(#"say "hi""#), .text("two\nlines")], [.text("a,b"), .text("cr\r"), .text(" spaced ")]])
        #expect(try table.rendered(as: .csv) == "a,\"b, c\",d\nplain,\"say \"\"hi\"\"\",\"two\nlines\"\n\"a,b\",\"cr\r\", spaced \n")
    }

    @Test("a named zone gives every format its offset: CSV and JSON times end in +08:00 instead of Z")
    func namedZone() throws {
        let presentation = Presentation(timeZone: TimeZoneName.parse("+08:00"))
        #expect(try Shops.table.rendered(as: .csv, presentation).contains(",2026-11-29T10:00:00.250000+08:00,"))
        #expect(try Shops.table.rendered(as: .json, presentation).contains(#""seenAt":"2026-11-29T10:00:00.250000+08:00""#))
    }

    /// The rows as Foundation reads them back.
    static var expectedObjects: [[String: Any]] { [
        ["name": "Shanghai office", "visits": 12, "radius": 35.04, "lat": 31.230_412_345, "lon": 121.473_7,
         "seenAt": "2026-11-29T02:00:00.250000Z", "open": true, "note": "first floor"],
        ["name": "HK", "visits": 3, "radius": 1234.56, "lat": 22.285_5, "lon": 114.157_749_999, "seenAt": NSNull(),
         "open": false, "note": NSNull()],
    ] }

    @Test("JSON is one array of row objects that parses back to the same values, missing ones as null")
    func json() throws {
        let text = try Shops.table.rendered(as: .json)
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [Any])
        #expect(parsed.count == 2)
        for (row, expected) in zip(parsed, Self.expectedObjects) { #expect(same(row, expected), "\(row)") }
        // Members in column order, as a reader expects them.
        #expect(text.contains(#"{"name":"Shanghai office","visits":12,"radius":35.04,"lat":31.230412345,"#))
        #expect(text.contains(#""open":true,"#) && text.contains(#""open":false,"note":null}"#))
    }

    @Test("NDJSON: one row object a line, the same values as JSON")
    func ndjson() throws {
        let lines = try Shops.table.rendered(as: .ndjson).split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 3 && lines[2].isEmpty)
        for (line, expected) in zip(lines, Self.expectedObjects) {
            #expect(same(try JSONSerialization.jsonObject(with: Data(line.utf8)), expected), "\(line)")
        }
    }

    @Test("JSON and NDJSON carry quotes, backslashes, line breaks and non-ASCII text through", arguments: [Format.json, .ndjson])
    func awkwardText(format: Format) throws {
        let table = Table(columns: [Column("note")], rows: [[.text(Self.awkward)]])
        let text = try table.rendered(as: format)
        let row = format == .json
            ? try #require((try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [Any])?.first)
            : try JSONSerialization.jsonObject(with: Data(text.dropLast().utf8))
        #expect((row as? [String: Any])?["note"] as? String == Self.awkward)
        #expect(text.split(separator: "\n").count == (format == .json ? 3 : 1), "a line break in a value stays escaped")
    }

    @Test("numbers JSON cannot hold are null")
    func nonFinite() throws {
        let table = Table(columns: [Column("x", .number)], rows: [[.number(.nan)], [.number(.infinity)]])
        #expect(try table.rendered(as: .ndjson) == "{\"x\":null}\n{\"x\":null}\n")
    }

    @Test("GeoJSON: a FeatureCollection of Points, [lon, lat] in that order, the other columns as properties")
    func geojson() throws {
        let text = try Shops.table.rendered(as: .geojson)
        let collection = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(collection["type"] as? String == "FeatureCollection")
        let features = try #require(collection["features"] as? [[String: Any]])
        #expect(features.count == 2)
        for (feature, expected) in zip(features, Self.expectedObjects) {
            #expect(feature["type"] as? String == "Feature")
            let geometry = try #require(feature["geometry"] as? [String: Any])
            #expect(geometry["type"] as? String == "Point")
            #expect(geometry["coordinates"] as? [Double] == [expected["lon"] as! Double, expected["lat"] as! Double])
            var properties = expected
            properties["lat"] = nil
            properties["lon"] = nil
            #expect(same(feature["properties"] as Any, properties), "\(feature)")
        }
    }

    @Test("GeoJSON: a row without a position is a feature with a null geometry")
    func geojsonWithoutPosition() throws {
        let table = Table(columns: [Column("id"), Column("lat", .latitude), Column("lon", .longitude)], rows: [[.text("x"), .none, .none]])
        #expect(try table.rendered(as: .geojson) == """
            {"type":"FeatureCollection","features":[
            {"type":"Feature","geometry":null,"properties":{"id":"x"}}
            ]}

            """)
    }

    @Test("GeoJSON of rows without latitude and longitude columns is an error that says so")
    func geojsonNeedsPositions() throws {
        let table = Table(columns: [Column("id")], rows: [[.text("x")]])
        #expect(throws: OutputError.self) { try table.rendered(as: .geojson) }
        do {
            _ = try table.rendered(as: .geojson)
        } catch {
            #expect("\(error)".contains("no latitude and longitude columns"))
        }
    }
}
