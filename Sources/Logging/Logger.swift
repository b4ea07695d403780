import Foundation
import JSON

/// A log with levels and key-value metadata, one JSON object a line (`time`, `level`, `message`, then the metadata),
/// as `serve` writes its request log. Made once by the application and handed to the modules that have something to
/// say; a module never makes its own.
public struct Logger: Sendable {
    public enum Level: Int, Comparable, CaseIterable, Sendable {
        case debug, info, warning, error

        public var name: String {
            switch self {
            case .debug: "debug"
            case .info: "info"
            case .warning: "warning"
            case .error: "error"
            }
        }

        /// `debug`, `info`, `warning` or `error`; nil for anything else.
        public init?(name: String) {
            guard let level = Self.allCases.first(where: { $0.name == name }) else { return nil }
            self = level
        }

        public static func < (a: Level, b: Level) -> Bool { a.rawValue < b.rawValue }
    }

    /// Lines below this level are not written.
    public let minimum: Level
    private let write: @Sendable (String) -> Void

    /// - Parameter write: takes each line, without its newline.
    public init(minimum: Level = .info, write: @escaping @Sendable (String) -> Void) {
        self.minimum = minimum
        self.write = write
    }

    /// Writes nothing.
    public static let discarding = Logger(minimum: .error) { _ in }

    /// Whether a line of `level` would be written: to skip building what only such a line needs.
    public func logs(_ level: Level) -> Bool { level >= minimum }

    public func log(_ level: Level, _ message: @autoclosure () -> String, _ metadata: @autoclosure () -> [String: String] = [:]) {
        guard logs(level) else { return }
        write(Self.line(level, message(), metadata()))
    }

    public func debug(_ message: @autoclosure () -> String, _ metadata: @autoclosure () -> [String: String] = [:]) {
        log(.debug, message(), metadata())
    }

    public func info(_ message: @autoclosure () -> String, _ metadata: @autoclosure () -> [String: String] = [:]) {
        log(.info, message(), metadata())
    }

    public func warning(_ message: @autoclosure () -> String, _ metadata: @autoclosure () -> [String: String] = [:]) {
        log(.warning, message(), metadata())
    }

    public func error(_ message: @autoclosure () -> String, _ metadata: @autoclosure () -> [String: String] = [:]) {
        log(.error, message(), metadata())
    }

    static let time = Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: TimeZone(identifier: "UTC")!)

    /// The line: metadata cannot overwrite `time`, `level` or `message`.
    static func line(_ level: Level, _ message: String, _ metadata: [String: String], at date: Date = Date()) -> String {
        var members = JSONObject(members: metadata.map { ($0.key, JSONValue.string($0.value)) })
        members["time"] = .string(date.formatted(time))
        members["level"] = .string(level.name)
        members["message"] = .string(message)
        return JSONValue.object(members).canonicalString()
    }
}
