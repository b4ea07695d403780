import EventStore
import Foundation
import Geo
import JSON
import LocationEvents
import Postgres
import Projections

/// How a location event is stored: `data` is the submission as sent, as the validator wrote it
/// (``LocationEvents/SubmissionValidator/decode(_:now:writingDataInto:)``); `metadata` is what the server read and
/// computed (``StoredMetadata``).
enum EventPayload {
    /// Adds the event to append to `events`, and answers what the projections will read of it (placed at its
    /// position once appended).
    /// - Parameters:
    ///   - data: the event's data, and `numbers` the fix's numbers as sent
    ///     (``LocationEvents/DecodedSubmission/taken(_:fixNumbers:)``).
    ///   - receivedAt: `timestamptz` text; a batch shares one.
    ///   - metadata: where the event's metadata is written before it is copied into its row, one event after another.
    static func newEvent(
        _ submission: Submission, data: UnsafeBufferPointer<UInt8>, numbers: FixNumbers?, assessment: FixAssessment?,
        receivedAt: String, metadata: inout CanonicalBytes, into events: inout NewEvent.Batch
    ) throws -> ProjectedEvent {
        let platform = submission.actor.resolvedPlatform
        let entity = submission.body.entity
        let fix = submission.body.fix
        let failure = submission.body.failure
        let captured = failure?.capturedAt ?? fix?.capturedAt
        let stream = entity.streamName
        let type = submission.typeName
        let projected = try ProjectedEvent(
            eventId: submission.eventId, stream: stream, type: type, capturedAt: nil, capturedTime: captured,
            receivedAt: receivedAt,
            app: submission.actor.app, os: submission.actor.os, platform: platform,
            fix: assessment.flatMap { assessment in fix.map { historyFix($0, assessment) } },
            failure: failure.map {
                ProjectedEvent.Failure(provider: $0.provider.rawValue, errorCode: $0.errorCode, platform: platform)
            },
            visit: visit(of: submission.body), boundMerchantId: boundMerchantId(of: submission.body),
            entity: (entity.kind.rawValue, entity.id))
        StoredMetadata.write(
            submission, assessment: assessment, capturedAt: captured, receivedAt: receivedAt, given: numbers, into: &metadata)
        events.append(
            eventId: submission.eventId, stream: stream, type: type, data: UnsafeRawBufferPointer(data),
            metadata: UnsafeRawBufferPointer(metadata.bytes), expectedVersion: expectedVersion(submission.expectedVersion))
        return projected
    }

    /// What the history keeps of a fix: the same values as the metadata's `fix` member.
    private static func historyFix(_ fix: Fix, _ assessment: FixAssessment) -> ProjectedEvent.Fix {
        ProjectedEvent.Fix(
            lat: assessment.wgs84.latitude, lon: assessment.wgs84.longitude, horizontalAccuracy: fix.horizontalAccuracy,
            authorization: fix.accuracyAuthorization ?? .unknown, accuracy: assessment.accuracy,
            provider: fix.provider, region: assessment.region, nearBoundary: assessment.nearBoundary,
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

    static func expectedVersion(_ expected: LocationEvents.ExpectedVersion?) -> EventStore.ExpectedVersion {
        switch expected {
        case nil, .any?: .any
        case .noStream?: .noStream
        case .exact(let version)?: .exact(version)
        }
    }
}
