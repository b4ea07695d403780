import Foundation
import Testing
@testable import Geo

@Suite struct RegionTests {
    @Test func boundaryVersion() {
        #expect(sharedClassifier.boundaryVersion == "natural-earth-5.1.1")
    }

    @Test(arguments: Fixtures.regionPoints)
    func classifiesKnownPlaces(_ place: RegionPoint) {
        let answer = sharedClassifier.classify(place.coordinate)
        #expect(answer.region == place.region, "\(place.name): \(place.check)")
        if let near = place.nearBoundary {
            #expect(answer.nearBoundary == near, "\(place.name): \(place.check)")
        }
    }

    /// The same places as a Chinese provider reports them: GCJ-02 where it applies, WGS-84 elsewhere.
    @Test(arguments: Fixtures.regionPoints)
    func classifiesKnownPlacesGivenInGCJ02(_ place: RegionPoint) {
        let reported = place.region.usesGCJ02 ? GCJ02.fromWGS84(place.coordinate) : place.coordinate
        let answer = sharedClassifier.classify(reported, datum: .gcj02)
        #expect(answer == sharedClassifier.classify(place.coordinate), "\(place.name)")
        #expect(answer.region == place.region, "\(place.name)")
    }

    @Test func borderPointsGivenInGCJ02AreNotMisreadAsWGS84() {
        // Luohu, Shenzhen side, in GCJ-02: read as WGS-84 it would be ~550 m off.
        let luohu = Coordinate(latitude: 22.5322, longitude: 114.1160)
        let gcj = GCJ02.fromWGS84(luohu)
        #expect(luohu.distance(to: gcj) > 300)
        #expect(sharedClassifier.classify(gcj, datum: .gcj02) == RegionAnswer(region: .mainland, nearBoundary: true))
        let bd = BD09.fromGCJ02(gcj)
        #expect(sharedClassifier.classify(bd, datum: .bd09) == RegionAnswer(region: .mainland, nearBoundary: true))
    }

    /// Offshore of Zhejiang along 28.5 N, where the nearest polygon is the Chinese coast: the
    /// territorial sea ends at 22,224 m, and points within 1 km of that limit are near the boundary.
    /// Distances to CHN from an independent computation: 19.9, 21.9, 22.8, 25.8 km.
    @Test func territorialSeaLimit() {
        let answers = [121.81, 121.83, 121.84, 121.87].map {
            sharedClassifier.classify(Coordinate(latitude: 28.5, longitude: $0))
        }
        #expect(answers == [
            RegionAnswer(region: .mainland, nearBoundary: false),
            RegionAnswer(region: .mainland, nearBoundary: true),
            RegionAnswer(region: .outside, nearBoundary: true),
            RegionAnswer(region: .outside, nearBoundary: false),
        ])
    }

    @Test func nearBoundaryDistanceIsConfigurable() throws {
        // Luohu is 407 m from Hong Kong's polygon: near at 1 km and 500 m, not at 300 m.
        let luohu = Coordinate(latitude: 22.5322, longitude: 114.1160)
        #expect(try BoundaryClassifier.bundled(nearBoundaryMetres: 500).classify(luohu).nearBoundary)
        #expect(try !BoundaryClassifier.bundled(nearBoundaryMetres: 300).classify(luohu).nearBoundary)
        // Lao Cai is 2.65 km from China.
        let laoCai = Coordinate(latitude: 22.4856, longitude: 103.9707)
        #expect(try BoundaryClassifier.bundled(nearBoundaryMetres: 3000).classify(laoCai)
            == RegionAnswer(region: .outside, nearBoundary: true))
    }

    @Test func coastlinesWithTheSameAnswerAreNotBoundaries() {
        // 470 m off Sanya's generalised coastline, and 12 m inside it.
        #expect(!sharedClassifier.classify(Coordinate(latitude: 18.2420, longitude: 109.4960)).nearBoundary)
        #expect(!sharedClassifier.classify(Coordinate(latitude: 18.2400, longitude: 109.5100)).nearBoundary)
    }

    @Test func pointsOffTheGlobeAreOutside() {
        for point in [Coordinate(latitude: .nan, longitude: 116), Coordinate(latitude: 39, longitude: .infinity),
                      Coordinate(latitude: -90, longitude: -180), Coordinate(latitude: 90, longitude: 180)] {
            #expect(sharedClassifier.classify(point) == RegionAnswer(region: .outside, nearBoundary: false))
        }
    }

    /// The precomputed cells must never disagree with the exact test they stand in for.
    @Test func gridAgreesWithExactTest() {
        let index = sharedClassifier.index
        var state: UInt64 = 0x1234_5678_9ABC_DEF0
        func unit() -> Double {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Double(state >> 11) / Double(1 << 53)
        }
        var fast = 0
        var mismatches: [String] = []
        for _ in 0..<200_000 {
            let lat = 15 + 42 * unit()
            let lon = 70 + 68 * unit()
            let indexed = index.classify(latitude: lat, longitude: lon)
            let exact = index.exactClassify(latitude: lat, longitude: lon)
            if indexed.code != exact.code || indexed.near != exact.near {
                mismatches.append("\(lat),\(lon): \(indexed) vs \(exact)")
            }
            let fx = Int(((lon - index.originX) / index.cellSize).rounded(.down))
            let fy = Int(((lat - index.originY) / index.cellSize).rounded(.down))
            if !(0..<index.cellColumns).contains(fx) || !(0..<index.cellRows).contains(fy)
                || index.cells[fy * index.cellColumns + fx] != BoundaryIndex.slowCell {
                fast += 1
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(5))")
        // Most of the map is answered from the grid.
        #expect(fast > 180_000)
    }

    @Test func rejectsMalformedData() {
        #expect(throws: GeoError.self) { try BoundaryClassifier(data: Data("GEOB".utf8)) }
        #expect(throws: GeoError.self) { try BoundaryClassifier(data: Data(repeating: 0, count: 64)) }
    }
}
