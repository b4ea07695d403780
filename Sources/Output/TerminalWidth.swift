import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Presentation {
    /// Whether standard output is a terminal, where people read: queries default to a table there and to a format for
    /// programs in a file or a pipe.
    public static var standardOutputIsTerminal: Bool { isatty(STDOUT_FILENO) == 1 }

    /// The width a table on standard output must fit: the terminal's when standard output is one (its window
    /// size, else `COLUMNS`, else 80), no limit when it is a file or a pipe.
    public static func standardOutputWidth(environment: [String: String] = ProcessInfo.processInfo.environment) -> Int? {
        guard isatty(STDOUT_FILENO) == 1 else { return nil }
        var size = winsize()
        if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        if let columns = environment["COLUMNS"].flatMap({ Int($0) }), columns > 0 { return columns }
        return 80
    }
}
