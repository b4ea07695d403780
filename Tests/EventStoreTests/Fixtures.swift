import EventStore
import Foundation

/// Events with small, distinct JSON bodies.
func event(
    _ stream: String, _ n: Int = 0, id: UUID = UUID(), expected: ExpectedVersion = .any, type: String = "Noted"
) -> NewEvent {
    NewEvent(
        eventId: id, stream: stream, type: type, data: Data("{\"n\":\(n)}".utf8),
        metadata: Data("{\"server\":true}".utf8), expectedVersion: expected)
}

/// The same event id with other content.
func changing(_ event: NewEvent, stream: String? = nil, data: Data? = nil) -> NewEvent {
    NewEvent(
        eventId: event.eventId, stream: stream ?? event.stream, type: event.type, data: data ?? event.data,
        metadata: event.metadata, expectedVersion: event.expectedVersion)
}

extension AppendResult {
    var isAppended: Bool { if case .appended = self { true } else { false } }
    var conflictCode: String? { if case .conflict(let conflict) = self { conflict.code } else { nil } }
    var version: Int64? {
        switch self {
        case .appended(_, let version, _), .duplicate(_, let version, _): version
        default: nil
        }
    }
    var position: Int64? {
        switch self {
        case .appended(_, _, let position), .duplicate(_, _, let position): position
        default: nil
        }
    }
}
