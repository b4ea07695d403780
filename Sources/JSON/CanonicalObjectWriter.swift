/// Writes a JSON object in canonical form (see ``JSONValue/canonicalData()``) straight from typed values, for a
/// writer whose member names are fixed: the names must come in canonical order, UTF-8 byte order, which is checked
/// in debug builds. The bytes equal those of the same object built as a ``JSONValue`` and made canonical.
public struct CanonicalObjectWriter {
    public private(set) var bytes: [UInt8]
    private var previousName: StaticString?

    public init(capacity: Int = 256) {
        bytes = []
        bytes.reserveCapacity(capacity)
        bytes.append(UInt8(ascii: "{"))
    }

    /// The finished object.
    public consuming func finish() -> [UInt8] {
        bytes.append(UInt8(ascii: "}"))
        return bytes
    }

    public mutating func string(_ name: StaticString, _ value: String) {
        self.name(name)
        JSONValue.writeString(value, into: &bytes)
    }

    /// Writes the member only when there is a value: an absent optional is left out, not written as null.
    public mutating func string(_ name: StaticString, ifPresent value: String?) {
        if let value { string(name, value) }
    }

    public mutating func number(_ name: StaticString, _ value: Double) {
        self.name(name)
        JSONValue.writeNumber(value, into: &bytes)
    }

    public mutating func bool(_ name: StaticString, _ value: Bool) {
        self.name(name)
        append(value ? "true" : "false")
    }

    public mutating func strings(_ name: StaticString, _ values: [String]) {
        self.name(name)
        bytes.append(UInt8(ascii: "["))
        for (index, value) in values.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            JSONValue.writeString(value, into: &bytes)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    /// A member whose value is an object, written by `members`.
    public mutating func object(_ name: StaticString, _ members: (inout CanonicalObjectWriter) -> Void) {
        self.name(name)
        nestedObject(members)
    }

    /// A member whose value is an array of `count` objects, the one at each index written by `members`. (Not generic
    /// over a collection, which another module would call unspecialised, at a cost per element.)
    public mutating func objects(_ name: StaticString, count: Int, _ members: (inout CanonicalObjectWriter, Int) -> Void) {
        self.name(name)
        bytes.append(UInt8(ascii: "["))
        for index in 0..<count {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            nestedObject { members(&$0, index) }
        }
        bytes.append(UInt8(ascii: "]"))
    }

    private mutating func nestedObject(_ members: (inout CanonicalObjectWriter) -> Void) {
        // The inner writer takes the buffer over and gives it back, so that it is never shared, and never copied.
        var inner = CanonicalObjectWriter(nestedIn: ())
        swap(&inner.bytes, &bytes)
        inner.bytes.append(UInt8(ascii: "{"))
        members(&inner)
        inner.bytes.append(UInt8(ascii: "}"))
        swap(&inner.bytes, &bytes)
    }

    /// A writer for a nested object, with no buffer of its own yet.
    private init(nestedIn: Void) {
        bytes = []
    }

    private mutating func name(_ name: StaticString) {
        if let previousName {
            assert(Self.precedes(previousName, name), "member \(name) must come before \(previousName)")
            bytes.append(UInt8(ascii: ","))
        }
        previousName = name
        bytes.append(UInt8(ascii: "\""))
        append(name)
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
    }

    private mutating func append(_ text: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    private static func precedes(_ first: StaticString, _ second: StaticString) -> Bool {
        UnsafeBufferPointer(start: first.utf8Start, count: first.utf8CodeUnitCount)
            .lexicographicallyPrecedes(UnsafeBufferPointer(start: second.utf8Start, count: second.utf8CodeUnitCount))
    }
}
