import Foundation
import JSON

/// Turns an untrusted JSON submission into a `Submission`, or reports every problem found, by field.
///
/// JSON null counts as absent. Members the format does not have, at any level, are refused (`unknown_field`, each
/// named): the log is immutable, so nothing goes in that was not checked. A newer app that sends more needs a
/// server that knows it first.
public struct SubmissionValidator: Sendable {
    public var limits: ValidationLimits

    public init(limits: ValidationLimits = ValidationLimits()) {
        self.limits = limits
    }

    /// Validates one submission.
    /// - Parameters:
    ///   - value: the parsed submission.
    ///   - now: the server's clock, for the `in_future` check.
    public func validate(_ value: JSONValue, now: Date) -> Result<Submission, ValidationFailure> {
        guard case .object(let object) = value else {
            return .failure(ValidationFailure(errors: [
                FieldError(field: "", code: .notAnObject, message: "a submission must be a JSON object, not \(value.typeName)")
            ]))
        }
        var checker = FieldChecker()
        let eventId = self.eventId(object, &checker)
        let type = self.type(object, &checker)
        let expectedVersion = self.expectedVersion(object, &checker)
        let actor = self.actor(object, &checker)
        let body = type.flatMap { self.body($0, object, now: now, &checker) }
        if let type {
            checker.refuseUnknownMembers(of: object, at: "", known: Self.members(of: type), in: "a \(type.rawValue) submission")
        }

        guard checker.errors.isEmpty, let eventId, let body else {
            return .failure(ValidationFailure(errors: checker.errors))
        }
        return .success(Submission(eventId: eventId, expectedVersion: expectedVersion, actor: actor ?? Actor(), body: body))
    }

    /// Parses and validates. Bytes that are not JSON give `""` / `invalid_json`; an object naming a member twice
    /// gives its path / `duplicate_key`.
    public func validate(_ data: Data, now: Date) -> Result<Submission, ValidationFailure> {
        let value: JSONValue
        do {
            value = try JSONValue(parsing: data, knownNames: Self.memberNames)
        } catch let error as JSONValueError {
            return .failure(ValidationFailure(errors: [FieldError(error)]))
        } catch {
            return .failure(ValidationFailure(errors: [FieldError(field: "", code: .invalidJSON, message: "not valid JSON: \(error)")]))
        }
        return validate(value, now: now)
    }

    /// The top-level members of a type of submission.
    static func members(of type: EventType) -> KnownMembers {
        members[EventType.allCases.firstIndex(of: type)!]
    }

    /// The top-level members of each type of submission, in the order of `EventType.allCases`.
    private static let members: [KnownMembers] = {
        let common = ["eventId", "type", "expectedVersion", "actor"]
        var members: [KnownMembers] = []
        for type in EventType.allCases {
            let own: [String]
            switch type {
            case .merchantAddressFixed: own = ["merchantId", "purpose", "fix"]
            case .enterpriseAddressFixed: own = ["enterpriseId", "fix"]
            case .terminalBound: own = ["terminalId", "merchantId", "fix"]
            case .terminalUnbound: own = ["terminalId", "merchantId", "reason"]
            case .terminalLocated: own = ["terminalId", "fix"]
            case .visitRecorded: own = ["visitId", "merchantId", "visitorId", "fix", "note"]
            case .locationFailed:
                own = EntityKind.allCases.map(\.idField) + ["purpose", "provider", "errorCode", "errorMessage", "capturedAt"]
            }
            members.append(KnownMembers(common + own))
        }
        return members
    }()

    /// Every member name of the submission format, at any level, for the parser to take as made here
    /// (``JSON/KnownNames``).
    public static let memberNames = KnownNames(members.flatMap(\.names) + Actor.fieldNames + Fix.fieldNames + Address.fieldNames)

    private func eventId(_ object: JSONObject, _ checker: inout FieldChecker) -> UUID? {
        guard let text = checker.string(object, "eventId", at: "", required: true) else { return nil }
        guard let uuid = Self.uuid(text) else {
            checker.fail("eventId", .invalidUUID, "eventId must be a UUID such as 0b9c2a4e-3f1d-4a51-9a8e-5f7c1d2e3a40")
            return nil
        }
        return uuid
    }

    /// `UUID(uuidString:)`, without its `sscanf` for the usual form: 36 characters, hex digits in groups of 8-4-4-4-12
    /// (which it reads to the same UUID). Anything else is left to it, so that both take the same texts.
    static func uuid(_ text: String) -> UUID? {
        var text = text
        let parsed = text.withUTF8 { bytes -> UUID? in
            guard bytes.count == 36 else { return nil }
            var uuid: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
            let complete = withUnsafeMutableBytes(of: &uuid) { out -> Bool in
                var index = 0
                for byte in 0..<16 {
                    if index == 8 || index == 13 || index == 18 || index == 23 {
                        guard bytes[index] == UInt8(ascii: "-") else { return false }
                        index += 1
                    }
                    guard let high = hexDigit(bytes[index]), let low = hexDigit(bytes[index + 1]) else { return false }
                    out[byte] = high << 4 | low
                    index += 2
                }
                return true
            }
            return complete ? UUID(uuid: uuid) : nil
        }
        return parsed ?? UUID(uuidString: text)
    }

    private static func hexDigit(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    private func type(_ object: JSONObject, _ checker: inout FieldChecker) -> EventType? {
        guard let name = checker.string(object, "type", at: "", required: true) else { return nil }
        guard let type = EventType(rawValue: name) else {
            let known = EventType.allCases.map(\.rawValue).joined(separator: ", ")
            checker.fail("type", .unknownType, "type must be one of \(known)")
            return nil
        }
        return type
    }

    private func expectedVersion(_ object: JSONObject, _ checker: inout FieldChecker) -> ExpectedVersion? {
        guard let value = FieldChecker.member(object, "expectedVersion") else { return nil }
        switch value {
        case .string("any"):
            return .any
        case .string("no_stream"):
            return .noStream
        case .string:
            checker.fail("expectedVersion", .unknownValue, "expectedVersion must be an integer, \"any\" or \"no_stream\"")
        case .number(let number) where number.isFinite && number == number.rounded():
            // 2^63 is exactly representable; anything from it up does not fit in Int64.
            guard number >= 0, number < 9_223_372_036_854_775_808.0 else {
                checker.fail("expectedVersion", .outOfRange, "expectedVersion must be a version number, 0 or more")
                return nil
            }
            return .exact(Int64(number))
        default:
            checker.fail("expectedVersion", .wrongType, "expectedVersion must be an integer, \"any\" or \"no_stream\"")
        }
        return nil
    }

    private func actor(_ object: JSONObject, _ checker: inout FieldChecker) -> Actor? {
        guard let object = checker.object(object, "actor", at: "") else { return nil }
        let members: KnownValues<ActorMember> = checker.knownMembers(of: object, at: "actor", in: "actor")
        func field(_ member: ActorMember) -> String? {
            checker.string(members, member, at: "actor", required: false, maximumLength: limits.maximumActorFieldLength)
        }
        let platform = checker.enumeration(Platform.self, members, .platform, at: "actor", required: false)
        return Actor(
            userId: field(.userId), app: field(.app), appVersion: field(.appVersion), deviceId: field(.deviceId), os: field(.os),
            platform: platform)
    }

    private func body(_ type: EventType, _ object: JSONObject, now: Date, _ checker: inout FieldChecker) -> SubmissionBody? {
        let fix = { (checker: inout FieldChecker) in self.fix(object, now: now, &checker) }
        switch type {
        case .merchantAddressFixed:
            let merchantId = checker.id(object, "merchantId", at: "")
            let purpose = checker.enumeration(MerchantAddressPurpose.self, object, "purpose", at: "", required: true)
            guard let fix = fix(&checker), let merchantId, let purpose else { return nil }
            return .merchantAddressFixed(merchantId: merchantId, purpose: purpose, fix: fix)
        case .enterpriseAddressFixed:
            let enterpriseId = checker.id(object, "enterpriseId", at: "")
            guard let fix = fix(&checker), let enterpriseId else { return nil }
            return .enterpriseAddressFixed(enterpriseId: enterpriseId, fix: fix)
        case .terminalBound:
            let terminalId = checker.id(object, "terminalId", at: "")
            let merchantId = checker.id(object, "merchantId", at: "")
            guard let fix = fix(&checker), let terminalId, let merchantId else { return nil }
            return .terminalBound(terminalId: terminalId, merchantId: merchantId, fix: fix)
        case .terminalUnbound:
            let terminalId = checker.id(object, "terminalId", at: "")
            let merchantId = checker.id(object, "merchantId", at: "")
            let reason = checker.string(object, "reason", at: "", required: false, maximumLength: limits.maximumReasonLength)
            guard let terminalId, let merchantId else { return nil }
            return .terminalUnbound(terminalId: terminalId, merchantId: merchantId, reason: reason)
        case .terminalLocated:
            let terminalId = checker.id(object, "terminalId", at: "")
            guard let fix = fix(&checker), let terminalId else { return nil }
            return .terminalLocated(terminalId: terminalId, fix: fix)
        case .visitRecorded:
            let visitId = checker.id(object, "visitId", at: "")
            let merchantId = checker.id(object, "merchantId", at: "")
            let visitorId = checker.id(object, "visitorId", at: "")
            let note = checker.string(object, "note", at: "", required: false, maximumLength: limits.maximumNoteLength)
            guard let fix = fix(&checker), let visitId, let merchantId, let visitorId else { return nil }
            return .visitRecorded(visitId: visitId, merchantId: merchantId, visitorId: visitorId, fix: fix, note: note)
        case .locationFailed:
            return locationFailure(object, now: now, &checker).map(SubmissionBody.locationFailed)
        }
    }

    private func locationFailure(_ object: JSONObject, now: Date, _ checker: inout FieldChecker) -> LocationFailure? {
        let kinds = EntityKind.allCases.filter { FieldChecker.member(object, $0.idField) != nil }
        var entity: EntityRef?
        switch kinds.count {
        case 0:
            checker.fail("entity", .required, "one of merchantId, enterpriseId, terminalId or visitId is required")
        case 1:
            entity = checker.id(object, kinds[0].idField, at: "").map { EntityRef(kind: kinds[0], id: $0) }
        default:
            let fields = kinds.map(\.idField).joined(separator: ", ")
            checker.fail("entity", .ambiguousEntity, "a LocationFailed names one entity, not \(fields)")
        }
        let purpose = checker.string(object, "purpose", at: "", required: false)
        if let purpose, !FieldChecker.isValidId(purpose) {
            checker.fail("purpose", .invalidValue, "purpose must be 1–64 characters of A–Z, a–z, 0–9, _ . : -")
        }
        let provider = checker.enumeration(Provider.self, object, "provider", at: "", required: true)
        let errorCode = checker.integer(object, "errorCode", at: "", required: true)
        let errorMessage = checker.string(object, "errorMessage", at: "", required: false, maximumLength: limits.maximumErrorMessageLength)
        let capturedAt = checker.timestamp(object, "capturedAt", at: "", now: now, limits: limits)
        guard let entity, let provider, let errorCode, let capturedAt else { return nil }
        return LocationFailure(entity: entity, purpose: purpose, provider: provider, errorCode: errorCode, errorMessage: errorMessage, capturedAt: capturedAt)
    }
}
