import EventStore
import Foundation
import Postgres

/// Rebuilds every projection from the log: into fresh tables in a schema of their own, swapped in at the end in
/// the same transaction, so readers see the old tables until the new ones are complete.
///
/// The transaction holds the append lock throughout, so no event can be appended between the rebuild and the
/// swap; appends wait for the replay to finish. The same ``Projector`` as at append runs over the log in chunks;
/// secondary indexes are built once at the end rather than row by row.
public struct Replayer: Sendable {
    let chunkSize: Int64

    public init(chunkSize: Int64 = 100_000) {
        self.chunkSize = max(1, chunkSize)
    }

    /// - Parameter progress: called after each chunk with (events replayed, events in the log).
    /// - Returns: the number of events replayed.
    @discardableResult
    public func replay(on connection: Connection, progress: (Int64, Int64) -> Void = { _, _ in }) throws -> Int64 {
        try connection.transaction { transaction in
            try EventLog().lockAppends(on: transaction)
            let head = try EventLog().headPosition(on: transaction)
            let rebuild = try RebuildSchema.create(on: transaction)
            let projector = Projector(schema: RebuildSchema.name)
            var done: Int64 = 0
            while done < head {
                let end = min(done + chunkSize, head)
                try projector.project((done + 1)...end, on: transaction)
                done = end
                progress(done, head)
            }
            try rebuild.swapIn(on: transaction)
            return head
        }
    }
}

/// The fresh copy of the `projections` schema that replay fills: the same tables and keys, with the secondary
/// indexes added only when the data is in, then swapped in for the live schema.
private struct RebuildSchema {
    static let name = "projections_rebuild"
    /// `CREATE INDEX` statements of the live schema, to run on the rebuilt tables at the end.
    let indexDefinitions: [String]

    static func create(on connection: Connection) throws -> RebuildSchema {
        try connection.execute("""
            SET LOCAL client_min_messages = warning;
            DROP SCHEMA IF EXISTS \(name) CASCADE;
            CREATE SCHEMA \(name);
            """)
        let tables = try connection.query(
            "SELECT tablename FROM pg_tables WHERE schemaname = 'projections' ORDER BY tablename"
        ).map { try $0.decode(0, as: String.self) }
        for table in tables {
            try connection.execute(
                "CREATE TABLE \(name).\(table) (LIKE projections.\(table) INCLUDING DEFAULTS INCLUDING CONSTRAINTS)")
        }
        // Primary keys and unique constraints now: the writes need them.
        let constraints = try connection.query(
            """
            SELECT c.conrelid::regclass::text, c.conname, pg_get_constraintdef(c.oid)
            FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace
            WHERE n.nspname = 'projections' AND c.contype IN ('p', 'u')
            """)
        for row in constraints {
            let table = try row.decode(0, as: String.self).replacingOccurrences(of: "projections.", with: "")
            try connection.execute(
                "ALTER TABLE \(name).\(table) ADD CONSTRAINT \(try row.decode(1, as: String.self)) \(try row.decode(2, as: String.self))")
        }
        let indexes = try connection.query(
            """
            SELECT i.indexdef FROM pg_indexes i
            WHERE i.schemaname = 'projections'
              AND NOT EXISTS (SELECT 1 FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace
                              WHERE n.nspname = 'projections' AND c.conname = i.indexname)
            """
        ).map { try $0.decode(0, as: String.self).replacingOccurrences(of: " ON projections.", with: " ON \(name).") }
        return RebuildSchema(indexDefinitions: indexes)
    }

    /// Builds the secondary indexes and swaps the rebuilt schema in.
    func swapIn(on connection: Connection) throws {
        for definition in indexDefinitions {
            try connection.execute(definition)
        }
        try connection.execute("""
            ALTER SCHEMA projections RENAME TO projections_replaced;
            ALTER SCHEMA \(Self.name) RENAME TO projections;
            DROP SCHEMA projections_replaced CASCADE;
            """)
    }
}
