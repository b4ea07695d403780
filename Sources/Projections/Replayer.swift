import EventStore
import Foundation
import Postgres
import Synchronization

/// Rebuilds every projection from the log into fresh tables in a schema of their own, then swaps them in: readers
/// see the old tables until the new ones are complete.
///
/// The same ``Projector`` as behind the log runs over it in chunks, on several connections at once (the history
/// rows of one chunk do not depend on another's), while the summaries are counted in memory (``SummaryTotals``) and
/// written once; then it carries every terminal's binding forward in one pass and builds the keys and indexes, two at
/// a time. Appends go on meanwhile; at the end one transaction takes the append lock and the projector's, projects
/// what was appended since, sets the rebuilt checkpoint at the log's head and swaps the schemas, so nothing appended
/// is missed.
/// One replay runs at a time. A replay that fails drops its rebuild; one that was killed leaves it to the next.
public struct Replayer: Sendable {
    let chunkSize: Int64
    let workers: Int

    public init(chunkSize: Int64 = 20_000, workers: Int = 3) {
        self.chunkSize = max(1, chunkSize)
        self.workers = max(1, workers)
    }

    /// Arbitrary, fixed: the session advisory lock a replay holds, so that one runs at a time.
    public static let replayLockKey: Int64 = 0x6765_6f6c_7265_706c

    /// - Parameters:
    ///   - configuration: the database; the replay opens `workers` + 1 connections to it. Its statement timeout does
    ///     not apply: the keys and indexes of a large log's history take minutes to build, and the swap waits for
    ///     the appends in progress.
    ///   - progress: called after each chunk with (events replayed, events in the log when it started), from the
    ///     worker threads, one call at a time.
    /// - Returns: the number of events replayed.
    @discardableResult
    public func replay(
        _ configuration: PostgresConfiguration, progress: @escaping @Sendable (Int64, Int64) -> Void = { _, _ in }
    ) throws -> Int64 {
        let configuration = configuration.withStatementTimeout(nil)
        let coordinator = try Connection.connect(configuration)
        defer { coordinator.close() }
        // Should this process die in a long statement (an index build, the wait for the append lock), the server
        // session checks every second that it is still there and ends, instead of finishing the statement with the
        // replay lock held.
        try coordinator.execute("SET client_connection_check_interval = '1s'")
        guard try coordinator.query("SELECT pg_try_advisory_lock($1)", [Self.replayLockKey]).first?.decode(0, as: Bool.self) == true else {
            throw ProjectionError.replayAlreadyRunning
        }
        defer { _ = try? coordinator.query("SELECT pg_advisory_unlock($1)", [Self.replayLockKey]) }
        // The replay lock is held by every replay running, so a rebuild found now is one whose replay was killed.
        try RebuildSchema.drop(on: coordinator)
        do {
            return try replay(configuration, on: coordinator, progress: progress)
        } catch {
            // The original error matters, not a failure to clean up after it: the next replay drops what is left.
            try? RebuildSchema.drop(on: coordinator)
            throw error
        }
    }

    /// Builds the rebuild schema and swaps it in; the caller holds the replay lock on `coordinator`.
    private func replay(
        _ configuration: PostgresConfiguration, on coordinator: Connection, progress: @escaping @Sendable (Int64, Int64) -> Void
    ) throws -> Int64 {
        let rebuild = try RebuildSchema.create(on: coordinator)
        let start = try EventLog().headPosition(on: coordinator)
        let (bindingEvents, summaries) = try projectInParallel(through: start, configuration: configuration, progress: progress)
        try Projector(schema: RebuildSchema.name).insert(
            Projector.carried(bindingEvents.sorted { $0.position < $1.position }, from: [:]), on: coordinator)
        try summaries.write(into: RebuildSchema.name, on: coordinator)
        // Keys and indexes now, while appends go on: under the lock there is only the catch-up left to do.
        try rebuild.buildIndexes(configuration)
        return try coordinator.transaction { transaction in
            // On Citus, the catch-up writes the shards one connection at a time: the schema swap that follows may
            // not come after parallel writes in the same transaction.
            if rebuild.distributed { try transaction.execute("SET LOCAL citus.multi_shard_modify_mode TO 'sequential'") }
            // Under the append lock nothing is appended, and under the projector's lock no batch of the live projector
            // is half written: the rebuilt schema, with its checkpoint at the log's head, replaces the live one whole.
            try EventLog().lockAppends(on: transaction)
            try ProjectorRunner.lockProjector(on: transaction)
            let end = try EventLog().headPosition(on: transaction)
            if end > start {
                try Projector(schema: RebuildSchema.name).project((start + 1)...end, on: transaction)
            }
            try Checkpoint.advance(to: end, in: RebuildSchema.name, on: transaction)
            try rebuild.swapIn(on: transaction)
            return end
        }
    }

    /// Writes the history tables for positions 1...head into the rebuild schema, chunk by chunk, each chunk in its
    /// own transaction, and counts the summaries in memory.
    /// - Returns: the binds and unbinds read, in no particular order: a terminal's may span chunks, so its binding
    ///   is carried forward once all are in; and the summary tables' rows.
    private func projectInParallel(
        through head: Int64, configuration: PostgresConfiguration, progress: @escaping @Sendable (Int64, Int64) -> Void
    ) throws -> ([ProjectedEvent], SummaryTotals) {
        let bindingEvents = Mutex<[ProjectedEvent]>([])
        let summaries = Mutex<[SummaryTotals]>([])
        let next = Mutex<Int64>(0)
        let done = Mutex<Int64>(0)
        let chunkSize = self.chunkSize
        try onConnections(workers, configuration) { connection, failed in
            let projector = Projector(schema: RebuildSchema.name)
            var totals = SummaryTotals()
            defer { summaries.withLock { $0.append(totals) } }
            while !failed() {
                let first = next.withLock { position -> Int64 in
                    defer { position += chunkSize }
                    return position + 1
                }
                guard first <= head else { break }
                let range = first...min(first + chunkSize - 1, head)
                let events = try connection.transaction { transaction in
                    let events = try Projector.read(range, on: transaction)
                    try projector.copyHistory(events, on: transaction)
                    return events
                }
                totals.add(events)
                let binds = events.filter { $0.binding != nil }
                bindingEvents.withLock { $0 += binds }
                done.withLock { count in
                    count += Int64(range.count)
                    progress(count, head)
                }
            }
        }
        return (bindingEvents.withLock { $0 }, SummaryTotals.merged(summaries.withLock { $0 }))
    }
}

/// Runs `work` on `count` threads of its own at once, each with a connection of its own to `configuration`, and
/// waits for them all; rethrows the first error. `work` is also told whether another has failed, to stop early.
private func onConnections(
    _ count: Int, _ configuration: PostgresConfiguration,
    _ work: @escaping @Sendable (Connection, _ failed: () -> Bool) throws -> Void
) throws {
    let failures = Mutex<[any Error]>([])
    let finished = DispatchGroup()
    for _ in 0..<count {
        finished.enter()
        let thread = Thread {
            defer { finished.leave() }
            do {
                let connection = try Connection.connect(configuration)
                defer { connection.close() }
                try work(connection) { !failures.withLock { $0.isEmpty } }
            } catch {
                failures.withLock { $0.append(error) }
            }
        }
        thread.stackSize = 8 << 20
        thread.start()
    }
    finished.wait()
    if let failure = failures.withLock({ $0.first }) { throw failure }
}

/// The fresh copy of the `projections` schema that replay fills: the same tables, keys and indexes, the keys and
/// indexes added only when the data is in, then swapped in for the live schema.
private struct RebuildSchema {
    static let name = "projections_rebuild"
    /// The keys and the `CREATE INDEX` statements of the live schema, to run on the rebuilt tables once they are
    /// filled (before the catch-up, whose bindings upsert needs the terminals' key).
    let indexDefinitions: [String]
    /// On Citus: the rebuilt tables are distributed as the live ones are, in their co-location groups.
    let distributed: Bool

    /// Drops the rebuild schema, if there is one.
    static func drop(on connection: Connection) throws {
        try connection.execute("""
            SET client_min_messages = warning;
            DROP SCHEMA IF EXISTS \(name) CASCADE;
            RESET client_min_messages;
            """)
    }

    static func create(on connection: Connection) throws -> RebuildSchema {
        try connection.execute("CREATE SCHEMA \(name)")
        let tables = try connection.query(
            "SELECT tablename FROM pg_tables WHERE schemaname = 'projections' ORDER BY tablename"
        ).map { try $0.decode(0, as: String.self) }
        for table in tables {
            try connection.execute(
                "CREATE TABLE \(name).\(table) (LIKE projections.\(table) INCLUDING DEFAULTS INCLUDING CONSTRAINTS)")
        }
        // The rebuilt projections start from the log's beginning.
        try connection.execute("INSERT INTO \(name).checkpoint (position) VALUES (0)")
        // On Citus, each rebuilt table is distributed by the live one's column and co-located with it, so that the
        // swap leaves the projections distributed.
        let distributed = try connection.query("SELECT 1 FROM pg_extension WHERE extname = 'citus'").count > 0
        if distributed {
            let live = try connection.query(
                """
                SELECT c.relname, column_to_column_name(p.logicalrelid, p.partkey)
                FROM pg_dist_partition p JOIN pg_class c ON c.oid = p.logicalrelid JOIN pg_namespace n ON n.oid = c.relnamespace
                WHERE n.nspname = 'projections' ORDER BY 1
                """)
            for table in live {
                let (relation, column) = (try table.decode(0, as: String.self), try table.decode(1, as: String?.self))
                try connection.query(
                    "SELECT create_distributed_table($1, $2, colocate_with => $3)",
                    ["\(name).\(quotedIdentifier(relation))", column, "projections.\(quotedIdentifier(relation))"])
            }
        }
        // Keys are built with the indexes, once the rows are in: one sorted build costs less than inserting every
        // key as the rows arrive.
        let constraints = try connection.query(
            """
            SELECT c.conrelid::regclass::text, c.conname, pg_get_constraintdef(c.oid)
            FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace
            WHERE n.nspname = 'projections' AND c.contype IN ('p', 'u')
            ORDER BY 1, 2
            """)
        var keys: [String] = []
        for row in constraints {
            let table = try row.decode(0, as: String.self).replacingOccurrences(of: "projections.", with: "")
            keys.append("ALTER TABLE \(name).\(table) ADD CONSTRAINT \(try row.decode(1, as: String.self)) \(try row.decode(2, as: String.self))")
        }
        let indexes = try connection.query(
            """
            SELECT i.indexdef FROM pg_indexes i
            WHERE i.schemaname = 'projections'
              AND NOT EXISTS (SELECT 1 FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace
                              WHERE n.nspname = 'projections' AND c.conname = i.indexname)
            """
        ).map { try $0.decode(0, as: String.self).replacingOccurrences(of: " ON projections.", with: " ON \(name).") }
        return RebuildSchema(indexDefinitions: keys + indexes, distributed: distributed)
    }

    /// Builds the keys and indexes two at a time, on two connections, those of the fix history (the largest) first:
    /// each build reads its table and sorts on one core, and two keep two busy.
    func buildIndexes(_ configuration: PostgresConfiguration) throws {
        let onFixes = { (definition: String) in definition.contains(".fixes ") }
        let next = Mutex((indexDefinitions.filter(onFixes) + indexDefinitions.filter { !onFixes($0) })[...])
        try onConnections(2, configuration) { connection, failed in
            // Two builds at once, each on one core: with PostgreSQL's parallel workers too, they would take turns
            // on the same two.
            try connection.execute("SET max_parallel_maintenance_workers = 0")
            while !failed(), let definition = next.withLock({ $0.popFirst() }) {
                try connection.execute(definition)
            }
        }
    }

    /// Gives the rebuilt schema and tables the privileges the live ones have, then swaps the rebuilt schema in.
    func swapIn(on connection: Connection) throws {
        try copyPrivileges(on: connection)
        try connection.execute("""
            ALTER SCHEMA projections RENAME TO projections_replaced;
            ALTER SCHEMA \(Self.name) RENAME TO projections;
            DROP SCHEMA projections_replaced CASCADE;
            """)
    }

    /// Grants on the live schema and its tables, re-issued on the rebuilt ones (the owner's own rights come with
    /// ownership; `PUBLIC` is grantee 0).
    private func copyPrivileges(on connection: Connection) throws {
        let grants = try connection.query(
            """
            SELECT NULL::text, a.privilege_type, a.grantee, CASE WHEN a.grantee = 0 THEN 'PUBLIC' ELSE quote_ident(r.rolname) END
            FROM pg_namespace n CROSS JOIN LATERAL aclexplode(n.nspacl) a LEFT JOIN pg_roles r ON r.oid = a.grantee
            WHERE n.nspname = 'projections' AND a.grantee <> n.nspowner
            UNION ALL
            SELECT c.relname, a.privilege_type, a.grantee, CASE WHEN a.grantee = 0 THEN 'PUBLIC' ELSE quote_ident(r.rolname) END
            FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
            CROSS JOIN LATERAL aclexplode(c.relacl) a LEFT JOIN pg_roles r ON r.oid = a.grantee
            WHERE n.nspname = 'projections' AND c.relkind = 'r' AND a.grantee <> c.relowner
            """)
        for grant in grants {
            let table = try grant.decode(0, as: String?.self)
            let target = table.map { "TABLE \(Self.name).\(quotedIdentifier($0))" } ?? "SCHEMA \(Self.name)"
            try connection.execute("GRANT \(try grant.decode(1, as: String.self)) ON \(target) TO \(try grant.decode(3, as: String.self))")
        }
    }
}
