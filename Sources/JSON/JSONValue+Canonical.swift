import Foundation

extension JSONValue {
    /// Deterministic bytes for hashing: object keys sorted by Unicode code point, no whitespace,
    /// integral numbers of magnitude below 2^53 written without a fraction, other numbers in the shortest
    /// form that reads back to the same `Double`, strings escaped per RFC 8259 with non-ASCII kept as UTF-8.
    ///
    /// Strings are written as held, without Unicode normalisation. Non-finite numbers, which JSON cannot
    /// express, are written as `null`.
    public func canonicalData() -> Data {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        writeCanonical(into: &out)
        return Data(out)
    }

    /// `canonicalData()` as a string.
    public func canonicalString() -> String {
        String(decoding: canonicalData(), as: UTF8.self)
    }

    fileprivate func writeCanonical(into out: inout [UInt8]) {
        switch self {
        case .null:
            out.append(contentsOf: "null".utf8)
        case .bool(let value):
            out.append(contentsOf: (value ? "true" : "false").utf8)
        case .number(let value):
            JSONValue.writeNumber(value, into: &out)
        case .string(let value):
            JSONValue.writeString(value, into: &out)
        case .array(let elements):
            out.append(UInt8(ascii: "["))
            for index in elements.indices {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                elements[index].writeCanonical(into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            members.writeCanonical(into: &out)
        }
    }

    /// 2^53: every integer below it is exactly representable, so writing it without a fraction is lossless.
    private static let exactIntegerLimit = 9_007_199_254_740_992.0

    /// Appends ``canonicalNumber(_:)`` of `value` to `out`; integers are written digit by digit, without a string.
    static func writeNumber(_ value: Double, into out: inout [UInt8]) {
        withCanonicalNumber(value) { out.append(contentsOf: $0) }
    }

    /// Gives `body` the UTF-8 of ``canonicalNumber(_:)`` of `value`; integers are written digit by digit, without a
    /// string.
    static func withCanonicalNumber(_ value: Double, _ body: (UnsafeBufferPointer<UInt8>) -> Void) {
        guard value.isFinite else {
            let null: StaticString = "null"
            return body(UnsafeBufferPointer(start: null.utf8Start, count: null.utf8CodeUnitCount))
        }
        let integral = value == value.rounded(.towardZero)
        if integral, abs(value) < exactIntegerLimit {
            return withDigits(of: Int64(value), body)  // -0.0 is written 0
        }
        // Swift's shortest text that reads back the same value, as `description` gives it; it may use an exponent
        // ("1e-07"). Written on the stack rather than into a string, which took memory of its own for most values.
        var text = ShortText()
        value.write(to: &text)
        text.withBytes { bytes in
            // Only an integral value is written with ".0" (from 2^53 up); the others need not be searched for it.
            let dotZero = integral && bytes.count > 2 && bytes[bytes.count - 2] == UInt8(ascii: ".") && bytes.last == UInt8(ascii: "0")
            body(dotZero ? UnsafeBufferPointer(rebasing: bytes.dropLast(2)) : bytes)
        }
    }

    /// The text of a number, written on the stack by `Double.write(to:)`: through `_writeASCII`, which `Double` calls
    /// with the bytes it formatted, or else through `write(_:)`.
    private struct ShortText: TextOutputStream {
        /// Longer than any number's text (at most 24 bytes, such as `-2.2250738585072014e-308`).
        private var storage: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        private var count = 0

        mutating func write(_ string: String) {
            var string = string
            string.withUTF8 { _writeASCII($0) }
        }

        mutating func _writeASCII(_ buffer: UnsafeBufferPointer<UInt8>) {
            precondition(count + buffer.count <= MemoryLayout.size(ofValue: storage), "a number's text longer than 32 bytes")
            withUnsafeMutableBytes(of: &storage) { storage in
                UnsafeMutableRawBufferPointer(rebasing: storage[count..<count + buffer.count]).copyMemory(from: UnsafeRawBufferPointer(buffer))
            }
            count += buffer.count
        }

        func withBytes(_ body: (UnsafeBufferPointer<UInt8>) -> Void) {
            withUnsafeBytes(of: storage) { body(UnsafeBufferPointer(rebasing: $0.bindMemory(to: UInt8.self)[..<count])) }
        }
    }

    /// Appends the decimal digits of `value` to `out`, as `String(value)` writes them, without making the string.
    public static func writeInteger(_ value: Int64, into out: inout [UInt8]) {
        withDigits(of: value) { out.append(contentsOf: $0) }
    }

    /// Gives `body` the decimal digits of `value`, as `String(value)` writes them, without making the string.
    static func withDigits(of value: Int64, _ body: (UnsafeBufferPointer<UInt8>) -> Void) {
        // Room for a sign and the 20 digits of any magnitude, on the stack.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 21) { buffer in
            var magnitude = value.magnitude
            var start = buffer.count
            repeat {
                start -= 1
                buffer[start] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            if value < 0 {
                start -= 1
                buffer[start] = UInt8(ascii: "-")
            }
            body(UnsafeBufferPointer(rebasing: buffer[start...]))
        }
    }

    /// The number's text in canonical JSON: an integer below 2^53 without a fraction (-0 as 0), any other value as
    /// Swift's shortest text that reads back the same, without a trailing `.0`; `null` for what JSON cannot hold.
    static func canonicalNumber(_ value: Double) -> String {
        var text = ""
        withCanonicalNumber(value) { text = String(decoding: $0, as: UTF8.self) }
        return text
    }

    /// `string` as a JSON string literal: quoted, escaped per RFC 8259 (`\"`, `\\`, `\b`, `\f`, `\n`, `\r`, `\t`, other
    /// control characters as `\u00XX`), everything else as its UTF-8, as canonical JSON writes every string.
    public static func quoted(_ string: String) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(string.utf8.count + 2)
        writeString(string, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Whether canonical JSON writes these UTF-8 bytes between quotes as they are: they hold no quote, backslash or
    /// control character.
    static func needsNoEscape(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        // Eight bytes at a time, as the parser finds the end of a string's plain run.
        JSONParser.plainRun(in: bytes, from: 0).end == bytes.count
    }

    /// Appends ``quoted(_:)`` of `string` to `out`.
    public static func writeString(_ string: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var string = string
        let plain = string.withUTF8 { bytes in
            guard needsNoEscape(bytes) else { return false }
            out.append(contentsOf: bytes)
            return true
        }
        if plain {
            out.append(UInt8(ascii: "\""))
            return
        }
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0x08: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "b")])
            case 0x0C: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "f")])
            case 0x0A: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0x00..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                out.append(contentsOf: Array("\\u00".utf8))
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0x0F)])
            default:
                out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}

extension JSONObject {
    /// Writes ``JSONValue/canonicalData()`` of this object.
    func writeCanonical(into out: inout [UInt8]) {
        out.append(UInt8(ascii: "{"))
        for (index, member) in members.enumerated() {  // already in UTF-8 order, which is code point order
            if index > 0 { out.append(UInt8(ascii: ",")) }
            JSONValue.writeString(member.key, into: &out)
            out.append(UInt8(ascii: ":"))
            member.value.writeCanonical(into: &out)
        }
        out.append(UInt8(ascii: "}"))
    }
}
