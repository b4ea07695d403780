import Foundation

/// The time zone an operator names with `--tz`.
public enum TimeZoneName {
    /// What `--tz` accepts, for messages and help.
    public static let accepted = "an IANA time zone name (Asia/Shanghai), UTC, or a UTC offset (+08:00, -0530)"

    /// Reads `UTC` or `Z`; an offset `±HH`, `±HHMM` or `±HH:MM` up to 18 hours; or a name from the IANA time zone
    /// database (`Asia/Shanghai`). Abbreviations other than UTC and GMT are refused: `CST` is China's to some and
    /// Chicago's to others.
    /// - Returns: nil when the text is none of these.
    public static func parse(_ text: String) -> TimeZone? {
        if ["UTC", "Z", "GMT"].contains(text) { return TimeZone(identifier: "UTC") }
        if let sign = text.first, sign == "+" || sign == "-" {
            return offset(text.dropFirst(), negative: sign == "-")
        }
        guard text.contains("/") || (text.count > 3 && TimeZone.knownTimeZoneIdentifiers.contains(text)) else { return nil }
        return TimeZone(identifier: text)
    }

    private static func offset(_ digits: Substring, negative: Bool) -> TimeZone? {
        let parts = digits.split(separator: ":", omittingEmptySubsequences: false)
        let hoursText: Substring, minutesText: Substring
        switch (parts.count, digits.count) {
        case (1, 2): (hoursText, minutesText) = (digits, "00")
        case (1, 4): (hoursText, minutesText) = (digits.prefix(2), digits.suffix(2))
        case (2, 5): (hoursText, minutesText) = (parts[0], parts[1])
        default: return nil
        }
        let isDigit = { (character: Character) in character.isASCII && character.isNumber }
        guard hoursText.count == 2, minutesText.count == 2, hoursText.allSatisfy(isDigit), minutesText.allSatisfy(isDigit),
              let hours = Int(hoursText), let minutes = Int(minutesText), minutes < 60, hours * 60 + minutes <= 18 * 60
        else { return nil }
        let seconds = (hours * 3600 + minutes * 60) * (negative ? -1 : 1)
        return TimeZone(secondsFromGMT: seconds)
    }
}
