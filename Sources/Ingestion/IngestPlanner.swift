import EventStore
import Foundation
import Postgres
import Projections

/// Decides one writer's prepared batches ahead of writing them, so that deciding the next batch overlaps writing the
/// one before: the event log's side with an ``AppendPlanner``, and the terminal bindings the rules check, as the
/// batches decided so far leave them. What it has not seen yet it reads on a connection of its own, to the same
/// server and outside any transaction, so that it sees each batch as soon as it commits.
///
/// Right only while nobody else appends, and while batches are written in the order they were decided with no more
/// than `inFlight` of them uncommitted; ``IngestService/write(_:on:)`` checks the first under the append lock and
/// writes nothing when someone else appended. Used from one thread at a time.
package final class IngestPlanner {
    private let planner: AppendPlanner
    /// Every terminal seen, with its binding as the decided batches leave it; nil when it has none.
    private var bindings: DecidedBindings

    /// - Parameters:
    ///   - inFlight: how many decided batches may be uncommitted while the next is decided.
    ///   - capacity: how many stream heads, and how many terminals' bindings, to keep (see ``DecidedBindings``).
    package init(inFlight: Int = 2, capacity: Int = 500_000) {
        planner = AppendPlanner(inFlight: inFlight, capacity: capacity)
        bindings = DecidedBindings(inFlight: inFlight, capacity: capacity)
    }

    /// Decides `batch` as the next one, reading what it needs on `reader`, a connection outside any append.
    package func decide(_ batch: PreparedBatch, reading reader: Connection) throws -> DecidedBatch {
        let rules = LocationRules(projected: batch.projected, bindings: batch.bindings)
        let terminals = rules.changedTerminals
        let append = try planner.decide(batch.events, rules: {
            let unseen = terminals.filter { self.bindings[$0] == nil }
            if !unseen.isEmpty {
                let stored = try Projector.live.bindings(of: unseen, on: reader)
                self.bindings.learn(Dictionary(uniqueKeysWithValues: unseen.map { ($0, stored[$0]) }))
            }
            return rules.rule(given: self.bindings(of: terminals))
        }, reading: reader)
        let placed = rules.placed(append.appended)
        let changed = Projector.carried(rules.placedChanges(append.appended), from: bindings(of: terminals))
        bindings.decided(changed.mapValues(Optional.some))
        return DecidedBatch(batch: batch, append: append, placed: placed, bindings: changed)
    }

    /// The known bindings of these terminals (those that have one).
    private func bindings(of terminals: [String]) -> [String: TerminalBinding] {
        var known: [String: TerminalBinding] = [:]
        for terminal in terminals {
            if let binding = bindings[terminal] ?? nil { known[terminal] = binding }
        }
        return known
    }
}

/// The terminals' bindings a planner knows: read once, then as each decided batch leaves them. Past `capacity`
/// terminals it forgets all but those the last `inFlight` batches changed, which the database may not show yet; a
/// forgotten binding is read again. (Of this module's own types, so that its lookups are compiled for them, not
/// through the dictionary's generic code.)
private struct DecidedBindings {
    /// Per terminal, its binding; nil when it has none.
    private var values: [String: TerminalBinding?] = [:]
    private var recent: RecentKeys<String>
    private let capacity: Int

    init(inFlight: Int, capacity: Int) {
        recent = RecentKeys(inFlight: inFlight)
        self.capacity = max(1, capacity)
    }

    /// The terminal's binding when it is known (nil inside when it has none); nil when it is not.
    subscript(terminal: String) -> TerminalBinding?? { values[terminal] }

    /// Bindings read from the database; one already known, which a decided batch left, stays.
    mutating func learn(_ read: [String: TerminalBinding?]) {
        values.merge(read) { known, _ in known }
    }

    /// The bindings a decided batch leaves.
    mutating func decided(_ changed: [String: TerminalBinding?]) {
        recent.add(Array(changed.keys))
        if values.count > capacity {
            let keep = Set(recent.keys)
            values = values.filter { keep.contains($0.key) }
        }
        values.merge(changed) { _, decided in decided }
    }
}

/// A prepared batch decided by an ``IngestPlanner``: the events to append, their projections and the bindings they
/// leave, ready to write with ``IngestService/write(_:on:)``.
package struct DecidedBatch: Sendable {
    let batch: PreparedBatch
    let append: DecidedAppend
    /// The appended events' projections, where the log will put them.
    let placed: [ProjectedEvent]
    /// The bindings of the terminals the batch changes.
    let bindings: [String: TerminalBinding]
}
