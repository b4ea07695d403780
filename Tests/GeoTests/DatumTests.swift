import Foundation
import Testing
@testable import Geo

@Suite struct DatumTests {
    @Test(arguments: Fixtures.gcj02.wgs84ToGCJ02)
    func gcj02ForwardMatchesPublishedPairs(_ pair: GCJ02Reference.ForwardPair) {
        let gcj = GCJ02.fromWGS84(pair.wgs84.coordinate)
        #expect(abs(gcj.latitude - pair.gcj02.latitude) <= pair.tolerance)
        #expect(abs(gcj.longitude - pair.gcj02.longitude) <= pair.tolerance)
    }

    @Test func bd09MatchesPublishedPairs() {
        for pair in Fixtures.gcj02.gcj02ToBD09 {
            let bd = BD09.fromGCJ02(pair.gcj02.coordinate)
            #expect(abs(bd.latitude - pair.bd09.latitude) <= pair.tolerance, "\(pair.source)")
            #expect(abs(bd.longitude - pair.bd09.longitude) <= pair.tolerance, "\(pair.source)")
        }
        for pair in Fixtures.gcj02.bd09ToGCJ02 {
            let gcj = BD09.toGCJ02(pair.bd09.coordinate)
            #expect(abs(gcj.latitude - pair.gcj02.latitude) <= pair.tolerance, "\(pair.source)")
            #expect(abs(gcj.longitude - pair.gcj02.longitude) <= pair.tolerance, "\(pair.source)")
        }
    }

    /// A grid over China every 0.5 degree: WGS-84 -> GCJ-02 -> WGS-84 comes back within 1e-7 degree.
    @Test func gcj02RoundTripOverChina() {
        var worst = 0.0
        var lat = 18.0
        while lat <= 54 {
            var lon = 73.0
            while lon <= 135 {
                let wgs = Coordinate(latitude: lat, longitude: lon)
                let gcj = GCJ02.fromWGS84(wgs)
                // The offset is real (tens to hundreds of metres), not a no-op.
                #expect(wgs.distance(to: gcj) > 10)
                let back = GCJ02.toWGS84(gcj)
                worst = max(worst, abs(back.latitude - lat), abs(back.longitude - lon))
                lon += 0.5
            }
            lat += 0.5
        }
        #expect(worst < 1e-7)
    }

    /// Converting with the region found on the way gives the point `toWGS84` gives and the answer `classify` gives
    /// for it, in every datum, inside and outside the regions where GCJ-02 is used and across their borders.
    @Test func toWGS84ClassifiedAgreesWithConvertingThenClassifying() {
        let converter = DatumConverter(classifier: sharedClassifier)
        var shifted = 0
        for lat in stride(from: 15.0, through: 55.0, by: 0.37) {
            for lon in stride(from: 70.0, through: 137.0, by: 0.41) {
                let point = Coordinate(latitude: lat, longitude: lon)
                for datum in [Datum.wgs84, .gcj02, .bd09] {
                    let wgs84 = converter.toWGS84(point, from: datum)
                    let classified = converter.toWGS84Classified(point, from: datum)
                    #expect(classified.wgs84 == wgs84)
                    #expect(classified.answer == sharedClassifier.classify(wgs84))
                    if datum == .gcj02 && wgs84 != point { shifted += 1 }
                }
            }
        }
        // Both branches ran: points shifted back inside China, and points left as sent outside it.
        #expect(shifted > 1000)
        #expect(converter.shiftedBack(Coordinate(latitude: 48.85, longitude: 2.35)) == nil)
    }

    /// The exact inverse beats the one-step subtraction many libraries use (0.3-2.4 m off).
    @Test func gcj02InverseIsExactNotOneStep() {
        let gcj = Coordinate(latitude: 22.540796131694766, longitude: 113.9171764808363)
        let exact = GCJ02.toWGS84(gcj)
        let forward = GCJ02.fromWGS84(exact)
        #expect(abs(forward.latitude - gcj.latitude) < 1e-8)
        #expect(abs(forward.longitude - gcj.longitude) < 1e-8)
        let (dLat, dLon) = GCJ02.offset(latitude: gcj.latitude, longitude: gcj.longitude)
        let oneStep = Coordinate(latitude: gcj.latitude - dLat, longitude: gcj.longitude - dLon)
        #expect(oneStep.distance(to: exact) > 0.1)
    }

    @Test func bd09RoundTrip() {
        for lat in stride(from: 18.0, through: 54.0, by: 4.0) {
            for lon in stride(from: 73.0, through: 135.0, by: 4.0) {
                let gcj = Coordinate(latitude: lat, longitude: lon)
                let bd = BD09.fromGCJ02(gcj)
                #expect(gcj.distance(to: bd) > 100)
                let back = BD09.toGCJ02(bd)
                #expect(abs(back.latitude - lat) < 1e-5 && abs(back.longitude - lon) < 1e-5)
            }
        }
    }

    @Test(arguments: [
        ("Tokyo", 35.6762, 139.6503),
        ("Taipei", 25.0330, 121.5654),
        ("Singapore", 1.3521, 103.8198),
        ("Seoul", 37.5665, 126.9780),
        ("Hanoi", 21.0278, 105.8342),
    ])
    func datumsCoincideOutsideTheGCJ02Area(name: String, latitude: Double, longitude: Double) {
        let converter = DatumConverter(classifier: sharedClassifier)
        let point = Coordinate(latitude: latitude, longitude: longitude)
        #expect(converter.convert(point, from: .wgs84, to: .gcj02) == point)
        #expect(converter.convert(point, from: .gcj02, to: .wgs84) == point)
        // BD-09 outside is the Baidu offset of the unshifted point.
        #expect(converter.convert(point, from: .wgs84, to: .bd09) == BD09.fromGCJ02(point))
        let back = converter.convert(BD09.fromGCJ02(point), from: .bd09, to: .wgs84)
        #expect(back.distance(to: point) < 1)
    }

    @Test func offsetAppliesInMainlandHongKongAndMacau() {
        let converter = DatumConverter(classifier: sharedClassifier)
        for point in [Coordinate(latitude: 39.9042, longitude: 116.4074),
                      Coordinate(latitude: 22.3193, longitude: 114.1694),
                      Coordinate(latitude: 22.1987, longitude: 113.5439)] {
            let gcj = converter.convert(point, from: .wgs84, to: .gcj02)
            #expect(gcj == GCJ02.fromWGS84(point))
            let back = converter.convert(gcj, from: .gcj02, to: .wgs84)
            #expect(abs(back.latitude - point.latitude) < 1e-7 && abs(back.longitude - point.longitude) < 1e-7)
            let bd = converter.convert(point, from: .wgs84, to: .bd09)
            #expect(bd == BD09.fromGCJ02(gcj))
            #expect(converter.convert(gcj, from: .gcj02, to: .bd09) == bd)
            #expect(converter.toWGS84(bd, from: .bd09).distance(to: point) < 1)
        }
    }

    @Test func haversineDistance() {
        let beijing = Coordinate(latitude: 39.9042, longitude: 116.4074)
        let shanghai = Coordinate(latitude: 31.2304, longitude: 121.4737)
        // 1,067.3 km on the 6,371,008.8 m sphere.
        #expect(abs(beijing.distance(to: shanghai) - 1_067_311) < 50)
        #expect(beijing.distance(to: beijing) == 0)
        let oneDegree = Coordinate(latitude: 0, longitude: 0).distance(to: Coordinate(latitude: 1, longitude: 0))
        #expect(abs(oneDegree - 6_371_008.8 * .pi / 180) < 1e-6)
    }
}
