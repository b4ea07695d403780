/// CSV as RFC 4180 quotes it, with lines ending in LF as Unix tools expect.
public enum CSV {
    /// A field as written: in double quotes, its quotes doubled, when it holds a comma, a quote or a line break.
    public static func field(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") || $0 == 0x0A || $0 == 0x0D })
        else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// One record: the fields joined with commas, and a newline.
    public static func line(_ fields: [String]) -> String {
        fields.map(field).joined(separator: ",") + "\n"
    }

    /// A header of the column names, then a line per row.
    static func text(_ table: Table, _ values: ValueText) -> String {
        line(table.columns.map(\.name)) + table.rows.map { line($0.map(values.program)) }.joined()
    }
}
