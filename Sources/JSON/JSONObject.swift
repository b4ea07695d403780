import Foundation

/// The members of a JSON object, kept sorted by name in UTF-8 byte order (which is Unicode code point order).
///
/// The objects read here hold a dozen members or so: a sorted array finds one by binary search without hashing every name,
/// and is already in the order canonical JSON writes. Parsed JSON never names a member twice (the parser refuses it);
/// built in code, a name given twice keeps its last value.
public struct JSONObject: Sendable, Hashable {
    /// One member: its name, its value, and the name's ``head(_:)``, which a search compares, comparing names only
    /// where two heads are equal.
    public struct Member: Sendable, Hashable {
        public let key: String
        public fileprivate(set) var value: JSONValue
        let head: UInt64

        init(key: String, value: JSONValue, head: UInt64) {
            self.key = key
            self.value = value
            self.head = head
        }

        init(key: String, value: JSONValue) {
            self.init(key: key, value: value, head: JSONObject.head(key))
        }
    }

    /// The members in order of their names. One array, not one each for names, values and heads: a parsed document
    /// allocated, and freed, three arrays for every object it held.
    public private(set) var members: [Member] = []

    public init() {}

    /// The names, in order.
    public var keys: [String] { members.map(\.key) }
    /// The values, in the order of their names.
    public var values: [JSONValue] { members.map(\.value) }

    /// Members in any order; of a name given more than once, the last value is kept.
    public init<S: Sequence>(members: S) where S.Element == (String, JSONValue) {
        var duplicate: String?
        self.init(members: members.map { Member(key: $0.0, value: $0.1) }, duplicate: &duplicate)
    }

    /// Members in any order; of a name given more than once, the last value is kept, and `duplicate` is set to it
    /// (to the first such name). Members already in order, as canonical JSON has them, are kept as they are.
    init(members given: [Member], duplicate: inout String?) {
        if zip(given, given.dropFirst()).allSatisfy({ Self.precedes($0.key, $1.key) }) {
            members = given
            return
        }
        members.reserveCapacity(given.count)
        if given.count <= Self.insertionLimit {
            for member in given where !insert(member) { duplicate = duplicate ?? member.key }
            return
        }
        // Sort by name, then by position, so that the last of equal names comes last in its run.
        let order = given.indices.sorted { left, right in
            if Self.same(given[left].key, given[right].key) { return left < right }
            return Self.precedes(given[left].key, given[right].key)
        }
        for (rank, index) in order.enumerated() {
            if rank + 1 < order.count, Self.same(given[order[rank + 1]].key, given[index].key) {
                duplicate = duplicate ?? given[index].key
                continue
            }
            members.append(given[index])
        }
    }

    /// Members already in order by name, each name given once.
    init(sortedMembers members: [Member]) {
        self.members = members
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
    private mutating func insert(_ member: Member) -> Bool {
        var index = members.count
        while index > 0, Self.precedes(member.key, members[index - 1].key) { index -= 1 }
        if index > 0, Self.same(members[index - 1].key, member.key) {
            members[index - 1].value = member.value
            return false
        }
        members.insert(member, at: index)
        return true
    }

    public var count: Int { members.count }
    public var isEmpty: Bool { members.isEmpty }

    /// The value of a member; setting nil removes it.
    public subscript(key: String) -> JSONValue? {
        get {
            let (index, found) = position(of: key)
            return found ? members[index].value : nil
        }
        set {
            let (index, found) = position(of: key)
            switch (found, newValue) {
            case (true, let value?):
                members[index].value = value
            case (true, nil):
                members.remove(at: index)
            case (false, let value?):
                members.insert(Member(key: key, value: value), at: index)
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
        var high = members.count
        while low < high {
            let middle = (low + high) / 2
            let other = members[middle].head
            if other < head {
                low = middle + 1
            } else if other > head {
                high = middle
            } else if Self.same(members[middle].key, key) {
                return (middle, true)
            } else if Self.precedes(members[middle].key, key) {
                low = middle + 1
            } else {
                high = middle
            }
        }
        return (low, false)
    }

    /// Whether two names are the same by their code points, as JSON compares names (RFC 8259 §8.3): `String`'s own
    /// `==` takes canonically equivalent names (`é` and `e` with a combining acute) as one.
    static func same(_ left: String, _ right: String) -> Bool {
        left.utf8.elementsEqual(right.utf8)
    }

    /// UTF-8 byte order, by iterating the UTF-8 views, which on names this short is faster than `withUTF8` and
    /// `memcmp` (docs/performance.md); `String`'s own `<` is not code point order outside ASCII.
    package static func precedes(_ left: String, _ right: String) -> Bool {
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
            guard index < object.members.count else { return nil }
            defer { index += 1 }
            return (object.members[index].key, object.members[index].value)
        }
    }

    public func makeIterator() -> Iterator { Iterator(object: self) }
}

extension JSONObject: ExpressibleByDictionaryLiteral {
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.init(members: elements)
    }
}
