import EventStore
import Postgres
// The test databases themselves, which every user of this module needs.
@_exported import PostgresTestSupport

extension TestDatabase {
    /// A fresh database; when `migrated`, with the event store's migrations applied.
    public static func create(migrated: Bool = true) throws -> TestDatabase {
        let database = try createEmpty()
        if migrated {
            let connection = try database.connect()
            defer { connection.close() }
            try Migrator(migrations: try Migration.bundled()).migrate(on: connection)
        }
        return database
    }

    /// A fresh database with an owner and an application role (``createEmptyWithRoles()``). When `migrated`, the owner
    /// has run the migrations and granted the application its privileges.
    public static func createWithRoles(migrated: Bool = true) throws -> TestDatabase {
        let database = try createEmptyWithRoles()
        if migrated, let roles = database.roles {
            let owner = try database.connect(as: roles.owner)
            defer { owner.close() }
            try Migrator(migrations: try Migration.bundled()).migrate(on: owner)
            try ApplicationPrivileges.grant(to: roles.application, on: owner)
        }
        return database
    }
}
