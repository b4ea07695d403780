import CommandLineArguments
import Foundation
import Output
import Queries

/// `report NAME`: one of the reports over the projections (the `Queries` module), in any output format.
enum ReportCommand {
    static let command = Command(
        words: ["report"], summary: "reports over the projections: region mismatches, accuracy, providers, drift, ...",
        help: """
            Usage: geoledger report NAME [--from T] [--to T] [--app APP] [--provider P] [--threshold M] [--days N]
                                         [--format table|json|ndjson|csv|geojson|svg] [--tz ZONE]

            Reports:
            \(reportLines)

            Options:
              --from T       only what was captured at or after T; --to T: before T. T is RFC 3339
                             (2026-11-01T08:00:00+08:00) or a date (2026-11-01: its midnight in UTC).
                             daily counts whole UTC days of receipt: from the day of --from to the last
                             day starting before --to. stale counts --days back from --to (default now)
                             and takes no --from.
              --app APP      only fixes (events, for daily) sent by this app
              --provider P   only fixes (and failures) of this provider
              --threshold M  metres: terminal-drift (default 1000), visit-distance (default 500)
              --days N       stale (default 90)
              --format F     table (the default), json, ndjson, csv; geojson for the reports with
                             positions (terminal-drift, visit-distance, outside-region, stale): Point
                             features [lon, lat] in WGS-84, the other columns as properties
                             svg for terminal-drift: a map of the terminals (blue squares), their
                             merchants' address positions (red diamonds) and a line between each
                             pair labelled with the drift, over the region outlines, with a scale bar
                             and a legend. Meant for a file that opens in a browser: > drift.svg
              --tz ZONE      the time zone of times (see 'geoledger show merchant --help')

            A merchant's address position is its newest precise address fix; terminal-drift takes a
            terminal's newest precise fix, visit-distance the visit's own fix, stale the newest fix of
            any quality. Platform (providers) is ios, android or unknown: the actor's
            platform when sent, else read from its os. daily counts appended events only (answer 'appended'):
            rejected items are not stored. Shares are fractions of 1; accuracies and distances metres.
            An unknown report name is a usage error (exit 64).

            Examples:
            \(Report.allCases.map { "  " + $0.example }.joined(separator: "\n"))
            """,
        run: run)

    private static var reportLines: String {
        let width = Report.allCases.map(\.rawValue.count).max() ?? 0
        return Report.allCases.map { "  " + $0.rawValue.padding(toLength: width + 2, withPad: " ", startingAt: 0) + $0.summary }
            .joined(separator: "\n")
    }

    private static func run(_ words: [String]) throws -> Int32 {
        let arguments = try Arguments(words, options: ["from", "to", "app", "provider", "threshold", "days", "format", "tz"])
        let names = Report.allCases.map(\.rawValue).joined(separator: ", ")
        guard let name = arguments.positionals.first else { throw UsageError("say which report: \(names)") }
        guard let report = Report(rawValue: name) else { throw UsageError("unknown report '\(name)'; the reports: \(names)") }
        guard arguments.positionals.count == 1 else {
            throw UsageError("unexpected argument '\(arguments.positionals[1])'")
        }
        let isMap = arguments.value("format") == "svg"
        if isMap, report != .terminalDrift {
            throw UsageError("--format svg draws terminal-drift only; use table, json, ndjson, csv or geojson")
        }
        let format = isMap ? .json
            : Format(rawValue: try arguments.choice("format", from: Format.allCases.map(\.rawValue) + ["svg"], default: "table"))!
        if format == .geojson, !report.hasPositions {
            throw UsageError("--format geojson needs positions, and \(report.rawValue) has none; use table, json, ndjson or csv")
        }
        var presentation = Presentation(width: format == .table ? Presentation.standardOutputWidth() : nil)
        if let zone = arguments.value("tz") {
            guard let timeZone = TimeZoneName.parse(zone) else {
                throw UsageError("--tz must be \(TimeZoneName.accepted), not '\(zone)'")
            }
            presentation.timeZone = timeZone
        }
        var filters = ReportFilters(app: arguments.value("app"), provider: arguments.value("provider"))
        for option in ["from", "to"] {
            guard let text = arguments.value(option) else { continue }
            guard let instant = ReportFilters.instant(text) else {
                throw UsageError("--\(option) must be RFC 3339 (2026-11-01T08:00:00+08:00) or a date (2026-11-01), not '\(text)'")
            }
            if option == "from" { filters.from = instant } else { filters.to = instant }
        }
        if let text = arguments.value("threshold") {
            guard let metres = Double(text), metres.isFinite, metres >= 0 else {
                throw UsageError("--threshold must be metres, 0 or more, not '\(text)'")
            }
            filters.threshold = metres
        }
        filters.days = try arguments.integer("days", range: 0...100_000)
        do {
            try filters.check(for: report)
        } catch let error as QueryError {
            throw UsageError("\(report.rawValue): \(error)")
        }
        let connection = try Settings.fromEnvironment().connectForReading()
        let table = try Reports.table(report, filters, on: connection)
        var output = BufferedOutput()
        try output.append(isMap ? try MapFormat.terminalDrift(table) : try table.rendered(as: format, presentation))
        try output.flush()
        return ExitCode.ok
    }
}
