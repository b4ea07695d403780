import CommandLineArguments
import Output

/// `--format` and `--tz`, as every query command reads them.
enum OutputOptions {
    /// The format asked for (else `fallback`) and how values are written: the time zone of `--tz`, and on a
    /// terminal, for a table, its width.
    static func read(_ arguments: Arguments, default fallback: Format) throws -> (Format, Presentation) {
        let format = Format(rawValue: try arguments.choice("format", from: Format.allCases.map(\.rawValue), default: fallback.rawValue))!
        var presentation = Presentation(width: format == .table ? Presentation.standardOutputWidth() : nil)
        if let zone = arguments.value("tz") {
            guard let timeZone = TimeZoneName.parse(zone) else {
                throw UsageError("--tz must be \(TimeZoneName.accepted), not '\(zone)'")
            }
            presentation.timeZone = timeZone
        }
        return (format, presentation)
    }
}
