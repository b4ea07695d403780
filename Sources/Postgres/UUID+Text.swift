import Foundation

extension UUID {
    /// The lowercase hyphenated form PostgreSQL writes, e.g. `0b9c2a4e-3f1d-4a51-9a8e-5f7c1d2e3a40`.
    /// (Foundation's `uuidString` is uppercase and goes through `printf`, which showed in ingest profiles.)
    /// Written straight into the string's storage: through an array first, it cost thousands of instructions an event.
    public var lowercasedText: String {
        String(unsafeUninitializedCapacity: Self.textCount) { text in
            writeLowercasedText(into: text)
            return Self.textCount
        }
    }

    /// The length of ``lowercasedText``, in bytes.
    public static let textCount = 36

    /// Writes ``lowercasedText`` at the start of `text`, which has room for its ``textCount`` bytes.
    public func writeLowercasedText(into text: UnsafeMutableBufferPointer<UInt8>) {
        precondition(text.count >= Self.textCount, "no room for a uuid's text")
        withUnsafeBytes(of: uuid) { bytes in
            var index = 0
            for offset in 0..<16 {
                if Self.startsGroup(offset) {
                    text[index] = UInt8(ascii: "-")
                    index += 1
                }
                (text[index], text[index + 1]) = ByteaHex.digits(of: bytes[offset])
                index += 2
            }
        }
    }

    /// Whether the byte at `offset` starts a hyphen-separated group other than the first: the groups are 4, 2, 2, 2
    /// and 6 bytes. Reckoned rather than read from a table, a global whose every read checks that it was made.
    private static func startsGroup(_ offset: Int) -> Bool {
        offset == 4 || offset == 6 || offset == 8 || offset == 10
    }

    /// Reads the hyphenated form in either case; nil for anything else.
    public init?(text: String) {
        var text = text
        let parsed: uuid_t? = text.withUTF8 { bytes in
            guard bytes.count == 36 else { return nil }
            var value: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
            let ok = withUnsafeMutableBytes(of: &value) { out -> Bool in
                var index = 0
                for offset in 0..<16 {
                    if Self.startsGroup(offset) {
                        guard bytes[index] == UInt8(ascii: "-") else { return false }
                        index += 1
                    }
                    guard let high = ByteaHex.nibble(bytes[index]), let low = ByteaHex.nibble(bytes[index + 1]) else { return false }
                    out[offset] = high << 4 | low
                    index += 2
                }
                return true
            }
            return ok ? value : nil
        }
        guard let parsed else { return nil }
        self.init(uuid: parsed)
    }
}
