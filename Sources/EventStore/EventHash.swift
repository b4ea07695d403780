import Foundation

/// The per-stream hash chain: `hash = sha256(previous hash of the stream || canonical event bytes)`.
public enum EventHash {
    /// The "previous hash" of a stream's first event.
    public static let genesis = [UInt8](repeating: 0, count: 32)

    static func chain(previous: [UInt8], canonical: [UInt8]) -> [UInt8] {
        SHA256.digest(previous, canonical)
    }

    /// The canonical bytes of an event: a JSON object with sorted keys, whose `data` and `metadata` are the stored
    /// canonical JSON verbatim. Everything stored in the row except the hash is covered.
    static func canonicalBytes(
        position: Int64, eventId: UUID, stream: String, version: Int64, type: String,
        recordedAt: Timestamp, data: Data, metadata: Data
    ) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(data.count + metadata.count + 200)
        func append(_ string: String) { bytes.append(contentsOf: string.utf8) }
        append("{\"data\":")
        bytes.append(contentsOf: data)
        append(",\"eventId\":\(jsonString(eventId.lowercasedText)),\"metadata\":")
        bytes.append(contentsOf: metadata)
        append(",\"position\":\(position),\"recordedAt\":\(recordedAt.microseconds)")
        append(",\"stream\":\(jsonString(stream)),\"type\":\(jsonString(type)),\"version\":\(version)}")
        return bytes
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
