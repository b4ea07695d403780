import Foundation
import Postgres

/// A SHA-256 digest: its 32 bytes held inline, so that an event's hash and log hash, a stream's head and the log's
/// head are plain values, without an allocation of their own.
public struct Digest: Hashable, Sendable, CustomStringConvertible, ContiguousBytes {
    private var words: (UInt64, UInt64, UInt64, UInt64)

    /// 32 zero bytes.
    public static let zero = Digest(words: (0, 0, 0, 0))

    private init(words: (UInt64, UInt64, UInt64, UInt64)) {
        self.words = words
    }

    /// These 32 bytes; nil when there are not 32.
    public init?(bytes: some Collection<UInt8>) {
        guard bytes.count == 32 else { return nil }
        self.init { $0.copyBytes(from: bytes) }
    }

    /// The 32 bytes `fill` writes.
    init(filling fill: (UnsafeMutableRawBufferPointer) -> Void) {
        var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        Swift.withUnsafeMutableBytes(of: &words, fill)
        self.words = words
    }

    public func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try Swift.withUnsafeBytes(of: words, body)
    }

    public var bytes: [UInt8] { withUnsafeBytes { Array($0) } }

    /// Whether `stored` is these 32 bytes: a hash read back as the database holds it, which may be any length.
    public func isEqual(to stored: [UInt8]) -> Bool {
        withUnsafeBytes { $0.elementsEqual(stored) }
    }

    /// The bytes in lower-case hex, two digits each.
    public var hex: String { withUnsafeBytes { ByteaHex.digitsText(of: $0) } }

    public var description: String { hex }

    public static func == (a: Digest, b: Digest) -> Bool {
        a.words.0 == b.words.0 && a.words.1 == b.words.1 && a.words.2 == b.words.2 && a.words.3 == b.words.3
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(words.0)
        hasher.combine(words.1)
        hasher.combine(words.2)
        hasher.combine(words.3)
    }

    /// Whether two digests are equal, in a time that does not depend on how much of them matches: comparing a
    /// secret's digest says nothing of the secret.
    public func equalsInConstantTime(_ other: Digest) -> Bool {
        (words.0 ^ other.words.0) | (words.1 ^ other.words.1) | (words.2 ^ other.words.2) | (words.3 ^ other.words.3) == 0
    }
}

/// Stored as `bytea`.
extension Digest: PostgresEncodable, PostgresDecodable {
    public var postgresText: String { UInt8.postgresArrayText(bytes) }

    public init(postgresText: String) throws {
        guard let digest = Digest(bytes: try UInt8.postgresArray(fromText: postgresText)) else {
            throw PostgresError(.decoding, "not a SHA-256 digest: not 32 bytes")
        }
        self = digest
    }
}
