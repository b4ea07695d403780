import DatabaseTestSupport
import Foundation
import Postgres
import Testing

/// `db start` and `db status` on clusters of their own, each in a fresh folder (its socket too: the default port
/// number does not clash with any other cluster's).
@Suite("geoledger db start: the private cluster")
struct PrivateClusterTests {
    /// Nothing from the test run's environment chooses the database: only the cluster's folder does.
    static let onlyTheCluster: [String: String?] = [
        "DATABASE_URL": nil, "GEOLEDGER_OWNER_URL": nil, "GEOLEDGER_APP_ROLE": nil, "PGHOST": nil, "PGDATABASE": nil,
        "PGPORT": nil, "PGUSER": nil, "PGSERVICE": nil,
    ]

    /// Runs `body` with a new cluster's folder, then stops the cluster and removes the folder.
    func withNewCluster(_ body: (String) throws -> Void) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("geoledger-cluster-\(UUID())").path
        defer {
            _ = try? GeoledgerProcess.run(["db", "stop", "--dir", folder])
            try? FileManager.default.removeItem(atPath: folder)
        }
        try body(folder)
    }

    func geoledger(_ arguments: [String], in folder: String) throws -> GeoledgerProcess.Outcome {
        var environment = Self.onlyTheCluster
        environment["GEOLEDGER_DATA_DIR"] = folder
        return try GeoledgerProcess.run(arguments, environment: environment)
    }

    func firstRow(_ sql: String, _ parameters: [String] = [], as url: String) throws -> Row {
        let connection = try Connection.connect(PostgresConfiguration(connectionString: url))
        defer { connection.close() }
        return try #require(try connection.query(sql, parameters).first { _ in true })
    }

    @Test("db start on a new cluster makes both roles and prints the application's URL: no superuser, owns nothing")
    func newCluster() throws {
        try withNewCluster { folder in
            let started = try geoledger(["db", "start", "--dir", folder, "--throwaway"], in: folder)
            #expect(started.status == 0, "\(started.stderr)")
            let application = started.stdout.trimmingCharacters(in: .newlines)
            #expect(application.hasSuffix("user=geoledger_app"), "\(started.stdout)")

            let role = try firstRow(
                """
                SELECT current_user::text, r.rolsuper, r.rolcreatedb, r.rolcreaterole, r.rolbypassrls,
                       has_database_privilege(current_database(), 'CREATE'), has_schema_privilege('public', 'CREATE'),
                       pg_get_userbyid(d.datdba)::text,
                       (SELECT count(*) FROM pg_class WHERE relowner = r.oid) + (SELECT count(*) FROM pg_namespace WHERE nspowner = r.oid)
                       + (SELECT count(*) FROM pg_proc WHERE proowner = r.oid) + (SELECT count(*) FROM pg_database WHERE datdba = r.oid)
                FROM pg_roles r, pg_database d WHERE r.rolname = current_user AND d.datname = current_database()
                """, as: application)
            #expect(try role.decode(0, as: String.self) == "geoledger_app")
            for column in 1...6 {
                #expect(try role.decode(column, as: Bool.self) == false, "column \(column)")
            }
            #expect(try role.decode(7, as: String.self) == "geoledger_owner", "the database's owner")
            #expect(try role.decode(8, as: Int.self) == 0, "the application owns nothing")

            let owner = try geoledger(["db", "start", "--dir", folder, "--print", "owner"], in: folder)
            let ownerURL = owner.stdout.trimmingCharacters(in: .newlines)
            let ownerRole = try firstRow("SELECT current_user::text, rolsuper FROM pg_roles WHERE rolname = current_user", as: ownerURL)
            #expect(try ownerRole.decode(0, as: String.self) == "geoledger_owner")
            #expect(try ownerRole.decode(1, as: Bool.self) == false)

            let status = try geoledger(["db", "status", "--dir", folder], in: folder)
            #expect(status.status == 0)
            #expect(status.stdout.contains("app        \(application)\n"), "\(status.stdout)")
            #expect(status.stdout.contains("owner      \(ownerURL)\n"), "\(status.stdout)")
            #expect(status.stdout.contains("superuser  ") && status.stdout.contains("user=postgres\n"), "\(status.stdout)")

            // With nothing else set, migrate runs as the private cluster's owner and grants the application, which
            // the other commands connect as.
            let migrate = try geoledger(["migrate"], in: folder)
            #expect(migrate.status == 0, "\(migrate.stderr)")
            #expect(migrate.stdout.contains("granted geoledger_app the application's privileges"), "\(migrate.stdout)")
            let events = try firstRow("SELECT pg_get_userbyid(relowner)::text FROM pg_class WHERE relname = 'events'", as: ownerURL)
            #expect(try events.decode(0, as: String.self) == "geoledger_owner")
            let verify = try geoledger(["verify"], in: folder)
            #expect(verify.status == 0, "\(verify.stderr)")
            #expect(verify.stdout.contains("every chain intact"))

            // Set but empty, as an env file may leave it, DATABASE_URL is not set: the private cluster is still the
            // one used.
            var empty = Self.onlyTheCluster
            empty["DATABASE_URL"] = ""
            empty["GEOLEDGER_DATA_DIR"] = folder
            let projections = try GeoledgerProcess.run(["status"], environment: empty)
            #expect(projections.status == 0, "\(projections.stderr)")
            #expect(projections.stdout.hasPrefix("log head        0\n"), "\(projections.stdout)")
        }
    }

    @Test("db start hands a database the superuser made, and what the superuser made in it, to the owner")
    func databaseMadeBeforeTheRoles() throws {
        try withNewCluster { folder in
            let superuser = try geoledger(["db", "start", "--dir", folder, "--throwaway", "--print", "superuser"], in: folder)
            #expect(superuser.status == 0, "\(superuser.stderr)")
            let url = superuser.stdout.trimmingCharacters(in: .newlines)
            do {
                let connection = try Connection.connect(PostgresConfiguration(connectionString: url))
                defer { connection.close() }
                try connection.execute("""
                    ALTER DATABASE geoledger OWNER TO postgres;
                    CREATE TABLE events (position bigint PRIMARY KEY);
                    CREATE SCHEMA projections;
                    CREATE TABLE projections.fixes (position bigint);
                    CREATE FUNCTION events_are_immutable() RETURNS int LANGUAGE sql AS 'SELECT 1';
                    """)
            }
            let again = try geoledger(["db", "start", "--dir", folder], in: folder)
            #expect(again.status == 0, "\(again.stderr)")
            let owners = try firstRow(
                """
                SELECT (SELECT pg_get_userbyid(datdba)::text FROM pg_database WHERE datname = current_database()),
                       (SELECT pg_get_userbyid(relowner)::text FROM pg_class WHERE oid = 'events'::regclass),
                       (SELECT pg_get_userbyid(relowner)::text FROM pg_class WHERE oid = 'projections.fixes'::regclass),
                       (SELECT pg_get_userbyid(nspowner)::text FROM pg_namespace WHERE nspname = 'projections'),
                       (SELECT pg_get_userbyid(proowner)::text FROM pg_proc WHERE oid = 'events_are_immutable()'::regprocedure)
                """, as: url)
            for column in 0..<5 {
                #expect(try owners.decode(column, as: String.self) == "geoledger_owner", "column \(column)")
            }
        }
    }

    /// A shell's `$(geoledger db start)` ends when every holder of the pipe has closed it: the server must not be one.
    @Test("the server db start leaves running keeps no descriptor db start inherited")
    func serverKeepsNoInheritedDescriptor() throws {
        try withNewCluster { folder in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            // Descriptor 3 is another copy of the output pipe.
            process.arguments = ["-c", #"exec "$0" db start --dir "$1" --throwaway 3>&1"#, GeoledgerProcess.binary, folder]
            let output = Pipe()
            process.standardOutput = output
            try process.run()
            let finished = DispatchSemaphore(value: 0)
            nonisolated(unsafe) var printed = Data()
            DispatchQueue.global().async {
                printed = output.fileHandleForReading.readUntilEnd()
                finished.signal()
            }
            // Foundation learns that a process ended from a descriptor the process inherits: while the server holds
            // that too, waiting for db start to exit would never end.
            try #require(finished.wait(timeout: .now() + 30) == .success, "the output pipe is still held open after db start exited")
            process.waitUntilExit()
            #expect(process.terminationStatus == 0)
            #expect(String(decoding: printed, as: UTF8.self).hasSuffix("user=geoledger_app\n"))
        }
    }
}
