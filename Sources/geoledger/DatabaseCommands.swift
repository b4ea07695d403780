import CommandLineArguments
import EventStore
import Foundation
import Postgres

/// `db start|stop|status` (the private cluster) and `migrate`.
enum DatabaseCommands {
    static let all = [start, stop, status, migrate]

    static let start = Command(
        words: ["db", "start"], summary: "start the private PostgreSQL cluster under .data/ (creating it if needed)",
        help: """
            Usage: geoledger db start [--dir DIR] [--port N] [--throwaway]

            Initialises (initdb) and starts (pg_ctl) a private PostgreSQL cluster reachable only through a Unix
            socket inside DIR, creates the database 'geoledger', and prints its DATABASE_URL on stdout.
            As root, the server runs as the 'postgres' user.

            Options:
              --dir DIR      the cluster's folder (default: .data, or GEOLEDGER_DATA_DIR)
              --port N       the socket's port number (default: 5432; no TCP port is opened)
              --throwaway    fsync off: fast, for test clusters whose data may be lost

            Example:
              export DATABASE_URL=$(geoledger db start)
            """,
        run: { words in
            let arguments = try Arguments(words, options: ["dir", "port"], flags: ["throwaway"])
            let cluster = try cluster(arguments)
            try cluster.start(durable: !arguments.flag("throwaway"))
            print(cluster.url)
            return ExitCode.ok
        })

    static let stop = Command(
        words: ["db", "stop"], summary: "stop the private cluster",
        help: """
            Usage: geoledger db stop [--dir DIR] [--port N]

            Stops the private cluster (fast shutdown). Its data stays in DIR.
            """,
        run: { words in
            try cluster(try Arguments(words, options: ["dir", "port"])).stop()
            return ExitCode.ok
        })

    static let status = Command(
        words: ["db", "status"], summary: "say whether the private cluster is running, and its URL",
        help: """
            Usage: geoledger db status [--dir DIR] [--port N]

            Prints 'running', 'stopped' or 'not initialised', and the URL when running.
            Exit status 0 when running, 1 otherwise.
            """,
        run: { words in
            let cluster = try cluster(try Arguments(words, options: ["dir", "port"]))
            switch try cluster.state() {
            case .running:
                print("running \(cluster.url)")
                return ExitCode.ok
            case .stopped:
                print("stopped (\(cluster.folder.path))")
            case .notInitialised:
                print("not initialised (\(cluster.folder.path)); start it with 'geoledger db start'")
            }
            return ExitCode.failure
        })

    static let migrate = Command(
        words: ["migrate"], summary: "apply pending database migrations (--status lists them)",
        help: """
            Usage: geoledger migrate [--status]

            Applies the pending migrations in order, each in its own transaction, under an advisory lock (two
            concurrent runs are safe). Refuses to run, naming the file, when an applied migration has changed.

            Options:
              --status   list applied and pending migrations instead; changes nothing
            """,
        run: { words in
            let arguments = try Arguments(words, flags: ["status"])
            let connection = try Settings.fromEnvironment().connect()
            let migrator = Migrator(migrations: try Migration.bundled())
            if arguments.flag("status") {
                for migration in try migrator.status(on: connection) {
                    let state = migration.appliedAt.map { "applied \(ISO8601DateFormatter().string(from: $0))" } ?? "pending"
                    print("\(migration.name)  \(state)")
                }
                return ExitCode.ok
            }
            let applied = try migrator.migrate(on: connection)
            print(applied.isEmpty ? "up to date" : applied.map { "applied \($0)" }.joined(separator: "\n"))
            return ExitCode.ok
        })

    private static func cluster(_ arguments: Arguments) throws -> LocalCluster {
        if let extra = arguments.positionals.first { throw UsageError("unexpected argument '\(extra)'") }
        let settings = Settings.fromEnvironment()
        let folder = arguments.value("dir").map { URL(fileURLWithPath: $0) } ?? settings.localCluster.folder
        let port = try arguments.integer("port", default: settings.localCluster.port, range: 1...65535) ?? 5432
        return LocalCluster(folder: folder, port: port)
    }
}
