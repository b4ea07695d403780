import Foundation
import LocationEvents
import Postgres

/// What the projections take from one stored location event: its metadata (what the server read and computed,
/// schema 1 of the ingest payload) and, for a visit or a terminal's bind or unbind, fields of its data. Ingest
/// builds it from the JSON it already holds; replay from the stored text. Either way the same rows follow.
public struct ProjectedEvent: Sendable, Equatable {
    /// The event's position in the log and version in its stream; 0 while it is not appended yet (see
    /// ``placed(at:version:)``).
    public private(set) var position: Int64
    public private(set) var version: Int64
    public let eventId: UUID
    public let stream: String
    public let type: String
    let entityKind: String
    let entityId: String
    /// `timestamptz` text (UTC) as stored in the metadata.
    let capturedAt: String?
    let app: String?
    let fix: Fix?
    let failure: Failure?
    let visit: Visit?
    /// A terminal's bind or unbind.
    public let binding: TerminalBinding.Change?
    /// The event's rows in the history tables, rendered where the event is read (off the append's critical path).
    private(set) var rows = Projector.Rows()

    struct Fix: Sendable, Equatable {
        let lat, lon, horizontalAccuracy: Double
        let authorization, accuracy, provider, region: String
        let nearBoundary, claimMismatch: Bool
        let adcode: String?
    }

    struct Failure: Sendable, Equatable {
        let provider, errorCode, category: String
    }

    struct Visit: Sendable, Equatable {
        let merchantId, visitorId: String
        let note: String?
    }

    /// The same event where the log put it: ingest reads the JSON before the append assigns positions.
    public func placed(at position: Int64, version: Int64) -> ProjectedEvent {
        var placed = self
        placed.position = position
        placed.version = version
        return placed
    }

    /// The event types whose rows need fields of `data` as well as `metadata`.
    public static let typesReadingData: Set<String> = ["VisitRecorded", "TerminalBound", "TerminalUnbound"]

    /// - Parameter data: the event's data; needed only for ``typesReadingData``.
    /// - Throws: ``ProjectionError`` when the stored JSON lacks what its type and schema promise.
    public init(
        position: Int64, version: Int64, eventId: UUID, stream: String, type: String, metadata: JSONValue, data: JSONValue?
    ) throws {
        self.position = position
        self.version = version
        self.eventId = eventId
        self.stream = stream
        self.type = type
        guard let dash = stream.firstIndex(of: "-") else { throw ProjectionError(position, "stream \(stream) has no category") }
        entityKind = String(stream[..<dash])
        entityId = String(stream[stream.index(after: dash)...])
        let fields = FieldReader(position: position)
        guard metadata["schema"]?.numberValue == 1 else {
            throw ProjectionError(position, "metadata schema \(metadata["schema"].map { "\($0)" } ?? "missing") is not one this version reads")
        }
        capturedAt = metadata["capturedAt"]?.stringValue
        app = metadata["app"]?.stringValue
        if let fix = metadata["fix"] {
            self.fix = Fix(
                lat: try fields.number(fix["wgs84"]?["lat"], "metadata.fix.wgs84.lat"),
                lon: try fields.number(fix["wgs84"]?["lon"], "metadata.fix.wgs84.lon"),
                horizontalAccuracy: try fields.number(fix["horizontalAccuracy"], "metadata.fix.horizontalAccuracy"),
                authorization: try fields.string(fix["accuracyAuthorization"], "metadata.fix.accuracyAuthorization"),
                accuracy: try fields.string(fix["accuracy"], "metadata.fix.accuracy"),
                provider: try fields.string(fix["provider"], "metadata.fix.provider"),
                region: try fields.string(fix["region"], "metadata.fix.region"),
                nearBoundary: try fields.bool(fix["nearBoundary"], "metadata.fix.nearBoundary"),
                claimMismatch: try fields.bool(fix["claimMismatch"], "metadata.fix.claimMismatch"),
                adcode: fix["adcode"]?.stringValue)
        } else {
            fix = nil
        }
        if let failure = metadata["failure"] {
            self.failure = Failure(
                provider: try fields.string(failure["provider"], "metadata.failure.provider"),
                errorCode: String(Int64(try fields.number(failure["errorCode"], "metadata.failure.errorCode"))),
                category: try fields.string(failure["category"], "metadata.failure.category"))
        } else {
            failure = nil
        }
        if (fix != nil || failure != nil) && capturedAt == nil {
            throw ProjectionError(position, "metadata.capturedAt is missing")
        }
        let kind: TerminalBinding.Change.Kind? = switch type {
        case "TerminalBound": .bind
        case "TerminalUnbound": .unbind
        default: nil
        }
        if Self.typesReadingData.contains(type), data == nil {
            throw ProjectionError(position, "a \(type) event needs its data")
        }
        if type == "VisitRecorded", let data {
            visit = Visit(
                merchantId: try fields.string(data["merchantId"], "data.merchantId"),
                visitorId: try fields.string(data["visitorId"], "data.visitorId"),
                note: data["note"]?.stringValue)
        } else {
            visit = nil
        }
        if let kind, let data {
            // A bind carries a fix and so a capture time; an unbind has only the receive time.
            let at = try fields.string(metadata["capturedAt"] ?? metadata["receivedAt"], "metadata.receivedAt")
            guard let time = try? Date(postgresText: at) else {
                throw ProjectionError(position, "metadata time \(at) is not a timestamp")
            }
            binding = TerminalBinding.Change(
                kind: kind, terminalId: entityId, merchantId: try fields.string(data["merchantId"], "data.merchantId"),
                at: time)
        } else {
            binding = nil
        }
        rows = Projector.rows(of: self)
    }
}

/// A stored event the projections cannot read: names its position.
public struct ProjectionError: Error, CustomStringConvertible {
    /// The event's position in the log; 0 while it is not appended yet.
    public private(set) var position: Int64
    public let reason: String

    public init(_ position: Int64, _ reason: String) {
        self.position = position
        self.reason = reason
    }

    public var description: String { "event at position \(position): \(reason)" }
}

/// Reads required fields, naming the missing one.
private struct FieldReader {
    let position: Int64

    func number(_ value: JSONValue?, _ path: String) throws -> Double {
        guard let number = value?.numberValue else { throw ProjectionError(position, "\(path) is missing") }
        return number
    }

    func string(_ value: JSONValue?, _ path: String) throws -> String {
        guard let string = value?.stringValue else { throw ProjectionError(position, "\(path) is missing") }
        return string
    }

    func bool(_ value: JSONValue?, _ path: String) throws -> Bool {
        guard let bool = value?.boolValue else { throw ProjectionError(position, "\(path) is missing") }
        return bool
    }
}
