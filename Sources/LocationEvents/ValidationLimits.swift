import Foundation

/// The bounds `SubmissionValidator` applies. Lengths count Unicode scalars, which bound storage and cannot be
/// inflated by combining marks the way grapheme counts can.
public struct ValidationLimits: Sendable, Hashable {
    /// A horizontalAccuracy above this many metres is absurd (`out_of_range`).
    public var maximumAccuracyMetres: Double
    /// How far after the server's clock a capturedAt may be (device clocks drift).
    public var futureTolerance: TimeInterval
    /// capturedAt before this is `too_old` (the first iPhone SDK with CoreLocation: 2008).
    public var earliestCapture: Date
    public var maximumAddressFieldLength: Int
    public var maximumActorFieldLength: Int
    public var maximumNoteLength: Int
    public var maximumReasonLength: Int
    public var maximumErrorMessageLength: Int

    public init(
        maximumAccuracyMetres: Double = 100_000,
        futureTolerance: TimeInterval = 300,
        earliestCapture: Date = Date(timeIntervalSince1970: 1_199_145_600),  // 2008-01-01T00:00:00Z
        maximumAddressFieldLength: Int = 256,
        maximumActorFieldLength: Int = 128,
        maximumNoteLength: Int = 2000,
        maximumReasonLength: Int = 500,
        maximumErrorMessageLength: Int = 1000
    ) {
        self.maximumAccuracyMetres = maximumAccuracyMetres
        self.futureTolerance = futureTolerance
        self.earliestCapture = earliestCapture
        self.maximumAddressFieldLength = maximumAddressFieldLength
        self.maximumActorFieldLength = maximumActorFieldLength
        self.maximumNoteLength = maximumNoteLength
        self.maximumReasonLength = maximumReasonLength
        self.maximumErrorMessageLength = maximumErrorMessageLength
    }
}
