import Geo

/// Computes what the server adds to a fix: WGS-84 and GCJ-02 positions, the datum (inferred when not sent),
/// the region check, the accuracy class and review flags. Pure: the same fix, classifier and policy always give
/// the same assessment.
public struct FixAssessor: Sendable {
    public let classifier: any RegionClassifying
    public let policy: AccuracyPolicy
    private let converter: DatumConverter

    public init(classifier: any RegionClassifying, policy: AccuracyPolicy = AccuracyPolicy()) {
        self.classifier = classifier
        self.policy = policy
        self.converter = DatumConverter(classifier: classifier)
    }

    public func assess(_ fix: Fix) -> FixAssessment {
        let sent = Coordinate(latitude: fix.lat, longitude: fix.lon)
        let (datum, inference) = fix.datum.map { ($0, nil) } ?? inferDatum(sent, provider: fix.provider)
        let wgs84 = converter.toWGS84(sent, from: datum)
        let answer = classifier.classify(wgs84)
        let inRegion = answer.region.isInRegion

        // In the order of `FixFlag.allCases`.
        var flags: [String] = []
        if let province = fix.address?.province, let named = ProvinceNames.region(of: province),
           named != answer.region, !answer.nearBoundary {
            flags.append(FixFlag.provinceRegionMismatch.rawValue)
        }
        if looksSwapped(sent, datum: datum, region: answer.region) {
            flags.append(FixFlag.possiblySwapped.rawValue)
        }
        if datum != .wgs84, !answer.region.usesGCJ02 {
            flags.append(FixFlag.chineseDatumOutsideChina.rawValue)
        }

        return FixAssessment(
            wgs84: wgs84,
            // A GCJ-02 fix keeps its own coordinates: converting there and back would move it by ~1e-13 degree.
            // Otherwise as `converter.fromWGS84(wgs84, to: .gcj02)`, with the region already found for `wgs84`.
            gcj02: datum == .gcj02 ? sent : answer.region.usesGCJ02 ? GCJ02.fromWGS84(wgs84) : wgs84,
            datum: datum,
            datumInferred: fix.datum == nil,
            datumInference: inference,
            region: answer.region,
            nearBoundary: answer.nearBoundary,
            inRegion: inRegion,
            claimMismatch: fix.claimedInRegion.map { $0 != inRegion } ?? false,
            boundaryVersion: classifier.boundaryVersion,
            accuracy: policy.classify(horizontalAccuracy: fix.horizontalAccuracy, authorization: fix.accuracyAuthorization),
            flags: flags)
    }

    /// The datum rule of DESIGN.md for fixes sent without one.
    public func inferDatum(_ point: Coordinate, provider: Provider) -> (Datum, DatumInference) {
        switch provider {
        case .apple:
            return (.wgs84, .appleWGS84)
        case .tencent, .amap:
            let asGCJ02 = GCJ02.toWGS84(point)
            return classifier.classify(asGCJ02).region.usesGCJ02
                ? (.gcj02, .providerGCJ02InChina)
                : (.wgs84, .providerWGS84Outside)
        case .ip, .manual:
            return (.wgs84, .defaultWGS84)
        }
    }

    /// Outside China as given, inside China with latitude and longitude exchanged.
    private func looksSwapped(_ point: Coordinate, datum: Datum, region: Region) -> Bool {
        guard region == .outside, abs(point.longitude) <= 90 else { return false }
        let swapped = Coordinate(latitude: point.longitude, longitude: point.latitude)
        return classifier.classify(converter.toWGS84(swapped, from: datum)).region != .outside
    }
}
