import CivilCalendar
@testable import EventStore
import Foundation
import JSON
import Testing

@Suite("Version checks")
struct AppendPlanTests {
    let head = StreamHead(version: 4, hash: EventHash.genesis, position: 9)

    @Test func anyAcceptsEverything() {
        #expect(AppendPlan.checkVersion(event("s-1", expected: .any), head: nil) == nil)
        #expect(AppendPlan.checkVersion(event("s-1", expected: .any), head: head) == nil)
    }

    @Test func noStreamNeedsAnAbsentStream() {
        #expect(AppendPlan.checkVersion(event("s-1", expected: .noStream), head: nil) == nil)
        #expect(AppendPlan.checkVersion(event("s-1", expected: .noStream), head: head)?.message
            == "stream s-1 is at version 4, expected no stream")
    }

    @Test func exactNeedsThatVersion() {
        #expect(AppendPlan.checkVersion(event("s-1", expected: .exact(4)), head: head) == nil)
        #expect(AppendPlan.checkVersion(event("s-1", expected: .exact(3)), head: head)?.code == "wrong_expected_version")
        #expect(AppendPlan.checkVersion(event("s-1", expected: .exact(0)), head: nil)?.message
            == "stream s-1 does not exist, expected version 0")
    }

    @Test("each event is decided on its own stream's head, streams interleaved, and the plan leaves every stream's head")
    func streamsInterleavedInABatch() {
        let events = [
            event("a-1", expected: .exact(4)), event("b-1", expected: .noStream), event("a-1", expected: .exact(5)),
            event("c-1", expected: .exact(0)), event("b-1", expected: .exact(0)), event("a-1", expected: .noStream),
        ]
        let known = ["a-1": head, "d-1": head]
        var plan = AppendPlan(
            events: events, stored: [:], heads: known, after: LogHead(position: 9, hash: EventHash.genesis),
            recordedAt: Timestamp(Date(timeIntervalSince1970: 1_764_410_400)))
        plan.decide { _ in nil }
        #expect(plan.results.map { if case .appended(let stream, let version, _) = $0 { "\(stream)@\(version)" } else { "-" } }
            == ["a-1@5", "b-1@0", "a-1@6", "-", "b-1@1", "-"])
        // Each stream once, in the order of its first event.
        #expect(plan.heads.map { "\($0.0)@\($0.1.version):\($0.1.position)" } == ["a-1@6:12", "b-1@1:13"])
    }

    @Test("a stream's key is its name: equal for the same name however it was made, apart for names of the same length")
    func streamKeys() {
        let built = String(decoding: Array("terminal-T000001".utf8), as: UTF8.self)
        #expect(StreamKey("terminal-T000001") == StreamKey(built))
        #expect(StreamKey("terminal-T000001").hashValue == StreamKey(built).hashValue)
        #expect(StreamKey("terminal-T000001") != StreamKey("terminal-T000002"))
        var slots: [StreamKey: Int] = [:]
        for index in 0..<10_000 { slots[StreamKey("terminal-T\(index)")] = index }
        #expect(slots.count == 10_000)
        #expect((0..<10_000).allSatisfy { (index: Int) in slots[StreamKey("terminal-T\(index)")] == index })
        #expect(slots[StreamKey("terminal-T10000")] == nil)
    }

    @Test("timestamps keep whole microseconds through Date")
    func timestampRoundTrip() {
        let stamp = Timestamp(Date(timeIntervalSince1970: 1_764_410_400.123456))
        #expect(stamp.microseconds == 1_764_410_400_123_456)
        #expect(Timestamp(stamp.date) == stamp)
    }

    @Test("canonical bytes are a sorted-key JSON object covering every stored column")
    func canonicalBytes() throws {
        let id = UUID(uuidString: "0B9C2A4E-3F1D-4A51-9A8E-5F7C1D2E3A40")!
        let bytes = EventHash.canonicalBytes(
            position: 7, eventId: id, stream: "m-\"1", version: 2, type: "T",
            recordedAt: Timestamp(microseconds: 1_764_410_400_000_001), data: Data("{\"a\":1}".utf8),
            metadata: Data("{}".utf8))
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text == #"{"data":{"a":1},"eventId":"0b9c2a4e-3f1d-4a51-9a8e-5f7c1d2e3a40","metadata":{},"position":7,"recordedAt":1764410400000001,"stream":"m-\"1","type":"T","version":2}"#)
        #expect(try JSONSerialization.jsonObject(with: Data(bytes)) is [String: Any])
    }

    @Test("the canonical bytes from the time to the end quote the stream and the type as JSON does, escaped or not")
    func canonicalTail() {
        for (stream, type) in [("merchant-M1", "VisitRecorded"), ("m-\"1", "T"), ("m-1", "T\\"), ("商户-上海", "T\u{1}"), ("", "")] {
            let bytes = EventHash.canonicalBytes(
                position: 1, eventId: UUID(), stream: stream, version: 4, type: type,
                recordedAt: Timestamp(microseconds: 5), data: Data("{}".utf8), metadata: Data("{}".utf8))
            let expected = ",\"recordedAt\":5,\"stream\":" + JSONValue.quoted(stream) + ",\"type\":" + JSONValue.quoted(type)
                + ",\"version\":4}"
            #expect(bytes.suffix(expected.utf8.count).elementsEqual(expected.utf8), "\(stream) \(type)")
        }
    }

    @Test("an event's data and metadata read back from its rendered COPY columns are the bytes given, empty or holding a NUL")
    func dataAndMetadataReadBack() {
        for (data, metadata) in [("{\"a\":1}", "{}"), ("", ""), ("{\"a\":\"\u{0}\"}", "x\u{0}"), ("{}", "{\"b\":[1,2]}")] {
            let event = NewEvent(eventId: UUID(), stream: "m-1", type: "T", data: Data(data.utf8), metadata: Data(metadata.utf8))
            #expect(event.data == Data(data.utf8), "\(data)")
            #expect(event.metadata == Data(metadata.utf8), "\(metadata)")
        }
    }

    @Test("the hash of an event rendered ahead is the hash of its canonical bytes")
    func renderedHash() {
        let event = NewEvent(
            eventId: UUID(), stream: "m-\"1", type: "T", data: Data("{\"a\":\"\\t\"}".utf8), metadata: Data("{}".utf8))
        let recordedAt = Timestamp(microseconds: 1_764_410_400_000_001)
        let previous = Digest(bytes: [UInt8](repeating: 7, count: 32))!
        let whole = EventHash.chain(
            previous: previous,
            canonical: EventHash.canonicalBytes(
                position: 12, eventId: event.eventId, stream: event.stream, version: 3, type: event.type,
                recordedAt: recordedAt, data: event.data, metadata: event.metadata))
        #expect(EventHash.chain(previous: previous, event, position: 12, recordedAt: recordedAt, version: 3) == whole)
        // One chainer for a batch: the second event's hash and the log hash between are the one-off ones.
        var chainer = EventHash.Chainer()
        let first = chainer.chain(previous: previous, event, position: 12, recordedAt: recordedAt, version: 3)
        #expect(chainer.logChain(previous: previous, hash: first) == EventHash.logChain(previous: previous, hash: whole))
        let other = NewEvent(eventId: UUID(), stream: "m-2", type: "U", data: Data("[]".utf8), metadata: Data("{\"b\":2}".utf8))
        #expect(chainer.chain(previous: first, other, position: 13, recordedAt: recordedAt, version: 0)
            == EventHash.chain(
                previous: first,
                canonical: EventHash.canonicalBytes(
                    position: 13, eventId: other.eventId, stream: other.stream, version: 0, type: other.type,
                    recordedAt: recordedAt, data: other.data, metadata: other.metadata)))
    }
}
