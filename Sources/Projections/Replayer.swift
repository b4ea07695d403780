import EventStore
import Foundation
import Postgres

/// Rebuilds every projection from the log: into fresh tables in a schema of their own, swapped in at the end in
/// the same transaction, so readers see the old tables until the new ones are complete.
///
/// The transaction holds the append lock throughout, so no event can be appended between the rebuild and the
/// swap; appends wait for the replay to finish.
public struct Replayer: Sendable {
    let chunkSize: Int64

    public init(chunkSize: Int64 = 50_000) {
        self.chunkSize = chunkSize
    }

    /// - Parameter progress: called after each chunk with (events replayed, events in the log).
    /// - Returns: the number of events replayed.
    @discardableResult
    public func replay(on connection: Connection, progress: (Int64, Int64) -> Void = { _, _ in }) throws -> Int64 {
        try connection.transaction { transaction in
            try EventLog().lockAppends(on: transaction)
            try transaction.execute("""
                SET LOCAL client_min_messages = warning;
                DROP SCHEMA IF EXISTS projections_rebuild CASCADE;
                CREATE SCHEMA projections_rebuild;
                """)
            let tables = try transaction.query(
                "SELECT tablename FROM pg_tables WHERE schemaname = 'projections' ORDER BY tablename"
            ).map { try $0.decode(0, as: String.self) }
            for table in tables {
                try transaction.execute(
                    "CREATE TABLE projections_rebuild.\(table) (LIKE projections.\(table) INCLUDING ALL)")
            }
            let head = try EventLog().headPosition(on: transaction)
            let projector = Projector(schema: "projections_rebuild")
            var done: Int64 = 0
            while done < head {
                let end = min(done + chunkSize, head)
                try projector.project((done + 1)...end, on: transaction)
                done = end
                progress(done, head)
            }
            try transaction.execute("""
                ALTER SCHEMA projections RENAME TO projections_replaced;
                ALTER SCHEMA projections_rebuild RENAME TO projections;
                DROP SCHEMA projections_replaced CASCADE;
                """)
            return head
        }
    }
}
