import Geo

/// Which rule chose the datum of a fix that did not say.
public enum DatumInference: String, Sendable, Hashable, Codable, CaseIterable {
    /// CoreLocation reports WGS-84 everywhere.
    case appleWGS84 = "apple_wgs84"
    /// Tencent or AMap, and the point read as GCJ-02 lands in mainland China, Hong Kong or Macau.
    case providerGCJ02InChina = "provider_gcj02_in_china"
    /// Tencent or AMap, and the point read as GCJ-02 lands elsewhere (Taiwan, abroad), where they report WGS-84.
    case providerWGS84Outside = "provider_wgs84_outside"
    /// IP location and manual entry: no known transform, so WGS-84. An IP fix is kilometres off anyway, far more
    /// than the GCJ-02 offset (at most ~700 m); clients that let people pick on a Chinese map must send `gcj02`.
    case defaultWGS84 = "default_wgs84"
}

/// Checks that accept a fix but mark it for review.
public enum FixFlag: String, Sendable, Hashable, Codable, CaseIterable {
    /// The address's province names a different region than the point lies in.
    case provinceRegionMismatch = "province_region_mismatch"
    /// The point is outside China, and with latitude and longitude exchanged it would be inside.
    case possiblySwapped = "possibly_swapped"
    /// The client said GCJ-02 (or BD-09) for a point where providers report WGS-84; it was kept unshifted.
    case chineseDatumOutsideChina = "chinese_datum_outside_china"
}

/// What the server adds to a fix: stored with the event, never recomputed silently.
public struct FixAssessment: Sendable, Hashable, Codable {
    /// The position in WGS-84; every region check runs on it.
    public var wgs84: Coordinate
    /// The position for display on Chinese maps (equal to `wgs84` outside mainland China, Hong Kong and Macau).
    public var gcj02: Coordinate
    /// The datum the fix was read in: as sent, or inferred.
    public var datum: Datum
    /// True when the client did not send a datum.
    public var datumInferred: Bool
    /// The rule applied when `datumInferred`; nil otherwise.
    public var datumInference: DatumInference?
    public var region: Region
    /// The point lies close to a border between two regions, where the classification is less certain.
    public var nearBoundary: Bool
    /// `region == .mainland`: the apps' rule.
    public var inRegion: Bool
    /// The client sent `claimedInRegion` and it differs from `inRegion`.
    public var claimMismatch: Bool
    /// The boundary data used, e.g. `natural-earth-5.1.1`.
    public var boundaryVersion: String
    public var accuracy: AccuracyClass
    /// `FixFlag` raw values, in the order of `FixFlag.allCases`; strings so that stored events keep flags
    /// added by later versions.
    public var flags: [String]

    public init(
        wgs84: Coordinate, gcj02: Coordinate, datum: Datum, datumInferred: Bool, datumInference: DatumInference?,
        region: Region, nearBoundary: Bool, inRegion: Bool, claimMismatch: Bool, boundaryVersion: String,
        accuracy: AccuracyClass, flags: [String]
    ) {
        self.wgs84 = wgs84
        self.gcj02 = gcj02
        self.datum = datum
        self.datumInferred = datumInferred
        self.datumInference = datumInference
        self.region = region
        self.nearBoundary = nearBoundary
        self.inRegion = inRegion
        self.claimMismatch = claimMismatch
        self.boundaryVersion = boundaryVersion
        self.accuracy = accuracy
        self.flags = flags
    }

    /// Whether `flag` was raised.
    public func has(_ flag: FixFlag) -> Bool {
        flags.contains(flag.rawValue)
    }
}
