import EventStore
import Foundation
import JSON
import LocationEvents

/// What happened to one submitted item.
public enum IngestStatus: String, Sendable, Codable {
    case appended, duplicate, conflict, invalid
    /// The batch was atomic and another item failed.
    case notAppended = "not_appended"

    /// The item was refused: it is invalid, or conflicts with what is stored.
    public var isRejection: Bool { self == .invalid || self == .conflict }
}

/// The answer for one item of a batch, as DESIGN.md's batch answer shows it.
public struct IngestItemResult: Sendable, Equatable {
    /// The item's `eventId` as sent, when it had a string one.
    public var eventId: String?
    public var status: IngestStatus
    public var stream: String?
    public var version: Int64?
    public var position: Int64?
    /// Field errors of an invalid item.
    public var errors: [FieldError] = []
    /// Why a conflicting item was refused.
    public var conflict: AppendConflict?

    /// The JSON object of the batch answer.
    public var json: JSONValue {
        // The members go in the order the object keeps them in, so that it takes them as they are, without searching
        // and inserting one by one: a batch answers each of its items.
        var members: [(String, JSONValue)] = []
        members.reserveCapacity(7)
        if let conflict {
            members.append(("error", .object(JSONObject(members: [("code", .string(conflict.code)), ("message", .string(conflict.message))]))))
        }
        if !errors.isEmpty {
            members.append(("errors", .array(errors.map { error in
                .object(JSONObject(members: [
                    ("code", .string(error.code)), ("field", .string(error.field)), ("message", .string(error.message)),
                ]))
            })))
        }
        if let eventId { members.append(("eventId", .string(eventId))) }
        if let position { members.append(("position", .number(Double(position)))) }
        members.append(("status", .string(status.rawValue)))
        if let stream { members.append(("stream", .string(stream))) }
        if let version { members.append(("version", .number(Double(version)))) }
        return .object(JSONObject(members: members))
    }
}

/// The answers to a batch, in order, with counts per status, and the log's head after it.
public struct IngestReport: Sendable, Equatable {
    public var results: [IngestItemResult]
    /// The log's head once the batch was written; when it appended nothing, the head the log had.
    public var head: LogHead

    public func count(_ status: IngestStatus) -> Int {
        results.reduce(0) { $0 + ($1.status == status ? 1 : 0) }
    }

    /// `{"results": [...], "appended": n, "duplicate": n, "conflict": n, "invalid": n, "head": "POSITION:HASH"}` (and
    /// `not_appended` when an atomic batch failed); the head in the form `geoledger verify --head` takes.
    public var json: JSONValue {
        var members: JSONObject = ["results": .array(results.map(\.json)), "head": .string(head.description)]
        for status in [IngestStatus.appended, .duplicate, .conflict, .invalid] {
            members[status.rawValue] = .number(Double(count(status)))
        }
        let notAppended = count(.notAppended)
        if notAppended > 0 { members[IngestStatus.notAppended.rawValue] = .number(Double(notAppended)) }
        return .object(members)
    }
}
