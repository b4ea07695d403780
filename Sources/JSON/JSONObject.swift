import Foundation

/// The members of a JSON object, kept sorted by name in UTF-8 byte order (which is Unicode code point order).
///
/// The objects read here hold a dozen members or so: a sorted array finds one by binary search without hashing every name,
/// and is already in the order canonical JSON writes. Parsed JSON never names a member twice (the parser refuses it);
/// built in code, a name given twice keeps its last value.
public struct JSONObject: Sendable, Hashable {
    public private(set) var keys: [String] = []
    public private(set) var values: [JSONValue] = []
    /// Per name, its ``head(_:)``: a search compares these numbers, and compares names only where two are equal.
    private var heads: [UInt64] = []

    public init() {}

    /// Members in any order; of a name given more than once, the last value is kept.
    public init<S: Sequence>(members: S) where S.Element == (String, JSONValue) {
        let given = Array(members)
        self.init(keys: given.map(\.0), values: given.map(\.1))
    }

    /// Names in any order, each with the value at the same index; of a name given more than once, the last value
    /// is kept. Names already in order, as canonical JSON has them, are kept as they are.
    init(keys: [String], values: [JSONValue]) {
        var duplicate: String?
        self.init(keys: keys, values: values, duplicate: &duplicate)
    }

    /// As ``init(keys:values:)``; `duplicate` is set to a name given more than once, if any.
    init(keys: [String], values: [JSONValue], duplicate: inout String?) {
        if zip(keys, keys.dropFirst()).allSatisfy({ Self.precedes($0, $1) }) {
            self.keys = keys
            self.values = values
            heads = keys.map(Self.head)
            return
        }
        self.keys.reserveCapacity(keys.count)
        self.values.reserveCapacity(keys.count)
        self.heads.reserveCapacity(keys.count)
        if keys.count <= Self.insertionLimit {
            for (key, value) in zip(keys, values) where !insert(key, value) { duplicate = duplicate ?? key }
            return
        }
        // Sort by name, then by position, so that the last of equal names comes last in its run.
        let order = keys.indices.sorted { left, right in
            if keys[left] == keys[right] { return left < right }
            return Self.precedes(keys[left], keys[right])
        }
        for (rank, index) in order.enumerated() {
            if rank + 1 < order.count, keys[order[rank + 1]] == keys[index] {
                duplicate = duplicate ?? keys[index]
                continue
            }
            self.keys.append(keys[index])
            self.values.append(values[index])
            self.heads.append(Self.head(keys[index]))
        }
    }

    /// Names already in order, each given once, with the value at the same index.
    init(sortedKeys keys: [String], values: [JSONValue]) {
        self.init(sortedKeys: keys, values: values, heads: keys.map(Self.head))
    }

    /// As ``init(sortedKeys:values:)``, with the ``head(_:)`` of each name, already known.
    init(sortedKeys keys: [String], values: [JSONValue], heads: [UInt64]) {
        self.keys = keys
        self.values = values
        self.heads = heads
    }

    /// A name's first 8 UTF-8 bytes as a big-endian number, zeros after a shorter name. Names whose heads differ are
    /// in the order of their heads (a shorter name's zeros come before any other byte, as the name comes before
    /// any longer one it begins); only names with equal heads need comparing byte by byte.
    static func head(_ name: String) -> UInt64 {
        // Read through the UTF-8 view's storage: iterating the view took twice the instructions for these few bytes,
        // and `withUTF8` on a copy of the string a third more.
        if let head = name.utf8.withContiguousStorageIfAvailable(head) { return head }
        var name = name
        return name.withUTF8(head)
    }

    /// The ``head(_:)`` of the name whose UTF-8 is `bytes`.
    static func head(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        let count = Swift.min(bytes.count, 8)
        guard count > 0, let base = bytes.baseAddress else { return 0 }
        // Eight bytes or more: the first eight read as one number, rather than shifted in one by one.
        if count == 8 { return UnsafeRawPointer(base).loadUnaligned(as: UInt64.self).bigEndian }
        var head: UInt64 = 0
        for index in 0..<count { head = head << 8 | UInt64(base[index]) }
        return head << (8 * (8 - count))
    }

    /// Up to this many members, sorting by insertion beats a general sort (and members mostly come in order).
    static let insertionLimit = 32

    /// Inserts in order, searching from the end; a name already present takes the new value.
    /// - Returns: false when the name was already present.
    private mutating func insert(_ key: String, _ value: JSONValue) -> Bool {
        var index = keys.count
        while index > 0, Self.precedes(key, keys[index - 1]) { index -= 1 }
        if index > 0, keys[index - 1] == key {
            values[index - 1] = value
            return false
        }
        keys.insert(key, at: index)
        values.insert(value, at: index)
        heads.insert(Self.head(key), at: index)
        return true
    }

    public var count: Int { keys.count }
    public var isEmpty: Bool { keys.isEmpty }

    /// The value of a member; setting nil removes it.
    public subscript(key: String) -> JSONValue? {
        get {
            let (index, found) = position(of: key)
            return found ? values[index] : nil
        }
        set {
            let (index, found) = position(of: key)
            switch (found, newValue) {
            case (true, let value?):
                values[index] = value
            case (true, nil):
                keys.remove(at: index)
                values.remove(at: index)
                heads.remove(at: index)
            case (false, let value?):
                keys.insert(key, at: index)
                values.insert(value, at: index)
                heads.insert(Self.head(key), at: index)
            case (false, nil):
                break
            }
        }
    }

    /// Removes a member; returns its value, or nil when there was none.
    @discardableResult
    public mutating func removeValue(forKey key: String) -> JSONValue? {
        let value = self[key]
        self[key] = nil
        return value
    }

    /// Where `key` is, or where it would go to keep the names sorted. The heads decide, where they differ, without
    /// comparing strings: comparing the names at every step was most of the cost of reading a member.
    private func position(of key: String) -> (index: Int, found: Bool) {
        let head = Self.head(key)
        var low = 0
        var high = keys.count
        while low < high {
            let middle = (low + high) / 2
            let other = heads[middle]
            if other < head {
                low = middle + 1
            } else if other > head {
                high = middle
            } else if keys[middle] == key {
                return (middle, true)
            } else if Self.precedes(keys[middle], key) {
                low = middle + 1
            } else {
                high = middle
            }
        }
        return (low, false)
    }

    /// UTF-8 byte order. (Iterating the UTF-8 views measured four times faster than `withUTF8` and `memcmp` on
    /// names this short; `String`'s own `<` is not code point order outside ASCII.)
    public static func precedes(_ left: String, _ right: String) -> Bool {
        var a = left.utf8.makeIterator()
        var b = right.utf8.makeIterator()
        while true {
            guard let x = a.next() else { return b.next() != nil }
            guard let y = b.next() else { return false }
            if x != y { return x < y }
        }
    }
}

extension JSONObject: Sequence {
    public typealias Element = (key: String, value: JSONValue)

    public struct Iterator: IteratorProtocol {
        fileprivate let object: JSONObject
        fileprivate var index = 0

        public mutating func next() -> Element? {
            guard index < object.keys.count else { return nil }
            defer { index += 1 }
            return (object.keys[index], object.values[index])
        }
    }

    public func makeIterator() -> Iterator { Iterator(object: self) }
}

extension JSONObject: ExpressibleByDictionaryLiteral {
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.init(members: elements)
    }
}
