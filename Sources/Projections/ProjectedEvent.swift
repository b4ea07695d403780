import CivilCalendar
import Foundation
import Geo
import JSON
import LocationEvents
import Postgres

/// What the projections take from one stored location event: its metadata (what the server read and computed,
/// ``StoredMetadata``) and, for a visit or a terminal's bind or unbind, fields of its data. Ingest
/// builds it from the values it computed for the metadata; replay reads them back from the stored bytes. Either way
/// the same rows follow (a frozen schema-1 log checks it).
public struct ProjectedEvent: Sendable, Equatable {
    /// The event's position in the log and version in its stream; 0 while it is not appended yet (see
    /// ``placed(at:version:)``).
    public private(set) var position: Int64
    public private(set) var version: Int64
    /// Everything else, read once and never changed, in one shared box: the event is copied from batch to append to
    /// projector, and a copy then counts one reference rather than one for each of its strings.
    private let values: Box

    public var eventId: UUID { values.fields.eventId }
    public var stream: String { values.fields.stream }
    public var type: String { values.fields.type }
    var entityKind: String { values.fields.entityKind }
    var entityId: String { values.fields.entityId }
    /// The metadata's `capturedAt`.
    var capturedAt: Date? { values.fields.capturedAt }
    var app: String? { values.fields.app }
    /// The sender's operating system as sent (`data.actor.os`).
    var os: String? { values.fields.os }
    /// The sender's platform (``Platform/of(explicit:os:)``), stored with its fix for the reports by platform.
    var platform: Platform? { values.fields.platform }
    /// The UTC day of the metadata's `receivedAt`, in days since 1970-01-01, for the daily counts.
    var receivedDay: Int? { values.fields.receivedDay }
    /// The UTC day of the metadata's `capturedAt`, in days since 1970-01-01, for the fixes per day.
    var capturedDay: Int? { values.fields.capturedDay }
    var fix: Fix? { values.fields.fix }
    var failure: Failure? { values.fields.failure }
    var visit: Visit? { values.fields.visit }
    /// A terminal's bind or unbind.
    public var binding: TerminalBinding.Change? { values.fields.binding }

    /// What an event holds besides its place in the log.
    struct Fields: Sendable, Equatable {
        let eventId: UUID
        let stream, type, entityKind, entityId: String
        let capturedAt: Date?
        let app, os: String?
        let platform: Platform?
        let receivedDay, capturedDay: Int?
        let fix: Fix?
        let failure: Failure?
        let visit: Visit?
        let binding: TerminalBinding.Change?
    }

    private final class Box: Sendable {
        let fields: Fields

        init(_ fields: consuming Fields) {
            self.fields = fields
        }
    }

    public static func == (a: ProjectedEvent, b: ProjectedEvent) -> Bool {
        a.position == b.position && a.version == b.version && (a.values === b.values || a.values.fields == b.values.fields)
    }

    /// What the history keeps of a fix: its WGS-84 position and the assessment stored with it, each value of the
    /// vocabulary as its case (the summaries count by them).
    public struct Fix: Sendable, Equatable {
        let lat, lon, horizontalAccuracy: Double
        /// The authorisation as sent, `unknown` when it was not.
        let authorization: AccuracyAuthorization
        let accuracy: AccuracyClass
        let provider: Provider
        let region: Region
        let nearBoundary, claimMismatch: Bool
        let adcode: String?

        public init(
            lat: Double, lon: Double, horizontalAccuracy: Double, authorization: AccuracyAuthorization,
            accuracy: AccuracyClass, provider: Provider, region: Region, nearBoundary: Bool, claimMismatch: Bool,
            adcode: String?
        ) {
            (self.lat, self.lon, self.horizontalAccuracy) = (lat, lon, horizontalAccuracy)
            (self.authorization, self.accuracy, self.provider, self.region) = (authorization, accuracy, provider, region)
            (self.nearBoundary, self.claimMismatch, self.adcode) = (nearBoundary, claimMismatch, adcode)
        }
    }

    /// A failed attempt: the provider's code as sent, the platform of the device, and the code's category.
    ///
    /// The category is the one the catalogue gives today, not the one stored in the event's metadata: the history
    /// is rebuilt from the log by every replay, so a corrected catalogue reaches the failures stored before it.
    public struct Failure: Sendable, Equatable {
        let provider, errorCode, platform, category: String

        /// - Parameters:
        ///   - provider: as stored; one the catalogue does not know gives `unknown`.
        ///   - platform: the submission's ``Actor/resolvedPlatform``.
        public init(provider: String, errorCode: Int, platform: Platform?) {
            self.provider = provider
            self.errorCode = String(errorCode)
            self.platform = Platform.text(platform)
            category = (Provider(rawValue: provider).map {
                ProviderErrorCatalogue.category(provider: $0, platform: platform, code: errorCode)
            } ?? .unknown).rawValue
        }
    }

    public struct Visit: Sendable, Equatable {
        let merchantId, visitorId: String
        let note: String?

        public init(merchantId: String, visitorId: String, note: String?) {
            (self.merchantId, self.visitorId, self.note) = (merchantId, visitorId, note)
        }
    }

    /// The same event where the log put it: ingest reads the JSON before the append assigns positions.
    public func placed(at position: Int64, version: Int64) -> ProjectedEvent {
        var placed = self
        placed.position = position
        placed.version = version
        return placed
    }

    /// The event types whose rows need fields of `data` as well as `metadata`: a failure's platform is read from
    /// its actor.
    public static let typesReadingData = Set(
        [EventType.visitRecorded, .terminalBound, .terminalUnbound, .locationFailed].map(\.rawValue))

    /// Reads the event from its stored JSON bytes, as replay does: only the values at the paths the projections use
    /// are read (``Metadata``, ``DataFields``); the rest is checked and skipped.
    /// - Parameter data: the event's data; needed only for ``typesReadingData``.
    /// - Throws: ``ProjectionError`` when the stored JSON lacks what its type and schema promise.
    public init(
        position: Int64, version: Int64, eventId: UUID, stream: String, type: String,
        metadata: UnsafeBufferPointer<UInt8>, data: UnsafeBufferPointer<UInt8>?
    ) throws {
        let (metadata, data) = try Self.parse(position: position, type: type, metadata: metadata, data: data)
        try self.init(
            position: position, version: version, eventId: eventId, stream: stream, type: type, metadata: metadata, data: data)
    }

    /// The same, from `Data`.
    public init(position: Int64, version: Int64, eventId: UUID, stream: String, type: String, metadata: Data, data: Data?) throws {
        let (metadata, data) = try metadata.withUnsafeBytes { metadata in
            try Self.withOptionalBytes(data) { data in
                try Self.parse(position: position, type: type, metadata: metadata.bindMemory(to: UInt8.self), data: data)
            }
        }
        try self.init(
            position: position, version: version, eventId: eventId, stream: stream, type: type, metadata: metadata, data: data)
    }

    private static func parse(
        position: Int64, type: String, metadata: UnsafeBufferPointer<UInt8>, data: UnsafeBufferPointer<UInt8>?
    ) throws -> (Metadata, DataFields?) {
        do {
            let data = try data.map { DataFields(try DataFields.shape.read($0)) }
            return (Metadata(try Metadata.shape.read(metadata)), data)
        } catch let error as JSONValueError {
            throw ProjectionError(position, "\(error)")
        }
    }

    private static func withOptionalBytes<R>(_ data: Data?, _ body: (UnsafeBufferPointer<UInt8>?) throws -> R) rethrows -> R {
        guard let data else { return try body(nil) }
        return try data.withUnsafeBytes { try body($0.bindMemory(to: UInt8.self)) }
    }

    /// The values of the metadata that the projections read, each a member of ``StoredMetadata``.
    struct Metadata {
        enum Field: Int, CaseIterable {
            case schema, app, capturedAt, receivedAt
            case fix, lat, lon, horizontalAccuracy, authorization, accuracy, provider, region, nearBoundary, claimMismatch
            case adcode
            case failure, failureProvider, errorCode

            var member: StoredMetadata.Member {
                switch self {
                case .schema: .schema
                case .app: .app
                case .capturedAt: .capturedAt
                case .receivedAt: .receivedAt
                case .fix: .fix
                case .lat: .wgs84Lat
                case .lon: .wgs84Lon
                case .horizontalAccuracy: .horizontalAccuracy
                case .authorization: .accuracyAuthorization
                case .accuracy: .accuracy
                case .provider: .provider
                case .region: .region
                case .nearBoundary: .nearBoundary
                case .claimMismatch: .claimMismatch
                case .adcode: .adcode
                case .failure: .failure
                case .failureProvider: .failureProvider
                case .errorCode: .failureErrorCode
                }
            }

            /// How an error names it.
            var name: String { "metadata." + member.path.joined(separator: ".") }
        }

        static let shape = JSONShape(paths: Field.allCases.map(\.member.path))
        let values: [JSONValue?]

        init(_ values: [JSONValue?]) { self.values = values }

        subscript(field: Field) -> JSONValue? { values[field.rawValue] }
    }

    /// The values of the data that the projections read: the sender's `actor.os` and `actor.platform` of every
    /// event, and fields of ``typesReadingData``.
    struct DataFields {
        enum Field: Int, CaseIterable {
            case merchantId, visitorId, note, actorOS, actorPlatform

            var path: [String] {
                switch self {
                case .actorOS: ["actor", "os"]
                case .actorPlatform: ["actor", "platform"]
                default: [String(describing: self)]
                }
            }

            var name: String { "data." + path.joined(separator: ".") }
        }

        static let shape = JSONShape(paths: Field.allCases.map(\.path))
        let values: [JSONValue?]

        init(_ values: [JSONValue?]) { self.values = values }

        subscript(field: Field) -> JSONValue? { values[field.rawValue] }
    }

    /// Reads what the projections use from the values read from the metadata and data.
    private init(
        position: Int64, version: Int64, eventId: UUID, stream: String, type: String, metadata: Metadata, data: DataFields?
    ) throws {
        let fields = FieldReader(position: position)
        guard metadata[.schema]?.numberValue == Double(StoredMetadata.schema) else {
            throw ProjectionError(position, "metadata schema \(metadata[.schema].map { $0.canonicalString() } ?? "missing") is not one this version reads")
        }
        var fix: Fix?
        if metadata[.fix] != nil {
            fix = Fix(
                lat: try fields.number(metadata, .lat), lon: try fields.number(metadata, .lon),
                horizontalAccuracy: try fields.number(metadata, .horizontalAccuracy),
                authorization: try fields.value(metadata, .authorization), accuracy: try fields.value(metadata, .accuracy),
                provider: try fields.value(metadata, .provider), region: try fields.value(metadata, .region),
                nearBoundary: try fields.bool(metadata, .nearBoundary), claimMismatch: try fields.bool(metadata, .claimMismatch),
                adcode: metadata[.adcode]?.stringValue)
        }
        if Self.typesReadingData.contains(type), data == nil {
            throw ProjectionError(position, "a \(type) event needs its data")
        }
        // The platform comes from the actor as sent.
        let platform = Platform.of(
            explicit: data?[.actorPlatform]?.stringValue.flatMap(Platform.init(rawValue:)), os: data?[.actorOS]?.stringValue)
        var failure: Failure?
        if metadata[.failure] != nil {
            // The category is recomputed (see ``Failure``).
            failure = Failure(
                provider: try fields.string(metadata, .failureProvider),
                errorCode: try fields.integer(metadata, .errorCode), platform: platform)
        }
        var visit: Visit?
        if type == EventType.visitRecorded.rawValue, let data {
            visit = Visit(
                merchantId: try fields.string(data, .merchantId), visitorId: try fields.string(data, .visitorId),
                note: data[.note]?.stringValue)
        }
        var boundMerchantId: String?
        if Self.bindingKind(of: type) != nil, let data {
            boundMerchantId = try fields.string(data, .merchantId)
        }
        try self.init(
            position: position, version: version, eventId: eventId, stream: stream, type: type,
            capturedAt: metadata[.capturedAt]?.stringValue, receivedAt: metadata[.receivedAt]?.stringValue,
            app: metadata[.app]?.stringValue, os: data?[.actorOS]?.stringValue, platform: platform, fix: fix, failure: failure,
            visit: visit,
            boundMerchantId: boundMerchantId)
    }

    /// The event from what its metadata and data hold, already read: ingest passes what it computed for the
    /// metadata it is about to store; replay what it read back from the log.
    /// - Parameters:
    ///   - capturedAt: `timestamptz` text (UTC), as in the metadata, as replay reads it back. A fix or a failure needs
    ///     it or `capturedTime`.
    ///   - capturedTime: the time the metadata's `capturedAt` was written from (``Timestamp/withText(_:)``), when the
    ///     caller has it (ingest: the validator read it), so that no text is read back; it takes the place of
    ///     `capturedAt`.
    ///   - receivedAt: `timestamptz` text (UTC), as in the metadata; the time of an unbind.
    ///   - os: the sender's operating system as sent (`data.actor.os`).
    ///   - platform: the sender's ``Actor/resolvedPlatform``.
    ///   - boundMerchantId: the merchant of a bind or unbind (`data.merchantId`); required for those.
    ///   - entity: the stream's category and id, the parts of its name before and after the first `-`, when the
    ///     caller has them apart (ingest); nil reads them from the name.
    public init(
        position: Int64 = 0, version: Int64 = 0, eventId: UUID, stream: String, type: String, capturedAt: String?,
        capturedTime: Timestamp? = nil, receivedAt: String?, app: String?, os: String? = nil, platform: Platform? = nil,
        fix: Fix?, failure: Failure?, visit: Visit?,
        boundMerchantId: String?, entity: (kind: String, id: String)? = nil
    ) throws {
        let entityKind: String, entityId: String
        if let entity {
            (entityKind, entityId) = entity
        } else {
            guard let dash = stream.utf8.firstIndex(of: UInt8(ascii: "-")) else {
                throw ProjectionError(position, "stream \(stream) has no category")
            }
            (entityKind, entityId) = (String(stream[..<dash]), String(stream[stream.utf8.index(after: dash)...]))
        }
        let captured: Date?, capturedDay: Int?
        if let capturedTime {
            // As the text reads back, so that an event built at ingest equals the same event read back from the log.
            (captured, capturedDay) = (capturedTime.date.postgresInstant, capturedTime.day)
        } else {
            captured = try capturedAt.map { try Self.time($0, "metadata.capturedAt", position: position) }
            capturedDay = try capturedAt.map { try Self.day(of: $0, "metadata.capturedAt", position: position) }
        }
        if (fix != nil || failure != nil) && captured == nil {
            throw ProjectionError(position, "metadata.capturedAt is missing")
        }
        var binding: TerminalBinding.Change?
        if let kind = Self.bindingKind(of: type) {
            guard let boundMerchantId else { throw ProjectionError(position, "data.merchantId is missing") }
            // A bind carries a fix and so a capture time; an unbind has only the receive time.
            guard let at = try captured ?? receivedAt.map({ try Self.time($0, "metadata.receivedAt", position: position) }) else {
                throw ProjectionError(position, "metadata.receivedAt is missing")
            }
            binding = TerminalBinding.Change(kind: kind, terminalId: entityId, merchantId: boundMerchantId, at: at)
        }
        let fields = Fields(
            eventId: eventId, stream: stream, type: type, entityKind: entityKind, entityId: entityId,
            capturedAt: captured, app: app, os: os, platform: platform,
            receivedDay: try receivedAt.map { try Self.day(of: $0, "metadata.receivedAt", position: position) },
            capturedDay: capturedDay,
            fix: fix, failure: failure, visit: visit, binding: binding)
        self.position = position
        self.version = version
        values = Box(fields)
    }

    /// The day a UTC `timestamptz` text starts with (`yyyy-MM-dd`), in days since 1970-01-01.
    static func day(of text: String, _ path: String, position: Int64) throws -> Int {
        guard let date = CivilDate(startOf: text) else {
            throw ProjectionError(position, "\(path) \(text) is not a timestamp")
        }
        return date.daysSince1970
    }

    private static func time(_ text: String, _ path: String, position: Int64) throws -> Date {
        guard let time = try? Date(postgresText: text) else { throw ProjectionError(position, "\(path) \(text) is not a timestamp") }
        return time
    }

    private static func bindingKind(of type: String) -> TerminalBinding.Change.Kind? {
        switch type {
        case EventType.terminalBound.rawValue: .bind
        case EventType.terminalUnbound.rawValue: .unbind
        default: nil
        }
    }
}

/// Reads required fields, naming the missing one.
private struct FieldReader {
    let position: Int64

    func number(_ metadata: ProjectedEvent.Metadata, _ field: ProjectedEvent.Metadata.Field) throws -> Double {
        try required(metadata[field]?.numberValue, field.name)
    }

    func integer(_ metadata: ProjectedEvent.Metadata, _ field: ProjectedEvent.Metadata.Field) throws -> Int {
        let number = try number(metadata, field)
        guard let integer = Int(exactly: number) else { throw ProjectionError(position, "\(field.name) \(number) is not an integer") }
        return integer
    }

    func string(_ metadata: ProjectedEvent.Metadata, _ field: ProjectedEvent.Metadata.Field) throws -> String {
        try required(metadata[field]?.stringValue, field.name)
    }

    /// A value of the vocabulary, by its text; one this version does not know is refused, as a missing one is.
    func value<Value: RawRepresentable<String>>(
        _ metadata: ProjectedEvent.Metadata, _ field: ProjectedEvent.Metadata.Field
    ) throws -> Value {
        let text = try string(metadata, field)
        guard let value = Value(rawValue: text) else {
            throw ProjectionError(position, "\(field.name) \(JSONValue.quoted(text)) is not one this version reads")
        }
        return value
    }

    func bool(_ metadata: ProjectedEvent.Metadata, _ field: ProjectedEvent.Metadata.Field) throws -> Bool {
        try required(metadata[field]?.boolValue, field.name)
    }

    func string(_ data: ProjectedEvent.DataFields, _ field: ProjectedEvent.DataFields.Field) throws -> String {
        try required(data[field]?.stringValue, field.name)
    }

    private func required<T>(_ value: T?, _ name: @autoclosure () -> String) throws -> T {
        guard let value else { throw ProjectionError(position, "\(name()) is missing") }
        return value
    }
}
