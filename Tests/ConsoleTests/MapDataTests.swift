@testable import Console
import Foundation
import Geo
import Testing

@Suite("The map's data and base layer")
struct MapDataTests {
    static let converter = DatumConverter(classifier: try! BoundaryClassifier.bundled())

    static func data(label: String = "Terminal T1") -> MapData {
        var map = MapData()
        map.points.append(MapData.Point(lat: 31.2304, lon: 121.4737, accuracyMetres: 35, flag: "precise", role: "address", label: label, link: "/merchants/M1", details: ["</script>"]))
        map.points.append(MapData.Point(lat: 52.52, lon: 13.405, accuracyMetres: nil, flag: nil, role: "fix", label: "Berlin", link: nil))
        map.lines.append(MapData.Line(from: (31.2304, 121.4737), to: (52.52, 13.405), label: "far"))
        return map
    }

    static func parsed(_ json: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(HTML.scriptJSON(json).utf8)) as? [String: Any])
    }

    @Test("positions are drawn in WGS-84 without tiles, and every text stays text")
    func wgs84() throws {
        let document = try Self.parsed(Self.data(label: "<img src=x onerror=alert(1)>").json(tiles: nil, converter: Self.converter))
        #expect(document["datum"] as? String == "wgs84")
        #expect(document["tiles"] == nil)
        let points = try #require(document["points"] as? [[String: Any]])
        #expect(points[0]["at"] as? [Double] == [31.2304, 121.4737])
        #expect(points[0]["label"] as? String == "<img src=x onerror=alert(1)>")
        #expect(points[0]["details"] as? [String] == ["</script>"])
        #expect(points[1]["flag"] == nil && points[1]["accuracy"] == nil)
        #expect((document["single"] as? [String])?.contains("address") == true)
    }

    @Test("on GCJ-02 tiles a point in mainland China moves by the GCJ-02 offset and one elsewhere does not")
    func gcj02() throws {
        let tiles = try MapTiles(urlTemplate: "https://tiles.example.cn/{z}/{x}/{y}.png", attribution: "<b>credit</b>", datum: .gcj02)
        let document = try Self.parsed(Self.data().json(tiles: tiles, converter: Self.converter))
        #expect(document["datum"] as? String == "gcj02")
        #expect((document["tiles"] as? [String: String])?["attribution"] == "<b>credit</b>")
        let points = try #require(document["points"] as? [[String: Any]])
        let shanghai = GCJ02.fromWGS84(Coordinate(latitude: 31.2304, longitude: 121.4737))
        #expect(Self.near(points[0]["at"], shanghai))
        #expect(abs(shanghai.latitude - 31.2304) + abs(shanghai.longitude - 121.4737) > 0.001, "the offset is hundreds of metres")
        #expect(points[1]["at"] as? [Double] == [52.52, 13.405])
        let lines = try #require(document["lines"] as? [[String: Any]])
        #expect(Self.near(lines[0]["from"], shanghai))
    }

    /// Within 1e-9 degrees (JSONSerialization reads the last digit of a double loosely).
    static func near(_ value: Any?, _ point: Coordinate) -> Bool {
        guard let pair = value as? [Double], pair.count == 2 else { return false }
        return abs(pair[0] - point.latitude) < 1e-9 && abs(pair[1] - point.longitude) < 1e-9
    }

    @Test("the base layer holds each region's rings as one GeoJSON polygon, closed, and on GCJ-02 tiles moves China's only")
    func baseLayer() throws {
        let outlines = try RegionOutlines.bundled()
        let wgs84 = try #require(try JSONSerialization.jsonObject(with: Data(BaseLayer.geoJSON(outlines, datum: .wgs84).utf8)) as? [String: Any])
        let gcj02 = try #require(try JSONSerialization.jsonObject(with: Data(BaseLayer.geoJSON(outlines, datum: .gcj02).utf8)) as? [String: Any])
        #expect(wgs84["boundaryVersion"] as? String == outlines.boundaryVersion)
        let features = try #require(wgs84["features"] as? [[String: Any]])
        let shifted = try #require(gcj02["features"] as? [[String: Any]])
        let regions = features.compactMap { ($0["properties"] as? [String: String])?["region"] }
        #expect(regions == Region.allCases.map(\.rawValue))
        #expect(features.count == shifted.count)
        for (plain, moved) in zip(features, shifted) {
            let region = (plain["properties"] as? [String: String])?["region"] ?? ""
            let rings = try #require((plain["geometry"] as? [String: Any])?["coordinates"] as? [[[Double]]])
            let ring = try #require(rings.first)
            let movedRing = try #require(((moved["geometry"] as? [String: Any])?["coordinates"] as? [[[Double]]])?.first)
            #expect(rings.allSatisfy { $0.first == $0.last && $0.count >= 4 })
            if Region(rawValue: region)?.usesGCJ02 == true {
                #expect(ring != movedRing, "\(region)")
            } else {
                #expect(ring == movedRing, "\(region)")
            }
        }
    }
}
