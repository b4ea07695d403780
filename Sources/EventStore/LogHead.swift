import Foundation
import Postgres

/// The head of the log: the position of its last event and the log hash there. The log hash chains every event's
/// hash in position order, `log hash = sha256(log hash of the event before || hash)`, so a head stands for the
/// whole log up to its position. An empty log's head is position 0 with 32 zero bytes.
///
/// Every append answers with the head it left. A head kept outside the database shows later whether the log still
/// holds it: whether any event up to its position was removed, replaced or rewritten (``Verifier``).
public struct LogHead: Sendable, Hashable, CustomStringConvertible {
    public let position: Int64
    public let hash: Digest

    public static let empty = LogHead(position: 0, hash: EventHash.genesis)

    public init(position: Int64, hash: Digest) {
        self.position = position
        self.hash = hash
    }

    /// Reads ``description``'s form, `POSITION:HASH`: a position and 64 hex digits. Nil for anything else.
    public init?(_ text: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
              let position = Int64(parts[0]), parts[1].utf8.count == 64,
              let hash = try? Digest(postgresText: "\\x" + parts[1])  // bytea's hex form, either case
        else { return nil }
        self.init(position: position, hash: hash)
    }

    /// `POSITION:HASH`, the hash in lower-case hex.
    public var description: String { "\(position):\(hash.hex)" }
}
