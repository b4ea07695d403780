import Foundation

/// A strict RFC 8259 parser straight from UTF-8 bytes to ``JSONValue``.
///
/// Going through `JSONSerialization` costs a bridge to `NSDictionary`/`NSNumber` and back for every value, which
/// dominated the cost of reading a document; this reads each byte once. Invalid UTF-8, lone surrogates,
/// numbers no `Double` can hold, the NUL character (which PostgreSQL text cannot store), nesting deeper than
/// ``maximumDepth`` and an object naming a member twice (I-JSON, RFC 7493) are errors, never crashes.
struct JSONParser {
    static let maximumDepth = 512
    /// Members an object is given room for before the first is read; more grow the arrays as usual.
    static let expectedMembers = 12

    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0
    var depth = 0
    /// Where the member names of the objects being read lie in the input, innermost object last: names without
    /// escapes are put in order by their bytes in place, without comparing strings.
    private var names: [NameSpan] = []

    /// A member name's bytes in the input, between its quotes, when they hold no escape (and so are its UTF-8).
    private struct NameSpan {
        var start: Int
        var count: Int
        /// Its first 8 bytes as a big-endian number, zeros after a shorter name (no name holds a NUL byte): most
        /// names are told apart, and ordered, by this alone.
        var head: UInt64
    }

    static func parse(_ data: Data) throws -> JSONValue {
        try data.withUnsafeBytes { raw in
            var parser = JSONParser(bytes: raw.bindMemory(to: UInt8.self))
            return try parser.parseDocument()
        }
    }

    /// The one value the input holds, with nothing but white space around it.
    private mutating func parseDocument() throws -> JSONValue {
        skipWhitespace()
        let value = try parseValue()
        try expectEnd()
        return value
    }

    mutating func expectEnd() throws {
        skipWhitespace()
        guard index == bytes.count else { throw expected("the end of the JSON value") }
    }

    init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    func error(_ reason: String) -> JSONValueError {
        .malformed("\(reason) at byte \(index)")
    }

    /// `expected ':' at byte 7, found '}'`.
    func expected(_ what: String) -> JSONValueError {
        guard case .malformed(let found) = unexpected() else { return error("expected \(what)") }
        return .malformed("expected \(what), found" + found.dropFirst("unexpected".count))
    }

    var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    mutating func parseValue() throws -> JSONValue {
        guard let byte = current else { throw error("unexpected end of input") }
        switch byte {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expect("true"); return .bool(true)
        case UInt8(ascii: "f"): try expect("false"); return .bool(false)
        case UInt8(ascii: "n"): try expect("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default: throw unexpected()
        }
    }

    /// Whether a number's text, as read, is already what canonical JSON writes for its value
    /// (``JSONValue/canonicalNumber(_:)``), so that it is written as it came, without formatting the value: an
    /// integer of at most 15 digits, other than -0; or a decimal fraction of at most 15 significant digits, with no
    /// exponent, no trailing zero, and no more than two zeros after the point before its first other digit. Such a
    /// decimal is the only one of at most 15 significant digits that reads to its `Double` (15 is the most that
    /// always survive the round trip through it), and none shorter does, so it is the shortest that reads back: the
    /// digits the value's description gives, which it writes without an exponent from 0.0001 up.
    static func isCanonical(number text: UnsafeBufferPointer<UInt8>) -> Bool {
        func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
        let count = text.count
        var index = text.first == UInt8(ascii: "-") ? 1 : 0
        let integerStart = index
        while index < count, isDigit(text[index]) { index += 1 }
        let integerDigits = index - integerStart
        guard integerDigits > 0 else { return false }
        if index == count {
            return integerDigits <= 15 && !(integerStart == 1 && text[integerStart] == UInt8(ascii: "0"))
        }
        guard text[index] == UInt8(ascii: ".") else { return false }
        index += 1
        let fractionStart = index
        while index < count, isDigit(text[index]) { index += 1 }
        guard index == count, count > fractionStart, text[count - 1] != UInt8(ascii: "0") else { return false }
        let fractionDigits = count - fractionStart
        guard integerDigits == 1, text[integerStart] == UInt8(ascii: "0") else { return integerDigits + fractionDigits <= 15 }
        var zeros = 0
        while text[fractionStart + zeros] == UInt8(ascii: "0") { zeros += 1 }
        return zeros <= 2 && fractionDigits - zeros <= 15
    }

    /// The byte at `index` where it does not belong, named: `unexpected '}' at byte 7`.
    func unexpected() -> JSONValueError {
        guard let byte = current else { return error("unexpected end of input") }
        if byte == 0xEF, index + 2 < bytes.count, bytes[index + 1] == 0xBB, bytes[index + 2] == 0xBF {
            return error("unexpected byte order mark (U+FEFF)")
        }
        if byte == 0 { return error("unexpected NUL byte") }
        return error("unexpected " + ((0x21..<0x7F).contains(byte) ? "'\(Character(Unicode.Scalar(byte)))'" : "byte 0x" + String(byte, radix: 16, uppercase: true)))
    }

    mutating func expect(_ word: StaticString) throws {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw error("unexpected end of input") }
        for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] {
            index += offset
            throw unexpected()
        }
        index += count
    }

    mutating func enter() throws {
        depth += 1
        guard depth <= Self.maximumDepth else { throw error("nesting deeper than \(Self.maximumDepth) levels") }
    }

    /// Past the white space after an object's member: true at the object's `}`, false at a `,` before the next member
    /// (either read); anything else is an error.
    @inline(__always)
    mutating func objectEnds() throws -> Bool {
        skipWhitespace()
        switch current {
        case UInt8(ascii: ","):
            index += 1
            return false
        case UInt8(ascii: "}"):
            index += 1
            return true
        default:
            throw expected("',' or '}'")
        }
    }

    /// Steps into the object at `{`, a level deeper (``enter()``), past the `{` and any white space. False when the
    /// object is empty: it is then read to its `}` and the level left again. True: the caller leaves the level
    /// (`depth -= 1`) once done with the object's members.
    @inline(__always)
    mutating func enterObject() throws -> Bool {
        try enter()
        index += 1
        skipWhitespace()
        guard current != UInt8(ascii: "}") else {
            index += 1
            depth -= 1
            return false
        }
        return true
    }

    private mutating func parseObject() throws -> JSONValue {
        guard try enterObject() else { return .object(JSONObject()) }
        defer { depth -= 1 }
        // Room for the members of a typical object up front: growing the array from empty showed in profiles.
        var members: [JSONObject.Member] = []
        members.reserveCapacity(Self.expectedMembers)
        // Room for the names of a typical document's nested objects at its first object: grown from empty, the array
        // was allocated again five times per document. (A document read into a record does not use it.)
        if names.capacity == 0 { names.reserveCapacity(4 * Self.expectedMembers) }
        let firstName = names.count
        defer { names.removeSubrange(firstName...) }
        var escaped = false
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\"") else { throw expected("a member name") }
            let nameStart = index + 1
            let (key, head) = try parseName()
            let nameCount = index - 1 - nameStart
            // An escape always takes more bytes than what it stands for.
            let plain = nameCount == key.utf8.count
            if !plain { escaped = true }
            names.append(NameSpan(start: nameStart, count: nameCount, head: head))
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { throw expected("':'") }
            index += 1
            skipWhitespace()
            do {
                // The head read is of the name's bytes in the input, which are its UTF-8 only without an escape.
                members.append(JSONObject.Member(key: key, value: try parseValue(), head: plain ? head : JSONObject.head(key)))
            } catch JSONValueError.duplicateKey(let path) {
                throw JSONValueError.duplicateKey(path: JSONValueError.path(key, path))
            }
            if try objectEnds() { return .object(try object(&members, namesFrom: firstName, escaped: escaped)) }
        }
    }

    /// A member name, and the ``JSONObject/head(_:)`` of its bytes in the input.
    private mutating func parseName() throws -> (name: String, head: UInt64) {
        let start = index + 1
        let name = try parseString()
        return (name, JSONObject.head(UnsafeBufferPointer(rebasing: bytes[start..<min(start + 8, index - 1)])))
    }

    /// The object of the members just read, whose names are `names[firstName...]`. Up to
    /// ``JSONObject/insertionLimit`` names without escapes are sorted in place by their bytes, which is their
    /// UTF-8; any other object is left to ``JSONObject`` to sort.
    /// - Throws: `JSONValueError.duplicateKey` naming the name ``JSONObject`` would name.
    private mutating func object(_ members: inout [JSONObject.Member], namesFrom firstName: Int, escaped: Bool) throws -> JSONObject {
        let count = members.count
        if count > JSONObject.insertionLimit || escaped {
            var duplicate: String?
            let object = JSONObject(members: members, duplicate: &duplicate)
            if let duplicate { throw JSONValueError.duplicateKey(path: duplicate) }
            return object
        }
        // Insertion sort, stable: members mostly come in order, and a name given twice keeps its runs in input order.
        // The swaps go through the arrays' buffers, where a member moves as plain bytes: Array.swapAt checks
        // uniqueness and bounds on every swap, which was a third of reading a document.
        var repeated = false
        let input = bytes
        members.withUnsafeMutableBufferPointer { members in
            names.withUnsafeMutableBufferPointer { names in
                for member in 1..<max(1, count) {
                    var place = member
                    while place > 0 {
                        let order = Self.compareNames(names[firstName + place - 1], names[firstName + place], in: input)
                        if order == 0 { repeated = true }
                        if order <= 0 { break }
                        names.swapAt(firstName + place - 1, firstName + place)
                        members.swapAt(place - 1, place)
                        place -= 1
                    }
                }
            }
        }
        if repeated {
            // As ``JSONObject`` inserting them in input order does: the first name in input order given before it.
            var first: (start: Int, key: String)?
            for member in 1..<count where compareNames(names[firstName + member - 1], names[firstName + member]) == 0 {
                let start = names[firstName + member].start
                if first.map({ start < $0.start }) ?? true { first = (start, members[member].key) }
            }
            if let first { throw JSONValueError.duplicateKey(path: first.key) }
        }
        return JSONObject(sortedMembers: members)
    }

    /// Compares two names without escapes by their bytes: negative when `left` comes first, 0 when equal.
    private func compareNames(_ left: NameSpan, _ right: NameSpan) -> Int {
        Self.compareNames(left, right, in: bytes)
    }

    private static func compareNames(_ left: NameSpan, _ right: NameSpan, in bytes: UnsafeBufferPointer<UInt8>) -> Int {
        if left.head != right.head { return left.head < right.head ? -1 : 1 }
        let common = min(left.count, right.count)
        var offset = 8
        while offset < common {
            let a = bytes[left.start + offset]
            let b = bytes[right.start + offset]
            if a != b { return a < b ? -1 : 1 }
            offset += 1
        }
        return left.count - right.count
    }

    private mutating func parseArray() throws -> JSONValue {
        try enter()
        defer { depth -= 1 }
        index += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if current == UInt8(ascii: "]") {
            index += 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            do {
                elements.append(try parseValue())
            } catch JSONValueError.duplicateKey(let path) {
                throw JSONValueError.duplicateKey(path: JSONValueError.path("[\(elements.count)]", path))
            }
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"): index += 1; return .array(elements)
            default: throw expected("',' or ']'")
            }
        }
    }

    /// Exact for up to 15 significant digits and exponents within ±22 (one correctly rounded operation on exact
    /// operands); anything else goes through `strtod`.
    mutating func parseNumber() throws -> Double {
        let start = index
        var negative = false
        if current == UInt8(ascii: "-") {
            negative = true
            index += 1
        }
        var mantissa: UInt64 = 0
        var digits = 0
        var scale = 0
        guard let first = current, first >= UInt8(ascii: "0"), first <= UInt8(ascii: "9") else { throw error("invalid number") }
        if first == UInt8(ascii: "0") {
            index += 1
        } else {
            while let byte = current, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
                if digits < 19 { mantissa = mantissa * 10 + UInt64(byte - UInt8(ascii: "0")) } else { scale += 1 }
                digits += 1
                index += 1
            }
        }
        if current == UInt8(ascii: ".") {
            index += 1
            var fractionDigits = 0
            while let byte = current, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
                if digits < 19 {
                    mantissa = mantissa * 10 + UInt64(byte - UInt8(ascii: "0"))
                    scale -= 1
                }
                if mantissa != 0 || byte != UInt8(ascii: "0") { digits += 1 }
                fractionDigits += 1
                index += 1
            }
            guard fractionDigits > 0 else { throw error("invalid number") }
        }
        var exponent = 0
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            index += 1
            var exponentNegative = false
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") {
                exponentNegative = current == UInt8(ascii: "-")
                index += 1
            }
            var exponentDigits = 0
            while let byte = current, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
                if exponent < 100_000 { exponent = exponent * 10 + Int(byte - UInt8(ascii: "0")) }
                exponentDigits += 1
                index += 1
            }
            guard exponentDigits > 0 else { throw error("invalid number") }
            if exponentNegative { exponent = -exponent }
        }
        let power = scale + exponent
        var value: Double
        if digits <= 15 && abs(power) <= 22 {
            value = Double(mantissa)
            value = power < 0 ? value / Self.powersOfTen[-power] : value * Self.powersOfTen[power]
        } else {
            // A number with a digit other than 0 that rounds to 0 is as far out of range as one that rounds to infinity.
            value = try slowNumber(from: start, isZero: digits == 0)
            return value
        }
        return negative ? -value : value
    }

    private static let powersOfTen: [Double] = (0...22).map { pow(10, Double($0)) }

    private func slowNumber(from start: Int, isZero: Bool) throws -> Double {
        var text = Array(bytes[start..<index])
        text.append(0)
        let value = text.withUnsafeBufferPointer { strtod(UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self), nil) }
        guard value.isFinite, value != 0 || isZero else { throw error("number out of range") }
        return value
    }
}
