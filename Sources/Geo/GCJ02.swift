import Foundation

/// The GCJ-02 ("Mars") transform, as raw math: no check of where the point is.
///
/// The forward transform uses the published constants (Krasovsky semi-major axis
/// a = 6378245.0, eccentricity squared ee = 0.00669342162296594323, offsets computed from
/// (longitude - 105, latitude - 35)). The inverse has no closed form and is found by
/// iteration. Whether the offset applies at all is decided by `DatumConverter`.
public enum GCJ02 {
    static let semiMajorAxis = 6378245.0
    static let eccentricitySquared = 0.00669342162296594323
    /// The inverse stops once the forward transform of the estimate is this close to the input (degrees).
    static let inverseTolerance = 1e-9
    static let inverseMaxIterations = 30

    /// Converts a WGS-84 point to GCJ-02.
    public static func fromWGS84(_ point: Coordinate) -> Coordinate {
        let (dLat, dLon) = offset(latitude: point.latitude, longitude: point.longitude)
        return Coordinate(latitude: point.latitude + dLat, longitude: point.longitude + dLon)
    }

    /// Converts a GCJ-02 point back to WGS-84 by fixed-point iteration: each step moves the
    /// estimate by the error of its forward transform, until that error is far below 1e-7 degree.
    public static func toWGS84(_ point: Coordinate) -> Coordinate {
        var lat = point.latitude
        var lon = point.longitude
        for _ in 0..<inverseMaxIterations {
            let (dLat, dLon) = offset(latitude: lat, longitude: lon)
            let errLat = lat + dLat - point.latitude
            let errLon = lon + dLon - point.longitude
            lat -= errLat
            lon -= errLon
            if abs(errLat) < inverseTolerance && abs(errLon) < inverseTolerance { break }
        }
        return Coordinate(latitude: lat, longitude: lon)
    }

    /// The GCJ-02 offset (degrees of latitude, degrees of longitude) of a WGS-84 point.
    static func offset(latitude: Double, longitude: Double) -> (Double, Double) {
        let x = longitude - 105.0
        let y = latitude - 35.0
        // The same term of x starts both sums: computed once, as its sines are most of the cost.
        let waves = (20.0 * sin(6.0 * x * .pi) + 20.0 * sin(2.0 * x * .pi)) * 2.0 / 3.0
        var dLat = -100.0 + 2.0 * x + 3.0 * y + 0.2 * y * y + 0.1 * x * y + 0.2 * abs(x).squareRoot()
        dLat += waves
        dLat += (20.0 * sin(y * .pi) + 40.0 * sin(y / 3.0 * .pi)) * 2.0 / 3.0
        dLat += (160.0 * sin(y / 12.0 * .pi) + 320.0 * sin(y * .pi / 30.0)) * 2.0 / 3.0
        var dLon = 300.0 + x + 2.0 * y + 0.1 * x * x + 0.1 * x * y + 0.1 * abs(x).squareRoot()
        dLon += waves
        dLon += (20.0 * sin(x * .pi) + 40.0 * sin(x / 3.0 * .pi)) * 2.0 / 3.0
        dLon += (150.0 * sin(x / 12.0 * .pi) + 300.0 * sin(x / 30.0 * .pi)) * 2.0 / 3.0

        let radLat = latitude / 180.0 * .pi
        var magic = sin(radLat)
        magic = 1 - eccentricitySquared * magic * magic
        let sqrtMagic = magic.squareRoot()
        dLat = (dLat * 180.0) / ((semiMajorAxis * (1 - eccentricitySquared)) / (magic * sqrtMagic) * .pi)
        dLon = (dLon * 180.0) / (semiMajorAxis / sqrtMagic * cos(radLat) * .pi)
        return (dLat, dLon)
    }
}

/// Baidu's BD-09, a further offset of GCJ-02 (x_pi = π · 3000 / 180).
public enum BD09 {
    static let xPi = Double.pi * 3000.0 / 180.0

    /// Converts a GCJ-02 point to BD-09.
    public static func fromGCJ02(_ point: Coordinate) -> Coordinate {
        let x = point.longitude
        let y = point.latitude
        let z = (x * x + y * y).squareRoot() + 0.00002 * sin(y * xPi)
        let theta = atan2(y, x) + 0.000003 * cos(x * xPi)
        return Coordinate(latitude: z * sin(theta) + 0.006, longitude: z * cos(theta) + 0.0065)
    }

    /// Converts a BD-09 point to GCJ-02 with the usual closed-form inverse.
    public static func toGCJ02(_ point: Coordinate) -> Coordinate {
        let x = point.longitude - 0.0065
        let y = point.latitude - 0.006
        let z = (x * x + y * y).squareRoot() - 0.00002 * sin(y * xPi)
        let theta = atan2(y, x) - 0.000003 * cos(x * xPi)
        return Coordinate(latitude: z * sin(theta), longitude: z * cos(theta))
    }
}
