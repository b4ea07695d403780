import EventStore
import Foundation
import Geo
import LocationEvents
import Postgres

/// How a location event is stored: `data` is the submission as sent (canonical JSON, without
/// `expectedVersion`, which is a condition of the write and not part of the event); `metadata` is what the
/// server added, under a schema version so that later versions can read it.
///
/// Metadata, schema 1:
/// ```
/// {"schema": 1, "receivedAt": "<UTC>", "capturedAt": "<UTC>",           // capturedAt: fixes and failures
///  "fix": {"wgs84": {"lat", "lon"}, "gcj02": {"lat", "lon"}, "datum", "datumInferred", "datumInference"?,
///          "region", "nearBoundary", "inRegion", "claimMismatch", "boundaryVersion", "accuracy", "flags": []},
///  "failure": {"category", "description"}}                              // LocationFailed only
/// ```
/// Times are UTC `timestamptz` text with microseconds. The projections read these fields; a field added later
/// must be optional for them, and a change of meaning needs a new schema number.
enum EventPayload {
    static let schema = 1

    /// The event to append, and its data and metadata as JSON values (what the projections read).
    static func newEvent(
        _ submission: Submission, raw: [String: JSONValue], assessment: FixAssessment?, receivedAt: Date
    ) -> (event: NewEvent, data: JSONValue, metadata: JSONValue) {
        var sent = raw
        sent["expectedVersion"] = nil
        let data = JSONValue.object(sent)
        let metadata = metadata(submission, assessment: assessment, receivedAt: receivedAt)
        let event = NewEvent(
            eventId: submission.eventId, stream: submission.streamName, type: submission.typeName,
            data: data.canonicalData(), metadata: metadata.canonicalData(),
            expectedVersion: expectedVersion(submission.expectedVersion))
        return (event, data, metadata)
    }

    static func metadata(_ submission: Submission, assessment: FixAssessment?, receivedAt: Date) -> JSONValue {
        var members: [String: JSONValue] = ["schema": .number(Double(schema)), "receivedAt": .string(receivedAt.postgresText)]
        if let fix = submission.body.fix {
            members["capturedAt"] = .string(fix.capturedAt.date.postgresText)
        }
        if let assessment {
            members["fix"] = json(assessment)
        }
        if case .locationFailed(let failure) = submission.body {
            members["capturedAt"] = .string(failure.capturedAt.date.postgresText)
            members["failure"] = .object([
                "category": .string(failure.category.rawValue),
                "description": .string(ProviderErrorCatalogue.description(provider: failure.provider, code: failure.errorCode)),
            ])
        }
        return .object(members)
    }

    static func json(_ assessment: FixAssessment) -> JSONValue {
        func point(_ coordinate: Coordinate) -> JSONValue {
            .object(["lat": .number(coordinate.latitude), "lon": .number(coordinate.longitude)])
        }
        var members: [String: JSONValue] = [
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
