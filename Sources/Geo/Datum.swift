/// The geodetic datums location providers report in.
public enum Datum: String, Sendable, Hashable, Codable, CaseIterable {
    /// GPS, CoreLocation, and Tencent/AMap outside mainland China, Hong Kong and Macau.
    case wgs84
    /// The Chinese "Mars" datum returned by Tencent and AMap inside mainland China, Hong Kong and Macau.
    case gcj02
    /// Baidu's datum, a further offset of GCJ-02.
    case bd09
}
