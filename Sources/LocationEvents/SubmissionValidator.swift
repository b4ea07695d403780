import Foundation
import JSON

/// Turns an untrusted JSON submission into a `Submission`, or reports every problem found, by field.
///
/// The bytes are read once, straight into the values of the submission format's members (``SubmissionFormat``),
/// without a tree; the checks work on those values. JSON null counts as absent. Members the format does not have, at
/// any level, are refused (`unknown_field`, each named): the log is immutable, so nothing goes in that was not
/// checked. A newer app that sends more needs a server that knows it first.
public struct SubmissionValidator: Sendable {
    public var limits: ValidationLimits

    public init(limits: ValidationLimits = ValidationLimits()) {
        self.limits = limits
    }

    /// Reads and validates one submission. Bytes that are not JSON give `""` / `invalid_json`; an object naming a
    /// member twice gives its path / `duplicate_key`.
    /// - Parameter now: the server's clock, for the `in_future` check.
    public func validate(_ data: Data, now: Date) -> Result<Submission, ValidationFailure> {
        switch decode(data, now: now, { _, _ in }) {
        case .taken(let submission, _): .success(submission)
        case .refused(let failure, _, _): .failure(failure)
        }
    }

    /// Reads and validates one submission and, when it is taken, writes into `eventData` what the event stores of it:
    /// the submission as sent, as canonical JSON (keys in code point order, no white space, each number in its
    /// shortest form), less `expectedVersion`, with `eventId` in lower case.
    public func decode(_ data: Data, now: Date, writingDataInto eventData: inout CanonicalBytes) -> DecodedSubmission {
        decode(data, now: now) { record, changes in
            record.writeCanonical(of: SubmissionFormat.top, changing: changes, into: &eventData)
        }
    }

    /// - Parameter writeData: writes the event's data of a taken submission, given its record and the members to
    ///   write otherwise.
    private func decode(
        _ data: Data, now: Date, _ writeData: (JSONRecord, [(member: Int, value: String?)]) -> Void
    ) -> DecodedSubmission {
        SubmissionFormat.format.withRecord(of: data) { read in
            switch read {
            case .failure(let error):
                return .refused(ValidationFailure(errors: [FieldError(error)]), eventIdText: nil, type: nil)
            case .success(let record):
                return decode(record, now: now, writeData)
            }
        }
    }

    private func decode(
        _ record: JSONRecord, now: Date, _ writeData: (JSONRecord, [(member: Int, value: String?)]) -> Void
    ) -> DecodedSubmission {
        guard record.documentKind == .object else {
            let message = "a submission must be a JSON object, not \(record.documentKind.typeName)"
            return .refused(
                ValidationFailure(errors: [FieldError(field: "", code: .notAnObject, message: message)]), eventIdText: nil,
                type: nil)
        }
        let top = Members<SubmissionMember>(record: record, object: SubmissionFormat.top)
        var checker = FieldChecker(record)
        // The usual eventId is read in place; any other as a string, which also says what is wrong with it, and is
        // kept for the answer.
        let eventIdValue = top[.eventId]
        let eventIdInPlace = checker.inPlace(eventIdValue, Self.uuid(utf8:))
        var eventIdText = eventIdInPlace == nil
            ? eventIdValue.flatMap { $0.kind == .string ? record.string($0) : nil } : nil
        let eventId = eventIdInPlace ?? self.eventId(eventIdText, top, &checker)
        let type = self.type(top, &checker)
        let expectedVersion = self.expectedVersion(top, &checker)
        let actor = self.actor(top, &checker)
        let body = type.flatMap { self.body($0, top, now: now, &checker) }
        if let type {
            checker.refuseUnknownMembers(
                of: SubmissionFormat.top, at: "", known: SubmissionMember.members(of: type), in: "a \(type.rawValue) submission")
        }

        guard checker.errors.isEmpty, let eventId, let body else {
            if eventIdInPlace != nil { eventIdText = eventIdValue.map(record.string) }
            return .refused(ValidationFailure(errors: checker.errors), eventIdText: eventIdText, type: type)
        }
        // The submission as sent, less expectedVersion, which is a condition of the write and not part of the event;
        // its eventId in lower case, as UUIDs are case-insensitive: a resend in upper case is the same event.
        var changes = Self.withoutExpectedVersion
        let upperCase = checker.inPlace(eventIdValue, { Self.hasUpperCase($0) })
            ?? eventIdText.map { Self.hasUpperCase($0.utf8) } ?? false
        if upperCase {
            changes.append((SubmissionMember.eventId.rawValue, eventId.uuidString.lowercased()))
        }
        let submission = Submission(eventId: eventId, expectedVersion: expectedVersion, actor: actor ?? Actor(), body: body)
        var numbers: FixNumbers?
        if body.fix != nil {
            let fix = Members<FixMember>(record: record, object: SubmissionFormat.fix)
            numbers = FixNumbers(
                latitude: fix[.lat].flatMap(record.canonicalNumber), longitude: fix[.lon].flatMap(record.canonicalNumber),
                horizontalAccuracy: fix[.horizontalAccuracy].flatMap(record.canonicalNumber))
        }
        writeData(record, changes)
        return .taken(submission, fixNumbers: numbers)
    }

    /// The change to every submission's data: `expectedVersion` left out. Made once, not an array per submission.
    private static let withoutExpectedVersion: [(member: Int, value: String?)] = [(SubmissionMember.expectedVersion.rawValue, nil)]

    /// - Parameter text: the member's text when it is a string, read once for this and for the answer.
    private func eventId(_ text: String?, _ object: Members<SubmissionMember>, _ checker: inout FieldChecker) -> UUID? {
        guard let text = text ?? checker.string(object, .eventId, at: "", required: true) else { return nil }
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
        return text.withUTF8(uuid(utf8:)) ?? UUID(uuidString: text)
    }

    private static func hasUpperCase(_ utf8: some Sequence<UInt8>) -> Bool {
        utf8.contains { (UInt8(ascii: "A")...UInt8(ascii: "F")).contains($0) }
    }

    /// The usual form alone: nil for anything else, which ``uuid(_:)`` then reads.
    private static func uuid(utf8 bytes: UnsafeBufferPointer<UInt8>) -> UUID? {
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

    private static func hexDigit(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    private func type(_ object: Members<SubmissionMember>, _ checker: inout FieldChecker) -> EventType? {
        if let type = checker.inPlace(object[.type], { FieldChecker.matchingCase(of: EventType.self, $0) }) { return type }
        guard let name = checker.string(object, .type, at: "", required: true) else { return nil }
        guard let type = EventType(rawValue: name) else {
            let known = EventType.allCases.map(\.rawValue).joined(separator: ", ")
            checker.fail("type", .unknownType, "type must be one of \(known)")
            return nil
        }
        return type
    }

    private func expectedVersion(_ object: Members<SubmissionMember>, _ checker: inout FieldChecker) -> ExpectedVersion? {
        guard let value = object[.expectedVersion] else { return nil }
        switch value.kind {
        case .string:
            switch checker.record.string(value) {
            case "any": return .any
            case "no_stream": return .noStream
            default: break
            }
            checker.fail("expectedVersion", .unknownValue, "expectedVersion must be an integer, \"any\" or \"no_stream\"")
        case .number where value.number.isFinite && value.number == value.number.rounded():
            // 2^63 is exactly representable; anything from it up does not fit in Int64.
            guard value.number >= 0, value.number < 9_223_372_036_854_775_808.0 else {
                checker.fail("expectedVersion", .outOfRange, "expectedVersion must be a version number, 0 or more")
                return nil
            }
            return .exact(Int64(value.number))
        default:
            checker.fail("expectedVersion", .wrongType, "expectedVersion must be an integer, \"any\" or \"no_stream\"")
        }
        return nil
    }

    private func actor(_ object: Members<SubmissionMember>, _ checker: inout FieldChecker) -> Actor? {
        guard let members = checker.object(object, .actor, at: "", holding: SubmissionFormat.actor, as: ActorMember.self) else {
            return nil
        }
        checker.refuseUnknownMembers(of: SubmissionFormat.actor, at: "actor", in: "actor")
        var actor = Actor(platform: checker.enumeration(Platform.self, members, .platform, at: "actor", required: false))
        // Each part checked in the order messages list them; those the server reads are kept.
        let (prefix, limit) = ("actor", limits.maximumActorFieldLength)
        for member in ActorMember.allCases {
            switch member {
            case .app: actor.app = checker.string(members, member, at: prefix, required: false, maximumLength: limit)
            case .os: actor.os = checker.string(members, member, at: prefix, required: false, maximumLength: limit)
            case .userId, .appVersion, .deviceId: checker.checkString(members, member, at: prefix, maximumLength: limit)
            case .platform: break  // read above
            }
        }
        return actor
    }

    private func body(_ type: EventType, _ object: Members<SubmissionMember>, now: Date, _ checker: inout FieldChecker) -> SubmissionBody? {
        let fix = { (checker: inout FieldChecker) in self.fix(object, now: now, &checker) }
        switch type {
        case .merchantAddressFixed:
            let merchantId = checker.id(object, .merchantId, at: "")
            let purpose = checker.enumeration(MerchantAddressPurpose.self, object, .purpose, at: "", required: true)
            guard let fix = fix(&checker), let merchantId, let purpose else { return nil }
            return .merchantAddressFixed(merchantId: merchantId, purpose: purpose, fix: fix)
        case .enterpriseAddressFixed:
            let enterpriseId = checker.id(object, .enterpriseId, at: "")
            guard let fix = fix(&checker), let enterpriseId else { return nil }
            return .enterpriseAddressFixed(enterpriseId: enterpriseId, fix: fix)
        case .terminalBound:
            let terminalId = checker.id(object, .terminalId, at: "")
            let merchantId = checker.id(object, .merchantId, at: "")
            guard let fix = fix(&checker), let terminalId, let merchantId else { return nil }
            return .terminalBound(terminalId: terminalId, merchantId: merchantId, fix: fix)
        case .terminalUnbound:
            let terminalId = checker.id(object, .terminalId, at: "")
            let merchantId = checker.id(object, .merchantId, at: "")
            let reason = checker.string(object, .reason, at: "", required: false, maximumLength: limits.maximumReasonLength)
            guard let terminalId, let merchantId else { return nil }
            return .terminalUnbound(terminalId: terminalId, merchantId: merchantId, reason: reason)
        case .terminalLocated:
            let terminalId = checker.id(object, .terminalId, at: "")
            guard let fix = fix(&checker), let terminalId else { return nil }
            return .terminalLocated(terminalId: terminalId, fix: fix)
        case .visitRecorded:
            let visitId = checker.id(object, .visitId, at: "")
            let merchantId = checker.id(object, .merchantId, at: "")
            let visitorId = checker.id(object, .visitorId, at: "")
            let note = checker.string(object, .note, at: "", required: false, maximumLength: limits.maximumNoteLength)
            guard let fix = fix(&checker), let visitId, let merchantId, let visitorId else { return nil }
            return .visitRecorded(visitId: visitId, merchantId: merchantId, visitorId: visitorId, fix: fix, note: note)
        case .locationFailed:
            return locationFailure(object, now: now, &checker).map(SubmissionBody.locationFailed)
        }
    }

    private func locationFailure(_ object: Members<SubmissionMember>, now: Date, _ checker: inout FieldChecker) -> LocationFailure? {
        let kinds = EntityKind.allCases.filter { object[SubmissionMember.id(of: $0)] != nil }
        var entity: EntityRef?
        switch kinds.count {
        case 0:
            checker.fail("entity", .required, "one of merchantId, enterpriseId, terminalId or visitId is required")
        case 1:
            entity = checker.id(object, SubmissionMember.id(of: kinds[0]), at: "").map { EntityRef(kind: kinds[0], id: $0) }
        default:
            let fields = kinds.map(\.idField).joined(separator: ", ")
            checker.fail("entity", .ambiguousEntity, "a LocationFailed names one entity, not \(fields)")
        }
        let purpose = checker.string(object, .purpose, at: "", required: false)
        if let purpose, !FieldChecker.isValidId(purpose) {
            checker.fail("purpose", .invalidValue, "purpose must be 1–64 characters of A–Z, a–z, 0–9, _ . : -")
        }
        let provider = checker.enumeration(Provider.self, object, .provider, at: "", required: true)
        let errorCode = checker.integer(object, .errorCode, at: "", required: true)
        let errorMessage = checker.string(object, .errorMessage, at: "", required: false, maximumLength: limits.maximumErrorMessageLength)
        let capturedAt = checker.timestamp(object, .capturedAt, at: "", now: now, limits: limits)
        guard let entity, let provider, let errorCode, let capturedAt else { return nil }
        return LocationFailure(entity: entity, purpose: purpose, provider: provider, errorCode: errorCode, errorMessage: errorMessage, capturedAt: capturedAt)
    }
}

/// A submission read from its bytes (``SubmissionValidator/decode(_:now:writingDataInto:)``): taken, with what the event stores of
/// it, or refused, with every problem found and what the bytes said of its id and type. An enumeration, so that the
/// caller takes the submission out of it rather than copy it.
public enum DecodedSubmission: Sendable {
    /// - fixNumbers: the fix's numbers as sent, where they came canonical; nil without a fix.
    case taken(Submission, fixNumbers: FixNumbers?)
    /// - eventIdText: the `eventId` member as sent, when it is a string, for the answer.
    /// - type: the type the `type` member names, when it names one.
    case refused(ValidationFailure, eventIdText: String?, type: EventType?)
}

/// The objects of the submission format of DESIGN.md, as ``JSON/JSONRecordFormat`` reads them: the submission's
/// members (of every type), the actor's, the fix's and the address's.
enum SubmissionFormat {
    static let top = 0
    static let actor = 1
    static let fix = 2
    static let address = 3

    static let format = JSONRecordFormat(objects: [
        SubmissionMember.names.map { name in
            (name, name == "actor" ? actor : name == "fix" ? fix : nil)
        },
        ActorMember.names.map { ($0, nil) },
        FixMember.names.map { name in (name, name == "address" ? address : nil) },
        AddressMember.names.map { ($0, nil) },
    ])
}

/// The top-level members of a submission, of every type.
enum SubmissionMember: Int, KnownMember {
    case eventId, type, expectedVersion, actor
    case merchantId, enterpriseId, terminalId, visitId
    case purpose, fix, reason, visitorId, note, provider, errorCode, errorMessage, capturedAt

    static let names = allCases.map { String(describing: $0) }

    /// The member that carries an entity kind's id.
    static func id(of kind: EntityKind) -> SubmissionMember {
        switch kind {
        case .merchant: .merchantId
        case .enterprise: .enterpriseId
        case .terminal: .terminalId
        case .visit: .visitId
        }
    }

    /// The members of a type of submission, as a set of bits by member.
    static func members(of type: EventType) -> UInt64 {
        switch type {
        case .merchantAddressFixed: membersByType[0]
        case .enterpriseAddressFixed: membersByType[1]
        case .terminalBound: membersByType[2]
        case .terminalUnbound: membersByType[3]
        case .terminalLocated: membersByType[4]
        case .visitRecorded: membersByType[5]
        case .locationFailed: membersByType[6]
        }
    }

    /// ``members(of:)`` of each type, in the order of ``members(of:)``'s cases.
    private static let membersByType = [
        EventType.merchantAddressFixed, .enterpriseAddressFixed, .terminalBound, .terminalUnbound, .terminalLocated,
        .visitRecorded, .locationFailed,
    ].map(ownMembers)

    private static func ownMembers(of type: EventType) -> UInt64 {
        let own: [SubmissionMember]
        switch type {
        case .merchantAddressFixed: own = [.merchantId, .purpose, .fix]
        case .enterpriseAddressFixed: own = [.enterpriseId, .fix]
        case .terminalBound: own = [.terminalId, .merchantId, .fix]
        case .terminalUnbound: own = [.terminalId, .merchantId, .reason]
        case .terminalLocated: own = [.terminalId, .fix]
        case .visitRecorded: own = [.visitId, .merchantId, .visitorId, .fix, .note]
        case .locationFailed:
            own = EntityKind.allCases.map(id(of:)) + [.purpose, .provider, .errorCode, .errorMessage, .capturedAt]
        }
        return ([.eventId, .type, .expectedVersion, .actor] + own).reduce(0) { $0 | 1 << $1.rawValue }
    }
}
