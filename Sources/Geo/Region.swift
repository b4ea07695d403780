/// The answer of the server-side region check.
public enum Region: String, Sendable, Hashable, Codable, CaseIterable {
    case mainland
    case hongKong = "hong_kong"
    case macau
    case taiwan
    case outside

    /// The apps' rule: "in region" means mainland China, excluding Hong Kong, Macau and Taiwan.
    public var isInRegion: Bool { self == .mainland }

    /// Where Chinese providers report GCJ-02 rather than WGS-84.
    public var usesGCJ02: Bool { self == .mainland || self == .hongKong || self == .macau }
}

/// A region together with whether the point lies close to a border between two different regions.
public struct RegionAnswer: Sendable, Hashable, Codable {
    public var region: Region
    public var nearBoundary: Bool

    public init(region: Region, nearBoundary: Bool) {
        self.region = region
        self.nearBoundary = nearBoundary
    }
}

/// Classifies WGS-84 points into regions.
public protocol RegionClassifying: Sendable {
    /// The identity of the boundary data, stored with every answer for audit (for example `natural-earth-5.1.1`).
    var boundaryVersion: String { get }
    /// Classifies a WGS-84 point.
    func classify(_ point: Coordinate) -> RegionAnswer
}
