internal import CLibPQ
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One connection to PostgreSQL, owning its libpq `PGconn`.
///
/// Calls block until the server answers, or until the configuration's statement timeout runs out
/// (`Connection+Waiting.swift`). A connection is used by one thread at a time, as libpq requires: a second thread
/// that calls in while another is inside stops the program, saying so (``exclusively(_:)``). `ConnectionPool` hands
/// each connection to a single caller; handing one from thread to thread is fine.
public final class Connection: @unchecked Sendable {
    // @unchecked: `conn` is used only inside `exclusively`, which one thread at a time can be in (or the program stops).
    private var conn: OpaquePointer?
    public let configuration: PostgresConfiguration
    /// The thread inside a call on this connection, 0 when none.
    private let user = Atomic<UInt>(0)

    private init(_ conn: OpaquePointer, configuration: PostgresConfiguration) {
        self.conn = conn
        self.configuration = configuration
    }

    deinit {
        if let conn { PQfinish(conn) }
    }

    /// Connects and sets the session to `client_encoding` UTF8, `TimeZone` UTC and
    /// `DateStyle` ISO, which the value decoders rely on, and to the configuration's `statement_timeout`.
    public static func connect(_ configuration: PostgresConfiguration) throws -> Connection {
        guard let conn = PQconnectdb(configuration.libpqConnectionString) else {
            throw PostgresError(.connection, "libpq could not allocate a connection")
        }
        guard PQstatus(conn) == CONNECTION_OK else {
            let message = configuration.redact(errorMessage(conn))
            PQfinish(conn)
            throw PostgresError(.connection, "could not connect (\(configuration)): \(message)")
        }
        // Notices (e.g. "relation already exists, skipping") would otherwise go to stderr.
        PQsetNoticeProcessor(conn, { _, _ in }, nil)
        guard PQsetnonblocking(conn, 1) == 0 else {
            let message = configuration.redact(errorMessage(conn))
            PQfinish(conn)
            throw PostgresError(.connection, "could not make the connection non-blocking: \(message)")
        }
        let connection = Connection(conn, configuration: configuration)
        var settings = "SET client_encoding TO 'UTF8'; SET TimeZone TO 'UTC'; SET DateStyle TO 'ISO, YMD'"
        if let timeout = configuration.statementTimeout {
            settings += "; SET statement_timeout TO \(Int64(min(timeout * 1000, Double(Int32.max)).rounded(.up)))"
        }
        try connection.execute(settings)
        return connection
    }

    /// Whether the connection is usable as far as libpq knows.
    public var isOpen: Bool {
        exclusively {
            guard let conn else { return false }
            return PQstatus(conn) == CONNECTION_OK
        }
    }

    /// The server process serving this connection.
    public var backendPID: Int32 {
        exclusively { conn.map { PQbackendPID($0) } ?? 0 }
    }

    /// Runs `body`, collecting the notices the server sends meanwhile (such as the plans `auto_explain` writes at
    /// `auto_explain.log_level = notice`), which are otherwise dropped.
    /// - Returns: `body`'s result and the notices' texts, as libpq formats them (`NOTICE:  ...`), in order.
    public func collectingNotices<R>(_ body: () throws -> R) throws -> (result: R, notices: [String]) {
        let collector = NoticeCollector()
        let context = Unmanaged.passUnretained(collector).toOpaque()
        try exclusively {
            guard let conn else { throw PostgresError(.connection, "the connection is closed") }
            PQsetNoticeProcessor(conn, { context, message in
                guard let context, let message else { return }
                Unmanaged<NoticeCollector>.fromOpaque(context).takeUnretainedValue().notices.append(String(cString: message))
            }, context)
        }
        defer {
            exclusively {
                if let conn { PQsetNoticeProcessor(conn, { _, _ in }, nil) }
            }
        }
        let result = try withExtendedLifetime(collector) { try body() }
        return (result, collector.notices)
    }

    private final class NoticeCollector {
        var notices: [String] = []
    }

    /// Closes the connection; later calls throw.
    public func close() {
        exclusively {
            if let conn { PQfinish(conn) }
            conn = nil
        }
    }

    /// Runs one statement with every value sent as a text bind parameter (`$1`, `$2`, ...).
    /// A `nil` parameter is SQL NULL.
    @discardableResult
    public func query(_ sql: String, _ parameters: [(any PostgresEncodable)?] = []) throws -> QueryResult {
        let texts = try Self.parameterTexts(parameters)
        return try exclusively {
            let result = try Self.withCStrings(texts) { values in
                try exec(sql) { conn in PQsendQueryParams(conn, sql, Int32(values.count), nil, values, nil, nil, 0) }
            }
            return try check(result, query: sql)
        }
    }

    /// Runs SQL through the simple protocol: several statements separated by `;`, no
    /// parameters (migrations, session settings). Never build this text from user input.
    public func execute(_ sql: String) throws {
        _ = try exclusively { try check(exec(sql) { conn in PQsendQuery(conn, sql) }, query: sql) }
    }

    /// Runs `body` between BEGIN and COMMIT; rolls back and rethrows when `body` throws.
    @discardableResult
    public func transaction<T>(_ body: (Connection) throws -> T) throws -> T {
        try exclusively { try inTransaction(body) }
    }

    private func inTransaction<T>(_ body: (Connection) throws -> T) throws -> T {
        let conn = try handle()
        guard PQtransactionStatus(conn) == PQTRANS_IDLE else {
            throw PostgresError(.transaction, "a transaction is already in progress on this connection")
        }
        try execute("BEGIN")
        let value: T
        do {
            value = try body(self)
        } catch {
            // A broken connection has no transaction left to roll back.
            if isOpen { try? execute("ROLLBACK") }
            throw error
        }
        let commit: ResultHandle
        do {
            commit = try checkedResult(exec("COMMIT") { conn in PQsendQuery(conn, "COMMIT") }, query: "COMMIT")
        } catch var error as PostgresError where error.isConnectionFailure || error.sqlState == nil {
            // The server may have committed before the connection broke; only its answer was lost.
            error.isCommitOutcomeUnknown = true
            throw error
        }
        if let tag = PQcmdStatus(commit.result), String(cString: tag) == "ROLLBACK" {
            // COMMIT of a failed transaction reports success with a ROLLBACK tag.
            throw PostgresError(.transaction, "the transaction failed earlier and was rolled back at COMMIT")
        }
        return value
    }

    /// Prepares `sql` as the named statement for `pipelinePrepared` (or later reuse).
    public func prepare(_ name: String, _ sql: String) throws {
        _ = try exclusively { try check(exec(sql) { conn in PQsendPrepare(conn, name, sql, 0, nil) }, query: sql) }
    }

    // MARK: - One thread at a time

    /// Runs `body` as the connection's only user. A second thread that calls in meanwhile stops the program with a
    /// message that says so, in every build: two threads in one `PGconn` would corrupt libpq's state and the
    /// protocol stream without a word. The thread already inside may call in again (a query in a transaction's
    /// body). One compare-and-exchange and one store a call.
    func exclusively<T>(_ body: () throws -> T) rethrows -> T {
        let thread = Self.currentThread
        let (entered, inside) = user.compareExchange(expected: 0, desired: thread, ordering: .acquiring)
        guard entered else {
            guard inside == thread else { Self.usedByTwoThreads() }
            return try body()
        }
        defer { user.store(0, ordering: .releasing) }
        return try body()
    }

    private static var currentThread: UInt {
        #if canImport(Darwin)
        UInt(bitPattern: pthread_self())
        #else
        UInt(pthread_self())
        #endif
    }

    private static func usedByTwoThreads() -> Never {
        fatalError("""
            a Postgres Connection was used by two threads at once: libpq allows one thread at a time in a \
            connection; give each thread a connection of its own (ConnectionPool hands them out)
            """)
    }

    // MARK: - Internals shared by COPY, pipeline and the pool

    /// Whether ``close()`` was called, by the caller or on a timeout.
    var isClosed: Bool { exclusively { conn == nil } }

    /// The live `PGconn`, or a connection error when closed. Only inside ``exclusively(_:)``.
    func handle() throws -> OpaquePointer {
        assert(user.load(ordering: .relaxed) == Self.currentThread, "a Connection's PGconn used outside exclusively")
        guard let conn else { throw PostgresError(.connection, "the connection is closed") }
        return conn
    }

    /// Whether the connection is idle and still connected: reads whatever the socket holds
    /// without waiting, so a server that closed the connection is noticed before use.
    func isHealthy() -> Bool {
        exclusively { isHealthyNow() }
    }

    private func isHealthyNow() -> Bool {
        guard let conn, PQstatus(conn) == CONNECTION_OK, PQtransactionStatus(conn) == PQTRANS_IDLE else {
            return false
        }
        let socket = PQsocket(conn)
        guard socket >= 0 else { return false }
        // A terminated backend sends an error, then EOF; read until the socket is quiet.
        for _ in 0..<4 {
            var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, 0)
            if ready < 0 { return false }
            if ready == 0 { break }
            if descriptor.revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0 && descriptor.revents & Int16(POLLIN) == 0 {
                return false
            }
            if PQconsumeInput(conn) == 0 || PQstatus(conn) != CONNECTION_OK { return false }
        }
        return PQstatus(conn) == CONNECTION_OK
    }

    /// Whether the session is inside a transaction block (open or failed).
    var transactionStatus: PGTransactionStatusType {
        exclusively { conn.map { PQtransactionStatus($0) } ?? PQTRANS_UNKNOWN }
    }

    /// Wraps `result`, or throws the error it carries.
    func check(_ result: OpaquePointer?, query: String?) throws -> QueryResult {
        QueryResult(try checkedResult(result, query: query))
    }

    func checkedResult(_ result: OpaquePointer?, query: String?, kind: PostgresError.Kind = .query) throws -> ResultHandle {
        guard let result else {
            throw error(from: nil, query: query, kind: kind)
        }
        let handle = ResultHandle(result)
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY, PGRES_SINGLE_TUPLE, PGRES_COPY_IN, PGRES_PIPELINE_SYNC:
            return handle
        default:
            throw error(from: result, query: query, kind: kind)
        }
    }

    /// The error in `result` (or on the connection), with secrets scrubbed.
    func error(from result: OpaquePointer?, query: String?, kind: PostgresError.Kind) -> PostgresError {
        func field(_ code: Character) -> String? {
            guard let result, let value = PQresultErrorField(result, Int32(code.asciiValue!)) else { return nil }
            return configuration.redact(String(cString: value))
        }
        let brokenConnection = conn.map { PQstatus($0) != CONNECTION_OK } ?? true
        var message = field("M") ?? conn.map { Self.errorMessage($0) } ?? "the connection is closed"
        message = configuration.redact(message)
        if message.isEmpty { message = "unknown error" }
        if field("C") == "57014", message.contains("statement timeout"), let timeout = configuration.statementTimeout {
            message += " (\(Self.secondsText(timeout)))"
            if let setting = configuration.statementTimeoutSetting { message += "; set \(setting) to change the limit" }
        }
        var error = PostgresError(
            brokenConnection ? .connection : kind, message,
            sqlState: field("C"), detail: field("D"), hint: field("H"), constraint: field("n"),
            query: query
        )
        error.schema = field("s")
        error.table = field("t")
        error.column = field("c")
        return error
    }

    static func errorMessage(_ conn: OpaquePointer) -> String {
        guard let text = PQerrorMessage(conn) else { return "" }
        return String(cString: text).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func parameterTexts(_ parameters: [(any PostgresEncodable)?]) throws -> [String?] {
        try parameters.enumerated().map { index, parameter in
            guard let parameter else { return nil }
            if let nullable = parameter as? any PostgresNullable, nullable.isPostgresNull { return nil }
            var text = parameter.postgresText
            let hasNUL = text.withUTF8 { bytes in bytes.baseAddress.map { memchr($0, 0, bytes.count) != nil } ?? false }
            if hasNUL {
                throw PostgresError(.encoding, "parameter $\(index + 1) contains a NUL character, which PostgreSQL text cannot hold")
            }
            return text
        }
    }

    /// Calls `body` with C strings for `texts`; the pointers are valid only inside `body`.
    static func withCStrings<R>(_ texts: [String?], _ body: ([UnsafePointer<CChar>?]) throws -> R) rethrows -> R {
        var storage: [UInt8] = []
        storage.reserveCapacity(texts.reduce(0) { $0 + ($1?.utf8.count ?? 0) + 1 })
        var offsets: [Int?] = []
        offsets.reserveCapacity(texts.count)
        for text in texts {
            guard let text else {
                offsets.append(nil)
                continue
            }
            offsets.append(storage.count)
            storage.append(contentsOf: text.utf8)
            storage.append(0)
        }
        return try storage.withUnsafeBufferPointer { buffer in
            let base = buffer.baseAddress.map { UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self) }
            let pointers = offsets.map { offset in offset.flatMap { offset in base.map { $0 + offset } } }
            return try body(pointers)
        }
    }
}
