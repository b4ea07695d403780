/// What goes wrong in the event store, the module's one error type.
public enum EventStoreError: Error, CustomStringConvertible, Equatable {
    /// The build has no migrations bundled.
    case missingMigrations
    /// A migration applied to the database is not the file this build ships under its name.
    case changedSinceApplied(name: String)
    /// The database has a migration applied that this build does not ship.
    case appliedButUnknown(name: String)
    /// An atomic append in which an event failed: nothing was written; the answer says which and why.
    case atomicBatchFailed(AppendAnswer)
    /// Thrown inside a decided batch's transaction to roll back what it wrote, because the decision no longer holds;
    /// caught in the module, where the batch is decided again.
    case decisionOutdated

    public var description: String {
        switch self {
        case .missingMigrations:
            "no migrations are bundled with this build: the SQL files of Migrations/ were not found"
        case .changedSinceApplied(let name):
            "migration \(name) has changed since it was applied; applied migrations must never be edited (add a new file instead)"
        case .appliedButUnknown(let name):
            "migration \(name) is recorded as applied but is not shipped with this build; is this an older geoledger?"
        case .atomicBatchFailed(let answer):
            "an atomic batch was not appended: \(answer.results.filter { $0 != .notAppended }.count) of its events failed"
        case .decisionOutdated:
            "another append changed the log since the batch was decided"
        }
    }
}
