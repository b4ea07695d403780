/// Text as a terminal shows it: how many columns it takes, cut to fit, and without control characters.
enum TerminalText {
    /// Columns on a terminal: two for East Asian wide characters (上海市) and emoji, none for combining marks.
    static func width(_ text: String) -> Int {
        // Printable ASCII, most of a table, takes a column a byte; the Unicode properties are for the rest.
        if text.utf8.allSatisfy(isPrintableASCII) { return text.utf8.count }
        return text.reduce(0) { $0 + width(of: $1) }
    }

    static func width(of character: Character) -> Int {
        guard let first = character.unicodeScalars.first else { return 0 }
        if first.isASCII && isPrintableASCII(UInt8(first.value)) { return 1 }
        if first.properties.isEmojiPresentation { return 2 }
        switch first.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: return 0
        default: break
        }
        return isWide(first.value) ? 2 : 1
    }

    private static func isPrintableASCII(_ byte: UInt8) -> Bool {
        (0x20...0x7E).contains(byte)
    }

    /// The East Asian Wide and Fullwidth blocks: Hangul Jamo, CJK, Hiragana to Yi, Hangul, compatibility
    /// ideographs, vertical and small forms, fullwidth forms, and the supplementary ideographic planes.
    private static func isWide(_ scalar: UInt32) -> Bool {
        switch scalar {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF,
             0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x20000...0x3FFFD:
            return true
        default:
            return false
        }
    }

    /// `text` cut to at most `limit` columns, the cut marked with `…`.
    static func truncated(_ text: String, to limit: Int) -> String {
        guard width(text) > limit else { return text }
        var kept = "", used = 0
        for character in text {
            let next = width(of: character)
            if used + next > limit - 1 { break }
            kept.append(character)
            used += next
        }
        return kept + "…"
    }

    /// `text` padded with spaces to `columns`, on the left when `right` is true.
    static func padded(_ text: String, to columns: Int, right: Bool) -> String {
        let padding = String(repeating: " ", count: max(columns - width(text), 0))
        return right ? padding + text : text + padding
    }

    /// Control characters shown as their pictures (line feed `␊`, escape `␛`; `�` for C1 controls), so that a
    /// value cannot break a table's lines or send the terminal commands.
    static func visible(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var shown = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0..<0x20: shown.append(Unicode.Scalar(0x2400 + scalar.value)!)
            case 0x7F: shown.append("\u{2421}")
            case 0x80...0x9F: shown.append("\u{FFFD}")
            default: shown.append(scalar)
            }
        }
        return String(shown)
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }
}
