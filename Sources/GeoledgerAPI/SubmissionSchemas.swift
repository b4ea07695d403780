import Geo
import JSON
import LocationEvents

// The submission format of DESIGN.md as JSON Schema, from the definitions `SubmissionValidator` checks by: the member
// names of a fix, an address and an actor, the enumerations, the id rule and the limits of ``ValidationLimits``.

extension Schema {
    /// The ids of merchants, terminals, visits and enterprises (``EntityID``): 1–64 characters of
    /// `[A-Za-z0-9_.:-]`, not `.` or `..` (at least one character other than a dot, or three dots or more).
    static let idPattern = #"^(?:[A-Za-z0-9_.:-]*[A-Za-z0-9_:-][A-Za-z0-9_.:-]*|\.{3,})$"#

    static func id(_ description: String) -> JSONValue {
        string(description, pattern: idPattern, minLength: 1, maxLength: 64, example: "M0001")
    }

    /// A UUID as `SubmissionValidator` reads one: hex digits in groups of 8-4-4-4-12, either case.
    static let uuidPattern = "^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$"

    /// An RFC 3339 time with its offset, as submissions carry device times.
    static func deviceTime(_ description: String) -> JSONValue {
        string(description, format: "date-time", example: "2026-11-29T10:00:00+08:00")
    }
}

enum SubmissionSchemas {
    /// The members common to every type of submission, then each type's own, in the order DESIGN.md lists them.
    static let common = ["eventId", "type", "expectedVersion", "actor"]

    /// The schemas of the submission format, by component name.
    static func components(_ limits: ValidationLimits) -> [(String, JSONValue)] {
        [
            ("Submission", submission),
            ("Fix", fix(limits)), ("Address", address(limits)), ("Actor", actor(limits)), ("ExpectedVersion", expectedVersion),
        ] + EventType.allCases.map { ($0.rawValue, event($0, limits)) }
    }

    /// One event of any type, told apart by `type`.
    static let submission = JSONValue.object([
        "description": .string("One event as a client submits it: the members every type has, then its type's own."),
        "oneOf": .array(EventType.allCases.map { Schema.ref($0.rawValue) }),
        "discriminator": .object([
            "propertyName": .string("type"),
            "mapping": .object(JSONObject(members: EventType.allCases.map { ($0.rawValue, .string("#/components/schemas/\($0.rawValue)")) })),
        ]),
    ])

    /// Each type's own members, in order, and which of them are required. JSON null counts as absent, so the
    /// optional ones may be null.
    static func members(of type: EventType, _ limits: ValidationLimits) -> (own: [(String, JSONValue)], required: [String]) {
        let fix = ("fix", Schema.ref("Fix"))
        switch type {
        case .merchantAddressFixed:
            return ([("merchantId", Schema.id("the merchant")), ("purpose", Schema.enumeration(MerchantAddressPurpose.self,
                "onboarding, re-location from the merchant detail page, editing the onboarding information, or the shop "
                + "location from the merchant app")), fix], ["merchantId", "purpose", "fix"])
        case .enterpriseAddressFixed:
            return ([("enterpriseId", Schema.id("the enterprise")), fix], ["enterpriseId", "fix"])
        case .terminalBound:
            return ([("terminalId", Schema.id("the terminal")), ("merchantId", Schema.id("the merchant it is bound to")), fix],
                ["terminalId", "merchantId", "fix"])
        case .terminalUnbound:
            return ([
                ("terminalId", Schema.id("the terminal")), ("merchantId", Schema.id("the merchant it was bound to")),
                ("reason", Schema.nullable(Schema.string(maxLength: limits.maximumReasonLength))),
            ], ["terminalId", "merchantId"])
        case .terminalLocated:
            return ([("terminalId", Schema.id("the terminal")), fix], ["terminalId", "fix"])
        case .visitRecorded:
            return ([
                ("visitId", Schema.id("the visit")), ("merchantId", Schema.id("the merchant visited")),
                ("visitorId", Schema.id("the visitor (a sales user)")), fix,
                ("note", Schema.nullable(Schema.string(maxLength: limits.maximumNoteLength))),
            ], ["visitId", "merchantId", "visitorId", "fix"])
        case .locationFailed:
            let ids = EntityKind.allCases.map { ($0.idField, Schema.id("the \($0.rawValue) the location was for; give one entity id")) }
            return (ids + [
                ("purpose", Schema.nullable(Schema.string(
                    "what the location was for: a merchant purpose, or for example terminal_binding, visit",
                    pattern: Schema.idPattern, minLength: 1, maxLength: 64))),
                ("provider", Schema.enumeration(Provider.self)),
                ("errorCode", Schema.integer("the provider's own error code", minimum: -8_999_999_999_999_999, maximum: 8_999_999_999_999_999)),
                ("errorMessage", Schema.nullable(Schema.string(maxLength: limits.maximumErrorMessageLength))),
                ("capturedAt", Schema.deviceTime("device time of the attempt")),
            ], ["provider", "errorCode", "capturedAt"])
        }
    }

    static func event(_ type: EventType, _ limits: ValidationLimits) -> JSONValue {
        let (own, required) = members(of: type, limits)
        let common: [(String, JSONValue)] = [
            ("eventId", Schema.string(
                "chosen by the client: the idempotency key", format: "uuid", pattern: Schema.uuidPattern,
                example: "0b9c2a4e-3f1d-4a51-9a8e-5f7c1d2e3a40")),
            ("type", Schema.constant(type.rawValue)),
            ("expectedVersion", Schema.nullable(Schema.ref("ExpectedVersion"))),
            ("actor", Schema.nullable(Schema.ref("Actor"))),
        ]
        let schema = Schema.object(common + own, required: ["eventId", "type"] + required)
        guard type == .locationFailed else { return schema }
        // One entity id, whichever.
        return Schema.adding("oneOf", .array(EntityKind.allCases.map { .object(["required": .array([.string($0.idField)])]) }), to: schema)
    }

    /// The members of a fix, in the order of ``Fix/fieldNames``: the one list of them the validator reads.
    static func fix(_ limits: ValidationLimits) -> JSONValue {
        let schemas: [String: JSONValue] = [
            "lat": Schema.number("degrees, in datum", minimum: -90, maximum: 90),
            "lon": Schema.number("degrees, in datum; lat and lon both 0 is refused (null_island)", minimum: -180, maximum: 180),
            "datum": Schema.nullable(Schema.enumeration(Datum.self, "when absent, inferred from the provider and the position")),
            "horizontalAccuracy": Schema.number(
                "metres, as the SDK reported it", maximum: limits.maximumAccuracyMetres, exclusiveMinimum: 0),
            "accuracyAuthorization": Schema.nullable(Schema.enumeration(AccuracyAuthorization.self)),
            "provider": Schema.enumeration(Provider.self),
            "capturedAt": Schema.deviceTime(
                "device time of the fix: from 2008 to \(Int(limits.futureTolerance)) s after the server's clock"),
            "address": Schema.nullable(Schema.ref("Address")),
            "claimedInRegion": Schema.nullable(Schema.boolean("whether the app believed the point was in mainland China")),
        ]
        return Schema.object(
            Fix.fieldNames.map { ($0, schemas[$0]!) }, required: ["lat", "lon", "horizontalAccuracy", "provider", "capturedAt"],
            description: "A position as the app sent it.")
    }

    static func address(_ limits: ValidationLimits) -> JSONValue {
        Schema.object(
            Address.fieldNames.map { name in
                (name, Schema.nullable(name == "adcode"
                    ? Schema.string("the six-digit Chinese administrative division code", pattern: "^[0-9]{6}$")
                    : Schema.string(maxLength: limits.maximumAddressFieldLength)))
            }, required: [], description: "The reverse-geocoded address as the SDK returned it.")
    }

    static func actor(_ limits: ValidationLimits) -> JSONValue {
        Schema.object(
            Actor.fieldNames.map { name in
                (name, Schema.nullable(name == "platform"
                    ? Schema.enumeration(Platform.self, "when absent, read from os")
                    : Schema.string(maxLength: limits.maximumActorFieldLength)))
            }, required: [], description: "Who sent the submission, as the app describes itself.")
    }

    static let expectedVersion = Schema.oneOf([
        Schema.integer("the stream's current version must be exactly this", minimum: 0, maximum: Schema.largestExactInteger),
        Schema.string("any: whatever the version; no_stream: the stream must not exist yet", values: ["any", "no_stream"]),
    ], "Which stream version the append expects; absent: any.")
}
