/// An HTML document being written: markup the console writes itself goes in as it is, every other text through
/// ``text(_:)``, escaped, so that nothing a submission carried can become markup.
struct HTML {
    private(set) var markup = ""

    init() {}

    /// Markup written by the console: tags, attribute names, its own constant text.
    mutating func raw(_ markup: String) {
        self.markup += markup
    }

    /// Text of any origin, escaped for an element's content or a quoted attribute value.
    mutating func text(_ text: String) {
        markup += HTML.escaped(text)
    }

    /// An element with text content: `<tag attributes>escaped text</tag>`.
    mutating func element(_ tag: String, _ attributes: [(String, String)] = [], text: String) {
        open(tag, attributes)
        self.text(text)
        raw("</\(tag)>")
    }

    /// A start tag; each attribute's value is escaped and double-quoted.
    mutating func open(_ tag: String, _ attributes: [(String, String)] = []) {
        raw("<" + tag)
        for (name, value) in attributes { raw(" \(name)=\"" + HTML.escaped(value) + "\"") }
        raw(">")
    }

    /// Text a submission carried, in an element of its own that isolates its direction: a right-to-left override
    /// inside it cannot turn the text around it.
    mutating func sent(_ text: String?, none: String = "(none)") {
        guard let text else { raw("<span class=\"none\">" + HTML.escaped(none) + "</span>"); return }
        raw("<bdi>")
        self.text(text)
        raw("</bdi>")
    }

    /// A link to one of the console's own pages.
    mutating func link(_ target: String, text: String, attributes: [(String, String)] = []) {
        element("a", [("href", target)] + attributes, text: text)
    }

    /// `text` with `&`, `<`, `>`, `"` and `'` as character references, and control characters other than tab,
    /// line feed and carriage return shown as their pictures (U+2400 onwards) or U+FFFD: safe as the content of
    /// an element and inside a quoted attribute value.
    static func escaped(_ text: String) -> String {
        // Most texts need nothing: a scan of their bytes finds that without building a copy.
        var previous: UInt8 = 0
        let clean = text.utf8.allSatisfy { byte in
            defer { previous = byte }
            switch byte {
            case UInt8(ascii: "&"), UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "\""), UInt8(ascii: "'"), 0x7F: return false
            case 0x00..<0x20: return byte == 0x09 || byte == 0x0A || byte == 0x0D
            // U+0080 to U+009F, the C1 controls, are 0xC2 0x80 to 0xC2 0x9F.
            case 0x80...0x9F: return previous != 0xC2
            default: return true
            }
        }
        if clean { return text }
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            case "\t", "\n", "\r": result.unicodeScalars.append(scalar)
            case "\u{0}"..."\u{1F}": result.unicodeScalars.append(Unicode.Scalar(0x2400 + scalar.value)!)
            case "\u{7F}"..."\u{9F}": result += "\u{FFFD}"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// A path segment of a console URL: the characters ids are made of as they are, every other byte
    /// percent-encoded.
    static func pathSegment(_ text: String) -> String {
        percentEncoded(text, keeping: "-._~:")
    }

    /// A query value, percent-encoded (a space as `%20`).
    static func queryValue(_ text: String) -> String {
        percentEncoded(text, keeping: "-._~")
    }

    /// `name=value&...`, each percent-encoded; nil values left out.
    static func query(_ items: [(String, String?)]) -> String {
        items.compactMap { name, value in value.map { queryValue(name) + "=" + queryValue($0) } }.joined(separator: "&")
    }

    private static func percentEncoded(_ text: String, keeping kept: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var bytes: [UInt8] = []
        for byte in text.utf8 {
            let isAlphanumeric = (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
            if isAlphanumeric || kept.utf8.contains(byte) {
                bytes.append(byte)
            } else {
                bytes += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 15)]]
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// JSON text safe inside a `<script type="application/json">` element: `<`, `>` and `&` written as `\u003c`,
    /// `\u003e` and `\u0026`, which can occur only inside JSON strings, where they read back as the same characters;
    /// U+2028 and U+2029 as `\u2028` and `\u2029`. A scan of the UTF-8 bytes copies the runs between them whole, not
    /// scalar by scalar: a report's map is hundreds of kilobytes.
    static func scriptJSON(_ json: String) -> String {
        var json = json
        return json.withUTF8 { bytes in
            var result: [UInt8] = []
            result.reserveCapacity(bytes.count + 64)
            var copied = 0
            var index = 0
            func replace(_ length: Int, with escape: String) {
                result.append(contentsOf: bytes[copied..<index])
                result.append(contentsOf: escape.utf8)
                index += length
                copied = index
            }
            while index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: "<"): replace(1, with: "\\u003c")
                case UInt8(ascii: ">"): replace(1, with: "\\u003e")
                case UInt8(ascii: "&"): replace(1, with: "\\u0026")
                // U+2028 and U+2029 are E2 80 A8 and E2 80 A9.
                case 0xE2 where index + 2 < bytes.count && bytes[index + 1] == 0x80 && bytes[index + 2] == 0xA8:
                    replace(3, with: "\\u2028")
                case 0xE2 where index + 2 < bytes.count && bytes[index + 1] == 0x80 && bytes[index + 2] == 0xA9:
                    replace(3, with: "\\u2029")
                default: index += 1
                }
            }
            if copied == 0 { return String(decoding: bytes, as: UTF8.self) }
            result.append(contentsOf: bytes[copied..<bytes.count])
            return String(decoding: result, as: UTF8.self)
        }
    }
}
