import EventStore
import Foundation
import Postgres
import Projections

/// A terminal's binding change in a batch, taken from its typed submission.
struct BindingChange: Sendable {
    enum Kind: Sendable { case bind, unbind }
    let kind: Kind
    let terminalId: String
    let merchantId: String
}

/// The domain rules checked at append, and the projections written in the same transaction.
///
/// A terminal is bound to one merchant at a time: binding it to another needs an unbind first
/// (`terminal_already_bound`); unbinding it from a merchant it is not bound to is `terminal_not_bound`.
/// Binding it again to the same merchant is a re-location and is allowed.
struct LocationRules: AppendHooks {
    let bindingChanges: [UUID: BindingChange]
    /// What the projections read of each event of the batch, read while the batch was prepared.
    let projected: [UUID: ProjectedEvent]

    func rules(for events: [NewEvent], on connection: Connection) throws -> (NewEvent) -> AppendConflict? {
        guard !bindingChanges.isEmpty else { return { _ in nil } }
        let terminals = Array(Set(bindingChanges.values.map(\.terminalId)))
        var boundTo: [String: String] = [:]
        let rows = try connection.query(
            "SELECT terminal_id, merchant_id FROM projections.terminals WHERE terminal_id = ANY($1::text[]) AND merchant_id IS NOT NULL",
            [terminals])
        for row in rows {
            boundTo[try row.decode(0)] = try row.decode(1)
        }
        return { event in
            guard let change = bindingChanges[event.eventId] else { return nil }
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

    /// Projects the appended events from what was read of them while the batch was prepared.
    func didAppend(_ events: [RecordedEvent], on connection: Connection) throws {
        let placed = try events.map { event in
            guard let prepared = projected[event.eventId] else {
                throw ProjectionError(event.position, "the appended event is not one of this batch")
            }
            return prepared.placed(at: event.position)
        }
        try Projector.live.project(placed, on: connection)
    }
}
