import Geo
import JSON
import Queries

/// What a page's map draws: points (a marker each, coloured by accuracy flag, with its accuracy circle) and lines
/// (a terminal to its merchant's address position), in WGS-84 until written for the page in the map's datum.
struct MapData {
    struct Point {
        var lat: Double
        var lon: Double
        /// Metres; draws the accuracy circle.
        var accuracyMetres: Double?
        /// `precise`, `approximate`, `unusable`; nil for a position without one.
        var flag: String?
        /// What it is: `address` (a merchant's address position), `fix`, `terminal`, `visit`, `merchant`.
        var role: String
        /// One line naming it, shown as text.
        var label: String
        /// A console page about it.
        var link: String?
        /// Lines of its popup, shown as text.
        var details: [String] = []
    }

    struct Line {
        var from: (lat: Double, lon: Double)
        var to: (lat: Double, lon: Double)
        var label: String
    }

    var points: [Point] = []
    var lines: [Line] = []
    /// The roles drawn as single markers however many points crowd: what the page is about. The rest are
    /// clustered when there are many.
    var single: [String] = ["address", "latest", "terminal", "visit"]

    mutating func add(_ fix: FixSummary?, role: String, label: String, link: String? = nil, text: PageText) {
        guard let fix else { return }
        points.append(Point(
            lat: fix.lat, lon: fix.lon, accuracyMetres: fix.horizontalAccuracy, flag: fix.accuracy, role: role, label: label,
            link: link,
            details: [
                text.time(fix.capturedAt), "\(fix.accuracy), within \(text.metres(fix.horizontalAccuracy))", fix.provider,
                "\(fix.region)\(fix.nearBoundary ? ", near a boundary" : "")\(fix.claimMismatch ? ", claim mismatch" : "")",
            ] + (fix.address.map { [$0] } ?? [])))
    }

    /// The JSON the page's script reads: `{"datum", "tiles"?, "points": [...], "lines": [...]}`, positions in the
    /// datum the map is drawn in (the tiles', else WGS-84, as the outlines are).
    func json(tiles: MapTiles?, converter: DatumConverter) -> String {
        let datum = tiles?.datum ?? .wgs84
        func drawn(_ lat: Double, _ lon: Double) -> String {
            let point = converter.fromWGS84(Coordinate(latitude: lat, longitude: lon), to: datum)
            return "[\(number(point.latitude)),\(number(point.longitude))]"
        }
        var json = #"{"datum":"# + JSONValue.quoted(datum.rawValue)
        if let tiles {
            json += #","tiles":{"url":"# + JSONValue.quoted(tiles.urlTemplate) + #","attribution":"#
                + JSONValue.quoted(tiles.attribution) + "}"
        }
        json += #","single":["# + single.map(JSONValue.quoted).joined(separator: ",") + "]"
        json += #","points":["#
        json += points.map { point in
            var object = #"{"at":"# + drawn(point.lat, point.lon) + #","role":"# + JSONValue.quoted(point.role)
                + #","label":"# + JSONValue.quoted(point.label)
            if let accuracy = point.accuracyMetres, accuracy.isFinite { object += #","accuracy":"# + number(accuracy) }
            if let flag = point.flag { object += #","flag":"# + JSONValue.quoted(flag) }
            if let link = point.link { object += #","link":"# + JSONValue.quoted(link) }
            object += #","details":["# + point.details.map(JSONValue.quoted).joined(separator: ",") + "]}"
            return object
        }.joined(separator: ",")
        json += #"],"lines":["#
        json += lines.map { line in
            #"{"from":"# + drawn(line.from.lat, line.from.lon) + #","to":"# + drawn(line.to.lat, line.to.lon)
                + #","label":"# + JSONValue.quoted(line.label) + "}"
        }.joined(separator: ",")
        return json + "]}"
    }

    private func number(_ value: Double) -> String {
        value.isFinite ? String(value) : "0"
    }
}
