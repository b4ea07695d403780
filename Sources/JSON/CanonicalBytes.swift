/// Room for the canonical bytes of one document at a time, kept from one document to the next: written by
/// ``JSONRecord/writeCanonical(of:changing:into:)`` or ``CanonicalObjectWriter/write(into:_:)``, each replacing what
/// the last wrote. A batch of events writes each event's data and metadata here and copies them into its row, rather
/// than allocate an array, and a buffer to write it, for every document.
public struct CanonicalBytes: ~Copyable {
    var buffer: ByteBuffer

    /// - Parameter capacity: bytes to make room for at once; a longer document grows it, for the next ones too.
    public init(capacity: Int = 1024) {
        buffer = ByteBuffer(capacity: capacity)
    }

    deinit {
        buffer.deallocate()
    }

    /// The bytes written last: valid until the next write.
    public var bytes: UnsafeBufferPointer<UInt8> { buffer.bytes }
}
