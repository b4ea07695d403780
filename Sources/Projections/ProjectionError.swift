/// What goes wrong in the projections, the module's one error type.
public enum ProjectionError: Error, CustomStringConvertible, Sendable, Equatable {
    /// A stored event the projections cannot read, at its position in the log (0 while it is not appended yet).
    case unreadable(position: Int64, reason: String)
    /// The projections were too far behind the log for a read to answer or an append to go on.
    case behind(ProjectionsBehind)
    /// Another replay holds the replay lock of this database.
    case replayAlreadyRunning

    /// A stored event the projections cannot read.
    init(_ position: Int64, _ reason: String) {
        self = .unreadable(position: position, reason: reason)
    }

    public var description: String {
        switch self {
        case .unreadable(let position, let reason): "event at position \(position): \(reason)"
        case .behind(let behind): behind.description
        case .replayAlreadyRunning: "another replay is running on this database; wait for it to finish"
        }
    }
}
