import CivilCalendar
import Foundation
import Geo
import JSON
import Testing
@testable import LocationEvents

@Suite struct FixAssessorTests {
    let assessor = FixAssessor(classifier: FakeClassifier())

    private func fix(
        _ lat: Double, _ lon: Double, datum: Datum? = nil, accuracy: Double = 35,
        authorization: AccuracyAuthorization? = .full, provider: Provider = .amap,
        province: String? = nil, claimedInRegion: Bool? = nil
    ) -> Fix {
        Fix(
            lat: lat, lon: lon, datum: datum, horizontalAccuracy: accuracy, accuracyAuthorization: authorization,
            provider: provider, capturedAt: Timestamp(rfc3339: "2026-11-29T10:00:00+08:00")!,
            address: province.map { Address(province: $0) }, claimedInRegion: claimedInRegion)
    }

    // MARK: datum

    @Test("the GCJ-02 position is the converter's, inside and outside the region, from every datum", arguments: [
        (31.2304, 121.4737), (22.3193, 114.1694), (25.0330, 121.5654), (48.8566, 2.3522), (-33.8688, 151.2093),
    ])
    func gcj02PositionIsTheConvertersOne(lat: Double, lon: Double) {
        let converter = DatumConverter(classifier: FakeClassifier())
        for datum in [Datum.wgs84, .bd09] {
            let assessment = assessor.assess(fix(lat, lon, datum: datum))
            #expect(assessment.gcj02 == converter.fromWGS84(assessment.wgs84, to: .gcj02))
        }
    }

    @Test func sentDatumIsUsedAsIs() {
        let shanghai = Coordinate(latitude: 31.2304, longitude: 121.4737)
        let a = assessor.assess(fix(31.2304, 121.4737, datum: .gcj02))
        #expect(a.datum == .gcj02)
        #expect(!a.datumInferred)
        #expect(a.datumInference == nil)
        #expect(a.wgs84 == GCJ02.toWGS84(shanghai))
        #expect(a.gcj02.distance(to: shanghai) < 0.01)
        #expect(a.wgs84.distance(to: shanghai) > 300)

        let w = assessor.assess(fix(31.2304, 121.4737, datum: .wgs84))
        #expect(w.wgs84 == shanghai)
        #expect(w.gcj02 == GCJ02.fromWGS84(shanghai))
    }

    @Test func appleIsWGS84() {
        let a = assessor.assess(fix(31.2304, 121.4737, provider: .apple))
        #expect(a.datum == .wgs84)
        #expect(a.datumInferred)
        #expect(a.datumInference == .appleWGS84)
        #expect(a.wgs84 == Coordinate(latitude: 31.2304, longitude: 121.4737))
    }

    @Test(arguments: [Provider.tencent, .amap])
    func chineseProvidersAreGCJ02InMainlandHongKongAndMacau(provider: Provider) {
        for (lat, lon) in [(31.2304, 121.4737), (22.2793, 114.1628), (22.1987, 113.5439)] {
            let a = assessor.assess(fix(lat, lon, provider: provider))
            #expect(a.datum == .gcj02)
            #expect(a.datumInference == .providerGCJ02InChina)
            #expect(a.wgs84 == GCJ02.toWGS84(Coordinate(latitude: lat, longitude: lon)))
        }
    }

    @Test(arguments: [Provider.tencent, .amap])
    func chineseProvidersAreWGS84InTaiwanAndAbroad(provider: Provider) {
        for (lat, lon) in [(25.0330, 121.5654), (35.6762, 139.6503), (48.8566, 2.3522)] {
            let a = assessor.assess(fix(lat, lon, provider: provider))
            #expect(a.datum == .wgs84)
            #expect(a.datumInference == .providerWGS84Outside)
            #expect(a.wgs84 == Coordinate(latitude: lat, longitude: lon))
            #expect(a.gcj02 == a.wgs84)
        }
    }

    @Test(arguments: [Provider.ip, .manual])
    func ipAndManualDefaultToWGS84(provider: Provider) {
        let a = assessor.assess(fix(31.2304, 121.4737, provider: provider))
        #expect(a.datum == .wgs84)
        #expect(a.datumInference == .defaultWGS84)
    }

    // MARK: region

    @Test(arguments: [
        (31.2304, 121.4737, Region.mainland, true), (22.2793, 114.1628, .hongKong, false),
        (22.1987, 113.5439, .macau, false), (25.0330, 121.5654, .taiwan, false), (35.6762, 139.6503, .outside, false),
    ])
    func region(lat: Double, lon: Double, region: Region, inRegion: Bool) {
        let a = assessor.assess(fix(lat, lon, datum: .wgs84))
        #expect(a.region == region)
        #expect(a.inRegion == inRegion)
        #expect(a.boundaryVersion == "fake-boxes-1")
    }

    @Test func nearBoundaryComesFromTheClassifier() {
        #expect(assessor.assess(fix(22.5550, 114.10, datum: .wgs84)).nearBoundary)
        #expect(!assessor.assess(fix(22.30, 114.17, datum: .wgs84)).nearBoundary)
    }

    @Test func claimMismatch() {
        #expect(!assessor.assess(fix(31.23, 121.47, claimedInRegion: true)).claimMismatch)
        #expect(assessor.assess(fix(31.23, 121.47, claimedInRegion: false)).claimMismatch)
        #expect(assessor.assess(fix(22.2793, 114.1628, claimedInRegion: true)).claimMismatch)
        #expect(!assessor.assess(fix(22.2793, 114.1628, claimedInRegion: false)).claimMismatch)
        #expect(!assessor.assess(fix(22.2793, 114.1628, claimedInRegion: nil)).claimMismatch)
    }

    // MARK: accuracy

    @Test(arguments: [
        (AccuracyAuthorization?.some(.full), 35.0, AccuracyClass.precise),
        (.reduced, 35, .approximate),
        (.unknown, 35, .approximate),
        (nil, 35, .approximate),
        (.full, 1500, .approximate),
        (.full, 5000, .unusable),
    ])
    func accuracy(authorization: AccuracyAuthorization?, metres: Double, expected: AccuracyClass) {
        #expect(assessor.assess(fix(31.23, 121.47, accuracy: metres, authorization: authorization)).accuracy == expected)
    }

    @Test func accuracyPolicyIsPassedIn() {
        let strict = FixAssessor(classifier: FakeClassifier(), policy: AccuracyPolicy(preciseMetres: 10))
        #expect(strict.assess(fix(31.23, 121.47, accuracy: 35)).accuracy == .approximate)
    }

    // MARK: flags

    @Test(arguments: [
        (22.30, 114.17, "上海市"), (22.30, 114.17, "Guangdong"), (22.30, 114.17, "澳门特别行政区"),
        (31.23, 121.47, "香港特别行政区"), (31.23, 121.47, "Hong Kong"), (31.23, 121.47, "台湾省"),
        (31.23, 121.47, "Macao"), (25.03, 121.56, "福建省"), (22.19, 113.54, "Hong Kong SAR"),
        (35.68, 139.65, "北京市"),
    ])
    func provinceContradictsRegion(lat: Double, lon: Double, province: String) {
        let a = assessor.assess(fix(lat, lon, datum: .wgs84, province: province))
        #expect(a.has(.provinceRegionMismatch))
        #expect(a.flags == ["province_region_mismatch"])
    }

    @Test(arguments: [
        (22.30, 114.17, "香港特别行政区"), (22.30, 114.17, "Hong Kong"), (31.23, 121.47, "上海市"),
        (31.23, 121.47, "Shanghai"), (25.03, 121.56, "臺灣"), (22.19, 113.54, "澳門"),
        (35.68, 139.65, "Tokyo"), (31.23, 121.47, "Somewhere"),
    ])
    func provinceAgreesOrIsUnknown(lat: Double, lon: Double, province: String) {
        #expect(assessor.assess(fix(lat, lon, datum: .wgs84, province: province)).flags == [])
    }

    @Test func provinceMismatchIsNotRaisedNearABoundary() {
        let a = assessor.assess(fix(22.5550, 114.10, datum: .wgs84, province: "广东省"))
        #expect(a.nearBoundary)
        #expect(!a.has(.provinceRegionMismatch))
    }

    @Test func swappedCoordinates() {
        // Kashgar (39.47, 75.99) sent as (75.99, 39.47): in the Arctic as given, in Xinjiang swapped.
        let swapped = assessor.assess(fix(75.99, 39.47, datum: .wgs84))
        #expect(swapped.region == .outside)
        #expect(swapped.has(.possiblySwapped))
        // Outside both ways: Sydney cannot be swapped (|151| > 90), and (14.06, 30.66) swapped is in Libya.
        #expect(!assessor.assess(fix(-33.87, 151.21, datum: .wgs84)).has(.possiblySwapped))
        #expect(!assessor.assess(fix(14.06, 30.66, datum: .wgs84)).has(.possiblySwapped))
    }

    @Test func swappedIsNotRaisedForPointsInChina() {
        // (40, 80) is in Xinjiang; swapped (80, 40) is in the Arctic, but the given point is fine.
        #expect(!assessor.assess(fix(40, 80, datum: .wgs84)).has(.possiblySwapped))
    }

    @Test func chineseDatumOutsideChina() {
        #expect(assessor.assess(fix(25.03, 121.56, datum: .gcj02)).has(.chineseDatumOutsideChina))
        #expect(assessor.assess(fix(48.85, 2.35, datum: .bd09)).has(.chineseDatumOutsideChina))
        #expect(!assessor.assess(fix(31.23, 121.47, datum: .gcj02)).has(.chineseDatumOutsideChina))
        #expect(!assessor.assess(fix(25.03, 121.56, provider: .amap)).has(.chineseDatumOutsideChina))
    }

    @Test func flagsComeInAStableOrder() {
        // Outside, swapped into China, with a mainland province, sent as GCJ-02.
        let a = assessor.assess(fix(75.99, 39.47, datum: .gcj02, province: "新疆维吾尔自治区"))
        #expect(a.flags == ["province_region_mismatch", "possibly_swapped", "chinese_datum_outside_china"])
    }

    // MARK: the whole assessment

    @Test func assessmentRoundTripsThroughJSON() throws {
        let a = assessor.assess(fix(31.2304, 121.4737, province: "上海市", claimedInRegion: true))
        let data = try JSONEncoder().encode(a)
        #expect(try JSONDecoder().decode(FixAssessment.self, from: data) == a)
        let json = try JSONValue(parsing: data)
        #expect(json["datumInference"] == .string("provider_gcj02_in_china"))
        #expect(json["region"] == .string("mainland"))
        #expect(json["accuracy"] == .string("precise"))
    }
}
