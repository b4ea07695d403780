import CivilCalendar
import Foundation
import Geo
import Testing
@testable import LocationEvents

/// The assessor over the real bundled boundaries, for the cases the fake cannot vouch for.
@Suite struct BundledBoundaryTests {
    /// Loaded once for the suite: reading the boundaries takes a moment.
    private static let classifier = Result { try BoundaryClassifier.bundled() }
    let assessor: FixAssessor

    init() throws {
        assessor = FixAssessor(classifier: try Self.classifier.get())
    }

    private func fix(_ lat: Double, _ lon: Double, provider: Provider, province: String? = nil) -> Fix {
        Fix(
            lat: lat, lon: lon, horizontalAccuracy: 20, accuracyAuthorization: .full, provider: provider,
            capturedAt: Timestamp(rfc3339: "2026-11-29T10:00:00+08:00")!, address: province.map { Address(province: $0) })
    }

    @Test(arguments: [
        (31.2304, 121.4737, Provider.amap, Region.mainland, DatumInference.providerGCJ02InChina),
        (22.2793, 114.1628, .tencent, .hongKong, .providerGCJ02InChina),
        (22.1987, 113.5439, .amap, .macau, .providerGCJ02InChina),
        (25.0330, 121.5654, .amap, .taiwan, .providerWGS84Outside),
        (35.6762, 139.6503, .tencent, .outside, .providerWGS84Outside),
        (43.8256, 87.6168, .apple, .mainland, .appleWGS84),
    ])
    func inferenceAndRegion(lat: Double, lon: Double, provider: Provider, region: Region, inference: DatumInference) {
        let a = assessor.assess(fix(lat, lon, provider: provider))
        #expect(a.region == region)
        #expect(a.datumInference == inference)
        #expect(a.inRegion == (region == .mainland))
        #expect(!a.boundaryVersion.isEmpty)
        #expect(a.accuracy == .precise)
    }

    @Test func hongKongProvinceOnAShanghaiPointIsFlagged() {
        #expect(assessor.assess(fix(31.2304, 121.4737, provider: .amap, province: "香港特别行政区")).has(.provinceRegionMismatch))
        #expect(!assessor.assess(fix(31.2304, 121.4737, provider: .amap, province: "上海市")).has(.provinceRegionMismatch))
    }
}
