import Foundation

/// Reading into a ``JSONRecord``: the members its format names into their values, everything else checked and let go.
extension JSONParser {
    /// Reads the document into `record`: the top object's members, and those of the objects of the format they
    /// hold, into their values; everything else checked as JSON (as ``parseValue()`` does) and let go.
    mutating func readRecord(into record: JSONRecord) throws {
        skipWhitespace()
        if current == UInt8(ascii: "{") {
            try readRecordObject(0, into: record)
            record.documentKind = .object
        } else {
            record.documentKind = Self.kind(of: try parseValue())
        }
        try expectEnd()
    }

    private static func kind(of value: JSONValue) -> JSONRecord.Value.Kind {
        switch value {
        case .null: .null
        case .bool: .bool
        case .number: .number
        case .string: .string
        case .array: .array
        case .object: .object
        }
    }

    /// An object of kind `kind`; as ``parseValue()`` reads one, with the same errors in the same order: a member named
    /// twice is refused once the object is read, naming the first name given again.
    private mutating func readRecordObject(_ kind: Int, into record: JSONRecord) throws {
        let format = record.format
        let object = format.objects[kind]
        guard try enterObject() else { return }
        defer { depth -= 1 }
        var seen: UInt64 = 0
        var unknownSeen: [String] = []
        var repeated: String?
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\"") else { throw expected("a member name") }
            let (member, unknownName) = try recordMemberName(in: object, names: format.names)
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { throw expected("':'") }
            index += 1
            skipWhitespace()
            do {
                if let member {
                    // A known member's name is taken only for an error: taken for every member, it cost a reference
                    // counted and given back each time.
                    if seen & (1 << member) != 0 { repeated = repeated ?? format.memberNames[kind][member] }
                    seen |= 1 << member
                    record.values[object.first + member] = try readRecordValue(holding: object.children[member], into: record)
                } else {
                    // Names are the same by their code points, not by String's canonical equivalence.
                    if unknownSeen.contains(where: { $0.utf8.elementsEqual(unknownName.utf8) }) {
                        repeated = repeated ?? unknownName
                    } else {
                        unknownSeen.append(unknownName)
                    }
                    record.unknownMembers.append((kind, unknownName))
                    _ = try parseValue()
                }
            } catch JSONValueError.duplicateKey(let path) {
                throw JSONValueError.duplicateKey(path: JSONValueError.path(member.map { format.memberNames[kind][$0] } ?? unknownName, path))
            }
            if try objectEnds() {
                if let repeated { throw JSONValueError.duplicateKey(path: repeated) }
                return
            }
        }
    }

    /// A member name: its member in `object`, or, for a name the object does not have, the name.
    private mutating func recordMemberName(in object: JSONRecordFormat.Object, names: KnownNames) throws -> (Int?, String) {
        let start = index + 1
        let end = Self.plainRun(in: bytes, from: start).end
        if end < bytes.count, bytes[end] == UInt8(ascii: "\""),
           let member = object.member(named: UnsafeBufferPointer(rebasing: bytes[start..<end]), in: names) {
            index = end + 1
            return (member, "")
        }
        let name = try parseString()
        var utf8 = name
        let member = utf8.withUTF8 { object.member(named: $0, in: names) }
        return (member, member == nil ? name : "")
    }

    /// A member's value: an object of the format's kind `child` read as one, any other value as its kind, number and
    /// span. Strings are checked as ``parseString()`` checks them, without making a `String`.
    private mutating func readRecordValue(holding child: Int?, into record: JSONRecord) throws -> JSONRecord.Value {
        guard let byte = current else { throw error("unexpected end of input") }
        var value = JSONRecord.Value()
        value.start = index
        switch byte {
        case UInt8(ascii: "{"):
            if let child { try readRecordObject(child, into: record) } else { _ = try parseValue() }
            value.kind = .object
        case UInt8(ascii: "["):
            _ = try parseValue()
            value.kind = .array
        case UInt8(ascii: "\""):
            value.escaped = try checkString()
            value.kind = .string
        case UInt8(ascii: "t"):
            try expect("true")
            value.kind = .bool
            value.bool = true
        case UInt8(ascii: "f"):
            try expect("false")
            value.kind = .bool
        case UInt8(ascii: "n"):
            try expect("null")
            value.kind = .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            value.number = try parseNumber()
            value.kind = .number
        default:
            throw unexpected()
        }
        value.end = index
        return value
    }
}
