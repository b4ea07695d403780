import Foundation
import Testing
@testable import Geo

@Suite struct RegionOutlinesTests {
    @Test func theBundledOutlinesAreTheClassifiersRings() throws {
        let outlines = try RegionOutlines.bundled()
        let rings = try BoundaryRings(decoding: try BoundaryClassifier.bundledData())
        #expect(outlines.boundaryVersion == "natural-earth-5.1.1")
        #expect(outlines.rings.count == rings.codes.count)
        #expect(outlines.rings.map(\.latitudes.count).reduce(0, +) == rings.xs.count)
        for region in Region.allCases {
            #expect(outlines.rings.contains { $0.region == region }, "\(region)")
        }
    }

    @Test func ringsMeetingABoxAroundHongKongAndShenzhen() throws {
        let outlines = try RegionOutlines.bundled()
        let near = outlines.rings(latitudes: 22.45...22.60, longitudes: 114.00...114.20)
        #expect(Set(near.map(\.region)) == [.mainland, .hongKong])
        for ring in near {
            #expect(ring.maxLatitude >= 22.45 && ring.minLatitude <= 22.60)
            #expect(ring.maxLongitude >= 114.00 && ring.minLongitude <= 114.20)
        }
        #expect(outlines.rings(latitudes: -1...1, longitudes: -31...(-29)).isEmpty)  // mid-Atlantic
    }
}
