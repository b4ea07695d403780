import Foundation

/// Reading strings: into a `String` (``parseString()``), or checked in place without making one (``checkString()``,
/// for a record's values), each as the other checks it.
extension JSONParser {
    mutating func parseString() throws -> String {
        index += 1
        let start = index
        // Fast path: no escapes.
        let (end, ascii) = Self.plainRun(in: bytes, from: start)
        index = end
        if let byte = current, byte != UInt8(ascii: "\\") {
            guard byte == UInt8(ascii: "\"") else { throw error("control character in a string") }
            let run = UnsafeBufferPointer(rebasing: bytes[start..<index])
            // ASCII needs no validation.
            let text = ascii ? String(decoding: run, as: UTF8.self) : try decodeUTF8(run)
            index += 1
            return text
        }
        var scratch = Array(bytes[start..<index])
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return try scratch.withUnsafeBufferPointer { try decodeUTF8($0) }
            case UInt8(ascii: "\\"):
                index += 1
                try appendEscape(to: &scratch)
            case 0..<0x20:
                throw error("control character in a string")
            default:
                scratch.append(byte)
                index += 1
            }
        }
        throw error("unterminated string")
    }

    /// Where the run of bytes from `start` on ends that a string holds as they are: at the first quote, backslash or
    /// control character (below 0x20), or at the end of `bytes`; and whether the run is all ASCII.
    ///
    /// Eight bytes at a time, as one number: a byte of it is 0 where the byte equals the one it is compared with (their
    /// exclusive or), and `(x - 0x0101…) & ~x & 0x8080…` marks each byte of `x` that is 0, and `(x - 0x2020…) & ~x &
    /// 0x8080…` each below 0x20. A mark can be wrong only above (after) a right one, from the borrow of a subtraction:
    /// the lowest mark is always right. Byte by byte, the same took most of the time of reading a string.
    static func plainRun(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> (end: Int, ascii: Bool) {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        var index = start
        var allBits: UInt64 = 0
        if let base = bytes.baseAddress {
            while index + 8 <= bytes.count {
                let word = UInt64(littleEndian: UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self))
                let quote = word ^ (ones &* UInt64(UInt8(ascii: "\"")))
                let backslash = word ^ (ones &* UInt64(UInt8(ascii: "\\")))
                let marks = ((quote &- ones) & ~quote | (backslash &- ones) & ~backslash | (word &- ones &* 0x20) & ~word) & highs
                if marks != 0 {
                    // The bytes before the first mark, the lowest in the number, belong to the run.
                    let before = marks.trailingZeroBitCount / 8
                    if before > 0 { allBits |= word & (UInt64.max >> (64 - 8 * before)) }
                    return (index + before, allBits & highs == 0)
                }
                allBits |= word
                index += 8
            }
        }
        var tail: UInt8 = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 { break }
            tail |= byte
            index += 1
        }
        return (index, allBits & highs == 0 && tail < 0x80)
    }

    /// The string whose UTF-8 is `buffer`. `String(decoding:)` replaces what is not UTF-8 with U+FFFD, so the bytes are
    /// UTF-8 exactly when the string's are the same bytes. (`String(validating:)` took four times the instructions,
    /// most of them looking up its generic types at run time.)
    private func decodeUTF8(_ buffer: UnsafeBufferPointer<UInt8>) throws -> String {
        var text = String(decoding: buffer, as: UTF8.self)
        let same = text.withUTF8 { decoded in
            decoded.count == buffer.count && (buffer.isEmpty || memcmp(decoded.baseAddress!, buffer.baseAddress!, buffer.count) == 0)
        }
        guard same else { throw error("invalid UTF-8 in a string") }
        return text
    }

    private mutating func appendEscape(to scratch: inout [UInt8]) throws {
        guard let byte = current else { throw error("unterminated string") }
        index += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scratch.append(byte)
        case UInt8(ascii: "b"): scratch.append(0x08)
        case UInt8(ascii: "f"): scratch.append(0x0C)
        case UInt8(ascii: "n"): scratch.append(0x0A)
        case UInt8(ascii: "r"): scratch.append(0x0D)
        case UInt8(ascii: "t"): scratch.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = UInt32(try hex4())
            if (0xD800...0xDBFF).contains(scalar) {
                guard current == UInt8(ascii: "\\"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "u") else {
                    throw error("lone surrogate in a string")
                }
                index += 2
                let low = UInt32(try hex4())
                guard (0xDC00...0xDFFF).contains(low) else { throw error("lone surrogate in a string") }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00...0xDFFF).contains(scalar) {
                throw error("lone surrogate in a string")
            } else if scalar == 0 {
                throw error("\\u0000 in a string (PostgreSQL text cannot hold it)")
            }
            guard let unicode = Unicode.Scalar(scalar) else { throw error("invalid \\u escape") }
            scratch.append(contentsOf: UTF8.encode(unicode)!)
        default:
            throw error("invalid escape")
        }
    }

    private mutating func hex4() throws -> UInt16 {
        guard index + 4 <= bytes.count else { throw error("unterminated \\u escape") }
        var value: UInt16 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw error("invalid \\u escape")
            }
            value = value << 4 | UInt16(digit)
            index += 1
        }
        return value
    }

    /// Reads past a string, checked as ``parseString()`` checks it; whether it holds an escape. One without an escape
    /// is checked in place; one with an escape is read as ``parseString()`` reads it.
    mutating func checkString() throws -> Bool {
        let start = index + 1
        let (end, ascii) = Self.plainRun(in: bytes, from: start)
        if end < bytes.count, bytes[end] == UInt8(ascii: "\"") {
            if !ascii {
                index = start
                try checkUTF8(upTo: end)
            }
            index = end + 1
            return false
        }
        if end < bytes.count, bytes[end] != UInt8(ascii: "\\") {
            index = end
            throw error("control character in a string")
        }
        _ = try parseString()
        return true
    }

    /// Checks that the bytes from `index` to `end` are UTF-8 (RFC 3629: no overlong form, no surrogate, nothing past
    /// U+10FFFF), as `String(decoding:)` reading them unchanged would show.
    private mutating func checkUTF8(upTo end: Int) throws {
        let start = index
        var offset = start
        func continuation(_ at: Int) -> Bool { at < end && bytes[at] & 0xC0 == 0x80 }
        while offset < end {
            let lead = bytes[offset]
            if lead < 0x80 {
                offset += 1
                continue
            }
            let valid: Bool
            switch lead {
            case 0xC2...0xDF:
                valid = continuation(offset + 1)
                if valid { offset += 2 }
            case 0xE0...0xEF:
                let second = offset + 1 < end ? bytes[offset + 1] : 0
                let low: UInt8 = lead == 0xE0 ? 0xA0 : 0x80
                let high: UInt8 = lead == 0xED ? 0x9F : 0xBF
                valid = (low...high).contains(second) && continuation(offset + 2)
                if valid { offset += 3 }
            case 0xF0...0xF4:
                let second = offset + 1 < end ? bytes[offset + 1] : 0
                let low: UInt8 = lead == 0xF0 ? 0x90 : 0x80
                let high: UInt8 = lead == 0xF4 ? 0x8F : 0xBF
                valid = (low...high).contains(second) && continuation(offset + 2) && continuation(offset + 3)
                if valid { offset += 4 }
            default:
                valid = false
            }
            guard valid else {
                // Where parseString reports it: at the string's end, as it checks the whole run at once.
                index = end
                throw error("invalid UTF-8 in a string")
            }
        }
    }
}
