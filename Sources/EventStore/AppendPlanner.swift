import Foundation
import Postgres

/// Decides one writer's batches ahead of writing them, so that deciding the next batch (reading what it needs,
/// checking versions and rules, hashing) overlaps writing the one before.
///
/// A batch is decided on what a reading connection sees, outside any append, and on what the batches decided
/// before it will change, which the planner keeps: the head of every stream it has seen, the log's head as they
/// leave it, and the ids of the last batches, which may not be committed yet. That is right only while nobody else
/// appends, so each decision carries the log's head it assumes, and ``EventLog/write(_:then:on:)`` checks it under
/// the append lock before writing anything. Reads start after the planner first read the log's head, so an append
/// by anyone else before any of them shows there. The reading connection must see each batch as soon as it
/// commits: the same server as the writes, outside any transaction. A batch's recording time is taken when it is
/// decided.
///
/// Used from one thread at a time.
package final class AppendPlanner {
    private let log = EventLog()
    /// The log's head once the batches decided so far are written; nil until first read.
    private var logHead: LogHead?
    private var heads: KnownStreamHeads
    /// The events appended by the batches decided last, newest last: some may still be on their way to the log.
    private var recent: [DecidedEvents] = []
    /// Batches decided but perhaps not yet committed: the one being written and the one waiting for it.
    private let inFlight: Int

    /// - Parameters:
    ///   - inFlight: how many decided batches may be uncommitted while the next is decided.
    ///   - capacity: how many stream heads to keep (see ``KnownStreamHeads``).
    package init(inFlight: Int = 2, capacity: Int = 500_000) {
        self.inFlight = max(1, inFlight)
        heads = KnownStreamHeads(inFlight: inFlight, capacity: capacity)
    }

    /// Decides `events` as the next batch.
    /// - Parameters:
    ///   - rules: builds the domain rule for the batch; called after the planner's reads, so that it may read too.
    ///   - reader: a connection outside any append transaction.
    package func decide(
        _ events: [NewEvent], rules: () throws -> (Int) -> AppendConflict?, reading reader: Connection
    ) throws -> DecidedAppend {
        let assumed = try logHead ?? log.head(on: reader)
        logHead = assumed
        var slots: [Int] = []
        var plan = try log.plan(events, after: assumed, knownHeads: { names in
            slots = self.heads.slots(of: names)
            return slots.map { self.heads[slot: $0] }
        }, alsoStored: recent, on: reader)
        plan.decide(try rules())
        remember(plan, of: events, slots: slots)
        return DecidedAppend(events: events, plan: plan, assumedHead: assumed)
    }

    /// Takes in what a decided batch changes, for the batches after it.
    /// - Parameter slots: the slots of the batch's streams, as ``KnownStreamHeads/slots(of:)`` gave them.
    private func remember(_ plan: AppendPlan, of events: [NewEvent], slots: [Int]) {
        recent.append(DecidedEvents(events: events, plan: plan))
        if recent.count > inFlight { recent.removeFirst() }
        heads.decided(plan.streamHeads, slots: slots)
        logHead = plan.logHead
    }
}

/// The events a decided batch appends, by id, as the batches after it look their ids up
/// (``EventLog/plan(_:after:knownHeads:alsoStored:on:)``): each event's place, and its identity made only for an id
/// found again. The ids are those the plan hashed as it decided the batch.
struct DecidedEvents: Sendable {
    private let events: [NewEvent]
    private let appended: [AppendedEvent]
    private let firstWithId: Set<AppendPlan.FirstWithId>
    /// Per event of the batch, its index in `appended`, or -1.
    private let appendedIndex: [Int]

    init(events: [NewEvent], plan: AppendPlan) {
        self.events = events
        appended = plan.appended
        firstWithId = plan.firstWithId
        var appendedIndex = [Int](repeating: -1, count: events.count)
        for (index, event) in appended.enumerated() { appendedIndex[event.index] = index }
        self.appendedIndex = appendedIndex
    }

    subscript(eventId: UUID) -> StoredIdentity? {
        guard let found = firstWithId.firstIndex(of: AppendPlan.FirstWithId(id: eventId, index: 0)) else { return nil }
        let index = appendedIndex[firstWithId[found].index]
        guard index >= 0 else { return nil }
        let event = appended[index]
        let new = events[event.index]
        return StoredIdentity(stream: new.stream, version: event.version, position: event.position, type: new.type, data: new.data)
    }
}

/// The stream heads a planner knows: read once, then as each decided batch leaves them. Each stream has a slot, looked
/// up once a batch: the batch's heads are read from the slots and its new heads written back into them, where a
/// dictionary of heads had hashed each name twice and, in a table of a few hundred thousand names, compared it with one
/// far from the processor's caches twice. Past `capacity` streams it forgets all but those of the last `inFlight`
/// batches, which the database may not show yet; a forgotten head is read again.
struct KnownStreamHeads {
    private var slotOf: [StreamKey: Int] = [:]
    /// Per slot: its stream's head, nil while not known.
    private var heads: [StreamHead?] = []
    private var recent: RecentKeys<StreamKey>
    private let capacity: Int

    init(inFlight: Int, capacity: Int) {
        recent = RecentKeys(inFlight: inFlight)
        self.capacity = max(1, capacity)
    }

    /// The slots of a batch's streams, one each, in order; a stream not known yet gets a slot whose head is nil. Valid
    /// until the next call.
    mutating func slots(of streams: [StreamKey]) -> [Int] {
        if slotOf.count + streams.count > capacity { forgetAllButRecent() }
        recent.add(streams)
        return streams.map { stream in
            let slot = slotOf.value(of: stream, storingIfAbsent: heads.count)
            if slot == heads.count { heads.append(nil) }
            return slot
        }
    }

    subscript(slot slot: Int) -> StreamHead? { heads[slot] }

    /// The heads a decided batch leaves, per stream of ``slots(of:)``; nil leaves a head as it was.
    mutating func decided(_ streamHeads: [StreamHead?], slots: [Int]) {
        for (slot, head) in zip(slots, streamHeads) where head != nil { heads[slot] = head }
    }

    /// Keeps the streams of the last batches only, in new slots.
    private mutating func forgetAllButRecent() {
        let kept = recent.keys.compactMap { stream in slotOf[stream].map { (stream, heads[$0]) } }
        slotOf.removeAll(keepingCapacity: true)
        heads.removeAll(keepingCapacity: true)
        for (stream, head) in kept where slotOf[stream] == nil {
            slotOf[stream] = heads.count
            heads.append(head)
        }
    }
}

/// The keys (streams, terminals) each of a planner's last `inFlight` decided batches changed, which the database may
/// not show yet: what it keeps when it forgets the rest.
package struct RecentKeys<Key: Hashable & Sendable>: Sendable {
    /// Per batch, newest last.
    private var batches: [[Key]] = []
    private let inFlight: Int

    package init(inFlight: Int) {
        self.inFlight = max(1, inFlight)
    }

    /// The keys of the batch decided now; past `inFlight` batches, the oldest one's are forgotten.
    package mutating func add(_ keys: [Key]) {
        batches.append(keys)
        if batches.count > inFlight { batches.removeFirst() }
    }

    /// The keys of the batches kept, oldest first; a key changed by two of them comes twice.
    package var keys: FlattenSequence<[[Key]]> { batches.joined() }
}

/// A batch decided by an ``AppendPlanner``, to be written with ``EventLog/write(_:then:on:)``.
package struct DecidedAppend: Sendable {
    let events: [NewEvent]
    let plan: AppendPlan
    /// The log's head the decision assumed.
    let assumedHead: LogHead

    /// The append's answer once the batch is written: one result per event, in order, and the log's head after it.
    package var answer: AppendAnswer { AppendAnswer(results: plan.results, head: plan.logHead) }
    /// The events to be appended, in order.
    package var appended: [AppendedEvent] { plan.appended }
}

extension EventLog {
    /// Writes a decided batch in one transaction, when the log's head is still the one the decision assumed. Otherwise
    /// someone else appended since: nothing is written, and the batch must be decided again, under the lock
    /// (``append(_:atomic:hooks:on:)``).
    /// - Parameter then: writes the rest, in the transaction, under the lock, after the events.
    /// - Returns: whether the batch was written.
    package func write(
        _ decided: DecidedAppend, then: (Connection) throws -> Void, on connection: Connection
    ) throws -> Bool {
        do {
            try connection.transaction { transaction in
                try lockAppends(on: transaction)
                guard try head(on: transaction) == decided.assumedHead else { throw EventStoreError.decisionOutdated }
                try insert(decided.plan, of: decided.events, on: transaction)
                try then(transaction)
            }
            return true
        } catch EventStoreError.decisionOutdated {
            return false
        }
    }
}
