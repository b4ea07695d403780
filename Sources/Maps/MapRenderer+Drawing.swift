import Geo

/// The drawing of each part of the map.
extension MapRenderer {
    static let seaColour = "#dcebf5"

    static func colour(of region: Region) -> String {
        switch region {
        case .mainland: return "#f4eedb"
        case .hongKong: return "#f6d8d8"
        case .macau: return "#dcefd4"
        case .taiwan: return "#dde1f5"
        case .outside: return "#e6e6e6"
        }
    }

    static func regionName(_ region: Region) -> String {
        switch region {
        case .mainland: return "mainland China"
        case .hongKong: return "Hong Kong"
        case .macau: return "Macau"
        case .taiwan: return "Taiwan"
        case .outside: return "other country"
        }
    }

    struct Pixel: Hashable {
        var x: Double, y: Double
    }

    /// The symbols of one kind of mark, one element (two for dots: a white halo under them) for all of them; marks
    /// on the same tenth of a pixel are drawn once. Dots are zero-length lines with round caps, the smallest text.
    static func symbols(_ kind: MapPicture.Kind, at pixels: [Pixel], size: Double = 1) -> String {
        var seen = Set<Pixel>()
        var path = ""
        for p in pixels {
            let key = Pixel(x: (p.x * 10).rounded(), y: (p.y * 10).rounded())
            guard seen.insert(key).inserted else { continue }
            switch kind {
            case .merchantAddress:
                let r = SVGText.number(8 * size)
                moveTo(p.x, p.y - 8 * size, in: &path)
                path += "l\(r) \(r) -\(r) \(r) -\(r) -\(r)z"
            case .terminal:
                // A square drawn out: renderers differ on the caps of zero-length paths other than round ones.
                let side = SVGText.number(9 * size)
                moveTo(p.x - 4.5 * size, p.y - 4.5 * size, in: &path)
                path += "h\(side)v\(side)h-\(side)z"
            case .preciseFix, .approximateFix, .unusableFix:
                moveTo(p.x, p.y, in: &path)
                path += "h0"
            }
        }
        let k = ##"class="mark \##(kind.rawValue)""##
        switch kind {
        case .merchantAddress:
            return ##"<path \##(k) fill="#d7301f" stroke="#ffffff" stroke-width="1.5" d="\##(path)"/>"## + "\n"
        case .terminal:
            return ##"<path \##(k) fill="#2166ac" stroke="#ffffff" stroke-width="1.5" d="\##(path)"/>"## + "\n"
        case .preciseFix, .approximateFix, .unusableFix:
            let halo = SVGText.number(11 * size), dot = SVGText.number(8 * size)
            return ##"<path \##(k) fill="none" stroke="#ffffff" stroke-width="\##(halo)" stroke-linecap="round" d="\##(path)"/>"## + "\n"
                + ##"<path \##(k) fill="none" stroke="\##(dotColour(kind))" stroke-width="\##(dot)" stroke-linecap="round" d="\##(path)"/>"## + "\n"
        }
    }

    private static func moveTo(_ x: Double, _ y: Double, in path: inout String) {
        path += "M"
        SVGText.append(x, to: &path)
        path += " "
        SVGText.append(y, to: &path)
    }

    private static func dotColour(_ kind: MapPicture.Kind) -> String {
        switch kind {
        case .preciseFix: return "#1a9850"
        case .approximateFix: return "#f08c00"
        case .unusableFix, .merchantAddress, .terminal: return "#8c8c8c"
        }
    }

    /// All lines as one dashed path, then their labels at their middles.
    static func lines(_ lines: [MapPicture.Line], _ view: MapView, labelled: Bool) -> String {
        guard !lines.isEmpty else { return "" }
        var path = ""
        var labels = ""
        for line in lines {
            let x0 = view.x(line.from.longitude), y0 = view.y(line.from.latitude)
            let x1 = view.x(line.to.longitude), y1 = view.y(line.to.latitude)
            path += "M\(SVGText.number(x0)) \(SVGText.number(y0))L\(SVGText.number(x1)) \(SVGText.number(y1))"
            guard labelled else { continue }
            let text: String
            switch line.label {
            case .distance: text = distanceText(line.from.distance(to: line.to))
            case .text(let given): text = given
            case .none: continue
            }
            labels += ##"<text x="\##(SVGText.number((x0 + x1) / 2))" y="\##(SVGText.number((y0 + y1) / 2 - 5))">\##(SVGText.escaped(text))</text>"## + "\n"
        }
        var svg = ##"<path class="lines" fill="none" stroke="#333333" stroke-width="1.5" stroke-dasharray="6 4" d="\##(path)"/>"## + "\n"
        if !labels.isEmpty {
            svg += ##"<g class="line-labels" text-anchor="middle" font-style="italic" stroke="#ffffff" stroke-width="3" paint-order="stroke">"## + "\n"
                + labels + "</g>\n"
        }
        return svg
    }

    /// The marks' labels beside them: on the right, or on the left when they would run off the right edge.
    static func markLabels(_ marks: [MapPicture.Mark], _ view: MapView) -> String {
        var labels = ""
        for mark in marks {
            guard let label = mark.label else { continue }
            let x = view.x(mark.position.longitude), y = view.y(mark.position.latitude)
            let onLeft = x + 10 + estimatedWidth(label) > view.left + view.width && x > view.left + view.width / 2
            let anchor = onLeft ? ##" text-anchor="end""## : ""
            labels += ##"<text x="\##(SVGText.number(onLeft ? x - 10 : x + 10))" y="\##(SVGText.number(y + 4))"\##(anchor)>\##(SVGText.escaped(label))</text>"## + "\n"
        }
        guard !labels.isEmpty else { return "" }
        return ##"<g class="mark-labels" stroke="#ffffff" stroke-width="3" paint-order="stroke">"## + "\n" + labels + "</g>\n"
    }

    /// A transparent disc over each mark with a title, holding it: browsers show it under the pointer.
    static func markTitles(_ marks: [MapPicture.Mark], _ view: MapView) -> String {
        var titles = ""
        for mark in marks {
            guard let title = mark.title else { continue }
            let x = SVGText.number(view.x(mark.position.longitude)), y = SVGText.number(view.y(mark.position.latitude))
            titles += ##"<circle cx="\##(x)" cy="\##(y)" r="7"><title>\##(SVGText.escaped(title))</title></circle>"## + "\n"
        }
        guard !titles.isEmpty else { return "" }
        return ##"<g class="mark-titles" fill="#000000" fill-opacity="0">"## + "\n" + titles + "</g>\n"
    }

    /// A bar of a round distance, at most a quarter of the map's width, in the map's lower left corner.
    static func scaleBar(_ view: MapView) -> String {
        let metres = view.scaleBarMetres(maxPixels: view.width / 4)
        let length = metres * view.scale
        let text = metres < 1000 ? "\(Int(metres)) m" : "\(Int(metres / 1000)) km"
        let x = view.left + 14, y = view.top + view.height - 12
        let boxWidth = max(length, estimatedWidth(text)) + 12
        return ##"<g class="scale-bar">"## + "\n"
            + ##"<rect x="\##(SVGText.number(x - 6))" y="\##(SVGText.number(y - 22))" width="\##(SVGText.number(boxWidth))" height="28" fill="#ffffff" fill-opacity="0.8"/>"## + "\n"
            + ##"<path fill="none" stroke="#000000" stroke-width="1.5" d="M\##(SVGText.number(x)) \##(SVGText.number(y - 5))v5h\##(SVGText.number(length))v-5"/>"## + "\n"
            + ##"<text x="\##(SVGText.number(x))" y="\##(SVGText.number(y - 9))">\##(text)</text>"## + "\n"
            + "</g>\n"
    }

    /// Below the map: a row of the kinds of marks used and the lines, a row of the regions shown, then a line per note.
    static func legend(kinds: [MapPicture.Kind], lines: String?, regions: [Region], notes: [String], top: Double) -> String {
        var svg = ##"<g class="legend">"## + "\n"
        var y = top + rowHeight / 2
        if !kinds.isEmpty || lines != nil {
            var x = 20.0
            for kind in kinds {
                svg += symbols(kind, at: [Pixel(x: x, y: y)], size: 0.8)
                svg += ##"<text x="\##(SVGText.number(x + 12))" y="\##(SVGText.number(y + 4))">\##(kind.legendText)</text>"## + "\n"
                x += 12 + estimatedWidth(kind.legendText) + 24
            }
            if let lines {
                let line = ##"M\##(SVGText.number(x - 8)) \##(SVGText.number(y))h24"##
                svg += ##"<path fill="none" stroke="#333333" stroke-width="1.5" stroke-dasharray="6 4" d="\##(line)"/>"## + "\n"
                svg += ##"<text x="\##(SVGText.number(x + 22))" y="\##(SVGText.number(y + 4))">\##(SVGText.escaped(lines))</text>"## + "\n"
            }
            y += rowHeight
        }
        if !regions.isEmpty {
            var x = 12.0
            for region in regions {
                svg += ##"<rect x="\##(SVGText.number(x))" y="\##(SVGText.number(y - 6))" width="16" height="12" fill="\##(colour(of: region))" stroke="#8c8c8c"/>"## + "\n"
                svg += ##"<text x="\##(SVGText.number(x + 22))" y="\##(SVGText.number(y + 4))">\##(regionName(region))</text>"## + "\n"
                x += 22 + estimatedWidth(regionName(region)) + 20
            }
            svg += ##"<rect x="\##(SVGText.number(x))" y="\##(SVGText.number(y - 6))" width="16" height="12" fill="\##(seaColour)" stroke="#8c8c8c"/>"## + "\n"
            svg += ##"<text x="\##(SVGText.number(x + 22))" y="\##(SVGText.number(y + 4))">sea</text>"## + "\n"
            y += rowHeight
        }
        for note in notes {
            svg += ##"<text x="12" y="\##(SVGText.number(y + 4))" font-size="11" fill="#555555">\##(SVGText.escaped(note))</text>"## + "\n"
            y += rowHeight
        }
        return svg + "</g>\n"
    }

    /// About the width of a text at the font size of 12, for laying out the legend and the labels: Chinese,
    /// Japanese and Korean characters are a full em wide.
    static func estimatedWidth(_ text: String) -> Double {
        text.unicodeScalars.reduce(0) { $0 + ($1.value >= 0x2E80 ? 12 : 6.5) }
    }
}
