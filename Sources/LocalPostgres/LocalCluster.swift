import Foundation
import Postgres

/// A private PostgreSQL cluster in a folder of its own (initdb + pg_ctl), reachable only through a Unix
/// socket inside that folder. When run as root, the server runs as the `postgres` user, as PostgreSQL requires.
///
/// Besides the superuser it has two login roles (``Role``): the owner of the database and everything in it, and the
/// application, which gets only what migrations grant it. Every role connects without a password, over the socket
/// that only the folder's user can reach.
///
/// Layout: `<folder>/pgdata` (the cluster), `<folder>/socket` (the socket), `<folder>/server.log`.
public struct LocalCluster: Sendable {
    public let folder: URL
    public let port: Int
    public let database: String

    public init(folder: URL, port: Int = 5432, database: String = "geoledger") {
        self.folder = folder.standardizedFileURL
        self.port = port
        self.database = database
    }

    var dataDirectory: URL { folder.appendingPathComponent("pgdata") }
    var socketDirectory: URL { folder.appendingPathComponent("socket") }
    var logFile: URL { folder.appendingPathComponent("server.log") }

    /// Who connects: the superuser (creates databases and roles), the owner (migrations, replay) or the
    /// application (everything else).
    public enum Role: String, Sendable, CaseIterable {
        case app, owner, superuser

        /// The role's name in the cluster.
        public var name: String {
            switch self {
            case .app: "geoledger_app"
            case .owner: "geoledger_owner"
            case .superuser: "postgres"
            }
        }
    }

    /// The connection URL of the cluster's database for a role.
    public func url(as role: Role = .app) -> String {
        "postgresql:///\(database)?host=\(socketDirectory.path)&port=\(port)&user=\(role.name)"
    }

    public func configuration(as role: Role = .app) -> PostgresConfiguration {
        PostgresConfiguration(connectionString: url(as: role))
    }

    public enum State: Sendable, Equatable {
        case notInitialised, stopped, running
    }

    public func state() throws -> State {
        guard FileManager.default.fileExists(atPath: dataDirectory.appendingPathComponent("PG_VERSION").path) else {
            return .notInitialised
        }
        let result = try run(try Self.binary("pg_ctl"), ["status", "-D", dataDirectory.path])
        return result.status == 0 ? .running : .stopped
    }

    /// Initialises the cluster when needed, starts it, and creates the roles and the database when missing.
    /// - Parameters:
    ///   - durable: false turns fsync off, for throwaway test clusters, and allows 300 connections rather than 100: a
    ///     test suite runs many servers and commands against one at once.
    ///   - settings: more `postgresql.conf` lines, written when the cluster is initialised.
    public func start(durable: Bool = true, settings: String = "") throws {
        if try state() == .notInitialised { try initialise(durable: durable, extraSettings: settings) }
        if try state() != .running {
            let result = try run(
                try Self.binary("pg_ctl"), ["start", "-w", "-t", "60", "-D", dataDirectory.path, "-l", logFile.path])
            guard result.status == 0 else {
                throw LocalClusterError.commandFailed("pg_ctl start", output: result.output + tail(of: logFile))
            }
        }
        try createRolesAndDatabase()
    }

    public func stop() throws {
        guard try state() == .running else { return }
        let result = try run(try Self.binary("pg_ctl"), ["stop", "-w", "-m", "fast", "-D", dataDirectory.path])
        guard result.status == 0 else { throw LocalClusterError.commandFailed("pg_ctl stop", output: result.output) }
    }

    private func initialise(durable: Bool, extraSettings: String) throws {
        let files = FileManager.default
        try files.createDirectory(at: socketDirectory, withIntermediateDirectories: true)
        try files.createDirectory(at: dataDirectory, withIntermediateDirectories: true)
        try files.setAttributes([.posixPermissions: 0o700], ofItemAtPath: dataDirectory.path)
        if Self.isRoot {
            try chownToPostgres([folder, socketDirectory, dataDirectory])
        }
        let result = try run(
            try Self.binary("initdb"),
            ["-D", dataDirectory.path, "-U", "postgres", "--auth=trust", "--encoding=UTF8", "--locale=C", "--no-instructions"])
        guard result.status == 0 else { throw LocalClusterError.commandFailed("initdb", output: result.output) }
        var settings = """

            # Geoledger's private cluster: Unix socket only, inside its own folder.
            listen_addresses = ''
            unix_socket_directories = '\(socketDirectory.path)'
            unix_socket_permissions = 0700
            port = \(port)
            max_connections = \(durable ? 100 : 300)
            shared_buffers = 256MB

            """
        if !durable { settings += "fsync = off\nsynchronous_commit = off\nfull_page_writes = off\n" }
        settings += extraSettings
        let handle = try FileHandle(forWritingTo: dataDirectory.appendingPathComponent("postgresql.conf"))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(settings.utf8))
        try handle.close()
    }

    /// The owner and application roles and the owner's database, each made when missing. A database made before
    /// the cluster had these roles passes, with everything the superuser made in it, to the owner.
    private func createRolesAndDatabase() throws {
        let connection = try Connection.connect(configuration(as: .superuser).withDatabase("postgres"))
        defer { connection.close() }
        for role in [Role.owner, .app] {
            if try connection.query("SELECT 1 FROM pg_roles WHERE rolname = $1", [role.name]).count == 0 {
                try connection.execute("CREATE ROLE \(quotedIdentifier(role.name)) LOGIN")
            }
        }
        let owner = quotedIdentifier(Role.owner.name)
        let databaseOwner = try connection.query(
            "SELECT pg_get_userbyid(datdba) FROM pg_database WHERE datname = $1", [database]
        ).first { _ in true }.map { try $0.decode(0, as: String.self) }
        switch databaseOwner {
        case nil:
            try connection.execute("CREATE DATABASE \(quotedIdentifier(database)) OWNER \(owner)")
        case Role.owner.name?:
            break
        default:
            try connection.execute("ALTER DATABASE \(quotedIdentifier(database)) OWNER TO \(owner)")
            try handOverObjects(to: owner)
        }
    }

    /// Gives the owner the schemas, tables, views, sequences and functions the superuser made in the database.
    private func handOverObjects(to owner: String) throws {
        let connection = try Connection.connect(configuration(as: .superuser))
        defer { connection.close() }
        let statements = try connection.query(
            """
            SELECT 'ALTER SCHEMA ' || quote_ident(n.nspname) FROM pg_namespace n
            WHERE n.nspowner = $1::regrole AND n.nspname NOT LIKE 'pg\\_%' AND n.nspname <> 'information_schema'
            UNION ALL
            SELECT 'ALTER TABLE ' || c.oid::regclass FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE c.relowner = $1::regrole AND c.relkind IN ('r', 'p', 'v', 'm', 'f', 'S')
              AND n.nspname NOT LIKE 'pg\\_%' AND n.nspname <> 'information_schema'
              AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid
                                                          AND d.deptype IN ('a', 'i'))
            UNION ALL
            SELECT 'ALTER ROUTINE ' || p.oid::regprocedure FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
            WHERE p.proowner = $1::regrole AND n.nspname NOT LIKE 'pg\\_%' AND n.nspname <> 'information_schema'
            """, [Role.superuser.name]
        ).map { try $0.decode(0, as: String.self) }
        for statement in statements {
            try connection.execute("\(statement) OWNER TO \(owner)")
        }
    }

    private func chownToPostgres(_ urls: [URL]) throws {
        guard let user = getpwnam("postgres") else {
            throw LocalClusterError.noPostgresUser
        }
        for url in urls where chown(url.path, user.pointee.pw_uid, user.pointee.pw_gid) != 0 {
            throw LocalClusterError.commandFailed("chown \(url.path)", output: String(cString: strerror(errno)))
        }
        // The server must reach its folder: every parent needs the execute bit for others.
        var parent = folder.deletingLastPathComponent()
        while parent.path != "/" {
            var info = stat()
            if stat(parent.path, &info) == 0 && info.st_mode & S_IXOTH == 0 {
                throw LocalClusterError.unreachableFolder(parent.path)
            }
            parent = parent.deletingLastPathComponent()
        }
    }

    static var isRoot: Bool { geteuid() == 0 }

    /// Finds a PostgreSQL server program on PATH or in Debian's versioned folders, newest first.
    static func binary(_ name: String) throws -> String {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        var candidates = path.split(separator: ":").map { "\($0)/\(name)" }
        let debian = "/usr/lib/postgresql"
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: debian)) ?? []
        candidates += versions.sorted { (Int($0) ?? 0) > (Int($1) ?? 0) }.map { "\(debian)/\($0)/bin/\(name)" }
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw LocalClusterError.missingProgram(name)
        }
        return found
    }

    /// Runs a server program, as the postgres user when we are root; returns its exit status and output.
    /// posix_spawn and waitpid on that one child: the server that `pg_ctl start` leaves running must neither
    /// hold our output open nor be mistaken for the child we wait for. Nor may it keep any other descriptor we
    /// hold: a pipe that our parent let us inherit would then never reach its end.
    private func run(_ program: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let argv = Self.isRoot ? ["/usr/sbin/runuser", "-u", "postgres", "--", program] + arguments : [program] + arguments
        let outputPath = FileManager.default.temporaryDirectory.appendingPathComponent("geoledger-\(UUID().uuidString).out").path
        defer { unlink(outputPath) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        for descriptor in Self.openDescriptors() where descriptor > 2 {
            posix_spawn_file_actions_addclose(&actions, descriptor)
        }
        var cArguments = argv.map { strdup($0) } + [nil]
        defer { cArguments.forEach { free($0) } }
        var pid = pid_t()
        let spawned = posix_spawn(&pid, argv[0], &actions, nil, &cArguments, environ)
        guard spawned == 0 else {
            throw LocalClusterError.commandFailed(argv[0], output: String(cString: strerror(spawned)))
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        let output = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        let exited = status & 0x7f == 0
        return (exited ? (status >> 8) & 0xff : 128 + (status & 0x7f), output)
    }

    /// The descriptors open in this process (the one that lists them is closed again by the time they are used).
    private static func openDescriptors() -> [Int32] {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/dev/fd")) ?? []).compactMap { Int32($0) }
    }

    private func tail(of file: URL) -> String {
        guard let text = try? String(contentsOf: file, encoding: .utf8) else { return "" }
        return "\n" + text.split(separator: "\n").suffix(10).joined(separator: "\n")
    }
}

public enum LocalClusterError: Error, CustomStringConvertible {
    case missingProgram(String)
    case missingCitus(String)
    case noPostgresUser
    case unreachableFolder(String)
    case commandFailed(String, output: String)

    public var description: String {
        switch self {
        case .missingProgram(let name):
            return "\(name) was not found on PATH nor in /usr/lib/postgresql/*/bin; install it with: apt-get install postgresql"
        case .missingCitus(let path):
            return "Citus is not installed (no \(path)); build and install it with: make citus"
        case .noPostgresUser:
            return "running as root, but there is no 'postgres' user to run the server as; install it with: apt-get install postgresql"
        case .unreachableFolder(let path):
            return "the postgres user cannot enter \(path) (no execute bit for others); put the cluster elsewhere or chmod o+x \(path)"
        case .commandFailed(let command, let output):
            return "\(command) failed:\n\(output.trimmingCharacters(in: .whitespacesAndNewlines))"
        }
    }
}
