import Ingestion
import JSON
import LocationEvents
import Output
import Queries

// The JSON the API answers, as JSON Schema: the batch answer, the feed, the current state of a merchant and of a
// terminal, history rows and report rows. Tables are described from their columns (``Schema/row(_:description:)``),
// the reports' from ``Report/columns``, the same columns their answers are written from.

enum AnswerSchemas {
    static let components: [(String, JSONValue)] = [
        ("Error", error(codes: nil)), ("BatchAnswer", batchAnswer), ("ItemResult", itemResult), ("FieldError", fieldError),
        ("FeedPage", feedPage), ("FeedEvent", feedEvent), ("FixSummary", Schema.row(FixSummary.columns)),
        ("FailureSummary", Schema.row(FailureSummary.columns)), ("Merchant", merchant), ("Terminal", terminal),
    ]

    /// `{"error":{"code":"...","message":"...","field":"..."}}`, the code one of `codes` when given.
    static func error(codes: [String]?) -> JSONValue {
        Schema.object(
            [("error", Schema.object([
                ("code", Schema.string("stable, for programs", values: codes)), ("message", Schema.string("one sentence for people")),
                ("field", Schema.string("the parameter, header or member at fault")),
            ], required: ["code", "message"]))], required: ["error"])
    }

    /// What became of an item, in the order of the batch answer's counts.
    static let statuses: [IngestStatus] = [.appended, .duplicate, .conflict, .invalid, .notAppended]

    static let fieldError = Schema.object([
        ("field", Schema.string("the member's path (fix.lat, actor.userId); empty for the whole item")),
        ("code", Schema.enumeration(ValidationCode.self)), ("message", Schema.string()),
    ], required: ["field", "code", "message"])

    static let itemResult = Schema.object([
        ("eventId", Schema.string("the item's eventId as sent, when it had a string one")),
        ("status", Schema.string(
            "not_appended: the batch was atomic and another item failed", values: statuses.map(\.rawValue))),
        ("stream", Schema.string("appended or duplicate: the event's stream, <category>-<id>")),
        ("version", Schema.integer("its version in the stream", minimum: 0)),
        ("position", Schema.integer("its position in the log", minimum: 1)),
        ("errors", Schema.array(Schema.ref("FieldError"), "invalid: every problem found, by field", minItems: 1)),
        ("error", Schema.object(
            [("code", Schema.string("wrong_expected_version, event_id_reused, or a domain rule's own")), ("message", Schema.string())],
            required: ["code", "message"], description: "conflict: why")),
    ], required: ["status"])

    static let headPattern = "^[0-9]+:[0-9a-f]{64}$"

    static let batchAnswer: JSONValue = {
        let counts = statuses.dropLast().map { ($0.rawValue, Schema.integer(minimum: 0)) }
        return Schema.object(
            [("results", Schema.array(Schema.ref("ItemResult"), "one per item, in order"))] + counts + [
                ("not_appended", Schema.integer("an atomic batch that failed: the items left out", minimum: 1)),
                ("head", Schema.string("the log's head after the batch, POSITION:HASH (geoledger verify --head)", pattern: headPattern)),
            ], required: ["results", "head"] + counts.map(\.0))
    }()

    static let hash = Schema.string(pattern: "^[0-9a-f]{64}$")

    static let feedEvent = Schema.object([
        ("position", Schema.integer(minimum: 1)), ("eventId", Schema.string(format: "uuid")),
        ("stream", Schema.string("<category>-<id>")), ("version", Schema.integer(minimum: 0)),
        ("type", Schema.enumeration(EventType.self)), ("recordedAt", Schema.string(format: "date-time")),
        ("hash", Schema.described(hash, "sha256(the stream's previous hash || the canonical event)")),
        ("logHash", Schema.described(hash, "sha256(the previous event's log hash || hash)")),
        ("data", .object(["type": .string("object"), "description": .string("the event as stored: the submission and what the server added")])),
        ("metadata", .object(["type": .string("object"), "description": .string("who sent it, and when it was received")])),
    ], required: ["position", "eventId", "stream", "version", "type", "recordedAt", "hash", "logHash", "data", "metadata"])

    static let feedPage = Schema.object([
        ("events", Schema.array(Schema.ref("FeedEvent"), "in position order")),
        ("next", Schema.integer("the position to ask after next", minimum: 0)),
    ], required: ["events", "next"])

    /// One object: the fields as members, then each section, a single one as its row or null.
    static func document(fields: [Column], sections: [(name: String, row: JSONValue, single: Bool)]) -> JSONValue {
        Schema.object(
            fields.map { ($0.name, Schema.value(of: $0)) }
                + sections.map { ($0.name, $0.single ? Schema.nullable($0.row) : Schema.array($0.row)) },
            required: fields.map(\.name) + sections.map(\.name))
    }

    static let merchant = document(
        fields: [Column("merchantId"), Column("visits", .integer), Column("failedAttempts", .integer)],
        sections: [
            ("addressPosition", Schema.ref("FixSummary"), true), ("latestFix", Schema.ref("FixSummary"), true),
            ("terminals", Schema.row([Column("terminalId"), Column("boundSince", .time), Column("driftMetres", .metres)]), false),
            ("recentVisits", Schema.row([
                Column("visitId"), Column("visitorId"), Column("capturedAt", .time), Column("distanceMetres", .metres),
            ]), false),
            ("recentFailures", Schema.ref("FailureSummary"), false),
        ])

    static let terminal = document(
        fields: [
            Column("terminalId"), Column("merchantId"), Column("boundSince", .time), Column("unboundAt", .time),
            Column("lastMerchantId"), Column("driftMetres", .metres), Column("failedAttempts", .integer),
        ],
        sections: [
            ("position", Schema.ref("FixSummary"), true), ("latestFix", Schema.ref("FixSummary"), true),
            ("recentFailures", Schema.ref("FailureSummary"), false),
        ])
}

/// The columns of a history's rows: those every history has, with a terminal's merchant and a visit's ids.
enum HistoryColumns {
    enum Kind { case merchant, terminal, visits }

    static func columns(_ kind: Kind) -> [Column] {
        let leading = [Column("capturedAt", .time), Column("eventType")]
        let fix = [
            Column("lat", .latitude), Column("lon", .longitude), Column("gcj02Lat", .latitude), Column("gcj02Lon", .longitude),
            Column("horizontalAccuracy", .metres), Column("accuracy"), Column("accuracyAuthorization"), Column("provider"),
            Column("region"), Column("nearBoundary", .bool), Column("claimMismatch", .bool), Column("address"), Column("adcode"),
        ]
        let trailing = [
            Column("app"), Column("userId"), Column("errorCode"), Column("errorCategory"), Column("errorMessage"),
            Column("position", .integer), Column("eventId"),
        ]
        switch kind {
        case .merchant: return leading + fix + trailing
        case .terminal: return leading + [Column("merchantId")] + fix + trailing
        case .visits:
            return leading + [Column("visitId"), Column("merchantId"), Column("visitorId")] + fix
                + [Column("distanceMetres", .metres)] + trailing
        }
    }
}
