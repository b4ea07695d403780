import JSON

/// JSON for programs. Members come in column order; a row is one object on one line. Missing values are `null`,
/// never a missing member, so that every object of a result has the same members.
enum JSONText {
    /// A JSON string literal.
    static func string(_ text: String) -> String {
        JSONValue.quoted(text)
    }

    static func scalar(_ value: Value, _ values: ValueText) -> String {
        switch value {
        case .none: return "null"
        case .text(let text): return string(text)
        case .integer(let integer): return String(integer)
        case .number(let number): return ValueText.exact(number) ?? "null"
        case .time(let date): return string(values.time(date, forPeople: false))
        case .bool(let bool): return bool ? "true" : "false"
        case .counts(let counts):
            return "{" + counts.sorted { $0.key < $1.key }.map { string($0.key) + ":" + String($0.value) }.joined(separator: ",") + "}"
        }
    }

    /// `{"name":value,...}`, in column order.
    static func object(_ columns: [Column], _ row: [Value], _ values: ValueText, skipping skipped: Set<Int> = []) -> String {
        let members = zip(columns, row).enumerated().filter { !skipped.contains($0.offset) }.map { _, pair in
            string(pair.0.name) + ":" + scalar(pair.1, values)
        }
        return "{" + members.joined(separator: ",") + "}"
    }

    /// `[` and `]` on lines of their own, a row object on each line between.
    static func array(_ table: Table, _ values: ValueText, indent: String = "") -> String {
        guard !table.rows.isEmpty else { return "[]" }
        let rows = table.rows.map { indent + "  " + object(table.columns, $0, values) }
        return "[\n" + rows.joined(separator: ",\n") + "\n" + indent + "]"
    }

    /// One object: the fields, then each section, a single one as its row's object or `null`.
    /// - Parameter pretty: each member on a line of its own, and each row of a section's array; else one line.
    static func document(_ document: Document, _ values: ValueText, pretty: Bool) -> String {
        var members = document.fields.map { string($0.column.name) + (pretty ? ": " : ":") + scalar($0.value, values) }
        for section in document.sections {
            let table = section.table
            let value: String
            if section.isSingle {
                value = table.rows.first.map { object(table.columns, $0, values) } ?? "null"
            } else if pretty {
                value = array(table, values, indent: "  ")
            } else {
                value = "[" + table.rows.map { object(table.columns, $0, values) }.joined(separator: ",") + "]"
            }
            members.append(string(section.name) + (pretty ? ": " : ":") + value)
        }
        return pretty ? "{\n  " + members.joined(separator: ",\n  ") + "\n}" : "{" + members.joined(separator: ",") + "}"
    }
}
