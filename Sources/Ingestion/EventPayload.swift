import EventStore
import Foundation
import Geo
import JSON
import LocationEvents
import Postgres
import Projections

/// How a location event is stored: `data` is the submission as sent (canonical JSON, without
/// `expectedVersion`, which is a condition of the write and not part of the event, and with `eventId` in lower
/// case, as UUIDs are case-insensitive: a resend in upper case is the same event); `metadata` is what the
/// server read and computed, under a schema version so that later versions can read it.
///
/// Metadata, schema 1:
/// ```
/// {"schema": 1, "receivedAt": "<UTC>", "capturedAt": "<UTC>", "app"?,      // capturedAt: fixes and failures
///  "fix": {"wgs84": {"lat", "lon"}, "gcj02": {"lat", "lon"}, "datum", "datumInferred", "datumInference"?,
///          "region", "nearBoundary", "inRegion", "claimMismatch", "boundaryVersion", "accuracy", "flags": [],
///          "provider", "horizontalAccuracy", "accuracyAuthorization", "adcode"?},
///  "failure": {"category", "description", "provider", "errorCode"}}        // LocationFailed only
/// ```
/// Times are UTC `timestamptz` text with microseconds. Besides the assessment, `fix` repeats the inputs it was
/// computed from (provider, accuracy and authorisation as read, "unknown" when not sent) and the address code,
/// so that the projections read one small document per event. A field added later must be optional for the
/// projections; a change of meaning needs a new schema number.
enum EventPayload {
    static let schema = 1

    /// The event to append, and what the projections will read of it (placed at its position once appended).
    /// - Parameter receivedAt: `timestamptz` text; a batch shares one.
    static func newEvent(
        _ submission: Submission, raw: JSONObject, assessment: FixAssessment?, receivedAt: String
    ) throws -> (event: NewEvent, projected: ProjectedEvent) {
        var sent = raw
        sent["expectedVersion"] = nil
        if raw["eventId"]?.stringValue?.utf8.contains(where: { (UInt8(ascii: "A")...UInt8(ascii: "F")).contains($0) }) == true {
            sent["eventId"] = .string(submission.eventId.lowercasedText)
        }
        let capturedAt = (submission.body.failure?.capturedAt ?? submission.body.fix?.capturedAt)?.date.postgresText
        let event = NewEvent(
            eventId: submission.eventId, stream: submission.streamName, type: submission.typeName,
            data: JSONValue.object(sent).canonicalData(),
            metadata: Data(metadata(submission, assessment: assessment, capturedAt: capturedAt, receivedAt: receivedAt)),
            expectedVersion: expectedVersion(submission.expectedVersion))
        let projected = try ProjectedEvent(
            eventId: event.eventId, stream: event.stream, type: event.type, capturedAt: capturedAt, receivedAt: receivedAt,
            app: submission.actor.app, fix: assessment.flatMap { assessment in submission.body.fix.map { historyFix($0, assessment) } },
            failure: submission.body.failure.map {
                ProjectedEvent.Failure(provider: $0.provider.rawValue, errorCode: String($0.errorCode), category: $0.category.rawValue)
            },
            visit: visit(of: submission.body), boundMerchantId: boundMerchantId(of: submission.body))
        return (event, projected)
    }

    /// What the history keeps of a fix: the same values as the metadata's `fix` member.
    private static func historyFix(_ fix: Fix, _ assessment: FixAssessment) -> ProjectedEvent.Fix {
        ProjectedEvent.Fix(
            lat: assessment.wgs84.latitude, lon: assessment.wgs84.longitude, horizontalAccuracy: fix.horizontalAccuracy,
            authorization: fix.accuracyAuthorization?.rawValue ?? "unknown", accuracy: assessment.accuracy.rawValue,
            provider: fix.provider.rawValue, region: assessment.region.rawValue, nearBoundary: assessment.nearBoundary,
            claimMismatch: assessment.claimMismatch, adcode: fix.address?.adcode)
    }

    private static func visit(of body: SubmissionBody) -> ProjectedEvent.Visit? {
        guard case .visitRecorded(_, let merchantId, let visitorId, _, let note) = body else { return nil }
        return ProjectedEvent.Visit(merchantId: merchantId, visitorId: visitorId, note: note)
    }

    private static func boundMerchantId(of body: SubmissionBody) -> String? {
        switch body {
        case .terminalBound(_, let merchantId, _), .terminalUnbound(_, let merchantId, _): merchantId
        default: nil
        }
    }

    /// The metadata's canonical JSON bytes, written member by member in canonical order.
    /// - Parameter capturedAt: the fix's or the failure's, as `timestamptz` text.
    static func metadata(_ submission: Submission, assessment: FixAssessment?, capturedAt: String?, receivedAt: String) -> [UInt8] {
        let fix = submission.body.fix.flatMap { fix in assessment.map { (fix, $0) } }
        var writer = CanonicalObjectWriter(capacity: 640)
        writer.string("app", ifPresent: submission.actor.app)
        writer.string("capturedAt", ifPresent: capturedAt)
        if let failure = submission.body.failure {
            writer.object("failure") { members in
                members.string("category", failure.category.rawValue)
                members.string("description", ProviderErrorCatalogue.description(provider: failure.provider, code: failure.errorCode))
                members.number("errorCode", Double(failure.errorCode))
                members.string("provider", failure.provider.rawValue)
            }
        }
        if let (fix, assessment) = fix {
            writer.object("fix") { members in write(fix, assessment, into: &members) }
        }
        writer.string("receivedAt", receivedAt)
        writer.number("schema", Double(schema))
        return writer.finish()
    }

    /// The `fix` member: the assessment, with the inputs it was computed from.
    private static func write(_ fix: Fix, _ assessment: FixAssessment, into members: inout CanonicalObjectWriter) {
        func point(_ coordinate: Coordinate) -> (inout CanonicalObjectWriter) -> Void {
            { point in
                point.number("lat", coordinate.latitude)
                point.number("lon", coordinate.longitude)
            }
        }
        members.string("accuracy", assessment.accuracy.rawValue)
        members.string("accuracyAuthorization", fix.accuracyAuthorization?.rawValue ?? "unknown")
        members.string("adcode", ifPresent: fix.address?.adcode)
        members.string("boundaryVersion", assessment.boundaryVersion)
        members.bool("claimMismatch", assessment.claimMismatch)
        members.string("datum", assessment.datum.rawValue)
        members.string("datumInference", ifPresent: assessment.datumInference?.rawValue)
        members.bool("datumInferred", assessment.datumInferred)
        members.strings("flags", assessment.flags)
        members.object("gcj02", point(assessment.gcj02))
        members.number("horizontalAccuracy", fix.horizontalAccuracy)
        members.bool("inRegion", assessment.inRegion)
        members.bool("nearBoundary", assessment.nearBoundary)
        members.string("provider", fix.provider.rawValue)
        members.string("region", assessment.region.rawValue)
        members.object("wgs84", point(assessment.wgs84))
    }

    static func expectedVersion(_ expected: LocationEvents.ExpectedVersion?) -> EventStore.ExpectedVersion {
        switch expected {
        case nil, .any?: .any
        case .noStream?: .noStream
        case .exact(let version)?: .exact(version)
        }
    }
}
