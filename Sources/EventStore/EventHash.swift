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
    /// ``EventHash/logChain(previous:hash:)`` with one digest context, and the bytes from the position to the end
    /// written into one buffer kept from event to event.
    struct Chainer: ~Copyable {
        private var hasher = SHA256.Hasher()
        /// `,"position":<position>,"recordedAt":<microseconds>,"stream":"…","type":"…","version":<version>}`
        private var end: [UInt8] = []

        mutating func chain(previous: Digest, _ event: NewEvent, position: Int64, recordedAt: Timestamp, version: Int64) -> Digest {
            end.removeAll(keepingCapacity: true)
            writeEnd(position: position, recordedAt: recordedAt, tail: event.rendered.canonicalTail, version: version, into: &end)
            hasher.update(previous)
            hasher.update(dataKey)
            hasher.update(event.data)
            hasher.update(event.rendered.eventIdMember)
            hasher.update(event.metadata)
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
        var end: [UInt8] = []
        writeEnd(position: position, recordedAt: recordedAt, tail: canonicalTail(stream: stream, type: type), version: version, into: &end)
        return dataKey + data + eventIdMember(eventId) + metadata + end
    }

    private static let dataKey = Array("{\"data\":".utf8)
    private static let positionKey = Array(",\"position\":".utf8)

    /// `,"eventId":"…","metadata":`
    static func eventIdMember(_ eventId: UUID) -> [UInt8] {
        // Written at once into an array of its size: a uuid's text needs no escape, so it is written quoted as it is,
        // without making a string of it first.
        let count = eventIdKey.count + UUID.textCount + 2 + metadataKey.count
        return [UInt8](unsafeUninitializedCapacity: count) { bytes, initialized in
            var index = 0
            func write(_ part: [UInt8]) {
                for byte in part {
                    bytes[index] = byte
                    index += 1
                }
            }
            write(eventIdKey)
            bytes[index] = UInt8(ascii: "\"")
            eventId.writeLowercasedText(into: UnsafeMutableBufferPointer(rebasing: bytes[(index + 1)...]))
            index += 1 + UUID.textCount
            bytes[index] = UInt8(ascii: "\"")
            index += 1
            write(metadataKey)
            initialized = index
        }
    }

    private static let eventIdKey = Array(",\"eventId\":".utf8)
    private static let metadataKey = Array(",\"metadata\":".utf8)

    /// Appends `,"position":<position>,"recordedAt":<microseconds>` + `tail` (``canonicalTail(stream:type:)``) +
    /// `<version>}`: the canonical bytes after the metadata.
    private static func writeEnd(position: Int64, recordedAt: Timestamp, tail: [UInt8], version: Int64, into bytes: inout [UInt8]) {
        bytes += positionKey
        JSONValue.writeInteger(position, into: &bytes)
        bytes += recordedAtKey
        JSONValue.writeInteger(recordedAt.microseconds, into: &bytes)
        bytes += tail
        JSONValue.writeInteger(version, into: &bytes)
        bytes.append(UInt8(ascii: "}"))
    }

    private static let recordedAtKey = Array(",\"recordedAt\":".utf8)

    /// `,"stream":"…","type":"…","version":`
    static func canonicalTail(stream: String, type: String) -> [UInt8] {
        // Room for the usual case at once, names without escapes, rather than grown again and again.
        var bytes: [UInt8] = []
        bytes.reserveCapacity(streamKey.count + typeKey.count + versionKey.count + stream.utf8.count + type.utf8.count + 4)
        bytes += streamKey
        JSONValue.writeString(stream, into: &bytes)
        bytes += typeKey
        JSONValue.writeString(type, into: &bytes)
        bytes += versionKey
        return bytes
    }

    private static let streamKey = Array(",\"stream\":".utf8)
    private static let typeKey = Array(",\"type\":".utf8)
    private static let versionKey = Array(",\"version\":".utf8)
}

