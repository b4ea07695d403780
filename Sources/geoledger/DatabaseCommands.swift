import CommandLineArguments
import EventStore
import Foundation
import LocalPostgres
import Postgres

/// `db start|stop|status` (the private cluster) and `migrate`.
enum DatabaseCommands {
    static let all = [start, stop, status, migrate]

    static let start = Command(
        words: ["db", "start"], summary: "start the private PostgreSQL cluster under .data/ (creating it if needed)",
        help: """
            Usage: geoledger db start [--dir DIR] [--port N] [--throwaway] [--citus] [--print app|owner|superuser]

            Initialises (initdb) and starts (pg_ctl) a private PostgreSQL cluster reachable only through a Unix
            socket inside DIR, and creates what is missing of: the role geoledger_owner, which owns the database
            'geoledger' and runs 'migrate' and 'replay'; the role geoledger_app, which the other commands connect
            as and which 'migrate' grants only INSERT and SELECT on the log and what the projections need; the
            database. Prints the application's DATABASE_URL on stdout. Every role connects without a password,
            over the socket only the folder's user can reach. As root, the server runs as the 'postgres' user.

            Options:
              --dir DIR      the cluster's folder (default: .data, or GEOLEDGER_DATA_DIR)
              --port N       the socket's port number (default: 5432; no TCP port is opened)
              --throwaway    fsync off: fast, for test clusters whose data may be lost
              --citus        a Citus cluster instead: a coordinator (DIR/coordinator, port N) and two workers
                             (DIR/worker1 and DIR/worker2, ports N+1 and N+2), Citus preloaded, the extension
                             created in the database on each and the workers registered on the coordinator;
                             the URL printed is the coordinator's. Needs Citus installed: make citus
              --print ROLE   print the URL of another role instead: owner, or superuser (postgres, which
                             creates databases and roles; tests need it)

            Example:
              export DATABASE_URL=$(geoledger db start)
            """,
        run: { words in
            let arguments = try Arguments(words, options: ["dir", "port", "print"], flags: ["throwaway", "citus"])
            let role = LocalCluster.Role(rawValue: try arguments.choice("print", from: LocalCluster.Role.allCases.map(\.rawValue), default: "app"))!
            let cluster = try cluster(arguments)
            if arguments.flag("citus") || LocalCitusCluster.exists(in: cluster.folder) {
                let citus = LocalCitusCluster(folder: cluster.folder, port: cluster.port)
                try citus.start(durable: !arguments.flag("throwaway"))
                print(citus.coordinator.url(as: role))
            } else {
                try cluster.start(durable: !arguments.flag("throwaway"))
                print(cluster.url(as: role))
            }
            return ExitCode.ok
        })

    static let stop = Command(
        words: ["db", "stop"], summary: "stop the private cluster",
        help: """
            Usage: geoledger db stop [--dir DIR] [--port N]

            Stops the private cluster (fast shutdown), or every node of a Citus cluster that 'db start --citus'
            made in DIR. Its data stays in DIR.

            Example:
              geoledger db stop --dir /tmp/geoledger-test --port 55439
            """,
        run: { words in
            let cluster = try cluster(try Arguments(words, options: ["dir", "port"]))
            if LocalCitusCluster.exists(in: cluster.folder) {
                try LocalCitusCluster(folder: cluster.folder, port: cluster.port).stop()
            } else {
                try cluster.stop()
            }
            return ExitCode.ok
        })

    static let status = Command(
        words: ["db", "status"], summary: "say whether the private cluster is running, and its URLs",
        help: """
            Usage: geoledger db status [--dir DIR] [--port N]

            Prints 'running', 'stopped' or 'not initialised'; when running, the URL of each role on a line of its
            own: app (DATABASE_URL), owner (GEOLEDGER_OWNER_URL, for 'migrate' and 'replay'), superuser.
            For a Citus cluster, the coordinator's URLs, then each worker's state and superuser URL.
            Exit status 0 when running (every node of a Citus cluster), 1 otherwise.

            Example:
              geoledger db status
            """,
        run: { words in
            var cluster = try cluster(try Arguments(words, options: ["dir", "port"]))
            let citus = LocalCitusCluster.exists(in: cluster.folder) ? LocalCitusCluster(folder: cluster.folder, port: cluster.port) : nil
            if let citus { cluster = citus.coordinator }
            switch try cluster.state() {
            case .running:
                print("running (\(cluster.folder.path))")
                for role in LocalCluster.Role.allCases {
                    print(role.rawValue.padding(toLength: 11, withPad: " ", startingAt: 0) + cluster.url(as: role))
                }
                var allRunning = true
                for worker in citus?.workers ?? [] {
                    let state = try worker.state()
                    allRunning = allRunning && state == .running
                    print("worker     \(state == .running ? worker.url(as: .superuser) : "\(state) (\(worker.folder.path))")")
                }
                return allRunning ? ExitCode.ok : ExitCode.failure
            case .stopped:
                print("stopped (\(cluster.folder.path))")
            case .notInitialised:
                print("not initialised (\(cluster.folder.path)); start it with 'geoledger db start'")
            }
            return ExitCode.failure
        })

    static let migrate = Command(
        words: ["migrate"], summary: "apply pending database migrations as the owner, and grant the application",
        help: """
            Usage: geoledger migrate [--status] [--owner-url URL] [--app-role ROLE]

            Applies the pending migrations in order, each in its own transaction, under an advisory lock (two
            concurrent runs are safe). Refuses to run, naming the file, when an applied migration has changed.
            Then grants the application role what it needs and nothing more: SELECT and INSERT on the log and
            the projections, UPDATE on the terminal bindings; any other privilege it had on them is revoked.

            It connects as the owner of the tables: --owner-url, else GEOLEDGER_OWNER_URL, else the private
            cluster's owner when DATABASE_URL is not set and the cluster exists, else DATABASE_URL. In that last
            case the application connects as the tables' owner, which may switch the log's triggers off: that is
            not least privilege.

            Options:
              --status          list applied and pending migrations instead; changes nothing
              --owner-url URL   the owner's connection URL (default: GEOLEDGER_OWNER_URL, as above)
              --app-role ROLE   the role to grant to (default: GEOLEDGER_APP_ROLE, else the user of
                                DATABASE_URL); nothing is granted when it is the owner

            Example (a server you run yourself, the roles made beforehand):
              geoledger migrate --owner-url postgresql://geoledger_owner@db.example/geoledger --app-role geoledger_app
            """,
        run: { words in
            let arguments = try Arguments(words, options: ["owner-url", "app-role"], flags: ["status"])
            if let extra = arguments.positionals.first { throw UsageError("unexpected argument '\(extra)'") }
            let settings = Settings.fromEnvironment(ownerURL: arguments.value("owner-url"), applicationRole: arguments.value("app-role"))
            let connection = try settings.connectAsOwner()
            let migrator = Migrator(migrations: try Migration.bundled())
            if arguments.flag("status") {
                for migration in try settings.asOwner({ try migrator.status(on: connection) }) {
                    let state = migration.appliedAt.map { "applied \(ISO8601DateFormatter().string(from: $0))" } ?? "pending"
                    print("\(migration.name)  \(state)")
                }
                return ExitCode.ok
            }
            let applied = try settings.asOwner { try migrator.migrate(on: connection) }
            print(applied.isEmpty ? "up to date" : applied.map { "applied \($0)" }.joined(separator: "\n"))
            let owner = try connection.query("SELECT current_user").first { _ in true }?.decode(0, as: String.self)
            if let role = settings.applicationRole, role != owner {
                try ApplicationPrivileges.grant(to: role, on: connection)
                print("granted \(role) the application's privileges")
            }
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
