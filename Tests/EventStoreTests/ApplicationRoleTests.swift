import DatabaseTestSupport
import EventStore
import Foundation
import Postgres
import Testing

/// The application connects as a role the owner migrated for and granted: it appends and reads, and has no way
/// to change or remove an event.
@Suite("The application role")
struct ApplicationRoleTests {
    let store = EventLog()
    static let update = "UPDATE events SET type = 'Changed' WHERE position = 1"

    @Test("as the application role, no statement changes an event: each is refused and the log is as it was", arguments: [
        [update],
        ["DELETE FROM events WHERE position = 1"],
        ["TRUNCATE events"],
        ["ALTER TABLE events DISABLE TRIGGER ALL", update],
        ["SET session_replication_role = replica", update],
    ])
    func cannotChangeEvents(statements: [String]) throws {
        let database = try TestDatabase.createWithRoles()
        defer { database.drop() }
        let application = try database.connect(as: try #require(database.roles).application)
        _ = try store.append([event("a-1", 1), event("a-1", 2), event("b-1", 1)], on: application)
        let before = try store.readAll(after: 0, limit: 10, on: application)
        #expect(before.count == 3)
        for statement in statements {
            #expect("\(statement)") {
                try application.execute(statement)
            } throws: { error in
                (error as? PostgresError)?.sqlState == "42501"
            }
        }
        #expect(try store.readAll(after: 0, limit: 10, on: application) == before)
        #expect(try Verifier().verify(on: application).firstBrokenLink == nil)
    }

    /// What the application must not be: the same two statements change an event for a superuser.
    @Test("a superuser gets past the triggers with session_replication_role = replica")
    func superuserChangesEvents() throws {
        let database = try TestDatabase.create()
        defer { database.drop() }
        let superuser = try database.connect()
        _ = try store.append([event("a-1", 1)], on: superuser)
        // On Citus the update runs on the worker holding the log's shard: the setting goes there with it only as a
        // SET LOCAL that Citus is told to pass on (a setting PostgreSQL alone keeps and ignores).
        try superuser.transaction { transaction in
            try transaction.execute("SET LOCAL citus.propagate_set_commands = 'local'")
            try transaction.execute("SET LOCAL session_replication_role = replica")
            try transaction.execute(Self.update)
        }
        #expect(try store.readAll(after: 0, limit: 1, on: superuser).map(\.type) == ["Changed"])
    }

    @Test("the application role may append and read the log and keep the projections, and nothing more")
    func privileges() throws {
        let database = try TestDatabase.createWithRoles()
        defer { database.drop() }
        let roles = try #require(database.roles)
        let owner = try database.connect(as: roles.owner)
        // What an earlier, careless setup may have given it is taken back.
        try owner.execute("GRANT ALL ON events, projections.fixes TO \(roles.application)")
        try ApplicationPrivileges.grant(to: roles.application, on: owner)

        func granted(_ privilege: String, on table: String) throws -> Bool {
            try owner.query("SELECT has_table_privilege($1, $2, $3)", [roles.application, table, privilege])
                .first { _ in true }!.decode(0, as: Bool.self)
        }
        for table in ["events", "projections.fixes", "projections.failures", "projections.visits", "projections.terminals"] {
            #expect(try granted("SELECT", on: table), "\(table)")
            #expect(try granted("INSERT", on: table), "\(table)")
            for privilege in ["DELETE", "TRUNCATE", "REFERENCES", "TRIGGER"] {
                #expect(try !granted(privilege, on: table), "\(privilege) on \(table)")
            }
        }
        #expect(try !granted("UPDATE", on: "events"))
        #expect(try !granted("UPDATE", on: "projections.fixes"))
        #expect(try granted("UPDATE", on: "projections.terminals"), "the bindings upsert")
        #expect(try !granted("SELECT", on: "schema_migrations"))

        let role = try owner.query(
            """
            SELECT r.rolsuper, r.rolcreaterole, r.rolcreatedb, r.rolbypassrls,
                   has_database_privilege(r.rolname, current_database(), 'CREATE'),
                   has_schema_privilege(r.rolname, 'public', 'CREATE'),
                   has_schema_privilege(r.rolname, 'projections', 'CREATE'),
                   (SELECT count(*) FROM pg_class WHERE relowner = r.oid)
                   + (SELECT count(*) FROM pg_namespace WHERE nspowner = r.oid)
                   + (SELECT count(*) FROM pg_proc WHERE proowner = r.oid)
            FROM pg_roles r WHERE r.rolname = $1
            """, [roles.application]
        ).first { _ in true }!
        for column in 0..<7 {
            #expect(try role.decode(column, as: Bool.self) == false, "column \(column)")
        }
        #expect(try role.decode(7, as: Int.self) == 0, "owns nothing")
    }
}
