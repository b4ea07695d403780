import Geo

/// The region outlines that fall in a view, as SVG path data: projected, clipped to the map area grown by a few
/// pixels, and simplified to the pixels, so that a file stays small whatever the extent.
enum OutlinePaths {
    /// How far outside the map area the rings are cut: the cut edges fall outside the visible area.
    static let clipSlack = 4.0
    /// A vertex closer than this (in pixels) to the last one kept is dropped.
    static let tolerance = 0.75
    /// The order regions are drawn in, and the order of their legend entries.
    static let regions: [Region] = [.outside, .mainland, .taiwan, .hongKong, .macau]

    /// Path data per region that has a ring in view, in ``regions`` order.
    static func paths(_ outlines: RegionOutlines, in view: MapView) -> [(region: Region, path: String)] {
        let bounds = view.bounds(slack: clipSlack)
        let rings = outlines.rings(latitudes: bounds.latitudes, longitudes: bounds.longitudes)
        let box = Box(minX: view.left - clipSlack, minY: view.top - clipSlack,
                      maxX: view.left + view.width + clipSlack, maxY: view.top + view.height + clipSlack)
        var result: [(region: Region, path: String)] = []
        for region in regions {
            var path = ""
            for ring in rings where ring.region == region {
                var points: [Point] = []
                points.reserveCapacity(ring.latitudes.count)
                for i in ring.latitudes.indices {
                    points.append(Point(x: view.x(ring.longitudes[i]), y: view.y(ring.latitudes[i])))
                }
                let kept = simplified(clipped(points, to: box))
                guard kept.count >= 3 else { continue }
                path += "M"
                for (i, p) in kept.enumerated() {
                    if i == 1 { path += "L" } else if i > 1 { path += " " }
                    SVGText.append(p.x, to: &path)
                    path += " "
                    SVGText.append(p.y, to: &path)
                }
                path += "Z"
            }
            if !path.isEmpty { result.append((region, path)) }
        }
        return result
    }

    struct Point: Equatable {
        var x: Double, y: Double
    }

    struct Box {
        var minX: Double, minY: Double, maxX: Double, maxY: Double
    }

    /// Sutherland–Hodgman: the ring cut to the box, one side at a time. A ring around the box becomes the box;
    /// a concave ring may keep zero-width spurs along the box's edges, which lie outside the visible area.
    static func clipped(_ ring: [Point], to box: Box) -> [Point] {
        var points = ring
        let sides: [(inside: (Point) -> Bool, cross: (Point, Point) -> Point)] = [
            ({ $0.x >= box.minX }, { a, b in crossX(a, b, box.minX) }),
            ({ $0.x <= box.maxX }, { a, b in crossX(a, b, box.maxX) }),
            ({ $0.y >= box.minY }, { a, b in crossY(a, b, box.minY) }),
            ({ $0.y <= box.maxY }, { a, b in crossY(a, b, box.maxY) }),
        ]
        for side in sides {
            guard let last = points.last else { return [] }
            var output: [Point] = []
            output.reserveCapacity(points.count)
            var previous = last
            for current in points {
                let currentIn = side.inside(current), previousIn = side.inside(previous)
                if currentIn {
                    if !previousIn { output.append(side.cross(previous, current)) }
                    output.append(current)
                } else if previousIn {
                    output.append(side.cross(previous, current))
                }
                previous = current
            }
            points = output
        }
        return points
    }

    private static func crossX(_ a: Point, _ b: Point, _ x: Double) -> Point {
        Point(x: x, y: a.y + (b.y - a.y) * (x - a.x) / (b.x - a.x))
    }

    private static func crossY(_ a: Point, _ b: Point, _ y: Double) -> Point {
        Point(x: a.x + (b.x - a.x) * (y - a.y) / (b.y - a.y), y: y)
    }

    /// Drops each vertex closer than ``tolerance`` to the last one kept.
    static func simplified(_ ring: [Point]) -> [Point] {
        guard var last = ring.first else { return [] }
        var kept = [last]
        let limit = tolerance * tolerance
        for p in ring.dropFirst() {
            let dx = p.x - last.x, dy = p.y - last.y
            if dx * dx + dy * dy >= limit {
                kept.append(p)
                last = p
            }
        }
        return kept
    }
}
