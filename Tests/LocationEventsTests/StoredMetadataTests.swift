import CivilCalendar
import Foundation
import Geo
import JSON
import Testing
@testable import LocationEvents

/// The writer and the readers' paths are one definition: what is written is exactly what ``StoredMetadata/Member``
/// names, each member at its path.
@Suite("Stored metadata")
struct StoredMetadataTests {
    static func written(_ type: EventType, _ assessment: FixAssessment?) throws -> JSONValue {
        let submission = try SubmissionValidator().validate(SubmissionFixtures.submission(type), now: SubmissionFixtures.now).get()
        var bytes = CanonicalBytes()
        StoredMetadata.write(
            submission, assessment: assessment, capturedAt: Timestamp(rfc3339: "2026-11-29T02:00:00Z"),
            receivedAt: "2026-11-29T04:00:00.000000Z", into: &bytes)
        return try JSONValue(parsing: Data(bytes.bytes))
    }

    /// Every optional member present: an inferred datum, an address code, the app.
    static let assessment = FixAssessment(
        wgs84: Coordinate(latitude: 31.2282, longitude: 121.4690), gcj02: Coordinate(latitude: 31.2304, longitude: 121.4737),
        datum: .gcj02, datumInferred: true, datumInference: .providerGCJ02InChina, region: .mainland, nearBoundary: false,
        inRegion: true, claimMismatch: false, boundaryVersion: "natural-earth-5.1.1", accuracy: .precise,
        flags: [FixFlag.possiblySwapped.rawValue])

    /// The paths of every member of the objects in `value` (arrays are values, not walked into).
    static func paths(_ value: JSONValue, under prefix: [String] = []) -> Set<[String]> {
        var paths: Set<[String]> = []
        for (name, member) in value.objectValue ?? [:] {
            paths.insert(prefix + [name])
            paths.formUnion(Self.paths(member, under: prefix + [name]))
        }
        return paths
    }

    @Test("a fix and a failure between them write every member the schema names, at its path, and no other")
    func writtenMembersAreTheSchema() throws {
        let fix = try Self.written(.merchantAddressFixed, Self.assessment)
        let failure = try Self.written(.locationFailed, nil)
        #expect(Self.paths(fix).union(Self.paths(failure)) == Set(StoredMetadata.Member.allCases.map(\.path)))
        #expect(fix["schema"] == .number(Double(StoredMetadata.schema)))
        #expect(fix["fix"]?["datumInference"] == .string("provider_gcj02_in_china"))
        #expect(failure["failure"]?["errorCode"] == .number(4))
    }

    @Test("a reader's shape built from the members' paths finds each value written")
    func pathsReadWhatIsWritten() throws {
        let fix = try Self.written(.terminalBound, Self.assessment)
        let members = StoredMetadata.Member.allCases.filter { $0 != .failure && $0.parent != .failure }
        let bytes = Array(fix.canonicalData())
        let values = try bytes.withUnsafeBufferPointer { try JSONShape(paths: members.map(\.path)).read($0) }
        #expect(values[members.firstIndex(of: .wgs84Lat)!] == .number(31.2282))
        #expect(values[members.firstIndex(of: .gcj02Lon)!] == .number(121.4737))
        #expect(values[members.firstIndex(of: .adcode)!] == .string("310101"))
        #expect(values.allSatisfy { $0 != nil })
    }
}
