import CivilCalendar
import Foundation
import JSON
import Postgres

/// The per-stream hash chain: `hash = sha256(previous hash of the stream || canonical event bytes)`; and over it
/// the log chain, which takes every event's hash in position order: `log hash = sha256(log hash before || hash)`.
public enum EventHash {
    /// The "previous hash" of a stream's first event, and the log hash before the log's first event.
    public static let genesis = Digest.zero

    static func chain(previous: Digest, canonical: [UInt8]) -> Digest {
        SHA256.digest(previous, canonical)
    }

    /// The log hash of an event: `previous` is the log hash of the event before it in position order.
    static func logChain(previous: Digest, hash: Digest) -> Digest {
        SHA256.digest(previous, hash)
    }

    /// ``chain(previous:canonical:)`` of an event's canonical bytes, hashed part by part as ``canonicalBytes`` puts
    /// them together, without copying them into one array.
    static func chain(previous: Digest, _ event: NewEvent, position: Int64, recordedAt: Timestamp, version: Int64) -> Digest {
        var chainer = Chainer()
        return chainer.chain(previous: previous, event, position: position, recordedAt: recordedAt, version: version)
    }

    /// Hashes a batch's events one after another: ``EventHash/chain(previous:_:position:recordedAt:version:)`` and
    /// ``EventHash/logChain(previous:hash:)`` with one digest context; the data and metadata read where the event's
    /// rendered row holds them, and the bytes between and after them written into buffers kept from event to event.
    struct Chainer: ~Copyable {
        private var hasher = SHA256.Hasher()
        /// `,"eventId":"…","metadata":`
        private var middle: [UInt8] = []
        /// `,"position":<position>,"recordedAt":<microseconds>,"stream":"…","type":"…","version":<version>}`
        private var end: [UInt8] = []

        mutating func chain(previous: Digest, _ event: NewEvent, position: Int64, recordedAt: Timestamp, version: Int64) -> Digest {
            middle.removeAll(keepingCapacity: true)
            writeEventIdMember(event.eventId, into: &middle)
            end.removeAll(keepingCapacity: true)
            writeEnd(position: position, recordedAt: recordedAt, stream: event.stream, type: event.type, version: version, into: &end)
            hasher.update(previous)
            EventHash.dataKey.withUTF8Buffer { hasher.update(UnsafeRawBufferPointer($0)) }
            event.withData { hasher.update($0) }
            hasher.update(middle)
            event.withMetadata { hasher.update($0) }
            hasher.update(end)
            return hasher.finish()
        }

        mutating func logChain(previous: Digest, hash: Digest) -> Digest {
            hasher.update(previous)
            hasher.update(hash)
            return hasher.finish()
        }
    }

    /// The canonical bytes of an event: a JSON object with sorted keys, whose `data` and `metadata` are the stored
    /// canonical JSON verbatim. Everything stored in the row except the hash is covered.
    static func canonicalBytes(
        position: Int64, eventId: UUID, stream: String, version: Int64, type: String,
        recordedAt: Timestamp, data: Data, metadata: Data
    ) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.append(dataKey)
        bytes += data
        writeEventIdMember(eventId, into: &bytes)
        bytes += metadata
        writeEnd(position: position, recordedAt: recordedAt, stream: stream, type: type, version: version, into: &bytes)
        return bytes
    }

    // The members' names as static text, not arrays: an array is a global, whose every read checks that it was made
    // and counts a reference to it.
    private static let dataKey: StaticString = "{\"data\":"
    private static let positionKey: StaticString = ",\"position\":"

    /// Appends `,"eventId":"…","metadata":`: a uuid's text needs no escape, so it is written quoted as it is, without
    /// making a string of it first.
    private static func writeEventIdMember(_ eventId: UUID, into bytes: inout [UInt8]) {
        bytes.append(eventIdKey)
        bytes.append(UInt8(ascii: "\""))
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: UUID.textCount) { text in
            eventId.writeLowercasedText(into: text)
            bytes.append(contentsOf: text)
        }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(metadataKey)
    }

    private static let eventIdKey: StaticString = ",\"eventId\":"
    private static let metadataKey: StaticString = ",\"metadata\":"

    /// Appends `,"position":<position>,"recordedAt":<microseconds>,"stream":"…","type":"…","version":<version>}`: the
    /// canonical bytes after the metadata.
    private static func writeEnd(
        position: Int64, recordedAt: Timestamp, stream: String, type: String, version: Int64, into bytes: inout [UInt8]
    ) {
        bytes.append(positionKey)
        JSONValue.writeInteger(position, into: &bytes)
        bytes.append(recordedAtKey)
        JSONValue.writeInteger(recordedAt.microseconds, into: &bytes)
        bytes.append(streamKey)
        JSONValue.writeString(stream, into: &bytes)
        bytes.append(typeKey)
        JSONValue.writeString(type, into: &bytes)
        bytes.append(versionKey)
        JSONValue.writeInteger(version, into: &bytes)
        bytes.append(UInt8(ascii: "}"))
    }

    private static let recordedAtKey: StaticString = ",\"recordedAt\":"

    private static let streamKey: StaticString = ",\"stream\":"
    private static let typeKey: StaticString = ",\"type\":"
    private static let versionKey: StaticString = ",\"version\":"
}

extension [UInt8] {
    /// Appends a static text's UTF-8.
    fileprivate mutating func append(_ text: StaticString) {
        text.withUTF8Buffer { append(contentsOf: $0) }
    }
}

