/// How good a fix is for keeping as a position.
public enum AccuracyClass: String, Sendable, Hashable, Codable, CaseIterable {
    /// Full authorisation and a small radius: fit for a merchant's address.
    case precise
    /// Usable for coarse purposes (city, district), not as an address.
    case approximate
    /// Worse than approximate, or no valid accuracy.
    case unusable
}

/// The thresholds that classify a fix's accuracy.
///
/// - `precise`: `full` authorisation and horizontalAccuracy ≤ `preciseMetres`.
/// - `approximate`: `reduced` authorisation with horizontalAccuracy ≤ `reducedMaximumMetres`, or any other
///   authorisation with horizontalAccuracy ≤ `approximateMetres`.
/// - `unusable`: anything worse, and a missing, zero, negative or non-finite horizontalAccuracy.
///
/// A `reduced` fix is never precise whatever its horizontalAccuracy: Apple places it "usually within 1–20 km"
/// of the true position. An `unknown` (or absent) authorisation is never precise either: the server cannot tell
/// a precise fix from an approximate one that reports a small radius, so it caps at approximate.
public struct AccuracyPolicy: Sendable, Hashable, Codable {
    /// Default 100 m.
    public var preciseMetres: Double
    /// Default 3 km.
    public var approximateMetres: Double
    /// How large a radius a `reduced` fix may report and still count as approximate. Default 20 km, Apple's bound.
    public var reducedMaximumMetres: Double

    public init(preciseMetres: Double = 100, approximateMetres: Double = 3000, reducedMaximumMetres: Double = 20_000) {
        self.preciseMetres = preciseMetres
        self.approximateMetres = approximateMetres
        self.reducedMaximumMetres = reducedMaximumMetres
    }

    /// Classifies a horizontal accuracy (metres) held under an authorisation (nil: not sent).
    public func classify(horizontalAccuracy: Double, authorization: AccuracyAuthorization?) -> AccuracyClass {
        guard horizontalAccuracy.isFinite, horizontalAccuracy > 0 else { return .unusable }
        switch authorization ?? .unknown {
        case .full:
            if horizontalAccuracy <= preciseMetres { return .precise }
            return horizontalAccuracy <= approximateMetres ? .approximate : .unusable
        case .reduced:
            return horizontalAccuracy <= reducedMaximumMetres ? .approximate : .unusable
        case .unknown:
            return horizontalAccuracy <= approximateMetres ? .approximate : .unusable
        }
    }
}
