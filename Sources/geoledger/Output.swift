import Foundation
import Postgres

/// Renders command results as JSON or as a two-column table of flattened fields.
enum Output {
    static func json(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        // Microseconds, as stored: two fixes within one second must not look alike.
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(date.postgresText)
        }
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    /// `field  value` lines, nested fields joined with dots and array elements numbered; nulls show as `-`.
    static func table(_ value: some Encodable) throws -> String {
        let object = try JSONSerialization.jsonObject(with: Data(try json(value).utf8), options: [.fragmentsAllowed])
        var rows: [(String, String)] = []
        flatten(object, prefix: "", into: &rows)
        let width = rows.map(\.0.count).max() ?? 0
        return rows.map { $0.0.padding(toLength: width + 2, withPad: " ", startingAt: 0) + $0.1 }.joined(separator: "\n")
    }

    private static func flatten(_ value: Any, prefix: String, into rows: inout [(String, String)]) {
        switch value {
        case let object as [String: Any]:
            for key in object.keys.sorted() {
                flatten(object[key]!, prefix: prefix.isEmpty ? key : "\(prefix).\(key)", into: &rows)
            }
        case let array as [Any]:
            if array.isEmpty { rows.append((prefix, "(none)")) }
            for (index, element) in array.enumerated() {
                flatten(element, prefix: "\(prefix)[\(index)]", into: &rows)
            }
        case is NSNull:
            rows.append((prefix, "-"))
        case let number as NSNumber where type(of: number) == type(of: NSNumber(value: true)):
            rows.append((prefix, number.boolValue ? "true" : "false"))
        default:
            rows.append((prefix, "\(value)"))
        }
    }
}
