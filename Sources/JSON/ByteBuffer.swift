/// Bytes appended through a pointer, to memory this buffer owns until ``deallocate()``, grown by doubling. The
/// canonical bytes of a document are written a few at a time, a name, a colon, a string as it came: appending each
/// to an `Array` went through its uniqueness and capacity checks and its generic sequence path every time, which
/// cost more than the bytes.
struct ByteBuffer {
    private(set) var base: UnsafeMutablePointer<UInt8>
    private(set) var count = 0
    private var capacity: Int

    init(capacity: Int) {
        self.capacity = Swift.max(capacity, 64)
        base = .allocate(capacity: self.capacity)
    }

    /// Frees the memory: the buffer must not be used after.
    func deallocate() {
        base.deallocate()
    }

    var bytes: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: base, count: count) }

    subscript(range: Range<Int>) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: base + range.lowerBound, count: range.count)
    }

    mutating func append(_ byte: UInt8) {
        if count == capacity { grow(toHold: 1) }
        base[count] = byte
        count += 1
    }

    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress, bytes.count > 0 else { return }
        if count + bytes.count > capacity { grow(toHold: bytes.count) }
        (base + count).update(from: source, count: bytes.count)
        count += bytes.count
    }

    mutating func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { append($0) }
    }

    mutating func append(_ word: StaticString) {
        let more = word.utf8CodeUnitCount
        if count + more > capacity { grow(toHold: more) }
        Self.copy(word, to: base + count)
        count += more
    }

    /// A member's name as canonical JSON writes it, `"name":`, after a comma unless it is its object's first: room
    /// made once for all of it. The name must need no escape.
    mutating func appendMemberName(_ name: StaticString, first: Bool) {
        let length = name.utf8CodeUnitCount
        let more = length + (first ? 3 : 4)
        if count + more > capacity { grow(toHold: more) }
        var target = base + count
        if !first {
            target.pointee = UInt8(ascii: ",")
            target += 1
        }
        target.pointee = UInt8(ascii: "\"")
        Self.copy(name, to: target + 1)
        target[1 + length] = UInt8(ascii: "\"")
        target[2 + length] = UInt8(ascii: ":")
        count += more
    }

    /// Copies `word`'s bytes to `target`, which has room for them. A word of a few bytes (`{`, `":`, `false`) is copied
    /// byte by byte: a call to copy memory cost more than that. A longer one, such as a member name
    /// (`accuracyAuthorization`), is copied whole: byte by byte it cost more.
    @inline(__always)
    private static func copy(_ word: StaticString, to target: UnsafeMutablePointer<UInt8>) {
        let length = word.utf8CodeUnitCount
        let source = word.utf8Start
        if length > 8 {
            target.update(from: source, count: length)
        } else {
            for offset in 0..<length { target[offset] = source[offset] }
        }
    }

    /// Appends a copy of the bytes at `range`.
    mutating func appendCopy(of range: Range<Int>) {
        precondition(range.lowerBound >= 0 && range.upperBound <= count)
        if count + range.count > capacity { grow(toHold: range.count) }
        (base + count).update(from: base + range.lowerBound, count: range.count)
        count += range.count
    }

    /// Copies the bytes at `range` over those from `offset` on; the two must not overlap.
    mutating func copy(_ range: Range<Int>, to offset: Int) {
        precondition(range.lowerBound >= 0 && range.upperBound <= count && offset >= 0 && offset + range.count <= count)
        precondition(offset + range.count <= range.lowerBound || range.upperBound <= offset, "overlapping copy")
        (base + offset).update(from: base + range.lowerBound, count: range.count)
    }

    subscript(offset: Int) -> UInt8 {
        get {
            precondition(offset >= 0 && offset < count)
            return base[offset]
        }
        set {
            precondition(offset >= 0 && offset < count)
            base[offset] = newValue
        }
    }

    /// Keeps the first `count` bytes.
    mutating func truncate(to count: Int) {
        precondition(count <= self.count)
        self.count = count
    }

    private mutating func grow(toHold more: Int) {
        let grown = Swift.max(capacity * 2, count + more)
        let moved = UnsafeMutablePointer<UInt8>.allocate(capacity: grown)
        moved.update(from: base, count: count)
        base.deallocate()
        base = moved
        capacity = grown
    }
}
