import Foundation

/// How much of the current item has been seen; once it is over the limit, its bytes are dropped as they are passed.
struct ItemSpan {
    let maximum: Int
    /// Bytes of the item already dropped.
    private var dropped = 0
    /// The item's first bytes, kept once it is known to be too large.
    private(set) var prefix: Data?

    init(maximum: Int) {
        self.maximum = maximum
    }

    /// Before reading more: when the item so far, `start..<index`, is over the limit, keeps its first bytes and drops
    /// the rest, moving `start` to `index`.
    /// - Parameter copy: the bytes of a range of the buffer, in a copy of their own.
    mutating func passing(_ start: inout Int, to index: Int, copying copy: (Range<Int>) -> Data) {
        guard prefix != nil || dropped + index - start > maximum else { return }
        if prefix == nil { prefix = copy(start..<min(index, start + SubmissionReader.keptBytes)) }
        dropped += index - start
        start = index
    }

    /// The item's whole size when it ends at `index` and is over the limit; nil when it is within it.
    func oversized(to index: Int, from start: Int) -> Int? {
        let size = dropped + index - start
        guard size > maximum else { return nil }
        return size
    }
}

/// Where an element of the top-level array ends, found chunk by chunk.
struct ElementScan {
    private enum Kind { case nested, string, scalar }
    private let kind: Kind
    private var depth = 0
    private var inString = false
    private var escaped = false
    private(set) var isComplete = false

    init(first: UInt8) {
        switch first {
        case UInt8(ascii: "{"), UInt8(ascii: "["): kind = .nested
        case UInt8(ascii: "\""): kind = .string
        default: kind = .scalar
        }
    }

    /// Scans from `index` to the element's end (then ``isComplete``) or the end of `bytes`.
    /// - Returns: where it stopped (just past the element when complete) and the newlines passed.
    mutating func advance(over bytes: UnsafeBufferPointer<UInt8>, from index: Int) -> (end: Int, lines: Int) {
        var index = index
        var lines = 0
        if kind == .scalar {
            while index < bytes.count {
                switch bytes[index] {
                case 0x20, 0x0A, 0x0D, 0x09, UInt8(ascii: ","), UInt8(ascii: "]"), UInt8(ascii: "}"),
                     UInt8(ascii: "["), UInt8(ascii: "{"), UInt8(ascii: "\""):
                    isComplete = true
                    return (index, lines)
                default:
                    index += 1
                }
            }
            return (index, lines)
        }
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            if byte == UInt8(ascii: "\n") { lines += 1 }
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                    if depth == 0 { isComplete = true; return (index, lines) }
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""):
                inString = true
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                if depth == 0 { isComplete = true; return (index, lines) }
            default:
                break
            }
        }
        return (index, lines)
    }
}
