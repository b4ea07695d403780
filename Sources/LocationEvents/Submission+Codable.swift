import Foundation

/// The flat submission format: `eventId`, `type`, `expectedVersion`, `actor`, then the type's own fields.
/// `eventId` is written in lower case. Decoding expects already valid input; use `SubmissionValidator` for
/// untrusted input, as it reports every fault by field.
extension Submission: Codable {
    enum CodingKeys: String, CodingKey {
        case eventId, type, expectedVersion, actor
        case merchantId, enterpriseId, terminalId, visitId, visitorId
        case purpose, fix, reason, note, provider, errorCode, errorMessage, capturedAt
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        eventId = try c.decode(UUID.self, forKey: .eventId)
        expectedVersion = try c.decodeIfPresent(ExpectedVersion.self, forKey: .expectedVersion)
        actor = try c.decodeIfPresent(Actor.self, forKey: .actor) ?? Actor()
        switch try c.decode(EventType.self, forKey: .type) {
        case .merchantAddressFixed:
            body = .merchantAddressFixed(
                merchantId: try c.decode(String.self, forKey: .merchantId),
                purpose: try c.decode(MerchantAddressPurpose.self, forKey: .purpose),
                fix: try c.decode(Fix.self, forKey: .fix))
        case .enterpriseAddressFixed:
            body = .enterpriseAddressFixed(
                enterpriseId: try c.decode(String.self, forKey: .enterpriseId),
                fix: try c.decode(Fix.self, forKey: .fix))
        case .terminalBound:
            body = .terminalBound(
                terminalId: try c.decode(String.self, forKey: .terminalId),
                merchantId: try c.decode(String.self, forKey: .merchantId),
                fix: try c.decode(Fix.self, forKey: .fix))
        case .terminalUnbound:
            body = .terminalUnbound(
                terminalId: try c.decode(String.self, forKey: .terminalId),
                merchantId: try c.decode(String.self, forKey: .merchantId),
                reason: try c.decodeIfPresent(String.self, forKey: .reason))
        case .terminalLocated:
            body = .terminalLocated(
                terminalId: try c.decode(String.self, forKey: .terminalId),
                fix: try c.decode(Fix.self, forKey: .fix))
        case .visitRecorded:
            body = .visitRecorded(
                visitId: try c.decode(String.self, forKey: .visitId),
                merchantId: try c.decode(String.self, forKey: .merchantId),
                visitorId: try c.decode(String.self, forKey: .visitorId),
                fix: try c.decode(Fix.self, forKey: .fix),
                note: try c.decodeIfPresent(String.self, forKey: .note))
        case .locationFailed:
            let present = EntityKind.allCases.compactMap { kind -> EntityRef? in
                guard let id = try? c.decodeIfPresent(String.self, forKey: Submission.idKey(kind)) else { return nil }
                return EntityRef(kind: kind, id: id)
            }
            guard present.count == 1 else {
                throw DecodingError.dataCorrupted(.init(codingPath: c.codingPath, debugDescription: "LocationFailed needs exactly one entity id"))
            }
            body = .locationFailed(LocationFailure(
                entity: present[0],
                purpose: try c.decodeIfPresent(String.self, forKey: .purpose),
                provider: try c.decode(Provider.self, forKey: .provider),
                errorCode: try c.decode(Int.self, forKey: .errorCode),
                errorMessage: try c.decodeIfPresent(String.self, forKey: .errorMessage),
                capturedAt: try c.decode(Timestamp.self, forKey: .capturedAt)))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(eventId.uuidString.lowercased(), forKey: .eventId)
        try c.encode(body.eventType, forKey: .type)
        try c.encodeIfPresent(expectedVersion, forKey: .expectedVersion)
        try c.encode(actor, forKey: .actor)
        switch body {
        case .merchantAddressFixed(let merchantId, let purpose, let fix):
            try c.encode(merchantId, forKey: .merchantId)
            try c.encode(purpose, forKey: .purpose)
            try c.encode(fix, forKey: .fix)
        case .enterpriseAddressFixed(let enterpriseId, let fix):
            try c.encode(enterpriseId, forKey: .enterpriseId)
            try c.encode(fix, forKey: .fix)
        case .terminalBound(let terminalId, let merchantId, let fix):
            try c.encode(terminalId, forKey: .terminalId)
            try c.encode(merchantId, forKey: .merchantId)
            try c.encode(fix, forKey: .fix)
        case .terminalUnbound(let terminalId, let merchantId, let reason):
            try c.encode(terminalId, forKey: .terminalId)
            try c.encode(merchantId, forKey: .merchantId)
            try c.encodeIfPresent(reason, forKey: .reason)
        case .terminalLocated(let terminalId, let fix):
            try c.encode(terminalId, forKey: .terminalId)
            try c.encode(fix, forKey: .fix)
        case .visitRecorded(let visitId, let merchantId, let visitorId, let fix, let note):
            try c.encode(visitId, forKey: .visitId)
            try c.encode(merchantId, forKey: .merchantId)
            try c.encode(visitorId, forKey: .visitorId)
            try c.encode(fix, forKey: .fix)
            try c.encodeIfPresent(note, forKey: .note)
        case .locationFailed(let failure):
            try c.encode(failure.entity.id, forKey: Submission.idKey(failure.entity.kind))
            try c.encodeIfPresent(failure.purpose, forKey: .purpose)
            try c.encode(failure.provider, forKey: .provider)
            try c.encode(failure.errorCode, forKey: .errorCode)
            try c.encodeIfPresent(failure.errorMessage, forKey: .errorMessage)
            try c.encode(failure.capturedAt, forKey: .capturedAt)
        }
    }

    private static func idKey(_ kind: EntityKind) -> CodingKeys {
        switch kind {
        case .merchant: return .merchantId
        case .enterprise: return .enterpriseId
        case .terminal: return .terminalId
        case .visit: return .visitId
        }
    }
}
