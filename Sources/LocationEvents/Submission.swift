import CivilCalendar
import Foundation

/// One event as a client submits it, after validation. Its JSON form is the flat submission format of DESIGN.md.
public struct Submission: Sendable, Hashable {
    /// Chosen by the client; the idempotency key.
    public var eventId: UUID
    /// nil when the client did not send one (the store then treats it as `.any`).
    public var expectedVersion: ExpectedVersion?
    public var actor: Actor
    public var body: SubmissionBody

    public init(eventId: UUID, expectedVersion: ExpectedVersion? = nil, actor: Actor = Actor(), body: SubmissionBody) {
        self.eventId = eventId
        self.expectedVersion = expectedVersion
        self.actor = actor
        self.body = body
    }

    /// The stream the event is appended to.
    public var streamName: String { body.entity.streamName }
    /// The event type name, e.g. `MerchantAddressFixed`.
    public var typeName: String { body.eventType.rawValue }
}

/// What happened, one case per event type.
public enum SubmissionBody: Sendable, Hashable {
    case merchantAddressFixed(merchantId: String, purpose: MerchantAddressPurpose, fix: Fix)
    case enterpriseAddressFixed(enterpriseId: String, fix: Fix)
    case terminalBound(terminalId: String, merchantId: String, fix: Fix)
    case terminalUnbound(terminalId: String, merchantId: String, reason: String?)
    case terminalLocated(terminalId: String, fix: Fix)
    case visitRecorded(visitId: String, merchantId: String, visitorId: String, fix: Fix, note: String?)
    case locationFailed(LocationFailure)

    public var eventType: EventType {
        switch self {
        case .merchantAddressFixed: return .merchantAddressFixed
        case .enterpriseAddressFixed: return .enterpriseAddressFixed
        case .terminalBound: return .terminalBound
        case .terminalUnbound: return .terminalUnbound
        case .terminalLocated: return .terminalLocated
        case .visitRecorded: return .visitRecorded
        case .locationFailed: return .locationFailed
        }
    }

    /// The entity whose stream the event belongs to.
    public var entity: EntityRef {
        switch self {
        case .merchantAddressFixed(let merchantId, _, _): return EntityRef(kind: .merchant, id: merchantId)
        case .enterpriseAddressFixed(let enterpriseId, _): return EntityRef(kind: .enterprise, id: enterpriseId)
        case .terminalBound(let terminalId, _, _),
             .terminalUnbound(let terminalId, _, _),
             .terminalLocated(let terminalId, _):
            return EntityRef(kind: .terminal, id: terminalId)
        case .visitRecorded(let visitId, _, _, _, _): return EntityRef(kind: .visit, id: visitId)
        case .locationFailed(let failure): return failure.entity
        }
    }

    /// The fix carried, for the types that carry one.
    public var fix: Fix? {
        switch self {
        case .merchantAddressFixed(_, _, let fix), .enterpriseAddressFixed(_, let fix), .terminalBound(_, _, let fix),
             .terminalLocated(_, let fix), .visitRecorded(_, _, _, let fix, _):
            return fix
        case .terminalUnbound, .locationFailed:
            return nil
        }
    }

    /// The failed attempt, for `LocationFailed`.
    public var failure: LocationFailure? {
        if case .locationFailed(let failure) = self { failure } else { nil }
    }
}

/// The app tried to locate and failed.
public struct LocationFailure: Sendable, Hashable {
    /// The entity the location was for; the event goes to its stream.
    public var entity: EntityRef
    /// What the location was for (the merchant purposes, or for example `terminal_binding`, `visit`); an id-like token.
    public var purpose: String?
    public var provider: Provider
    /// The provider's own error code (see `ProviderErrorCatalogue`).
    public var errorCode: Int
    public var errorMessage: String?
    /// Device time of the attempt.
    public var capturedAt: Timestamp

    public init(entity: EntityRef, purpose: String? = nil, provider: Provider, errorCode: Int, errorMessage: String? = nil, capturedAt: Timestamp) {
        self.entity = entity
        self.purpose = purpose
        self.provider = provider
        self.errorCode = errorCode
        self.errorMessage = errorMessage
        self.capturedAt = capturedAt
    }

    /// The normalised category of `errorCode` for `provider` on `platform` (the submission's
    /// ``Actor/resolvedPlatform``).
    public func category(on platform: Platform?) -> FailureCategory {
        ProviderErrorCatalogue.category(provider: provider, platform: platform, code: errorCode)
    }
}
