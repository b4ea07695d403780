/// The pieces of SVG text: numbers written the same way on every machine, and escaped text.
enum SVGText {
    /// Appends a pixel coordinate rounded to a tenth, without a trailing ".0".
    static func append(_ value: Double, to text: inout String) {
        let tenths = Int((value * 10).rounded())
        if tenths < 0 { text += "-" }
        let magnitude = tenths.magnitude
        text += String(magnitude / 10)
        if magnitude % 10 != 0 {
            text += "."
            text += String(magnitude % 10)
        }
    }

    static func number(_ value: Double) -> String {
        var text = ""
        append(value, to: &text)
        return text
    }

    /// Text safe in XML character data and in attribute values: the five markup characters escaped, and
    /// characters XML 1.0 does not allow (control characters other than tab, line feed and carriage return;
    /// U+FFFE, U+FFFF) replaced by U+FFFD.
    static func escaped(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\t", "\n", "\r": out.unicodeScalars.append(scalar)
            default:
                if scalar.value < 0x20 || scalar.value == 0xFFFE || scalar.value == 0xFFFF {
                    out += "\u{FFFD}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }
}
