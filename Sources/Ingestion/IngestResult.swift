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
    /// The item's `eventId` as sent, when it had a string one; for an event read, its id in lower case.
    public var eventId: String? {
        get {
            switch id {
            case .text(let text)?: text
            case .event(let id)?: id.lowercasedText
            case nil: nil
            }
        }
        set { id = newValue.map(Identifier.text) }
    }
    /// An event's id is kept as the uuid and written as text only when asked: most answers are counted, not shown.
    private var id: Identifier?
    public var status: IngestStatus
    public var stream: String?
    public var version: Int64?
    public var position: Int64?
    /// Field errors of an invalid item.
    public var errors: [FieldError] = []
    /// Why a conflicting item was refused.
    public var conflict: AppendConflict?

    private enum Identifier: Sendable {
        case text(String)
        case event(UUID)
    }

    public init(
        eventId: String? = nil, status: IngestStatus, stream: String? = nil, version: Int64? = nil, position: Int64? = nil,
        errors: [FieldError] = [], conflict: AppendConflict? = nil
    ) {
        self.init(id: eventId.map(Identifier.text), status, stream, version, position, errors, conflict)
    }

    /// The answer for an event read: its id as the uuid.
    init(event: UUID, status: IngestStatus, stream: String, version: Int64? = nil, position: Int64? = nil, conflict: AppendConflict? = nil) {
        self.init(id: .event(event), status, stream, version, position, [], conflict)
    }

    private init(
        id: Identifier?, _ status: IngestStatus, _ stream: String?, _ version: Int64?, _ position: Int64?,
        _ errors: [FieldError], _ conflict: AppendConflict?
    ) {
        (self.id, self.status, self.stream, self.version, self.position) = (id, status, stream, version, position)
        (self.errors, self.conflict) = (errors, conflict)
    }

    public static func == (a: IngestItemResult, b: IngestItemResult) -> Bool {
        a.eventId == b.eventId && a.status == b.status && a.stream == b.stream && a.version == b.version
            && a.position == b.position && a.errors == b.errors && a.conflict == b.conflict
    }

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

extension IngestItemResult {
    /// Writes ``json`` as canonical JSON, member by member, without building it.
    func write(into members: inout CanonicalObjectWriter) {
        if let conflict {
            members.object("error") { error in
                error.string("code", conflict.code)
                error.string("message", conflict.message)
            }
        }
        if !errors.isEmpty {
            members.objects("errors", count: errors.count) { members, index in
                let error = errors[index]
                members.string("code", error.code)
                members.string("field", error.field)
                members.string("message", error.message)
            }
        }
        members.string("eventId", ifPresent: eventId)
        if let position { members.number("position", Double(position)) }
        members.string("status", status.rawValue)
        members.string("stream", ifPresent: stream)
        if let version { members.number("version", Double(version)) }
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

    /// ``json`` as canonical JSON, written straight from the results rather than built as a tree first: a batch
    /// answers each of its items.
    public func canonicalJSON() -> [UInt8] {
        var (appended, duplicate, conflict, invalid, notAppended) = (0, 0, 0, 0, 0)
        for result in results {
            switch result.status {
            case .appended: appended += 1
            case .duplicate: duplicate += 1
            case .conflict: conflict += 1
            case .invalid: invalid += 1
            case .notAppended: notAppended += 1
            }
        }
        var report = CanonicalObjectWriter(capacity: 64 + 160 * results.count)
        report.number("appended", Double(appended))
        report.number("conflict", Double(conflict))
        report.number("duplicate", Double(duplicate))
        report.string("head", head.description)
        report.number("invalid", Double(invalid))
        if notAppended > 0 { report.number("not_appended", Double(notAppended)) }
        report.objects("results", count: results.count) { members, index in results[index].write(into: &members) }
        return report.finish()
    }
}
