import Foundation

/// Classifies WGS-84 points into mainland China, Hong Kong, Macau, Taiwan or outside, from
/// the Natural Earth 1:10m country polygons shipped as the `boundaries.bin` resource.
///
/// - A point inside a polygon takes its region; "other" countries answer `outside`.
/// - A point inside no polygon takes the region of the nearest polygon within the 12 nautical
///   mile territorial sea (22,224 m), else `outside`. This also puts the coastal towns that the
///   generalised coastline leaves in the sea back on their land.
/// - `nearBoundary` is true within `nearBoundaryMetres` of an edge of a polygon whose answer
///   differs from the point's; at sea also within that distance of the territorial-sea limit,
///   and of the line where a coast with another answer becomes the nearest one. Coastlines
///   with the same answer on both sides are not boundaries.
///
/// Most points are answered from a precomputed grid in a few nanoseconds; only points near an
/// edge or in a territorial sea run the exact test.
public final class BoundaryClassifier: RegionClassifying, Sendable {
    /// The width of the territorial sea, 12 nautical miles.
    public static let territorialSeaMetres = 22_224.0
    static let resourceName = "boundaries"

    public let boundaryVersion: String
    public let nearBoundaryMetres: Double
    let index: BoundaryIndex

    init(rings: BoundaryRings, nearBoundaryMetres: Double) {
        boundaryVersion = rings.version
        self.nearBoundaryMetres = nearBoundaryMetres
        index = BoundaryIndex(rings: rings, territorialSeaMetres: BoundaryClassifier.territorialSeaMetres,
                              nearBoundaryMetres: nearBoundaryMetres)
    }

    /// Loads the boundary data shipped with this module.
    /// - Parameter nearBoundaryMetres: how close to a border between two answers a point is
    ///   flagged `nearBoundary` (meant for values up to a few tens of kilometres).
    public static func bundled(nearBoundaryMetres: Double = 1000) throws -> BoundaryClassifier {
        try BoundaryClassifier(data: try bundledData(), nearBoundaryMetres: nearBoundaryMetres)
    }

    /// The bytes of the boundary resource shipped with this module.
    static func bundledData() throws -> Data {
        guard let url = Bundle.module.url(forResource: resourceName, withExtension: "bin") else {
            throw GeoError.boundaryResourceMissing("\(resourceName).bin")
        }
        do {
            return try Data(contentsOf: url)
        } catch {
            throw GeoError.boundaryResourceMissing("\(resourceName).bin (\(error))")
        }
    }

    /// Builds a classifier from boundary data in the format of `scripts/derive-boundaries.py`.
    public convenience init(data: Data, nearBoundaryMetres: Double = 1000) throws {
        self.init(rings: try BoundaryRings(decoding: data), nearBoundaryMetres: nearBoundaryMetres)
    }

    /// Classifies a WGS-84 point. Points that are not finite or not on the globe are `outside`.
    public func classify(_ point: Coordinate) -> RegionAnswer {
        let (code, near) = index.classify(latitude: point.latitude, longitude: point.longitude)
        return RegionAnswer(region: BoundaryRings.regions[Int(code)], nearBoundary: near)
    }
}
