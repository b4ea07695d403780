/// What goes wrong in the queries, the module's one error type.
public enum QueryError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A filter a report does not take, or one out of range; `name` as the command line's option without its dashes.
    case filter(name: String, message: String)
    /// A history row whose event the log does not hold.
    case missingEvent(position: Int64)
    /// A report's counts that do not read as `name=n, ...`.
    case malformedCounts(String)

    public var description: String {
        switch self {
        case .filter(let name, let message): "--\(name): \(message)"
        case .missingEvent(let position): "the log holds no event at position \(position)"
        case .malformedCounts(let text): "a report's counts are not name=n, ...: '\(text)'"
        }
    }
}
