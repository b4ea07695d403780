import Foundation

/// The outlines of the boundary data, for drawing: every ring of mainland China, Hong Kong, Macau and
/// Taiwan, and of the neighbouring countries (answered `outside`), in WGS-84 degrees.
///
/// The same rings the classifier tests points against; a ring may be a hole of its country's polygon, so
/// a drawing fills each region's rings together under the even-odd rule.
public struct RegionOutlines: Sendable {
    /// One closed ring of a region's polygon; the closing vertex is not repeated.
    public struct Ring: Sendable {
        public let region: Region
        public let latitudes: [Double]
        public let longitudes: [Double]
        public let minLatitude: Double, maxLatitude: Double
        public let minLongitude: Double, maxLongitude: Double
    }

    public let boundaryVersion: String
    /// In the order of the boundary data.
    public let rings: [Ring]

    init(rings decoded: BoundaryRings) {
        boundaryVersion = decoded.version
        rings = decoded.codes.indices.map { r in
            let range = decoded.ringStarts[r]..<decoded.ringStarts[r + 1]
            let lats = Array(decoded.ys[range]), lons = Array(decoded.xs[range])
            return Ring(region: BoundaryRings.regions[Int(decoded.codes[r])], latitudes: lats, longitudes: lons,
                        minLatitude: lats.min()!, maxLatitude: lats.max()!,
                        minLongitude: lons.min()!, maxLongitude: lons.max()!)
        }
    }

    /// The outlines shipped with this module.
    public static func bundled() throws -> RegionOutlines {
        RegionOutlines(rings: try BoundaryRings(decoding: try BoundaryClassifier.bundledData()))
    }

    /// Outlines from boundary data in the format of `scripts/derive-boundaries.py`.
    public init(data: Data) throws {
        self.init(rings: try BoundaryRings(decoding: data))
    }

    /// The rings whose bounding box meets the given box of degrees.
    public func rings(latitudes: ClosedRange<Double>, longitudes: ClosedRange<Double>) -> [Ring] {
        rings.filter {
            $0.maxLatitude >= latitudes.lowerBound && $0.minLatitude <= latitudes.upperBound
                && $0.maxLongitude >= longitudes.lowerBound && $0.minLongitude <= longitudes.upperBound
        }
    }
}
