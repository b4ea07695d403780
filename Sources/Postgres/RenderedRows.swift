/// Binary COPY rows rendered ahead into one buffer, which never moves or grows once rendered: a field of fixed width
/// left for later is written in place (``set(_:at:)``), and the rows are sent from the buffer as they are
/// (``CopyWriter/send(_:in:rows:)``), not copied into the writer's first.
///
/// Sendable: its bytes are read and written through a pointer, never through a Swift variable; the caller sees that
/// no two threads touch the same bytes at once when one of them writes.
public final class RenderedRows: @unchecked Sendable {
    private let bytes: CopyBytes

    init(_ bytes: CopyBytes) {
        self.bytes = bytes
    }

    /// The bytes in `range`, read in place.
    public func withBytes<Result>(in range: Range<Int>, _ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        precondition(range.lowerBound >= 0 && range.upperBound <= bytes.count, "rows \(range) of \(bytes.count) bytes")
        return try body(UnsafeRawBufferPointer(start: bytes.baseAddress.map { $0 + range.lowerBound }, count: range.count))
    }

    /// Writes `fields`' bytes over as many at `offset`: fields of fixed width, rendered alike before with other values.
    public func set(_ fields: CopyRow, at offset: Int) {
        precondition(fields.format == .binary, "text COPY fields set into binary rows")
        fields.buffer.withUnsafeBufferPointer { source in
            precondition(offset >= 0 && offset + source.count <= bytes.count, "fields of \(source.count) bytes at \(offset) of \(bytes.count)")
            guard let from = source.baseAddress, let base = bytes.baseAddress else { return }
            (base + offset).update(from: from, count: source.count)
        }
    }
}
