internal import CLibPQ
import Foundation
import Logging

/// Where and how to connect: a libpq connection string, kept as given, and how long to wait for the server.
///
/// The string may be a URI (`postgres://`, `postgresql://`) or `key=value` conninfo. An empty
/// string leaves every setting to libpq's `PG*` environment variables and defaults.
/// `description` never contains a password.
public struct PostgresConfiguration: Sendable, CustomStringConvertible {
    /// The connection string as given.
    public let connectionString: String
    /// Seconds a statement may run on the server (its `statement_timeout`) and the client waits for the server to
    /// answer; past that the statement is cancelled, the connection closed and the call throws a `.timeout` error.
    /// It also bounds connecting (`connect_timeout`) and unacknowledged sends on TCP (`tcp_user_timeout`).
    /// `nil`: as long as it takes, the server's own `statement_timeout` left as it is.
    public let statementTimeout: Double?
    /// How a user changes the timeout (e.g. an environment variable), named in the error when it runs out.
    public let statementTimeoutSetting: String?
    /// Where connections say what is worth a line: a slow statement, a reconnect, a deadlock retried by a caller.
    public private(set) var logger = Logger.discarding
    /// Seconds from which a statement is logged as slow (at `warning`, with its text, never its parameters); nil:
    /// none is.
    public private(set) var slowStatementSeconds: Double?

    public init(connectionString: String, statementTimeout: Double? = nil, statementTimeoutSetting: String? = nil) {
        self.connectionString = connectionString
        self.statementTimeout = statementTimeout.flatMap { $0 > 0 ? $0 : nil }
        self.statementTimeoutSetting = statementTimeoutSetting
    }

    /// The same connection with another statement timeout (`nil` or 0: none).
    /// - Parameter setting: how a user changes it, named in the error when it runs out.
    public func withStatementTimeout(_ seconds: Double?, setBy setting: String? = nil) -> PostgresConfiguration {
        PostgresConfiguration(connectionString: connectionString, statementTimeout: seconds, statementTimeoutSetting: setting)
            .withLogging(logger, slowStatementSeconds: slowStatementSeconds)
    }

    /// The same connection, saying what is worth a line to `logger`.
    /// - Parameter slowStatementSeconds: a statement that takes this long or longer is logged; nil or 0: none.
    public func withLogging(_ logger: Logger, slowStatementSeconds: Double?) -> PostgresConfiguration {
        var configured = self
        configured.logger = logger
        configured.slowStatementSeconds = slowStatementSeconds.flatMap { $0 > 0 ? $0 : nil }
        return configured
    }

    /// `DATABASE_URL` when it is set and not empty, else the `PG*` variables of `env`.
    ///
    /// When `env` is the process environment libpq would read the `PG*` variables itself;
    /// they are copied into the connection string so that another dictionary is honoured too.
    public static func fromEnvironment(
        _ env: [String: String] = ProcessInfo.processInfo.environment
    ) -> PostgresConfiguration {
        if let url = env["DATABASE_URL"], !url.isEmpty {
            return PostgresConfiguration(connectionString: url)
        }
        var options: [(String, String)] = []
        for option in ConnInfo.defaults() {
            if let variable = option.environmentVariable, let value = env[variable], !value.isEmpty {
                options.append((option.keyword, value))
            }
        }
        return PostgresConfiguration(connectionString: ConnInfo.render(options))
    }

    /// The same server and settings, another database.
    public func withDatabase(_ name: String) -> PostgresConfiguration {
        var options = (try? ConnInfo.parse(connectionString))?.compactMap { option in
            option.value.map { (option.keyword, $0) }
        } ?? []
        options.removeAll { $0.0 == "dbname" }
        options.append(("dbname", name))
        return PostgresConfiguration(
            connectionString: ConnInfo.render(options), statementTimeout: statementTimeout,
            statementTimeoutSetting: statementTimeoutSetting)
            .withLogging(logger, slowStatementSeconds: slowStatementSeconds)
    }

    /// The string libpq connects with: the given one, plus TCP keepalives that notice a dead server within about a
    /// minute even on an idle connection, and with a statement timeout, `connect_timeout` and `tcp_user_timeout`
    /// bounded by it. A setting the string or a `PG*` variable already gives is left alone; libpq ignores the TCP
    /// ones on a Unix socket.
    var libpqConnectionString: String {
        guard let given = try? ConnInfo.parse(connectionString) else { return connectionString }
        var defaults = [("keepalives_idle", "30"), ("keepalives_interval", "10"), ("keepalives_count", "3")]
        if let statementTimeout {
            // libpq's connect_timeout is whole seconds, at least 2.
            defaults.append(("connect_timeout", String(max(2, Int(statementTimeout.rounded(.up))))))
            defaults.append(("tcp_user_timeout", String(Int(min(statementTimeout * 1000, Double(Int32.max))))))
        }
        let fromEnvironment = ConnInfo.defaults()
        let missing = defaults.filter { keyword, _ in
            !given.contains { $0.keyword == keyword && $0.value != nil }
                && !fromEnvironment.contains { $0.keyword == keyword && $0.value.map { !$0.isEmpty } == true }
        }
        guard !missing.isEmpty else { return connectionString }
        return ConnInfo.render(given.compactMap { option in option.value.map { (option.keyword, $0) } } + missing)
    }

    /// The role it connects as: the user it names, else libpq's default (`PGUSER`, else the operating system's
    /// user name). Nil when the string cannot be parsed.
    public var user: String? {
        guard let options = try? ConnInfo.parse(connectionString) else { return nil }
        if let user = options.first(where: { $0.keyword == "user" })?.value, !user.isEmpty { return user }
        return ConnInfo.defaults().first { $0.keyword == "user" }?.value
    }

    /// The settings as `key=value` pairs with every secret replaced by `***`.
    public var description: String {
        guard let options = try? ConnInfo.parse(connectionString) else {
            return "<unparsable connection string>"
        }
        let shown = options.compactMap { option -> (String, String)? in
            guard let value = option.value else { return nil }
            return (option.keyword, option.isSecret ? "***" : value)
        }
        return shown.isEmpty ? "<libpq defaults and PG* environment>" : ConnInfo.render(shown)
    }

    /// Every secret the connection string carries, to be scrubbed from libpq's messages.
    var secrets: [String] {
        var found: [String] = []
        if let options = try? ConnInfo.parse(connectionString) {
            found += options.filter(\.isSecret).compactMap(\.value)
        }
        // Also what an unparsable string would hold, so that a message about it stays clean.
        found += ConnInfo.looseSecrets(in: connectionString)
        var unique: [String] = []
        for secret in found where !secret.isEmpty && !unique.contains(secret) {
            unique.append(secret)
            if let encoded = secret.addingPercentEncoding(withAllowedCharacters: .alphanumerics),
               encoded != secret, !unique.contains(encoded) {
                unique.append(encoded)
            }
        }
        return unique.sorted { $0.count > $1.count }
    }

    /// `text` with every secret of this configuration replaced by `***`.
    func redact(_ text: String) -> String {
        secrets.reduce(text) { $0.replacingOccurrences(of: $1, with: "***") }
    }
}

/// Reading and writing connection strings through libpq's own parser.
enum ConnInfo {
    struct Option {
        var keyword: String
        var value: String?
        var environmentVariable: String?
        var isSecret: Bool
    }

    static func parse(_ string: String) throws -> [Option] {
        var errorMessage: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(string, &errorMessage) else {
            defer { if let errorMessage { PQfreemem(errorMessage) } }
            throw PostgresError(.connection, errorMessage.map { String(cString: $0) } ?? "invalid connection string")
        }
        defer { PQconninfoFree(options) }
        return collect(options)
    }

    static func defaults() -> [Option] {
        guard let options = PQconndefaults() else { return [] }
        defer { PQconninfoFree(options) }
        return collect(options)
    }

    private static func collect(_ options: UnsafeMutablePointer<PQconninfoOption>) -> [Option] {
        var result: [Option] = []
        var cursor = options
        while let keyword = cursor.pointee.keyword {
            let option = cursor.pointee
            result.append(Option(
                keyword: String(cString: keyword),
                value: option.val.map { String(cString: $0) },
                environmentVariable: option.envvar.map { String(cString: $0) },
                isSecret: option.dispchar.map { String(cString: $0) } == "*"
            ))
            cursor += 1
        }
        return result
    }

    /// `key='value' ...`, quoted as libpq's conninfo grammar wants.
    static func render(_ options: [(String, String)]) -> String {
        options.map { key, value in
            let escaped = value.replacingOccurrences(of: "\\", with: "\\\\")
                .replacingOccurrences(of: "'", with: "\\'")
            return "\(key)='\(escaped)'"
        }.joined(separator: " ")
    }

    /// Password-looking parts of a string libpq may not be able to parse.
    static func looseSecrets(in string: String) -> [String] {
        var secrets: [String] = []
        // URI user info: scheme://user:password@host
        if let schemeEnd = string.range(of: "://") {
            let rest = string[schemeEnd.upperBound...]
            let authority = rest.prefix { $0 != "/" && $0 != "?" }
            if let at = authority.lastIndex(of: "@") {
                let userInfo = authority[..<at]
                if let colon = userInfo.firstIndex(of: ":") {
                    secrets.append(String(userInfo[userInfo.index(after: colon)...]))
                }
            }
        }
        // password=... in a URI query or in key=value form.
        var search = string[...]
        while let range = search.range(of: "password", options: .caseInsensitive) {
            var after = search[range.upperBound...].drop { $0 == " " }
            if after.first == "=" {
                after = after.dropFirst().drop { $0 == " " }
                let value: Substring
                if after.first == "'" {
                    value = after.dropFirst().prefix { $0 != "'" }
                } else {
                    value = after.prefix { $0 != " " && $0 != "&" }
                }
                secrets.append(String(value))
            }
            search = search[range.upperBound...]
        }
        return secrets
    }
}
