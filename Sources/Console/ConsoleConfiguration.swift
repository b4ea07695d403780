import Foundation
import Geo

/// A tile layer under the console's map, from a server the deployment names.
public struct MapTiles: Sendable, Equatable {
    /// Leaflet's URL template: `https://{s}.tile.example.org/{z}/{x}/{y}.png`.
    public var urlTemplate: String
    /// The text credited in the map's corner, shown as text.
    public var attribution: String
    /// The datum the tiles are drawn in: every position is drawn in it (WGS-84 for OpenStreetMap, GCJ-02 for AMap
    /// and Tencent tiles of China).
    public var datum: Datum
    /// The origin the browser fetches tiles from, for the Content-Security-Policy: `https://*.tile.example.org`.
    public let source: String

    /// - Throws: ``MapTilesError`` when the template is not an http or https URL with a host and `{z}`, `{x}` and
    ///   `{y}`, or the datum is BD-09 (the console draws in WGS-84 or GCJ-02).
    public init(urlTemplate: String, attribution: String, datum: Datum) throws(MapTilesError) {
        guard datum != .bd09 else { throw MapTilesError("the tiles' datum must be wgs84 or gcj02") }
        let lower = urlTemplate.lowercased()
        guard let schemeEnd = lower.range(of: "://"), ["http", "https"].contains(String(lower[..<schemeEnd.lowerBound])) else {
            throw MapTilesError("the tile URL must start with https:// or http://, not '\(urlTemplate)'")
        }
        let rest = urlTemplate[schemeEnd.upperBound...]
        let host = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        let hostCharacters = host.replacingOccurrences(of: "{s}", with: "")
        guard !host.isEmpty, hostCharacters.unicodeScalars.allSatisfy({
            CharacterSet.alphanumerics.contains($0) && $0.isASCII || ".-:[]".unicodeScalars.contains($0)
        }) else {
            throw MapTilesError("the tile URL's host must be a name or address (with {s} for a subdomain), not '\(host)'")
        }
        for placeholder in ["{z}", "{x}", "{y}"] where !urlTemplate.contains(placeholder) {
            throw MapTilesError("the tile URL must hold \(placeholder), as in https://tile.example.org/{z}/{x}/{y}.png")
        }
        guard !urlTemplate.contains(where: { $0 == " " || $0 == "\"" || $0 == "'" || $0 == ";" || $0 == "," }) else {
            throw MapTilesError("the tile URL must not hold spaces, quotes, ';' or ','")
        }
        self.urlTemplate = urlTemplate
        self.attribution = attribution
        self.datum = datum
        let scheme = String(lower[..<schemeEnd.lowerBound])
        source = scheme + "://" + host.replacingOccurrences(of: "{s}", with: "*")
    }
}

public struct MapTilesError: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}

extension Console {
    /// The console's settings, built once by the application and handed in.
    public struct Configuration: Sendable {
        /// Cookies marked `Secure`: the server speaks TLS.
        public var secureCookies: Bool
        /// A tile layer under the outlines; nil: the outlines alone, which need no network.
        public var tiles: MapTiles?
        /// Where Debian's libjs-leaflet put Leaflet: `leaflet.js`, `leaflet.css` and `images/`.
        public var leafletDirectory: String
        /// The zone of times until the user picks one.
        public var defaultTimeZone: TimeZone
        public var sessionIdleTimeout: TimeInterval
        public var sessionLifetime: TimeInterval
        /// Rows of a history page.
        public var historyPageSize: Int

        public static let debianLeafletDirectory = "/usr/share/javascript/leaflet"

        public init(
            secureCookies: Bool = false, tiles: MapTiles? = nil, leafletDirectory: String = Configuration.debianLeafletDirectory,
            defaultTimeZone: TimeZone = TimeZone(identifier: "Asia/Shanghai")!, sessionIdleTimeout: TimeInterval = 30 * 60,
            sessionLifetime: TimeInterval = 12 * 3600, historyPageSize: Int = 100
        ) {
            self.secureCookies = secureCookies
            self.tiles = tiles
            self.leafletDirectory = leafletDirectory
            self.defaultTimeZone = defaultTimeZone
            self.sessionIdleTimeout = sessionIdleTimeout
            self.sessionLifetime = sessionLifetime
            self.historyPageSize = historyPageSize
        }
    }
}
