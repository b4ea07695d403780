import Foundation

/// Writes a JSON object in canonical form (see ``JSONValue/canonicalData()``) straight from typed values, for a
/// writer whose member names are fixed: the names must come in canonical order, UTF-8 byte order, which is checked
/// in debug builds. The bytes equal those of the same object built as a ``JSONValue`` and made canonical.
///
/// The bytes go through a pointer into a ``ByteBuffer``: one this writer owns, copied out once by ``finish()``, or the
/// caller's ``CanonicalBytes``, kept from one object to the next (``write(into:_:)``). Appended to an `Array` a name,
/// a quote, a colon at a time, each append checked the array's uniqueness and capacity again, which cost more than
/// the bytes. So the writer cannot be copied.
public struct CanonicalObjectWriter: ~Copyable {
    private var buffer: ByteBuffer
    /// False for a nested object's writer, which writes into its parent's buffer and gives it back.
    private let ownsBuffer: Bool
    private var previousName: StaticString?

    public init(capacity: Int = 256) {
        buffer = ByteBuffer(capacity: capacity)
        ownsBuffer = true
        buffer.append(UInt8(ascii: "{"))
    }

    /// A writer for an object's members, writing on into `buffer`, which its caller takes back.
    private init(nestedIn buffer: ByteBuffer) {
        self.buffer = buffer
        ownsBuffer = false
    }

    deinit {
        if ownsBuffer { buffer.deallocate() }
    }

    /// The bytes written so far.
    public var bytes: [UInt8] { Array(buffer.bytes) }

    /// The finished object.
    public consuming func finish() -> [UInt8] {
        finish { Array($0) }
    }

    /// The finished object's bytes, read in place: for a caller that copies them on, without an array between.
    public consuming func finish<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        buffer.append(UInt8(ascii: "}"))
        return try body(UnsafeRawBufferPointer(buffer.bytes))
    }

    public mutating func string(_ name: StaticString, _ value: String) {
        self.name(name)
        write(value)
    }

    /// Writes the member only when there is a value: an absent optional is left out, not written as null.
    public mutating func string(_ name: StaticString, ifPresent value: String?) {
        if let value { string(name, value) }
    }

    /// A string member whose value is given as its UTF-8 bytes, for a caller that has them without a `String`.
    public mutating func string(_ name: StaticString, utf8 value: UnsafeBufferPointer<UInt8>) {
        self.name(name)
        write(utf8: value) { String(decoding: value, as: UTF8.self) }
    }

    /// - Parameter given: the value's text, when a document had it canonical; used when its value is `value`.
    public mutating func number(_ name: StaticString, _ value: Double, given: CanonicalNumber? = nil) {
        self.name(name)
        // Equal values have one canonical text (0 and -0 both "0"), whatever their bits.
        if let given, given.value == value {
            given.withText { buffer.append($0) }
        } else {
            JSONValue.withCanonicalNumber(value) { buffer.append($0) }
        }
    }

    public mutating func bool(_ name: StaticString, _ value: Bool) {
        self.name(name)
        buffer.append(value ? "true" : "false")
    }

    public mutating func strings(_ name: StaticString, _ values: [String]) {
        self.name(name)
        buffer.append(UInt8(ascii: "["))
        for (index, value) in values.enumerated() {
            if index > 0 { buffer.append(UInt8(ascii: ",")) }
            write(value)
        }
        buffer.append(UInt8(ascii: "]"))
    }

    /// A member whose value is an object, written by `members`.
    public mutating func object(_ name: StaticString, _ members: (inout CanonicalObjectWriter) -> Void) {
        self.name(name)
        Self.writeObject(into: &buffer, members)
    }

    /// A member whose value is an array of `count` objects, the one at each index written by `members`. (Not generic
    /// over a collection, which another module would call unspecialised, at a cost per element.)
    public mutating func objects(_ name: StaticString, count: Int, _ members: (inout CanonicalObjectWriter, Int) -> Void) {
        self.name(name)
        buffer.append(UInt8(ascii: "["))
        for index in 0..<count {
            if index > 0 { buffer.append(UInt8(ascii: ",")) }
            Self.writeObject(into: &buffer) { members(&$0, index) }
        }
        buffer.append(UInt8(ascii: "]"))
    }

    /// Writes an object into `bytes`, replacing what they held, its members written by `members`.
    public static func write(into bytes: inout CanonicalBytes, _ members: (inout CanonicalObjectWriter) -> Void) {
        bytes.buffer.truncate(to: 0)
        writeObject(into: &bytes.buffer, members)
    }

    /// Appends an object to `buffer`, its members written by `members`.
    private static func writeObject(into buffer: inout ByteBuffer, _ members: (inout CanonicalObjectWriter) -> Void) {
        buffer.append(UInt8(ascii: "{"))
        var inner = CanonicalObjectWriter(nestedIn: buffer)
        members(&inner)
        // Taken back as the inner writer left it: growing, it may have moved.
        buffer = inner.buffer
        buffer.append(UInt8(ascii: "}"))
    }

    private mutating func name(_ name: StaticString) {
        if let previousName {
            assert(Self.precedes(previousName, name), "member \(name) must come before \(previousName)")
        }
        buffer.appendMemberName(name, first: previousName == nil)
        previousName = name
    }

    /// ``JSONValue/quoted(_:)`` of `value`.
    private mutating func write(_ value: String) {
        // In place when the string is contiguous, as a native one is: through a copy, each value counted a
        // reference to it and gave it back.
        let written = value.utf8.withContiguousStorageIfAvailable { bytes in
            write(utf8: bytes) { value }
            return true
        }
        if written != true { writeEscaped(value) }
    }

    /// `bytes` quoted as they are when they need no escape; else `string()`, escaped.
    private mutating func write(utf8 bytes: UnsafeBufferPointer<UInt8>, else string: () -> String) {
        guard JSONValue.needsNoEscape(bytes) else { return writeEscaped(string()) }
        buffer.append(UInt8(ascii: "\""))
        buffer.append(bytes)
        buffer.append(UInt8(ascii: "\""))
    }

    private mutating func writeEscaped(_ value: String) {
        var escaped: [UInt8] = []
        JSONValue.writeString(value, into: &escaped)
        buffer.append(escaped)
    }

    private static func precedes(_ first: StaticString, _ second: StaticString) -> Bool {
        UnsafeBufferPointer(start: first.utf8Start, count: first.utf8CodeUnitCount)
            .lexicographicallyPrecedes(UnsafeBufferPointer(start: second.utf8Start, count: second.utf8CodeUnitCount))
    }
}
