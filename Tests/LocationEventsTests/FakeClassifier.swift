import Geo

/// A region classifier made of latitude/longitude boxes, so assessment tests do not depend on boundary data.
/// The first box that holds a point wins; a point within `margin` degrees of a box edge is near a boundary.
struct FakeClassifier: RegionClassifying {
    struct Box: Sendable {
        var region: Region
        var south, north, west, east: Double

        func contains(_ p: Coordinate) -> Bool {
            (south...north).contains(p.latitude) && (west...east).contains(p.longitude)
        }

        func isNearEdge(_ p: Coordinate, margin: Double) -> Bool {
            contains(p) && min(p.latitude - south, north - p.latitude, p.longitude - west, east - p.longitude) < margin
        }
    }

    var boundaryVersion = "fake-boxes-1"
    var margin = 0.01
    var boxes: [Box] = [
        Box(region: .hongKong, south: 22.15, north: 22.56, west: 113.83, east: 114.45),
        Box(region: .macau, south: 22.10, north: 22.22, west: 113.52, east: 113.60),
        Box(region: .taiwan, south: 21.80, north: 25.40, west: 119.30, east: 122.10),
        Box(region: .mainland, south: 18.00, north: 53.60, west: 73.50, east: 135.10),
    ]

    func classify(_ point: Coordinate) -> RegionAnswer {
        guard let box = boxes.first(where: { $0.contains(point) }) else {
            return RegionAnswer(region: .outside, nearBoundary: false)
        }
        // Only the special regions' edges are borders between regions in this fake.
        let near = box.region != .mainland && box.isNearEdge(point, margin: margin)
        return RegionAnswer(region: box.region, nearBoundary: near)
    }
}
