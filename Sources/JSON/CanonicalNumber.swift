/// A number as canonical JSON writes it (``JSONValue/canonicalNumber(_:)``), with its value: taken from a document where
/// the number came canonical (``JSONRecord/canonicalNumber(_:)``), it is written again for the same value without
/// formatting the value, which costs more than the rest of writing it. Its text is held inline.
public struct CanonicalNumber: Sendable {
    public let value: Double
    /// The text's bytes, first to last; the most a canonical number read as it came needs is 20 (a sign, `0.00` and
    /// 15 significant digits).
    private var text: (UInt64, UInt64, UInt64)
    private let count: UInt8

    /// - Parameter text: the value's canonical text; nil when it is longer than this keeps.
    init?(value: Double, text: UnsafeBufferPointer<UInt8>) {
        guard let base = text.baseAddress, text.count <= MemoryLayout<(UInt64, UInt64, UInt64)>.size else { return nil }
        self.value = value
        self.text = (0, 0, 0)
        count = UInt8(text.count)
        withUnsafeMutableBytes(of: &self.text) { $0.baseAddress!.copyMemory(from: base, byteCount: text.count) }
    }

    /// The canonical text.
    func withText<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        withUnsafeBytes(of: text) { body(UnsafeBufferPointer(start: $0.bindMemory(to: UInt8.self).baseAddress, count: Int(count))) }
    }
}
