/// What went wrong talking to PostgreSQL, with the server's diagnostics when it sent them.
///
/// `description` is the short form for logs; `debugDescription` adds detail, hint, constraint
/// and the SQL text. Neither ever contains a password from the connection string.
public struct PostgresError: Error, Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    public enum Kind: String, Sendable, Equatable {
        /// Connecting failed, or the connection broke.
        case connection
        /// The server rejected a statement.
        case query
        /// A value could not be turned into a bind parameter.
        case encoding
        /// A column value could not be read as the requested type.
        case decoding
        /// COPY FROM STDIN failed.
        case copy
        /// The pool is closed or could not hand out a connection.
        case pool
        /// A transaction could not begin or commit, or was already in progress.
        case transaction
        /// The server did not answer within the statement timeout: the statement was cancelled and the
        /// connection closed.
        case timeout
    }

    public var kind: Kind
    /// The five-character SQLSTATE, e.g. `23505`.
    public var sqlState: String?
    public var message: String
    public var detail: String?
    public var hint: String?
    public var constraint: String?
    public var schema: String?
    public var table: String?
    public var column: String?
    /// The SQL text that failed (never the parameter values).
    public var query: String?
    /// The connection broke while COMMIT was under way: the transaction may have committed, or not.
    public var isCommitOutcomeUnknown = false

    public init(
        _ kind: Kind, _ message: String, sqlState: String? = nil, detail: String? = nil,
        hint: String? = nil, constraint: String? = nil, query: String? = nil
    ) {
        self.kind = kind
        self.message = message
        self.sqlState = sqlState
        self.detail = detail
        self.hint = hint
        self.constraint = constraint
        self.query = query
    }

    /// A unique violation: PostgreSQL's, or one Citus relays from a worker during COPY, where the worker's SQLSTATE
    /// is lost (XX000) but its message kept.
    public var isUniqueViolation: Bool {
        sqlState == "23505"
            || (sqlState == "XX000" && message.hasPrefix("duplicate key value violates unique constraint"))
    }
    public var isForeignKeyViolation: Bool { sqlState == "23503" }
    public var isNotNullViolation: Bool { sqlState == "23502" }
    public var isCheckViolation: Bool { sqlState == "23514" }
    public var isSerializationFailure: Bool { sqlState == "40001" }
    public var isDeadlock: Bool { sqlState == "40P01" }
    public var isUndefinedTable: Bool { sqlState == "42P01" }
    public var isQueryCanceled: Bool { sqlState == "57014" }
    /// The server could not write for want of space (disk_full: a table or index it could not extend, a temporary
    /// file); the statement failed and its transaction wrote nothing.
    public var isDiskFull: Bool { sqlState == "53100" }
    /// The connection is unusable: it failed, broke, timed out, or the server is shutting it down.
    public var isConnectionFailure: Bool {
        guard kind != .connection && kind != .timeout else { return true }
        guard let sqlState else { return false }
        // Class 08 except protocol_violation (the session survives it); 57P01-03 shutdowns.
        return (sqlState.hasPrefix("08") && sqlState != "08P01") || ["57P01", "57P02", "57P03"].contains(sqlState)
    }

    public var description: String {
        var text = "PostgreSQL \(kind.rawValue) error"
        if let sqlState { text += " \(sqlState)" }
        return text + ": " + message
    }

    public var debugDescription: String {
        var text = description
        if let detail { text += "\nDETAIL: \(detail)" }
        if let hint { text += "\nHINT: \(hint)" }
        if let constraint { text += "\nCONSTRAINT: \(constraint)" }
        if let table { text += "\nTABLE: \([schema, table].compactMap { $0 }.joined(separator: "."))" }
        if let column { text += "\nCOLUMN: \(column)" }
        if let query { text += "\nQUERY: \(query)" }
        return text
    }
}
