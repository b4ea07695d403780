import Foundation

/// One column of a result. Every format reads the same columns: the name is the JSON member, the CSV header
/// and the GeoJSON property; the title heads the column in a table; the kind says how a value is shown to people.
public struct Column: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        case text
        case integer
        case number
        /// A distance or radius in metres: shown to 0.1 m.
        case metres
        /// WGS-84 degrees, shown to 7 places (about 1 cm); GeoJSON takes the point from these two.
        case latitude, longitude
        /// An instant: shown in the operator's time zone.
        case time
        case bool
        /// Whole numbers by name (failures by category): a JSON object; `name=n, ...` in a table and in CSV.
        case counts
    }

    public let name: String
    public let title: String
    public let kind: Kind

    /// - Parameter title: the table header; by default the name in upper case, words split at capitals
    ///   (`boundSince` → `BOUND SINCE`).
    public init(_ name: String, _ kind: Kind = .text, title: String? = nil) {
        self.name = name
        self.kind = kind
        self.title = title ?? Column.words(of: name).uppercased()
    }

    /// `boundSince` → `bound since`.
    static func words(of name: String) -> String {
        var words = ""
        for character in name {
            if character.isUppercase, !words.isEmpty { words.append(" ") }
            words.append(contentsOf: character.lowercased())
        }
        return words
    }

    /// Whether a table aligns the column's values to the right.
    var isNumeric: Bool {
        switch kind {
        case .integer, .number, .metres, .latitude, .longitude: return true
        case .text, .time, .bool, .counts: return false
        }
    }
}

/// One value of a row. `none` is a value that is missing: `(none)` in a table, `null` in JSON, an empty CSV field.
public enum Value: Sendable, Equatable {
    case none
    case text(String)
    case integer(Int64)
    case number(Double)
    case time(Date)
    case bool(Bool)
    /// Whole numbers by name, listed in name order.
    case counts([String: Int64])

    public init(_ text: String?) { self = text.map(Value.text) ?? .none }
    public init(_ number: Double?) { self = number.map(Value.number) ?? .none }
    public init(_ integer: Int64?) { self = integer.map(Value.integer) ?? .none }
    public init(_ integer: Int) { self = .integer(Int64(integer)) }
    public init(_ date: Date?) { self = date.map(Value.time) ?? .none }
    public init(_ bool: Bool?) { self = bool.map(Value.bool) ?? .none }

    /// The number held, for the latitude and longitude of GeoJSON.
    var number: Double? {
        switch self {
        case .number(let value): return value
        case .integer(let value): return Double(value)
        default: return nil
        }
    }
}
