/// An SQL identifier (a database, schema or table name) quoted for the few statements that cannot take it as a
/// bind parameter: wrapped in double quotes, with double quotes doubled.
public func quotedIdentifier(_ name: String) -> String {
    "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
}
