import Foundation
import Geo

/// Where the map's pixels are: an equirectangular projection scaled by the cosine of the view's middle latitude,
/// fitted to the points.
///
/// At city scale (tens of kilometres) its distortion is far below a marker's size; over thousands of kilometres
/// east-west distances away from the middle latitude are off by the ratio of the cosines, and the scale bar is
/// true at the middle latitude only. Longitudes are taken as they are: a view across the antimeridian is not
/// supported (it would span the globe).
struct MapView {
    /// Metres per degree of latitude on the mean earth sphere.
    static let metresPerDegree = Coordinate.meanEarthRadius * .pi / 180
    /// The smallest extent shown in each direction, so that one point is not infinitely zoomed.
    static let minimumExtentMetres = 1000.0
    /// The share of the points' extent added on each side.
    static let marginShare = 0.15

    /// The map area, in pixels of the document.
    let left: Double, top: Double, width: Double, height: Double
    let centreLatitude: Double, centreLongitude: Double
    /// Pixels per metre at the centre latitude.
    let scale: Double
    let cosine: Double

    /// Fits the view to the bounding box of the points, with a margin and at least the minimum extent.
    init(fitting points: [Coordinate], left: Double, top: Double, width: Double, height: Double) {
        var minLat = Double.infinity, maxLat = -Double.infinity, minLon = Double.infinity, maxLon = -Double.infinity
        for p in points {
            minLat = min(minLat, p.latitude); maxLat = max(maxLat, p.latitude)
            minLon = min(minLon, p.longitude); maxLon = max(maxLon, p.longitude)
        }
        self.left = left; self.top = top; self.width = width; self.height = height
        centreLatitude = (minLat + maxLat) / 2
        centreLongitude = (minLon + maxLon) / 2
        cosine = max(cos(centreLatitude * .pi / 180), 0.01)
        let k = MapView.metresPerDegree
        let spanX = max((maxLon - minLon) * k * cosine, MapView.minimumExtentMetres) * (1 + 2 * MapView.marginShare)
        let spanY = max((maxLat - minLat) * k, MapView.minimumExtentMetres) * (1 + 2 * MapView.marginShare)
        scale = min(width / spanX, height / spanY)
    }

    func x(_ longitude: Double) -> Double {
        left + width / 2 + (longitude - centreLongitude) * MapView.metresPerDegree * cosine * scale
    }

    func y(_ latitude: Double) -> Double {
        top + height / 2 - (latitude - centreLatitude) * MapView.metresPerDegree * scale
    }

    /// The degrees the map area shows, grown by `slack` pixels on each side.
    func bounds(slack: Double) -> (latitudes: ClosedRange<Double>, longitudes: ClosedRange<Double>) {
        let halfLat = (height / 2 + slack) / (MapView.metresPerDegree * scale)
        let halfLon = (width / 2 + slack) / (MapView.metresPerDegree * cosine * scale)
        return ((centreLatitude - halfLat)...(centreLatitude + halfLat),
                (centreLongitude - halfLon)...(centreLongitude + halfLon))
    }

    /// The longest round distance (1, 2 or 5 times a power of ten, in metres) no longer than `maxPixels`.
    func scaleBarMetres(maxPixels: Double) -> Double {
        let most = maxPixels / scale
        var power = pow(10, (log10(most)).rounded(.down))
        while power > most { power /= 10 }
        for step in [5.0, 2.0, 1.0] where step * power <= most { return step * power }
        return power
    }
}
