import Foundation

/// The bytes of COPY rows: a growable buffer written through a pointer, copied on write like an array.
///
/// An `Array`'s append checks uniqueness and capacity again for every byte or slice; a binary row is mostly 4-byte
/// lengths and 8-byte values, and those checks cost more than the bytes. Here an append checks once and writes the
/// whole field.
struct CopyBytes: @unchecked Sendable, Equatable {
    // Sendable: the bytes in a storage are written only while this value holds the only reference to it
    // (``makeRoom(for:)``); a storage's place and size never change.
    private final class Storage {
        let base: UnsafeMutablePointer<UInt8>
        let capacity: Int

        init(capacity: Int) {
            self.capacity = capacity
            base = .allocate(capacity: capacity)
        }

        deinit { base.deallocate() }
    }

    private var storage: Storage?
    private(set) var count = 0

    init() {}

    var isEmpty: Bool { count == 0 }

    /// Room for `extra` more bytes than there are, without growing again.
    mutating func reserve(more extra: Int) {
        _ = makeRoom(for: extra)
    }

    /// Where the next `extra` bytes go: the storage made unique and large enough.
    @inline(__always)
    private mutating func makeRoom(for extra: Int) -> UnsafeMutablePointer<UInt8> {
        // Uniqueness asked before the storage is bound to a name, which would count a second reference.
        if isKnownUniquelyReferenced(&storage), let storage, count + extra <= storage.capacity {
            return storage.base + count
        }
        return grow(toHold: extra)
    }

    /// A new storage, unique and large enough for `extra` more bytes, with the bytes so far: twice as large as a full
    /// one, so that appends take amortised constant time; as large as needed for one shared with a copy.
    @inline(never)
    private mutating func grow(toHold extra: Int) -> UnsafeMutablePointer<UInt8> {
        let unique = isKnownUniquelyReferenced(&storage)
        let capacity = Swift.max(count + extra, unique ? (storage?.capacity ?? 0) * 2 : 0, 64)
        let grown = Storage(capacity: capacity)
        if let storage, count > 0 { grown.base.update(from: storage.base, count: count) }
        storage = grown
        return grown.base + count
    }

    mutating func append(_ byte: UInt8) {
        makeRoom(for: 1).pointee = byte
        count += 1
    }

    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        makeRoom(for: bytes.count).update(from: source, count: bytes.count)
        count += bytes.count
    }

    mutating func append(_ other: CopyBytes) {
        other.withUnsafeBufferPointer { append($0) }
    }

    /// A binary field of 8 bytes: its length, then `value`'s big-endian bytes.
    mutating func appendField(bigEndian value: UInt64) {
        let target = UnsafeMutableRawPointer(makeRoom(for: 12))
        target.storeBytes(of: Int32(8).bigEndian, as: Int32.self)
        (target + 4).storeBytes(of: value.bigEndian, as: UInt64.self)
        count += 12
    }

    /// A binary field of one byte: its length, then the byte.
    mutating func appendField(_ byte: UInt8) {
        let target = makeRoom(for: 5)
        UnsafeMutableRawPointer(target).storeBytes(of: Int32(1).bigEndian, as: Int32.self)
        target[4] = byte
        count += 5
    }

    /// A binary field: its length, then `bytes`.
    mutating func appendField(_ bytes: UnsafeBufferPointer<UInt8>) {
        let target = makeRoom(for: 4 + bytes.count)
        UnsafeMutableRawPointer(target).storeBytes(of: Int32(bytes.count).bigEndian, as: Int32.self)
        if let source = bytes.baseAddress { (target + 4).update(from: source, count: bytes.count) }
        count += 4 + bytes.count
    }

    /// A number's big-endian bytes.
    mutating func append<Number: FixedWidthInteger>(bigEndian value: Number) {
        let width = MemoryLayout<Number>.size
        UnsafeMutableRawPointer(makeRoom(for: width)).storeBytes(of: value.bigEndian, as: Number.self)
        count += width
    }

    /// Sets the byte at `index`, which must be written already.
    mutating func set(_ byte: UInt8, at index: Int) {
        precondition(index >= 0 && index < count)
        makeRoom(for: 0)[index - count] = byte
    }

    /// Forgets the bytes from `newCount` on.
    mutating func truncate(to newCount: Int) {
        precondition(newCount >= 0 && newCount <= count)
        count = newCount
    }

    /// Forgets every byte, keeping the room they took for the bytes written next (unless a copy shares it).
    mutating func removeAll() {
        count = 0
    }

    /// Where the bytes start; nil while there are none. Valid while this value or a copy of it holds its storage.
    var baseAddress: UnsafeMutablePointer<UInt8>? { storage?.base }

    func withUnsafeBufferPointer<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try body(UnsafeBufferPointer(start: storage?.base, count: count))
    }

    static func == (a: CopyBytes, b: CopyBytes) -> Bool {
        a.count == b.count
            && a.withUnsafeBufferPointer { a in
                b.withUnsafeBufferPointer { b in a.isEmpty || memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0 }
            }
    }
}
