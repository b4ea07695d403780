import Geo
import JSON

/// The map's own base layer, which needs no network: the outlines of mainland China, Hong Kong, Macau, Taiwan and
/// the neighbouring countries that the region check uses, as GeoJSON, simplified to ``tolerance`` degrees and in
/// the datum the map is drawn in. The sea is the map's background.
enum BaseLayer {
    /// A vertex closer than this to the last one kept is dropped: about 1 km, a few pixels at a city's zoom.
    static let tolerance = 0.01

    static func geoJSON(_ outlines: RegionOutlines, datum: Datum) -> String {
        // A region's rings go into one polygon, which Leaflet fills under the even-odd rule: a ring inside another
        // (a lake, an inlet, an enclave) is a hole, as the classifier reads them.
        var ringsByRegion: [Region: [String]] = [:]
        for ring in outlines.rings {
            var coordinates: [String] = []
            var last: (lat: Double, lon: Double)?
            for index in ring.latitudes.indices {
                var lat = ring.latitudes[index], lon = ring.longitudes[index]
                if let kept = last, abs(kept.lat - lat) < tolerance && abs(kept.lon - lon) < tolerance { continue }
                last = (lat, lon)
                if datum == .gcj02 && ring.region.usesGCJ02 {
                    // The ring is where GCJ-02 applies: its vertices move with the tiles.
                    let shifted = GCJ02.fromWGS84(Coordinate(latitude: lat, longitude: lon))
                    (lat, lon) = (shifted.latitude, shifted.longitude)
                }
                coordinates.append("[\(rounded(lon)),\(rounded(lat))]")
            }
            guard coordinates.count >= 3 else { continue }
            coordinates.append(coordinates[0])
            ringsByRegion[ring.region, default: []].append("[" + coordinates.joined(separator: ",") + "]")
        }
        let features = Region.allCases.compactMap { region -> String? in
            guard let rings = ringsByRegion[region] else { return nil }
            return #"{"type":"Feature","properties":{"region":"# + JSONValue.quoted(region.rawValue)
                + #"},"geometry":{"type":"Polygon","coordinates":["# + rings.joined(separator: ",") + "]}}"
        }
        return #"{"type":"FeatureCollection","boundaryVersion":"# + JSONValue.quoted(outlines.boundaryVersion) + #","features":["#
            + features.joined(separator: ",") + "]}"
    }

    private static func rounded(_ degrees: Double) -> String {
        String((degrees * 10_000).rounded() / 10_000)
    }
}
