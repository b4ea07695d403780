#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What goes wrong in writing output, the module's one error type.
public enum OutputError: Error, Sendable, CustomStringConvertible {
    /// A file could not be opened for writing: its path and the system's reason.
    case openFailed(path: String, code: Int32)
    /// A write that failed: to where (a path, or "standard output"), and the system's reason.
    case writeFailed(target: String, code: Int32)
    /// GeoJSON of a result that has no latitude and longitude columns.
    case noPositions

    /// The reader of a pipe went away, as `head` does once it has its lines: not worth a message.
    public var isBrokenPipe: Bool {
        if case .writeFailed(_, let code) = self { code == EPIPE } else { false }
    }

    public var description: String {
        switch self {
        case .openFailed(let path, let code): "cannot open \(path): \(String(cString: strerror(code)))"
        case .writeFailed(let target, let code): "cannot write \(target): \(String(cString: strerror(code)))"
        case .noPositions: "geojson needs positions, and this result has no latitude and longitude columns"
        }
    }
}
