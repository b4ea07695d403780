import EventStore
import Foundation
import JSON
import Projections
import Testing

/// A failure's category lives in the failures projection, where reports read it; the event's metadata keeps the
/// category of the day it was stored. A corrected catalogue reaches old events by replay.
@Suite("Failure categories after a catalogue correction", .serialized)
struct FailureCategoryReplayTests {
    /// A Tencent code 1 from an Android terminal, as the iOS-only catalogue stored and projected it: a denied
    /// permission, where the Android SDK means a network problem.
    static let data = #"{"actor":{"app":"terminal-agent","os":"Android 13"},"capturedAt":"2026-11-29T09:59:00+08:00","errorCode":1,"eventId":"7e6d5c4b-3a29-4817-8f6e-5d4c3b2a1908","provider":"tencent","purpose":"device_report","terminalId":"T0009","type":"LocationFailed"}"#
    static let metadata = #"{"app":"terminal-agent","capturedAt":"2026-11-29T01:59:00.000000Z","failure":{"category":"permission_denied","description":"location permission denied","errorCode":1,"provider":"tencent"},"receivedAt":"2026-11-29T13:18:52.330915Z","schema":1}"#

    @Test("replay recomputes the category of a stored failure with today's catalogue; the event keeps its metadata")
    func replayRecomputes() throws {
        let db = try IngestionDatabase()
        defer { db.drop() }
        let id = try #require(UUID(uuidString: "7e6d5c4b-3a29-4817-8f6e-5d4c3b2a1908"))
        _ = try EventLog().append(
            [NewEvent(eventId: id, stream: "terminal-T0009", type: "LocationFailed", data: Data(Self.data.utf8), metadata: Data(Self.metadata.utf8))],
            on: db.connection)
        // The row the earlier projection wrote, and that migrating to the platform column leaves.
        try db.connection.execute("""
            INSERT INTO projections.failures (position, event_id, entity_kind, entity_id, provider, error_code, category, captured_at, app)
            VALUES (1, '7e6d5c4b-3a29-4817-8f6e-5d4c3b2a1908', 'terminal', 'T0009', 'tencent', '1', 'permission_denied',
                    '2026-11-29T01:59:00Z', 'terminal-agent')
            """)
        #expect(try db.row("failures", where: "event_id = $1", [id])["category"] == "permission_denied")
        #expect(try db.row("failures", where: "event_id = $1", [id])["platform"] == "unknown")

        try Replayer().replay(db.database.configuration)

        let row = try db.row("failures", where: "event_id = $1", [id])
        #expect(row["category"] == "network")
        #expect(row["platform"] == "android")
        #expect(row["error_code"] == "1")
        #expect(try db.metadata(of: id)[path: "failure.category"] == "permission_denied")
    }
}
