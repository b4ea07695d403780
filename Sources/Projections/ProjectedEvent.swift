import Foundation
import LocationEvents

/// What the projections take from one stored location event, read from its `data` (the submission as sent) and
/// `metadata` (what the server added; ``EventPayload``'s schema 1). Ingest builds it from the JSON it already
/// holds; replay from the stored text. Either way the same rows follow.
public struct ProjectedEvent: Sendable, Equatable {
    public var position: Int64
    public var eventId: UUID
    public var stream: String
    public var type: String
    var entityKind: String
    var entityId: String
    var merchantId: String?
    var purpose: String?
    /// `timestamptz` text in UTC with microseconds, as stored: fixed width, so text order is time order.
    var receivedAt: String
    var capturedAt: String?
    var fix: Fix?
    var failure: Failure?
    var visitorId: String?
    var note: String?
    var actor: Actor

    struct Fix: Sendable, Equatable {
        var lat, lon, gcj02Lat, gcj02Lon: Double
        var datum: String
        var datumInferred: Bool
        var horizontalAccuracy: Double
        var authorization: String
        var accuracy: String
        var provider: String
        var region: String
        var nearBoundary, inRegion: Bool
        var claimedInRegion: Bool?
        var claimMismatch: Bool
        var flags: [String]
        var province, city, district, adcode, formattedAddress: String?
    }

    struct Failure: Sendable, Equatable {
        var provider: String
        var errorCode: String
        var category: String
        var errorMessage: String?
    }

    struct Actor: Sendable, Equatable {
        var app, appVersion, userId, deviceId: String?
    }

    /// - Throws: ``ProjectionError`` when the stored JSON lacks what its type and schema promise.
    public init(position: Int64, eventId: UUID, stream: String, type: String, data: JSONValue, metadata: JSONValue) throws {
        self.position = position
        self.eventId = eventId
        self.stream = stream
        self.type = type
        guard let dash = stream.firstIndex(of: "-") else { throw ProjectionError(position, "stream \(stream) has no category") }
        entityKind = String(stream[..<dash])
        entityId = String(stream[stream.index(after: dash)...])
        var reader = FieldReader(position: position, data: data, metadata: metadata)
        guard let schema = metadata["schema"]?.numberValue, schema == 1 else {
            throw ProjectionError(position, "metadata schema \(metadata["schema"].map { "\($0)" } ?? "missing") is not one this version reads")
        }
        merchantId = data["merchantId"]?.stringValue
        purpose = data["purpose"]?.stringValue
        receivedAt = try reader.metadataString("receivedAt")
        capturedAt = metadata["capturedAt"]?.stringValue
        visitorId = data["visitorId"]?.stringValue
        note = data["note"]?.stringValue
        let actor = data["actor"]
        self.actor = Actor(
            app: actor?["app"]?.stringValue, appVersion: actor?["appVersion"]?.stringValue,
            userId: actor?["userId"]?.stringValue, deviceId: actor?["deviceId"]?.stringValue)
        if metadata["fix"] != nil {
            fix = try reader.fix()
            guard capturedAt != nil else { throw ProjectionError(position, "a fix without metadata.capturedAt") }
        }
        if let failure = metadata["failure"] {
            self.failure = Failure(
                provider: try reader.dataString("provider"),
                errorCode: data["errorCode"]?.numberValue.map { String(Int64($0)) } ?? "",
                category: failure["category"]?.stringValue ?? FailureCategory.unknown.rawValue,
                errorMessage: data["errorMessage"]?.stringValue)
            guard capturedAt != nil else { throw ProjectionError(position, "a failure without metadata.capturedAt") }
        }
    }
}

/// A stored event the projections cannot read: names its position.
public struct ProjectionError: Error, CustomStringConvertible {
    public let position: Int64
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
    let data: JSONValue
    let metadata: JSONValue

    func dataString(_ name: String) throws -> String {
        guard let value = data[name]?.stringValue else { throw ProjectionError(position, "data.\(name) is missing") }
        return value
    }

    func metadataString(_ name: String) throws -> String {
        guard let value = metadata[name]?.stringValue else { throw ProjectionError(position, "metadata.\(name) is missing") }
        return value
    }

    func fix() throws -> ProjectedEvent.Fix {
        guard let sent = data["fix"], let assessed = metadata["fix"] else { throw ProjectionError(position, "data.fix is missing") }
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
        let address = sent["address"]
        return ProjectedEvent.Fix(
            lat: try number(assessed["wgs84"]?["lat"], "metadata.fix.wgs84.lat"),
            lon: try number(assessed["wgs84"]?["lon"], "metadata.fix.wgs84.lon"),
            gcj02Lat: try number(assessed["gcj02"]?["lat"], "metadata.fix.gcj02.lat"),
            gcj02Lon: try number(assessed["gcj02"]?["lon"], "metadata.fix.gcj02.lon"),
            datum: try string(assessed["datum"], "metadata.fix.datum"),
            datumInferred: try bool(assessed["datumInferred"], "metadata.fix.datumInferred"),
            horizontalAccuracy: try number(sent["horizontalAccuracy"], "data.fix.horizontalAccuracy"),
            authorization: sent["accuracyAuthorization"]?.stringValue ?? "unknown",
            accuracy: try string(assessed["accuracy"], "metadata.fix.accuracy"),
            provider: try string(sent["provider"], "data.fix.provider"),
            region: try string(assessed["region"], "metadata.fix.region"),
            nearBoundary: try bool(assessed["nearBoundary"], "metadata.fix.nearBoundary"),
            inRegion: try bool(assessed["inRegion"], "metadata.fix.inRegion"),
            claimedInRegion: sent["claimedInRegion"]?.boolValue,
            claimMismatch: try bool(assessed["claimMismatch"], "metadata.fix.claimMismatch"),
            flags: assessed["flags"]?.arrayValue?.compactMap(\.stringValue) ?? [],
            province: address?["province"]?.stringValue, city: address?["city"]?.stringValue,
            district: address?["district"]?.stringValue, adcode: address?["adcode"]?.stringValue,
            formattedAddress: address?["formatted"]?.stringValue)
    }
}
