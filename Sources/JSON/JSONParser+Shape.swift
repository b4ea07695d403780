/// Reading with a ``JSONShape``: the values at its paths are built, everything else is checked and skipped.
extension JSONParser {
    /// The values at the shape's paths; everything else is checked and skipped.
    static func read(_ bytes: UnsafeBufferPointer<UInt8>, shape: JSONShape) throws -> [JSONValue?] {
        var parser = JSONParser(bytes: bytes)
        var values = [JSONValue?](repeating: nil, count: shape.paths.count)
        parser.skipWhitespace()
        if parser.current == UInt8(ascii: "{") {
            try parser.readObject(shape, level: 0, into: &values)
        } else {
            try parser.skipValue()
        }
        try parser.expectEnd()
        return values
    }

    /// Reads an object's members at one level of `shape`: a wanted value is built into its slot, a member that paths
    /// go on through is read the same way one level down, and every other member is checked and skipped.
    private mutating func readObject(_ shape: JSONShape, level levelIndex: Int, into values: inout [JSONValue?]) throws {
        let level = shape.levels[levelIndex]
        guard try enterObject() else { return }
        defer { depth -= 1 }
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\"") else { throw error("expected a member name") }
            let member = try memberName(at: level)
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { throw error("expected ':'") }
            index += 1
            skipWhitespace()
            if let member, let child = level.children[member], current == UInt8(ascii: "{") {
                if let slot = level.slots[member] { values[slot] = .object(JSONObject()) }
                try readObject(shape, level: child, into: &values)
            } else if let member, let slot = level.slots[member] {
                values[slot] = try parseValue()
            } else {
                try skipValue()
            }
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"): index += 1; return
            default: throw error("expected ',' or '}'")
            }
        }
    }

    /// Reads a member name and finds it at `level`. Names without escapes are compared as bytes, in place.
    private mutating func memberName(at level: JSONShape.Level) throws -> Int? {
        var end = index + 1
        while end < bytes.count, bytes[end] != UInt8(ascii: "\""), bytes[end] != UInt8(ascii: "\\"), bytes[end] >= 0x20, bytes[end] < 0x80 {
            end += 1
        }
        guard end < bytes.count, bytes[end] == UInt8(ascii: "\"") else {
            var name = try parseString()
            return name.withUTF8 { level.find($0) }
        }
        let member = level.find(UnsafeBufferPointer(rebasing: bytes[(index + 1)..<end]))
        index = end + 1
        return member
    }

    /// Passes over a value without building it, checking that it is well formed.
    private mutating func skipValue() throws {
        guard let byte = current else { throw error("unexpected end of input") }
        switch byte {
        case UInt8(ascii: "\""):
            try skipString()
        case UInt8(ascii: "t"): try expect("true")
        case UInt8(ascii: "f"): try expect("false")
        case UInt8(ascii: "n"): try expect("null")
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            try skipNumber()
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            try enter()
            defer { depth -= 1 }
            let isObject = byte == UInt8(ascii: "{")
            let close = isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")
            index += 1
            skipWhitespace()
            if current == close {
                index += 1
                return
            }
            while true {
                skipWhitespace()
                if isObject {
                    guard current == UInt8(ascii: "\"") else { throw error("expected a member name") }
                    try skipString()
                    skipWhitespace()
                    guard current == UInt8(ascii: ":") else { throw error("expected ':'") }
                    index += 1
                    skipWhitespace()
                }
                try skipValue()
                skipWhitespace()
                switch current {
                case UInt8(ascii: ","): index += 1
                case close: index += 1; return
                default: throw error(isObject ? "expected ',' or '}'" : "expected ',' or ']'")
                }
            }
        default:
            throw error("unexpected character")
        }
    }

    /// Checks the number grammar without converting: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    private mutating func skipNumber() throws {
        if current == UInt8(ascii: "-") { index += 1 }
        guard let first = current, first >= UInt8(ascii: "0"), first <= UInt8(ascii: "9") else { throw error("invalid number") }
        if first == UInt8(ascii: "0") { index += 1 } else { skipDigits() }
        if current == UInt8(ascii: ".") {
            index += 1
            guard skipDigits() > 0 else { throw error("invalid number") }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            index += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
            guard skipDigits() > 0 else { throw error("invalid number") }
        }
    }

    @discardableResult
    private mutating func skipDigits() -> Int {
        let start = index
        while let byte = current, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") { index += 1 }
        return index - start
    }

    /// A string without escapes or non-ASCII bytes is checked in place; any other goes through ``parseString()``.
    private mutating func skipString() throws {
        var end = index + 1
        while end < bytes.count {
            let byte = bytes[end]
            if byte == UInt8(ascii: "\"") {
                index = end + 1
                return
            }
            if byte == UInt8(ascii: "\\") || byte >= 0x80 { break }
            guard byte >= 0x20 else {
                index = end
                throw error("control character in a string")
            }
            end += 1
        }
        _ = try parseString()
    }
}
