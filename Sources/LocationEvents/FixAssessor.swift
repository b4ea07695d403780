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
        let datum: Datum, inference: DatumInference?
        let (wgs84, answer): (Coordinate, RegionAnswer)
        if let sentDatum = fix.datum {
            (datum, inference) = (sentDatum, nil)
            (wgs84, answer) = converter.toWGS84Classified(sent, from: sentDatum)
        } else {
            let inferred = infer(sent, provider: fix.provider)
            (datum, inference) = (inferred.datum, inferred.inference)
            // Inferred GCJ-02: the inference shifted the point back and classified it already.
            (wgs84, answer) = inferred.shiftedBack ?? converter.toWGS84Classified(sent, from: inferred.datum)
        }
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
        let inferred = infer(point, provider: provider)
        return (inferred.datum, inferred.inference)
    }

    /// ``inferDatum(_:provider:)``, with the point in WGS-84 and its answer when the rule found them.
    private func infer(_ point: Coordinate, provider: Provider)
        -> (datum: Datum, inference: DatumInference, shiftedBack: (wgs84: Coordinate, answer: RegionAnswer)?)
    {
        switch provider {
        case .apple:
            return (.wgs84, .appleWGS84, nil)
        case .tencent, .amap:
            if let shiftedBack = converter.shiftedBack(point) {
                return (.gcj02, .providerGCJ02InChina, shiftedBack)
            }
            return (.wgs84, .providerWGS84Outside, nil)
        case .ip, .manual:
            return (.wgs84, .defaultWGS84, nil)
        }
    }

    /// Outside China as given, inside China with latitude and longitude exchanged.
    private func looksSwapped(_ point: Coordinate, datum: Datum, region: Region) -> Bool {
        guard region == .outside, abs(point.longitude) <= 90 else { return false }
        let swapped = Coordinate(latitude: point.longitude, longitude: point.latitude)
        return converter.toWGS84Classified(swapped, from: datum).answer.region != .outside
    }
}
