import CivilCalendar
import EventStore
import Foundation
import Geo
@testable import Ingestion
import LocationEvents
import Postgres
@testable import Projections
import Testing

/// Ingest builds each event's projection with the capture time the validator read, not from the text it stored;
/// replay reads that text back. Both must give the same event: the same instant, to the microsecond, in the rows
/// and in the order of the newest fixes.
struct ProjectedEventInstantTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    /// Capture times with up to nine digits of fraction, halves of a microsecond among them, and offsets.
    static let captureTimes = [
        "2026-11-29T10:00:00+08:00", "2026-11-29T02:00:00.250Z", "2026-11-29T02:00:00.1234565Z",
        "2026-11-29T02:00:00.9999995Z", "2026-11-29T02:00:00.999999999Z", "2026-11-29T02:00:00.0000005-05:30",
        "2008-01-01T00:00:00.000001Z", "2016-12-31T23:59:60.5Z", "2026-02-28T23:59:59.123456789+14:00",
        "2020-02-29T12:34:56.654321499Z",
    ]

    @Test("the instant stored for a capture time is the one its timestamptz text reads back as")
    func storedInstantIsTheTextsInstant() throws {
        var dates = try Self.captureTimes.map { try #require(Timestamp(rfc3339: $0)).date }
        // And a spread of instants with every sort of fraction.
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for _ in 0..<10_000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            dates.append(Date(timeIntervalSince1970: 1_199_145_600 + Double(state >> 11) / Double(1 << 53) * 700_000_000))
        }
        for date in dates {
            #expect(date.postgresInstant == (try Date(postgresText: date.postgresText)), "\(date.timeIntervalSince1970)")
        }
    }

    @Test("an event built at ingest equals the same event read back from what was stored", arguments: captureTimes)
    func ingestEqualsReplay(capturedAt: String) throws {
        let fix = #""fix":{"lat":31.2304,"lon":121.4737,"horizontalAccuracy":35,"provider":"amap","capturedAt":"\#(capturedAt)"}"#
        let lines = [
            #"{"eventId":"0b9c2a4e-3f1d-4a51-9a8e-abcdef000001","type":"MerchantAddressFixed","merchantId":"M1","purpose":"onboarding",\#(fix)}"#,
            #"{"eventId":"0b9c2a4e-3f1d-4a51-9a8e-abcdef000002","type":"TerminalBound","terminalId":"T1","merchantId":"M1",\#(fix)}"#,
            #"{"eventId":"0b9c2a4e-3f1d-4a51-9a8e-abcdef000003","type":"VisitRecorded","visitId":"V1","merchantId":"M1","visitorId":"U1",\#(fix)}"#,
            #"{"eventId":"0b9c2a4e-3f1d-4a51-9a8e-abcdef000004","type":"LocationFailed","terminalId":"T1","provider":"amap","errorCode":12,"capturedAt":"\#(capturedAt)","actor":{"os":"Android 13"}}"#,
        ]
        let service = IngestService(classifier: try BoundaryClassifier.bundled())
        let batch = service.prepare(lines.map { IngestItem.bytes(Data($0.utf8)) }, now: Self.now)
        #expect(batch.events.count == lines.count)
        for (event, projected) in zip(batch.events, batch.projected) {
            let read = try ProjectedEvent(
                position: 0, version: 0, eventId: event.eventId, stream: event.stream, type: event.type, metadata: event.metadata,
                data: event.data)
            #expect(projected == read, "\(event.type) captured at \(capturedAt)")
        }
    }
}
