import EventStore
import Foundation
import Postgres
import Projections

/// The domain rules checked at append, and the terminal bindings they are checked against, written in the same
/// transaction: the one read model the append keeps (the projector keeps the others, behind the log).
///
/// A terminal is bound to one merchant at a time: binding it to another needs an unbind first
/// (`terminal_already_bound`); unbinding it from a merchant it is not bound to is `terminal_not_bound`.
/// Binding it again to the same merchant is a re-location and is allowed.
struct LocationRules: AppendHooks {
    /// What the projections read of each event of the batch, in batch order, read while the batch was prepared.
    let projected: [ProjectedEvent]
    /// The indexes in `projected` of the binds and unbinds, in order.
    let bindings: [Int]
    /// Per event of `projected`, whether it binds or unbinds.
    private let isChange: [Bool]
    /// The stored bindings of the batch's terminals, read with the rules and carried forward by `didAppend`; and the
    /// appended events, placed, for the projector once the batch commits.
    private let stored = StoredBindings()

    /// - Parameter bindings: the indexes in `projected` of the binds and unbinds, in order.
    init(projected: [ProjectedEvent], bindings: [Int]) {
        self.projected = projected
        self.bindings = bindings
        var isChange = [Bool](repeating: false, count: bindings.isEmpty ? 0 : projected.count)
        for index in bindings { isChange[index] = true }
        self.isChange = isChange
    }

    func rules(for events: [NewEvent], on connection: Connection) throws -> (Int) -> AppendConflict? {
        let terminals = changedTerminals
        guard !terminals.isEmpty else { return { _ in nil } }
        stored.bindings = try Projector.live.bindings(of: terminals, on: connection)
        return rule(given: stored.bindings)
    }

    /// Carries the bindings of the appended events' terminals forward from the stored ones, one appended change at a
    /// time; keeps the events, placed, for ``appended``.
    func didAppend(_ events: [AppendedEvent], on connection: Connection) throws {
        let placed = placed(events)
        try Projector.live.carryBindings(of: placed, stored: stored.bindings, on: connection)
        stored.appended = placed
    }

    /// The events the append wrote, where the log put them; empty before it did.
    var appended: [ProjectedEvent] { stored.appended }

    /// The terminals the batch binds or unbinds.
    var changedTerminals: [String] {
        Array(Set(bindings.compactMap { projected[$0].binding?.terminalId }))
    }

    /// The rule for the batch, given the bindings of its terminals before it (those that have one).
    func rule(given before: [String: TerminalBinding]) -> (Int) -> AppendConflict? {
        guard !bindings.isEmpty else { return { _ in nil } }
        var boundTo = before.compactMapValues(\.merchantId)
        return { [projected, isChange] index in
            // The event at `index` is the first of the batch with its id: the one whose binding counts.
            guard isChange[index], let change = projected[index].binding else { return nil }
            let current = boundTo[change.terminalId]
            switch change.kind {
            case .bind:
                if let current, current != change.merchantId {
                    return AppendConflict(
                        code: "terminal_already_bound",
                        message: "terminal \(change.terminalId) is bound to merchant \(current); unbind it first")
                }
                boundTo[change.terminalId] = change.merchantId
            case .unbind:
                guard current == change.merchantId else {
                    let state = current.map { "is bound to merchant \($0)" } ?? "is not bound"
                    return AppendConflict(
                        code: "terminal_not_bound",
                        message: "terminal \(change.terminalId) \(state), not to merchant \(change.merchantId)")
                }
                boundTo[change.terminalId] = nil
            }
            return nil
        }
    }

    /// The appended events' projections, where the log put them.
    func placed(_ events: [AppendedEvent]) -> [ProjectedEvent] {
        events.map { projected[$0.index].placed(at: $0.position, version: $0.version) }
    }

    /// ``placed(_:)`` of the appended binds and unbinds alone.
    func placedChanges(_ events: [AppendedEvent]) -> [ProjectedEvent] {
        guard !bindings.isEmpty else { return [] }
        return placed(events.filter { isChange[$0.index] })
    }
}

/// The bindings read by `rules`, for `didAppend` of the same append.
private final class StoredBindings {
    var bindings: [String: TerminalBinding] = [:]
    var appended: [ProjectedEvent] = []
}
