import EventStore
import Foundation
import Postgres

/// The projector's checkpoint: the position of the last event the projections hold, one row of
/// `projections.checkpoint`, written in the same transaction as the rows projected up to it.
enum Checkpoint {
    static func position(in schema: String = "projections", on connection: Connection) throws -> Int64 {
        guard let row = try connection.query("SELECT position FROM \(schema).checkpoint").first else {
            throw PostgresError(.decoding, "\(schema).checkpoint has no row: run 'geoledger migrate'")
        }
        return try row.decode(0)
    }

    static func advance(to position: Int64, in schema: String = "projections", on connection: Connection) throws {
        try connection.query("UPDATE \(schema).checkpoint SET position = $1", [position])
    }
}

/// How far the projections are behind the log.
public struct ProjectionLag: Sendable, Equatable {
    /// The log's last position.
    public var head: Int64
    /// The last position projected.
    public var projected: Int64
    /// How long ago the oldest event not projected yet was recorded; 0 when none waits.
    public var seconds: Double

    public var events: Int64 { max(0, head - projected) }

    /// Reads the checkpoint, the log's head and the age of the oldest event not projected, each on its own (on Citus
    /// the log is distributed and the checkpoint is not, and the two are never joined).
    public static func read(on connection: Connection) throws -> ProjectionLag {
        let projected = try Checkpoint.position(on: connection)
        let head = try EventLog().headPosition(on: connection)
        let age = try connection.query(
            "SELECT extract(epoch FROM now() - recorded_at)::float8 FROM events WHERE position = $1", [projected + 1]
        ).first.map { try $0.decode(0, as: Double.self) } ?? 0
        return ProjectionLag(head: head, projected: projected, seconds: max(0, age))
    }

    /// `1,234 events (5.2 s)`: the lag for a message.
    public var description: String {
        "\(events) event\(events == 1 ? "" : "s") (the oldest recorded \(String(format: "%.1f", seconds)) s ago)"
    }
}

/// A read or an append that found the projections too far behind the log (``ProjectionError/behind(_:)``): a read
/// waited for them to pass the log's head as of its start and they did not within the bound; an append found them
/// more events behind than allowed.
public struct ProjectionsBehind: CustomStringConvertible, Sendable, Equatable {
    public enum Kind: Sendable { case read, append }
    public let kind: Kind
    /// Events the projections were behind when the caller gave up.
    public let events: Int64
    /// The bound that was passed: seconds waited for a read, events behind for an append.
    public let bound: Double
    /// The projector's last error, when it is failing.
    public let lastError: String?

    public var description: String {
        let failing = lastError.map { "; the projector is failing: \($0)" } ?? ""
        switch kind {
        case .read:
            let behind = "the projections are \(events) event\(events == 1 ? "" : "s") behind the log"
            if let lastError {
                return "\(behind) and the projector fails: \(lastError); the answer would miss acknowledged writes"
            }
            return "\(behind) and did not catch up within \(String(format: "%g", bound)) s, so the answer would miss "
                + "acknowledged writes"
        case .append:
            return "the projections are \(events) events behind the log, more than the \(Int64(bound)) allowed; "
                + "appends wait until the projector catches up\(failing)"
        }
    }
}
