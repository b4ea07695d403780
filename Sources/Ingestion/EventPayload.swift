import EventStore
import Foundation
import Geo
import LocationEvents
import Postgres
import Projections

/// How a location event is stored: `data` is the submission as sent (canonical JSON, without
/// `expectedVersion`, which is a condition of the write and not part of the event); `metadata` is what the
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
        let data = JSONValue.object(sent)
        let metadata = metadata(submission, assessment: assessment, receivedAt: receivedAt)
        let event = NewEvent(
            eventId: submission.eventId, stream: submission.streamName, type: submission.typeName,
            data: data.canonicalData(), metadata: metadata.canonicalData(),
            expectedVersion: expectedVersion(submission.expectedVersion))
        let projected = try ProjectedEvent(
            position: 0, version: 0, eventId: event.eventId, stream: event.stream, type: event.type, metadata: metadata, data: data)
        return (event, projected)
    }

    static func metadata(_ submission: Submission, assessment: FixAssessment?, receivedAt: String) -> JSONValue {
        var members: JSONObject = ["schema": .number(Double(schema)), "receivedAt": .string(receivedAt)]
        members["app"] = submission.actor.app.map(JSONValue.string)
        if let fix = submission.body.fix, let assessment {
            members["capturedAt"] = .string(fix.capturedAt.date.postgresText)
            guard case .object(var assessed) = json(assessment) else { return .object(members) }
            assessed["provider"] = .string(fix.provider.rawValue)
            assessed["horizontalAccuracy"] = .number(fix.horizontalAccuracy)
            assessed["accuracyAuthorization"] = .string(fix.accuracyAuthorization?.rawValue ?? "unknown")
            assessed["adcode"] = fix.address?.adcode.map(JSONValue.string)
            members["fix"] = .object(assessed)
        }
        if case .locationFailed(let failure) = submission.body {
            members["capturedAt"] = .string(failure.capturedAt.date.postgresText)
            members["failure"] = .object([
                "category": .string(failure.category.rawValue),
                "description": .string(ProviderErrorCatalogue.description(provider: failure.provider, code: failure.errorCode)),
                "provider": .string(failure.provider.rawValue),
                "errorCode": .number(Double(failure.errorCode)),
            ])
        }
        return .object(members)
    }

    static func json(_ assessment: FixAssessment) -> JSONValue {
        func point(_ coordinate: Coordinate) -> JSONValue {
            .object(["lat": .number(coordinate.latitude), "lon": .number(coordinate.longitude)])
        }
        var members: JSONObject = [
            "wgs84": point(assessment.wgs84), "gcj02": point(assessment.gcj02),
            "datum": .string(assessment.datum.rawValue), "datumInferred": .bool(assessment.datumInferred),
            "region": .string(assessment.region.rawValue), "nearBoundary": .bool(assessment.nearBoundary),
            "inRegion": .bool(assessment.inRegion), "claimMismatch": .bool(assessment.claimMismatch),
            "boundaryVersion": .string(assessment.boundaryVersion), "accuracy": .string(assessment.accuracy.rawValue),
            "flags": .array(assessment.flags.map(JSONValue.string)),
        ]
        if let inference = assessment.datumInference {
            members["datumInference"] = .string(inference.rawValue)
        }
        return .object(members)
    }

    static func expectedVersion(_ expected: LocationEvents.ExpectedVersion?) -> EventStore.ExpectedVersion {
        switch expected {
        case nil, .any?: .any
        case .noStream?: .noStream
        case .exact(let version)?: .exact(version)
        }
    }
}
