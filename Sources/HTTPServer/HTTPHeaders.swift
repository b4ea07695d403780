/// Header fields in the order they were sent or added. Names compare without regard to ASCII case;
/// a name may occur more than once.
public struct HTTPHeaders: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral {
    public typealias Field = (name: String, value: String)

    private var fields: [Field]

    public init() {
        fields = []
    }

    public init(_ fields: [Field]) {
        self.fields = fields
    }

    public init(dictionaryLiteral elements: (String, String)...) {
        fields = elements.map { (name: $0.0, value: $0.1) }
    }

    /// The first value under `name`.
    public subscript(name: String) -> String? {
        fields.first { $0.name.equalsIgnoringASCIICase(name) }?.value
    }

    /// Every value under `name`, in order.
    public func values(for name: String) -> [String] {
        fields.filter { $0.name.equalsIgnoringASCIICase(name) }.map(\.value)
    }

    /// Every value under `name` joined by `, `, as RFC 9110 reads a field sent more than once (`Content-Encoding:
    /// gzip` and `Content-Encoding: br` are `gzip, br`); nil when there is none.
    public func combined(_ name: String) -> String? {
        let values = values(for: name)
        return values.isEmpty ? nil : values.joined(separator: ", ")
    }

    public func contains(_ name: String) -> Bool {
        fields.contains { $0.name.equalsIgnoringASCIICase(name) }
    }

    public mutating func add(_ name: String, _ value: String) {
        fields.append((name: name, value: value))
    }

    /// Sets `name` to the one value `value`, in place of any it had.
    public mutating func set(_ name: String, _ value: String) {
        remove(name)
        add(name, value)
    }

    public mutating func remove(_ name: String) {
        fields.removeAll { $0.name.equalsIgnoringASCIICase(name) }
    }

    public var count: Int { fields.count }

    public func makeIterator() -> IndexingIterator<[Field]> {
        fields.makeIterator()
    }

    public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        lhs.fields.count == rhs.fields.count
            && zip(lhs.fields, rhs.fields).allSatisfy { $0.name.equalsIgnoringASCIICase($1.name) && $0.value == $1.value }
    }
}

extension String {
    func equalsIgnoringASCIICase(_ other: String) -> Bool {
        let a = utf8, b = other.utf8
        guard a.count == b.count else { return false }
        return zip(a, b).allSatisfy { $0.asciiLowercased == $1.asciiLowercased }
    }
}

extension UInt8 {
    var asciiLowercased: UInt8 { (0x41...0x5A).contains(self) ? self | 0x20 : self }
}
