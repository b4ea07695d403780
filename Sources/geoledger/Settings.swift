import CommandLineArguments
import Foundation
import LocalPostgres
import Logging
import Output
import Postgres
import Projections

/// Configuration built once from the environment and handed down.
struct Settings {
    /// The private cluster's folder, `.data/` in the working directory unless GEOLEDGER_DATA_DIR says otherwise.
    let localCluster: LocalCluster
    /// What the application connects as: `ingest`, `show`, `verify`.
    let database: PostgresConfiguration
    /// What `migrate` and `replay` connect as: the owner of the tables. `--owner-url` or GEOLEDGER_OWNER_URL; else
    /// the private cluster's owner when the private cluster is in use; else `database`.
    let owner: PostgresConfiguration
    /// The role `migrate` grants the application's privileges to: `--app-role` or GEOLEDGER_APP_ROLE, else the user
    /// of `database`.
    let applicationRole: String?
    /// Why GEOLEDGER_STATEMENT_TIMEOUT or GEOLEDGER_CONNECT_RETRY cannot be used, thrown by ``connect()``.
    var invalidSetting: String?
    /// Seconds (GEOLEDGER_CONNECT_RETRY, default 0) to keep trying a connection the server refuses or does not
    /// answer, for a database that starts with the command (`docker compose up`).
    var connectRetrySeconds = 0
    /// The projector's bounds: GEOLEDGER_READ_TIMEOUT (seconds a read waits for the projections to pass the log's
    /// head) and GEOLEDGER_MAX_PROJECTION_LAG (events the projections may be behind before appends are held back).
    var projectorSettings = ProjectorRunner.Settings()
    /// The least level of the log lines written on standard error: GEOLEDGER_LOG_LEVEL (`--log-level` of `serve`,
    /// `ingest`, `project` and `replay`).
    var logLevel = Logger.Level.info

    /// - Parameters:
    ///   - ownerURL: the command's `--owner-url`, which goes before GEOLEDGER_OWNER_URL.
    ///   - applicationRole: the command's `--app-role`, which goes before GEOLEDGER_APP_ROLE.
    static func fromEnvironment(
        _ environment: [String: String] = ProcessInfo.processInfo.environment, ownerURL: String? = nil,
        applicationRole: String? = nil
    ) -> Settings {
        let folder = environment["GEOLEDGER_DATA_DIR"].map { URL(fileURLWithPath: $0) }
            ?? URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent(".data")
        let cluster = LocalCluster(folder: folder)
        // A variable set empty (`DATABASE_URL=`, as an env file or a compose file may leave it) is not set.
        func isSet(_ name: String) -> Bool { !(environment[name] ?? "").isEmpty }
        let usesLibpqVariables = ["PGHOST", "PGDATABASE", "PGPORT", "PGUSER", "PGSERVICE"].contains(where: isSet)
        let usesCluster = !isSet("DATABASE_URL") && !usesLibpqVariables
            && FileManager.default.fileExists(atPath: folder.appendingPathComponent("pgdata").path)
        let database = usesCluster ? cluster.configuration(as: .app) : .fromEnvironment(environment)
        let owner: PostgresConfiguration
        if let url = ownerURL ?? environment["GEOLEDGER_OWNER_URL"], !url.isEmpty {
            owner = PostgresConfiguration(connectionString: url)
        } else {
            owner = usesCluster ? cluster.configuration(as: .owner) : database
        }
        let role = applicationRole ?? environment["GEOLEDGER_APP_ROLE"].flatMap { $0.isEmpty ? nil : $0 } ?? database.user
        // Seconds a statement of the application may take, and the client wait for the server's answer; 0: no
        // limit. The owner's work (migrations, replay) builds indexes on the whole log and has none.
        let timeoutText = environment["GEOLEDGER_STATEMENT_TIMEOUT"].flatMap { $0.isEmpty ? nil : $0 } ?? "60"
        let timeout = Int(timeoutText).flatMap { (0...2_000_000).contains($0) ? Double($0) : nil }
        let retryText = environment["GEOLEDGER_CONNECT_RETRY"].flatMap { $0.isEmpty ? nil : $0 } ?? "0"
        let retry = Int(retryText).flatMap { (0...3600).contains($0) ? $0 : nil }
        // The log is known before the connections, which say what is worth a line to it.
        let levelText = environment["GEOLEDGER_LOG_LEVEL"].flatMap { $0.isEmpty ? nil : $0 } ?? "info"
        let level = Logger.Level(name: levelText)
        let slowText = environment["GEOLEDGER_SLOW_STATEMENT_MS"].flatMap { $0.isEmpty ? nil : $0 } ?? "5000"
        let slow = Int(slowText).flatMap { (0...86_400_000).contains($0) ? Double($0) / 1000 : nil }
        let logger = Self.logger(level ?? .info)
        var settings = Settings(
            localCluster: cluster,
            database: database.withStatementTimeout(timeout, setBy: "GEOLEDGER_STATEMENT_TIMEOUT (seconds, 0 for no limit)")
                .withLogging(logger, slowStatementSeconds: slow),
            owner: owner.withLogging(logger, slowStatementSeconds: slow), applicationRole: role,
            invalidSetting: timeout == nil
                ? "GEOLEDGER_STATEMENT_TIMEOUT must be whole seconds from 0 (no limit) to 2000000, not '\(timeoutText)'"
                : retry == nil ? "GEOLEDGER_CONNECT_RETRY must be whole seconds from 0 to 3600, not '\(retryText)'" : nil)
        settings.connectRetrySeconds = retry ?? 0
        let readTimeoutText = environment["GEOLEDGER_READ_TIMEOUT"].flatMap { $0.isEmpty ? nil : $0 } ?? "5"
        let lagText = environment["GEOLEDGER_MAX_PROJECTION_LAG"].flatMap { $0.isEmpty ? nil : $0 } ?? "200000"
        if let readTimeout = Double(readTimeoutText), readTimeout.isFinite, (0...3600).contains(readTimeout) {
            settings.projectorSettings.readTimeout = readTimeout
        } else if settings.invalidSetting == nil {
            settings.invalidSetting = "GEOLEDGER_READ_TIMEOUT must be seconds from 0 to 3600, not '\(readTimeoutText)'"
        }
        if let level {
            settings.logLevel = level
        } else if settings.invalidSetting == nil {
            settings.invalidSetting = "GEOLEDGER_LOG_LEVEL must be debug, info, warning or error, not '\(levelText)'"
        }
        if slow == nil && settings.invalidSetting == nil {
            settings.invalidSetting = "GEOLEDGER_SLOW_STATEMENT_MS must be whole milliseconds from 0 (none logged) to 86400000, not '\(slowText)'"
        }
        if let lag = Int64(lagText), (1...1_000_000_000).contains(lag) {
            settings.projectorSettings.maximumLag = lag
        } else if settings.invalidSetting == nil {
            settings.invalidSetting = "GEOLEDGER_MAX_PROJECTION_LAG must be a whole number of events from 1 to 1000000000, not '\(lagText)'"
        }
        return settings
    }

    /// The process environment with a command's `--log-level`, which goes before GEOLEDGER_LOG_LEVEL.
    static func environment(logLevel: String?) throws -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        if let logLevel {
            guard Logger.Level(name: logLevel) != nil else {
                throw UsageError("--log-level must be debug, info, warning or error, not '\(logLevel)'")
            }
            environment["GEOLEDGER_LOG_LEVEL"] = logLevel
        }
        return environment
    }

    /// The log of this process: JSON lines on standard error, from ``logLevel`` up.
    var logger: Logger { Self.logger(logLevel) }

    static func logger(_ level: Logger.Level) -> Logger {
        Logger(minimum: level) { line in writeStandardError(line + "\n") }
    }

    /// The projector of this process, on the application's database.
    func projector() -> ProjectorRunner {
        ProjectorRunner(configuration: database, settings: projectorSettings, logger: logger)
    }

    /// A connection for a command that reads the projections, once they hold every event committed before it: this
    /// process projects what the log holds beyond them, or waits for the projector that does, up to
    /// GEOLEDGER_READ_TIMEOUT.
    func connectForReading() throws -> Connection {
        let connection = try connect()
        do {
            try projector().awaitProjected(on: connection)
        } catch ProjectionError.behind(let behind) {
            connection.close()
            throw CommandError(
                "\(behind); GEOLEDGER_READ_TIMEOUT (seconds, now \(String(format: "%g", projectorSettings.readTimeout))) sets how long a "
                    + "read waits, and 'geoledger project' catches the projections up however long it takes")
        }
        return connection
    }

    /// A connection to the configured database, as the application, with a hint on failure.
    func connect() throws -> Connection {
        if let invalidSetting { throw CommandError(invalidSetting) }
        return try connect(database, hint: "Set DATABASE_URL (or libpq's PG* variables), or start the private cluster with 'geoledger db start'.")
    }

    /// A connection as the owner, with a hint on failure.
    func connectAsOwner() throws -> Connection {
        if let invalidSetting { throw CommandError(invalidSetting) }
        return try connect(owner, hint: """
            Set the owner's URL with --owner-url or GEOLEDGER_OWNER_URL; without either, the private cluster's owner \
            when DATABASE_URL is not set, else DATABASE_URL.
            """)
    }

    /// Runs `body`, which works as the owner; a refused privilege then says whose URL to give.
    func asOwner<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as PostgresError where error.sqlState == "42501" {
            throw CommandError(
                "\(error)\n\(owner.user ?? "the role connected") does not own the tables: give the owner's URL with "
                    + "--owner-url or GEOLEDGER_OWNER_URL.")
        }
    }

    /// Connects, trying again every 2 seconds for up to ``connectRetrySeconds`` while connecting fails, with a line
    /// on standard error for each failed try.
    private func connect(_ configuration: PostgresConfiguration, hint: String) throws -> Connection {
        let deadline = Date().addingTimeInterval(Double(connectRetrySeconds))
        while true {
            do {
                return try Connection.connect(configuration)
            } catch let error as PostgresError {
                let left = deadline.timeIntervalSinceNow
                guard error.kind == .connection, left > 0 else {
                    throw CommandError("cannot connect to \(configuration): \(error.message)\n\(hint)")
                }
                writeStandardError(
                    "geoledger: cannot connect to \(configuration) yet: \(error.message); trying again in 2 s "
                        + "(GEOLEDGER_CONNECT_RETRY: \(Int(left.rounded(.up))) s left)\n")
                Thread.sleep(forTimeInterval: min(2, left))
            }
        }
    }
}
