import Foundation

extension Coordinate {
    /// The mean earth radius (IUGG), in metres.
    public static let meanEarthRadius = 6371008.8

    /// The great-circle distance to another point in metres (haversine on a sphere of the mean earth radius).
    public func distance(to other: Coordinate) -> Double {
        let lat1 = latitude * .pi / 180
        let lat2 = other.latitude * .pi / 180
        let dLat = lat2 - lat1
        let dLon = (other.longitude - longitude) * .pi / 180
        let s = sin(dLat / 2)
        let t = sin(dLon / 2)
        let h = s * s + cos(lat1) * cos(lat2) * t * t
        return 2 * Coordinate.meanEarthRadius * asin(min(1, h.squareRoot()))
    }
}
