import Foundation
import Postgres

/// The per-stream hash chain: `hash = sha256(previous hash of the stream || canonical event bytes)`.
public enum EventHash {
    /// The "previous hash" of a stream's first event.
    public static let genesis = [UInt8](repeating: 0, count: 32)

    static func chain(previous: [UInt8], canonical: [UInt8]) -> [UInt8] {
        SHA256.digest(previous, canonical)
    }

    /// ``chain(previous:canonical:)`` of the canonical bytes put together from their parts, without copying them
    /// into one array.
    static func chain(previous: [UInt8], _ rendered: RenderedEvent, position: Int64, recordedAt: Timestamp, version: Int64) -> [UInt8] {
        SHA256.digest(
            previous, rendered.canonicalHead, canonicalMiddle(position: position, recordedAt: recordedAt),
            rendered.canonicalTail, canonicalEnd(version: version))
    }

    /// The canonical bytes of an event: a JSON object with sorted keys, whose `data` and `metadata` are the stored
    /// canonical JSON verbatim. Everything stored in the row except the hash is covered.
    static func canonicalBytes(
        position: Int64, eventId: UUID, stream: String, version: Int64, type: String,
        recordedAt: Timestamp, data: Data, metadata: Data
    ) -> [UInt8] {
        canonicalHead(eventId: eventId, data: data, metadata: metadata)
            + canonicalMiddle(position: position, recordedAt: recordedAt)
            + canonicalTail(stream: stream, type: type)
            + canonicalEnd(version: version)
    }

    /// `{"data":…,"eventId":"…","metadata":…,"position":`
    static func canonicalHead(eventId: UUID, data: Data, metadata: Data) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(data.count + metadata.count + 80)
        bytes.append(contentsOf: "{\"data\":".utf8)
        bytes.append(contentsOf: data)
        bytes.append(contentsOf: ",\"eventId\":\(jsonString(eventId.lowercasedText)),\"metadata\":".utf8)
        bytes.append(contentsOf: metadata)
        bytes.append(contentsOf: ",\"position\":".utf8)
        return bytes
    }

    /// `<position>,"recordedAt":<microseconds>`
    private static func canonicalMiddle(position: Int64, recordedAt: Timestamp) -> [UInt8] {
        Array("\(position),\"recordedAt\":\(recordedAt.microseconds)".utf8)
    }

    /// `,"stream":"…","type":"…","version":`
    static func canonicalTail(stream: String, type: String) -> [UInt8] {
        Array(",\"stream\":\(jsonString(stream)),\"type\":\(jsonString(type)),\"version\":".utf8)
    }

    /// `<version>}`
    private static func canonicalEnd(version: Int64) -> [UInt8] {
        Array("\(version)}".utf8)
    }

    /// A JSON string literal (RFC 8259 escaping).
    static func jsonString(_ value: String) -> String {
        if !value.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
            return "\"" + value + "\""
        }
        var out = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
