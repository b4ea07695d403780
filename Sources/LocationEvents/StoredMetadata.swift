import CivilCalendar
import Foundation
import Geo
import JSON

/// The `metadata` stored with a location event: what the server read and computed, under a schema number so that
/// later versions can read it. The one definition of its members: ingest writes it with ``write(_:assessment:capturedAt:receivedAt:given:into:)``,
/// and the projections name what they read back by ``Member/path``.
///
/// Schema 1:
/// ```
/// {"schema": 1, "receivedAt": "<UTC>", "capturedAt": "<UTC>", "app"?,      // capturedAt: fixes and failures
///  "fix": {"wgs84": {"lat", "lon"}, "gcj02": {"lat", "lon"}, "datum", "datumInferred", "datumInference"?,
///          "region", "nearBoundary", "inRegion", "claimMismatch", "boundaryVersion", "accuracy", "flags": [],
///          "provider", "horizontalAccuracy", "accuracyAuthorization", "adcode"?},
///  "failure": {"category", "description", "provider", "errorCode"}}        // LocationFailed only
/// ```
/// A failure's `category` and `description` are the catalogue's answer on the day it was stored, for the platform
/// the actor named (``Actor/resolvedPlatform``); the projections recompute the category with today's catalogue.
/// Times are UTC `timestamptz` text with microseconds. Besides the assessment, `fix` repeats the inputs it was
/// computed from (provider, accuracy and authorisation as read, "unknown" when not sent) and the address code,
/// so that the projections read one small document per event. The bytes are canonical JSON and covered by the
/// hash chain: they never change for the same inputs. A member added later must be optional for the readers; a
/// change of meaning needs a new schema number.
public enum StoredMetadata {
    public static let schema = 1

    /// Every member of the schema, each in the object of its ``parent``.
    public enum Member: Sendable, CaseIterable {
        case app, capturedAt, failure, fix, receivedAt, schema
        /// In `failure`.
        case failureCategory, failureDescription, failureErrorCode, failureProvider
        /// In `fix`.
        case accuracy, accuracyAuthorization, adcode, boundaryVersion, claimMismatch, datum, datumInference,
             datumInferred, flags, gcj02, horizontalAccuracy, inRegion, nearBoundary, provider, region, wgs84
        /// In `fix.gcj02` and `fix.wgs84`.
        case gcj02Lat, gcj02Lon, wgs84Lat, wgs84Lon

        /// The member's name in its object.
        public var name: StaticString {
            switch self {
            case .app: "app"
            case .capturedAt: "capturedAt"
            case .failure: "failure"
            case .fix: "fix"
            case .receivedAt: "receivedAt"
            case .schema: "schema"
            case .failureCategory: "category"
            case .failureDescription: "description"
            case .failureErrorCode: "errorCode"
            case .failureProvider: "provider"
            case .accuracy: "accuracy"
            case .accuracyAuthorization: "accuracyAuthorization"
            case .adcode: "adcode"
            case .boundaryVersion: "boundaryVersion"
            case .claimMismatch: "claimMismatch"
            case .datum: "datum"
            case .datumInference: "datumInference"
            case .datumInferred: "datumInferred"
            case .flags: "flags"
            case .gcj02: "gcj02"
            case .horizontalAccuracy: "horizontalAccuracy"
            case .inRegion: "inRegion"
            case .nearBoundary: "nearBoundary"
            case .provider: "provider"
            case .region: "region"
            case .wgs84: "wgs84"
            case .gcj02Lat, .wgs84Lat: "lat"
            case .gcj02Lon, .wgs84Lon: "lon"
            }
        }

        /// The member whose object holds this one; nil at the top.
        public var parent: Member? {
            switch self {
            case .app, .capturedAt, .failure, .fix, .receivedAt, .schema: nil
            case .failureCategory, .failureDescription, .failureErrorCode, .failureProvider: .failure
            case .gcj02Lat, .gcj02Lon: .gcj02
            case .wgs84Lat, .wgs84Lon: .wgs84
            case .accuracy, .accuracyAuthorization, .adcode, .boundaryVersion, .claimMismatch, .datum, .datumInference,
                 .datumInferred, .flags, .gcj02, .horizontalAccuracy, .inRegion, .nearBoundary, .provider, .region, .wgs84:
                .fix
            }
        }

        /// The member names from the top object down to this member, as a ``JSONShape`` takes them.
        public var path: [String] {
            (parent?.path ?? []) + [name.description]
        }
    }

    /// Writes the metadata's canonical JSON bytes into `bytes`, member by member in canonical order.
    /// - Parameters:
    ///   - assessment: the assessment of the submission's fix; the `fix` member is written when there is both.
    ///   - capturedAt: the fix's or the failure's capture time, written as `timestamptz` text
    ///     (``Timestamp/withText(_:)``).
    ///   - receivedAt: the server's receive time, as `timestamptz` text.
    ///   - given: the fix's numbers as the submission had them (``DecodedSubmission/taken(_:fixNumbers:)``): a
    ///     value of the metadata equal to one of them is written with its text. The bytes are the same either way.
    public static func write(
        _ submission: Submission, assessment: FixAssessment?, capturedAt: Timestamp?, receivedAt: String,
        given: FixNumbers? = nil, into bytes: inout CanonicalBytes
    ) {
        CanonicalObjectWriter.write(into: &bytes) { writer in
            writer.string(.app, ifPresent: submission.actor.app)
            capturedAt?.withText { writer.string(.capturedAt, utf8: $0) }
            if let failure = submission.body.failure {
                writer.object(.failure) { members in
                    let platform = submission.actor.resolvedPlatform
                    members.string(.failureCategory, failure.category(on: platform).rawValue)
                    members.string(
                        .failureDescription,
                        ProviderErrorCatalogue.description(provider: failure.provider, platform: platform, code: failure.errorCode))
                    members.number(.failureErrorCode, Double(failure.errorCode))
                    members.string(.failureProvider, failure.provider.rawValue)
                }
            }
            if let fix = submission.body.fix, let assessment {
                writer.object(.fix) { members in write(fix, assessment, given: given ?? FixNumbers(), into: &members) }
            }
            writer.string(.receivedAt, receivedAt)
            writer.number(.schema, Double(schema))
        }
    }

    /// The `fix` member: the assessment, with the inputs it was computed from.
    private static func write(_ fix: Fix, _ assessment: FixAssessment, given: FixNumbers, into members: inout CanonicalObjectWriter) {
        members.string(.accuracy, assessment.accuracy.rawValue)
        members.string(.accuracyAuthorization, fix.accuracyAuthorization?.rawValue ?? "unknown")
        members.string(.adcode, ifPresent: fix.address?.adcode)
        members.string(.boundaryVersion, assessment.boundaryVersion)
        members.bool(.claimMismatch, assessment.claimMismatch)
        members.string(.datum, assessment.datum.rawValue)
        members.string(.datumInference, ifPresent: assessment.datumInference?.rawValue)
        members.bool(.datumInferred, assessment.datumInferred)
        members.strings(.flags, assessment.flags)
        members.object(.gcj02) { point in
            point.number(.gcj02Lat, assessment.gcj02.latitude, given: given.latitude)
            point.number(.gcj02Lon, assessment.gcj02.longitude, given: given.longitude)
        }
        members.number(.horizontalAccuracy, fix.horizontalAccuracy, given: given.horizontalAccuracy)
        members.bool(.inRegion, assessment.inRegion)
        members.bool(.nearBoundary, assessment.nearBoundary)
        members.string(.provider, fix.provider.rawValue)
        members.string(.region, assessment.region.rawValue)
        members.object(.wgs84) { point in
            point.number(.wgs84Lat, assessment.wgs84.latitude, given: given.latitude)
            point.number(.wgs84Lon, assessment.wgs84.longitude, given: given.longitude)
        }
    }
}

/// The writer's members named by ``StoredMetadata/Member``, so that the names written are the names read.
private extension CanonicalObjectWriter {
    mutating func string(_ member: StoredMetadata.Member, _ value: String) { string(member.name, value) }
    mutating func string(_ member: StoredMetadata.Member, ifPresent value: String?) { string(member.name, ifPresent: value) }
    mutating func string(_ member: StoredMetadata.Member, utf8 value: UnsafeBufferPointer<UInt8>) {
        string(member.name, utf8: value)
    }
    mutating func number(_ member: StoredMetadata.Member, _ value: Double, given: CanonicalNumber? = nil) {
        number(member.name, value, given: given)
    }
    mutating func bool(_ member: StoredMetadata.Member, _ value: Bool) { bool(member.name, value) }
    mutating func strings(_ member: StoredMetadata.Member, _ values: [String]) { strings(member.name, values) }
    mutating func object(_ member: StoredMetadata.Member, _ members: (inout CanonicalObjectWriter) -> Void) {
        object(member.name, members)
    }
}
