import EventStore
import Foundation
import LocationEvents
import Postgres
import Synchronization

/// Rebuilds every projection from the log: into fresh tables in a schema of their own, swapped in at the end in
/// the same transaction, so readers see the old tables until the new ones are complete.
///
/// The transaction holds the append lock throughout, so no event can be appended between the rebuild and the
/// swap; appends wait for the replay to finish. A second connection reads and decodes the log while the first
/// writes, and secondary indexes are built once at the end rather than row by row.
public struct Replayer: Sendable {
    let chunkSize: Int

    public init(chunkSize: Int = 5000) {
        self.chunkSize = chunkSize
    }

    /// - Parameters:
    ///   - connection: writes the new tables and swaps them in.
    ///   - reader: reads the log (another connection to the same database).
    ///   - progress: called after each chunk with (events replayed, events in the log).
    /// - Returns: the number of events replayed.
    @discardableResult
    public func replay(on connection: Connection, reading reader: Connection, progress: (Int64, Int64) -> Void = { _, _ in }) throws -> Int64 {
        try connection.transaction { transaction in
            try EventLog().lockAppends(on: transaction)
            let head = try EventLog().headPosition(on: transaction)
            let layout = try RebuildSchema.create(on: transaction)
            let projector = Projector(schema: RebuildSchema.name)
            let chunks = ChunkQueue()
            let chunkSize = self.chunkSize
            let decoder = Thread {
                do {
                    var after: Int64 = 0
                    while after < head && !chunks.isCancelled {
                        let chunk = try Self.readChunk(after: after, through: head, limit: chunkSize, on: reader)
                        guard let last = chunk.last?.position else { break }
                        after = last
                        chunks.put(.success(chunk))
                    }
                } catch {
                    chunks.put(.failure(error))
                }
                chunks.finish()
            }
            decoder.stackSize = 8 << 20
            decoder.start()
            defer { chunks.cancel() }
            var done: Int64 = 0
            while let chunk = try chunks.take()?.get() {
                try projector.project(chunk, on: transaction)
                done += Int64(chunk.count)
                progress(chunk.last?.position ?? done, head)
            }
            try layout.finish(on: transaction)
            return head
        }
    }

    private static func readChunk(after: Int64, through head: Int64, limit: Int, on connection: Connection) throws -> [ProjectedEvent] {
        try connection.query(
            """
            SELECT position, event_id, stream, type, data::text, metadata::text FROM events
            WHERE position > $1 AND position <= $2 ORDER BY position LIMIT $3
            """, [after, head, limit]
        ).map { row in
            let position = try row.decode(0, as: Int64.self)
            do {
                return try ProjectedEvent(
                    position: position, eventId: try row.decode(1), stream: try row.decode(2), type: try row.decode(3),
                    data: try JSONValue(parsing: Data(try row.decode(4, as: String.self).utf8)),
                    metadata: try JSONValue(parsing: Data(try row.decode(5, as: String.self).utf8)))
            } catch let error as JSONValueError {
                throw ProjectionError(position, "\(error)")
            }
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
    func finish(on connection: Connection) throws {
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

/// Decoded chunks handed from the reading thread to the writing one; holds at most two.
private final class ChunkQueue: Sendable {
    typealias Chunk = Result<[ProjectedEvent], any Error>
    private struct State {
        var chunks: [Chunk] = []
        var finished = false
        var cancelled = false
    }

    private let state = Mutex(State())
    private let slots = DispatchSemaphore(value: 2)
    private let items = DispatchSemaphore(value: 0)

    var isCancelled: Bool { state.withLock { $0.cancelled } }

    func put(_ chunk: Chunk) {
        slots.wait()
        state.withLock { $0.chunks.append(chunk) }
        items.signal()
    }

    func finish() {
        state.withLock { $0.finished = true }
        items.signal()
    }

    func take() -> Chunk? {
        while true {
            items.wait()
            let next: Chunk?? = state.withLock { state in
                if !state.chunks.isEmpty { return .some(state.chunks.removeFirst()) }
                return state.finished ? .some(nil) : nil
            }
            if let next {
                if next != nil { slots.signal() } else { items.signal() }
                return next
            }
        }
    }

    func cancel() {
        state.withLock { $0.cancelled = true }
        slots.signal()
        slots.signal()
    }
}
