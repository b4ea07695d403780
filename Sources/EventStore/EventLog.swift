import CivilCalendar
import Foundation
import Postgres

/// The append-only, hash-chained event log in PostgreSQL.
///
/// Every append takes one transaction-scoped advisory lock, so appends are serialised: global positions are
/// assigned gap-free and become visible in position order, and a reader polling "after position P" never
/// misses an event that commits later with a smaller position.
public struct EventLog: Sendable {
    /// Arbitrary, fixed: the advisory lock key that serialises appends.
    static let appendLockKey: Int64 = 0x6765_6f6c_6170_7064

    public init() {}

    /// Appends a batch in one transaction.
    /// - Parameters:
    ///   - events: in order; each is checked against its stream's version as left by the events before it.
    ///   - atomic: when true, one failed event writes nothing at all, and the append throws
    ///     ``EventStoreError/atomicBatchFailed(_:)`` with the results.
    ///   - hooks: domain rules and the read models they need, run in the same transaction.
    ///   - cache: stream heads kept from this writer's earlier appends, for a writer that appends batch after batch.
    ///   - beforeCommit: runs last in the transaction, right before COMMIT, when the batch is to be written; what it
    ///     throws rolls the batch back and is rethrown.
    /// - Returns: one result per event, in order, and the log's head after the append.
    public func append(
        _ events: [NewEvent], atomic: Bool = false, hooks: (any AppendHooks)? = nil, cache: StreamHeadCache? = nil,
        on connection: Connection, beforeCommit: () throws -> Void = {}
    ) throws -> AppendAnswer {
        guard !events.isEmpty else { return AppendAnswer(results: [], head: try head(on: connection)) }
        // Should a deadlock end it (the rules read and write the bindings), nothing of it is left, and it is tried again.
        var attempt = 1
        while true {
            do {
                return try appendOnce(
                    events, atomic: atomic, hooks: hooks, cache: cache, on: connection, beforeCommit: beforeCommit)
            } catch let error as PostgresError where error.isDeadlock && attempt < Self.deadlockAttempts {
                connection.configuration.logger.warning(
                    "an append ended in a deadlock and is tried again",
                    ["attempt": String(attempt), "attempts": String(Self.deadlockAttempts), "sqlState": error.sqlState ?? "",
                     "events": String(events.count)])
                attempt += 1
            }
        }
    }

    /// How many times an append ended as a deadlock is tried in all.
    static let deadlockAttempts = 3

    private func appendOnce(
        _ events: [NewEvent], atomic: Bool, hooks: (any AppendHooks)?, cache: StreamHeadCache?,
        on connection: Connection, beforeCommit: () throws -> Void
    ) throws -> AppendAnswer {
        let streams = Set(events.map(\.stream))
        let (answer, appended) = try connection.transaction { transaction in
            try lockAppends(on: transaction)
            let before = try head(on: transaction)
            let cached = cache?.heads(of: streams, whenHeadIs: before) ?? [:]
            var plan = try plan(events, after: before, knownHeads: { $0.map { cached[$0.name] } }, on: transaction)
            let rule = try hooks?.rules(for: events, on: transaction) ?? { _ in nil }
            plan.decide(rule)
            if atomic && plan.hasFailures {
                throw EventStoreError.atomicBatchFailed(AppendAnswer(results: plan.atomicResults, head: before))
            }
            try insert(plan, of: events, on: transaction)
            try hooks?.didAppend(plan.appended, on: transaction)
            try beforeCommit()
            return (AppendAnswer(results: plan.results, head: plan.logHead), plan.heads)
        }
        // Only now, committed, is it what the log holds.
        cache?.remember(appended, head: answer.head)
        return answer
    }

    /// Like ``append(_:atomic:hooks:on:)`` with `atomic: true`, but answers a failed batch with its results
    /// instead of throwing.
    public func appendAtomically(
        _ events: [NewEvent], hooks: (any AppendHooks)? = nil, cache: StreamHeadCache? = nil, on connection: Connection,
        beforeCommit: () throws -> Void = {}
    ) throws -> AppendAnswer {
        do {
            return try append(events, atomic: true, hooks: hooks, cache: cache, on: connection, beforeCommit: beforeCommit)
        } catch EventStoreError.atomicBatchFailed(let answer) {
            return answer
        }
    }

    /// Takes the append lock until the end of the caller's transaction: appends from anywhere wait until then.
    public func lockAppends(on transaction: Connection) throws {
        try transaction.query("SELECT pg_advisory_xact_lock($1)", [Self.appendLockKey])
    }

    /// Events of one stream from a version on, in version order.
    public func readStream(_ stream: String, fromVersion: Int64 = 0, limit: Int = 1000, on connection: Connection) throws -> [RecordedEvent] {
        try connection.query(
            "SELECT \(Self.columns) FROM events WHERE stream = $1 AND version >= $2 ORDER BY version LIMIT $3",
            [stream, fromVersion, limit]
        ).map(Self.recordedEvent)
    }

    /// The last global position, 0 when the log is empty.
    public func headPosition(on connection: Connection) throws -> Int64 {
        try head(on: connection).position
    }

    /// The log's head as committed: its last event's position and log hash, ``LogHead/empty`` for an empty log.
    public func head(on connection: Connection) throws -> LogHead {
        try connection.query("SELECT position, log_hash FROM events ORDER BY position DESC LIMIT 1").first { _ in true }.map {
            LogHead(position: try $0.decode(0), hash: try $0.decode(1))
        } ?? .empty
    }

    static let columns = """
        position, event_id, stream, version, type, data::text, metadata::text, \
        (extract(epoch FROM recorded_at) * 1000000)::bigint, hash, log_hash
        """

    static func recordedEvent(_ row: Row) throws -> RecordedEvent {
        return RecordedEvent(
            position: try row.decode(0), eventId: try row.decode(1), stream: try row.decode(2),
            version: try row.decode(3), type: try row.decode(4),
            data: Data(try row.decode(5, as: String.self).utf8),
            metadata: Data(try row.decode(6, as: String.self).utf8),
            recordedAt: Timestamp(microseconds: try row.decode(7)).date, hash: try row.decode(8, as: [UInt8].self),
            logHash: try row.decode(9, as: [UInt8].self))
    }

    func storedEvents(ids: [UUID], on connection: Connection) throws -> [UUID: StoredIdentity] {
        var stored: [UUID: StoredIdentity] = [:]
        let rows = try connection.query(
            "SELECT event_id, stream, version, position, type, data::text FROM events WHERE event_id = ANY($1::uuid[])",
            parameters: [.binary(BinaryArray(ids))])
        for row in rows {
            stored[try row.decode(0)] = StoredIdentity(
                stream: try row.decode(1), version: try row.decode(2), position: try row.decode(3),
                type: try row.decode(4), data: Data(try row.decode(5, as: String.self).utf8))
        }
        return stored
    }

    /// What is needed to decide `events` as the batch after the log's head `logHead`: the heads of their streams, from
    /// `knownHeads` or else read, and which of their ids are stored, read, with `alsoStored` (events not committed
    /// yet) on top.
    /// - Parameter knownHeads: given the batch's streams, each once, the head of each, nil where it is not known.
    func plan(
        _ events: [NewEvent], after logHead: LogHead, knownHeads: ([StreamKey]) -> [StreamHead?],
        alsoStored: [DecidedEvents] = [], on connection: Connection
    ) throws -> AppendPlan {
        let streams = AppendPlan.Streams(events)
        var heads = knownHeads(streams.keys)
        let unseen = Set(zip(streams.keys, heads).compactMap { stream, head in head == nil ? stream.name : nil })
        if !unseen.isEmpty {
            let read = try streamHeads(unseen, on: connection)
            for index in heads.indices where heads[index] == nil { heads[index] = read[streams.keys[index].name] }
        }
        var stored = try storedEvents(ids: events.map(\.eventId), on: connection)
        // Only this batch's ids are looked up in the batches not committed yet, newest last so that it wins:
        // merging those batches whole would cost a hash insert for each of their events.
        if !alsoStored.isEmpty {
            for event in events {
                for batch in alsoStored.reversed() {
                    if let notCommitted = batch[event.eventId] {
                        stored[event.eventId] = notCommitted
                        break
                    }
                }
            }
        }
        return AppendPlan(
            events: events, streams: streams, heads: heads, stored: stored, after: logHead, recordedAt: Timestamp.now())
    }

    /// The last event of each stream, found through the (stream, version) index. The names go in binary, not as the
    /// text of an array, which quoted each one. A name holding a NUL character, which PostgreSQL text cannot hold, is
    /// not looked up: no stream has it, and its event's append fails on it as its row is written.
    func streamHeads(_ streams: Set<String>, on connection: Connection) throws -> [String: StreamHead] {
        let names = streams.filter { !$0.utf8.contains(0) }
        guard !names.isEmpty else { return [:] }
        var heads: [String: StreamHead] = [:]
        let rows = try connection.query(
            """
            SELECT s.stream, head.version, head.hash, head.position
            FROM unnest($1::text[]) AS s (stream)
            CROSS JOIN LATERAL (
                SELECT version, hash, position FROM events e WHERE e.stream = s.stream ORDER BY version DESC LIMIT 1
            ) head
            """, parameters: [.binary(try BinaryArray(Array(names)))])
        for row in rows {
            heads[try row.decode(0)] = StreamHead(
                version: try row.decode(1), hash: try row.decode(2), position: try row.decode(3))
        }
        return heads
    }

    /// COPY: the fastest way into the table (docs/performance.md, "Writing the log: COPY"), in binary, which the server
    /// reads without unescaping text or parsing numbers, uuids, times and hex (`data` and `metadata` are still checked
    /// as JSON, as in text). Each event's row was rendered with its batch's, all but position, version, time and the
    /// hashes, which are written into it here; the rows of consecutive events are sent as they lie.
    func insert(_ plan: AppendPlan, of events: [NewEvent], on connection: Connection) throws {
        guard !plan.appended.isEmpty else { return }
        try connection.copyFrom(
            """
            COPY events (event_id, stream, type, data, metadata, position, version, recorded_at, hash, log_hash)
            FROM STDIN WITH (FORMAT binary)
            """, format: .binary
        ) { writer in
            var tail = CopyRow(format: .binary)
            var run: (rows: RenderedRows, range: Range<Int>, count: Int)?
            for appended in plan.appended {
                let event = events[appended.index]
                if let problem = event.problem { throw PostgresError(.encoding, problem) }
                tail.removeAll()
                NewEvent.writeTail(
                    position: appended.position, version: appended.version, recordedAt: plan.recordedAt,
                    hash: appended.hash, logHash: appended.logHash, into: &tail)
                event.setTail(tail)
                let row = event.row
                if let current = run, current.rows === row.rows, current.range.upperBound == row.range.lowerBound {
                    run = (current.rows, current.range.lowerBound..<row.range.upperBound, current.count + 1)
                } else {
                    if let current = run { try writer.send(current.rows, in: current.range, rows: current.count) }
                    run = (row.rows, row.range, 1)
                }
            }
            if let current = run { try writer.send(current.rows, in: current.range, rows: current.count) }
        }
    }
}

/// What identifies an event already stored, for the idempotency check.
struct StoredIdentity: Sendable {
    let stream: String
    let version: Int64
    let position: Int64
    let type: String
    let data: Data
}

/// The last event of a stream.
struct StreamHead: Sendable {
    var version: Int64
    var hash: Digest
    var position: Int64
}
