import CommandLineArguments
import Foundation
import Geo
import Maps
import Output
import Postgres
import Queries

/// `--format svg` of `history`, `visits` and `report terminal-drift`: the rows as a map (``MapRenderer``), a
/// standalone SVG document for a browser.
enum MapFormat {
    /// The lines of `--format svg` in a command's help, indented as its options are.
    static let historyHelp = """
                        svg: a map of the page's fixes, a dot each coloured by its accuracy flag
                          (precise, approximate, unusable), over the region outlines, with a scale
                          bar and a legend; the merchant's address position (of the merchant, the
                          terminal's bound merchant, the merchant visited) as a red diamond. Meant
                          for a file that opens in a browser: > m0001.svg
        """

    /// The page's fixes as dots by accuracy flag and, when the subject has one, its merchant's address position.
    static func history(_ page: HistoryPage, of subject: HistorySubject, on connection: Connection) throws -> String {
        var marks: [MapPicture.Mark] = page.entries.compactMap { entry in
            guard let lat = entry.lat, let lon = entry.lon else { return nil }
            var details = [time(entry.capturedAt), entry.eventType, entry.accuracy ?? "accuracy unknown"]
            if let metres = entry.horizontalAccuracy { details.append("within \(MapRenderer.distanceText(metres))") }
            if let provider = entry.provider { details.append(provider) }
            return MapPicture.Mark(
                Coordinate(latitude: lat, longitude: lon), kind: kind(ofAccuracy: entry.accuracy),
                title: details.joined(separator: ", "))
        }
        let title: String
        var merchantId: String?
        switch subject {
        case .merchant(let id):
            title = "History of merchant \(id)"
            merchantId = id
        case .terminal(let id):
            title = "History of terminal \(id)"
            merchantId = try CurrentState().terminal(id, on: connection)?.merchantId
        case .enterprise(let id):
            title = "History of enterprise \(id)"
        case .visitsToMerchant(let id):
            title = "Visits to merchant \(id)"
            merchantId = id
        case .visitsBy(let id):
            title = "Visits by \(id)"
        }
        if let merchantId, let address = try CurrentState().merchant(merchantId, on: connection)?.addressPosition {
            marks.append(MapPicture.Mark(
                Coordinate(latitude: address.lat, longitude: address.lon), kind: .merchantAddress, label: merchantId,
                title: "\(merchantId): address position, \(time(address.capturedAt))"))
        }
        guard !marks.isEmpty else {
            throw CommandError("no fix on this page has a position: nothing to draw")
        }
        let count = marks.filter { $0.kind != .merchantAddress }.count
        return try MapRenderer.bundled().svg(
            MapPicture(title: "\(title): \(count) fix\(count == 1 ? "" : "es")\(page.next == nil ? "" : ", newest first (more on the next page)")", marks: marks))
    }

    /// The rows of `terminal-drift` (``Report/columns``): each terminal, its merchant's address position, and a line
    /// between them labelled with the drift.
    static func terminalDrift(_ table: Table) throws -> String {
        func column(_ name: String) -> Int { table.columns.firstIndex { $0.name == name }! }
        let (terminal, merchant, drift) = (column("terminalId"), column("merchantId"), column("drift"))
        let (lat, lon, merchantLat, merchantLon) = (column("lat"), column("lon"), column("merchantLat"), column("merchantLon"))
        var marks: [MapPicture.Mark] = []
        var lines: [MapPicture.Line] = []
        var merchantsDrawn = Set<String>()
        for row in table.rows {
            guard case .text(let terminalId) = row[terminal], case .text(let merchantId) = row[merchant],
                  let position = coordinate(row[lat], row[lon]), let address = coordinate(row[merchantLat], row[merchantLon])
            else { continue }
            let metres = number(row[drift]) ?? position.distance(to: address)
            marks.append(MapPicture.Mark(
                position, kind: .terminal, label: terminalId,
                title: "\(terminalId): \(MapRenderer.distanceText(metres)) from merchant \(merchantId)"))
            if merchantsDrawn.insert(merchantId).inserted {
                marks.append(MapPicture.Mark(address, kind: .merchantAddress, label: merchantId, title: "\(merchantId): address position"))
            }
            lines.append(MapPicture.Line(from: position, to: address, label: .text(MapRenderer.distanceText(metres))))
        }
        guard !marks.isEmpty else {
            throw CommandError("no terminal is over the threshold: nothing to draw")
        }
        let count = lines.count
        return try MapRenderer.bundled().svg(MapPicture(
            title: "Terminal drift: \(count) terminal\(count == 1 ? "" : "s") away from their merchant", marks: marks,
            lines: lines, lineLegend: "terminal to its merchant's address, with the drift"))
    }

    static func kind(ofAccuracy accuracy: String?) -> MapPicture.Kind {
        switch accuracy {
        case "precise": .preciseFix
        case "approximate": .approximateFix
        default: .unusableFix
        }
    }

    private static func coordinate(_ latitude: Value, _ longitude: Value) -> Coordinate? {
        guard let latitude = number(latitude), let longitude = number(longitude) else { return nil }
        return Coordinate(latitude: latitude, longitude: longitude)
    }

    private static func number(_ value: Value) -> Double? {
        switch value {
        case .number(let number): number
        case .integer(let number): Double(number)
        default: nil
        }
    }

    private static func time(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(timeZone: TimeZone(identifier: "UTC")!))
    }
}

