import Geo

/// Draws a ``MapPicture`` as a standalone SVG document that opens in any browser.
///
/// The view is fitted to the marks and the lines' ends (see ``MapView`` for the projection); the region outlines
/// in view are drawn under them, cut to the view and simplified to its pixels; a scale bar and a legend of the
/// kinds of marks and the regions shown sit below. The same picture gives the same bytes. Labels are written when
/// there are at most ``labelLimit`` of them, and marks' titles when at most ``titleLimit``; with more, the marks alone
/// are drawn and a note says so. With more than
/// a thousand marks they are drawn at half size.
public struct MapRenderer: Sendable {
    /// The most labels of marks (and, separately, of lines) written on one map.
    public static let labelLimit = 100
    /// The most titles of marks (the text shown under the pointer) written on one map.
    public static let titleLimit = 2000
    /// With more marks than this, they are drawn at half size.
    static let smallMarksAbove = 1000
    static let width = 800.0
    static let mapHeight = 560.0
    static let titleHeight = 36.0
    static let rowHeight = 22.0

    let outlines: RegionOutlines?

    /// - Parameter outlines: the region outlines to draw under the points; nil draws none.
    public init(outlines: RegionOutlines?) {
        self.outlines = outlines
    }

    /// A renderer drawing the outlines of the boundary data shipped with the Geo module.
    public static func bundled() throws -> MapRenderer {
        MapRenderer(outlines: try RegionOutlines.bundled())
    }

    /// The SVG document of the picture, ending in a newline.
    /// - Throws: ``MapError`` when the picture has no marks and no lines (there is nothing to fit the view to), or
    ///   a position is not a finite latitude and longitude; the error names the field.
    public func svg(_ picture: MapPicture) throws -> String {
        let points = try MapRenderer.positions(of: picture)
        let top = picture.title == nil ? 0 : MapRenderer.titleHeight
        let view = MapView(fitting: points, left: 0, top: top, width: MapRenderer.width, height: MapRenderer.mapHeight)
        let regions = outlines.map { OutlinePaths.paths($0, in: view) } ?? []
        let kinds = MapPicture.Kind.allCases.filter { kind in picture.marks.contains { $0.kind == kind } }
        let markLabels = picture.marks.filter { $0.label != nil }.count
        let lineLabels = picture.lines.filter { $0.label != .none }.count
        let markTitles = picture.marks.filter { $0.title != nil }.count
        var notes: [String] = []
        if markLabels > MapRenderer.labelLimit {
            notes.append("\(markLabels) labels of points not drawn (more than \(MapRenderer.labelLimit)).")
        }
        if lineLabels > MapRenderer.labelLimit {
            notes.append("\(lineLabels) labels of lines not drawn (more than \(MapRenderer.labelLimit)).")
        }
        if markTitles > MapRenderer.titleLimit {
            notes.append("\(markTitles) titles of points not written (more than \(MapRenderer.titleLimit)).")
        }
        if let outlines {
            notes.append("Boundaries: \(outlines.boundaryVersion) 1:10m, generalised, not legal boundaries.")
        }
        notes.append("Equirectangular projection; the scale is true at \(MapRenderer.latitudeText(view.centreLatitude)).")

        let lineLegend = picture.lines.isEmpty ? nil : picture.lineLegend
        let legendRows = (kinds.isEmpty && lineLegend == nil ? 0 : 1) + (regions.isEmpty ? 0 : 1)
        let footerTop = top + MapRenderer.mapHeight + 6
        let height = footerTop + Double(legendRows + notes.count) * MapRenderer.rowHeight + 4
        let w = SVGText.number(MapRenderer.width), h = SVGText.number(height)

        var svg = ##"<?xml version="1.0" encoding="UTF-8"?>"## + "\n"
        svg += ##"<svg xmlns="http://www.w3.org/2000/svg" width="\##(w)" height="\##(h)" viewBox="0 0 \##(w) \##(h)" font-family="sans-serif" font-size="12">"## + "\n"
        svg += "<title>\(SVGText.escaped(picture.title ?? "Map"))</title>\n"
        svg += ##"<rect width="\##(w)" height="\##(h)" fill="#ffffff"/>"## + "\n"
        let area = ##"x="0" y="\##(SVGText.number(top))" width="\##(w)" height="\##(SVGText.number(MapRenderer.mapHeight))""##
        svg += ##"<clipPath id="map"><rect \##(area)/></clipPath>"## + "\n"
        svg += ##"<g clip-path="url(#map)">"## + "\n"
        svg += ##"<rect \##(area) fill="\##(MapRenderer.seaColour)"/>"## + "\n"
        for (region, path) in regions {
            svg += ##"<path class="region \##(region.rawValue)" fill="\##(MapRenderer.colour(of: region))" fill-rule="evenodd" stroke="#8c8c8c" stroke-width="1" stroke-linejoin="round" d="\##(path)"/>"## + "\n"
        }
        svg += MapRenderer.lines(picture.lines, view, labelled: lineLabels <= MapRenderer.labelLimit)
        for kind in MapPicture.Kind.allCases.reversed() where kinds.contains(kind) {
            let positions = picture.marks.lazy.filter { $0.kind == kind }
                .map { MapRenderer.Pixel(x: view.x($0.position.longitude), y: view.y($0.position.latitude)) }
            svg += MapRenderer.symbols(kind, at: Array(positions), size: picture.marks.count > MapRenderer.smallMarksAbove ? 0.5 : 1)
        }
        if markTitles <= MapRenderer.titleLimit {
            svg += MapRenderer.markTitles(picture.marks, view)
        }
        if markLabels <= MapRenderer.labelLimit {
            svg += MapRenderer.markLabels(picture.marks, view)
        }
        svg += "</g>\n"
        svg += ##"<rect \##(area) fill="none" stroke="#666666" stroke-width="1"/>"## + "\n"
        if let title = picture.title {
            svg += ##"<text x="12" y="24" font-size="16" font-weight="bold">\##(SVGText.escaped(title))</text>"## + "\n"
        }
        svg += MapRenderer.scaleBar(view)
        svg += MapRenderer.legend(kinds: kinds, lines: lineLegend, regions: regions.map(\.region), notes: notes, top: footerTop)
        svg += "</svg>\n"
        return svg
    }

    /// A distance as the map labels it: whole metres under 1 km, then kilometres to a tenth under 100 km.
    public static func distanceText(_ metres: Double) -> String {
        if metres < 999.5 { return "\(Int(metres.rounded())) m" }
        if metres < 99_950 {
            let tenths = Int((metres / 100).rounded())
            return tenths % 10 == 0 ? "\(tenths / 10) km" : "\(tenths / 10).\(tenths % 10) km"
        }
        return "\(Int((metres / 1000).rounded())) km"
    }

    // MARK: - Input

    static func positions(of picture: MapPicture) throws -> [Coordinate] {
        var points: [Coordinate] = []
        points.reserveCapacity(picture.marks.count + 2 * picture.lines.count)
        for (i, mark) in picture.marks.enumerated() {
            try check(mark.position, "marks[\(i)].position")
            points.append(mark.position)
        }
        for (i, line) in picture.lines.enumerated() {
            try check(line.from, "lines[\(i)].from")
            try check(line.to, "lines[\(i)].to")
            points.append(line.from)
            points.append(line.to)
        }
        guard !points.isEmpty else { throw MapError("nothing to draw: the map has no points and no lines") }
        return points
    }

    private static func check(_ position: Coordinate, _ field: String) throws {
        guard position.latitude.isFinite, (-90...90).contains(position.latitude) else {
            throw MapError("\(field).latitude: \(position.latitude) is not a latitude (-90 to 90)")
        }
        guard position.longitude.isFinite, (-180...180).contains(position.longitude) else {
            throw MapError("\(field).longitude: \(position.longitude) is not a longitude (-180 to 180)")
        }
    }

    static func latitudeText(_ latitude: Double) -> String {
        let hundredths = Int((abs(latitude) * 100).rounded())
        let fraction = hundredths % 100
        return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)° \(latitude < 0 ? "S" : "N")"
    }
}
