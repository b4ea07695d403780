import CommandLineArguments
import Foundation
import Output
import Postgres
import Queries

/// `show merchant|terminal ID`: the current state from the projections.
enum StateCommands {
    static let all = [showMerchant, showTerminal]

    /// What `--format` and `--tz` mean, for both commands' help.
    /// - Parameters:
    ///   - rows: the rows of the CSV.
    ///   - owner: whose fields every row repeats.
    static func formatHelp(rows: String, owner: String) -> String {
        """
        Options:
          --format F   table (the default): aligned columns for people, metres to 0.1, degrees to 7
                         places, times to the second; on a terminal cut to its width (… ends cut
                         text), else whole
                       json: one document; ndjson: the same document on one line
                       csv: a header, then \(rows), the section named
                         in the column 'section', the \(owner)'s own fields on every row
                       geojson: the fixes as Point features of a FeatureCollection, coordinates
                         [lon, lat] in WGS-84, the other columns as properties
                       json, ndjson, csv and geojson hold values unrounded and missing ones as null
                       (empty in csv), where a table shows (none)
          --tz ZONE    the time zone of times: an IANA name (Asia/Shanghai), UTC, or an offset
                       (+08:00, -0530). Default: the machine's in a table, UTC (…Z) in the others
        """
    }

    static let showMerchant = Command(
        words: ["show", "merchant"], summary: "a merchant's address position, latest fix, bound terminals and visits",
        help: """
            Usage: geoledger show merchant ID [--format table|json|ndjson|csv|geojson] [--tz ZONE]

            The merchant's address position (its latest precise fix by capture time), its latest fix of any
            quality, the terminals bound to it with their drift in metres (from each terminal's latest precise
            fix), its visits (how many, and the ten most recent with their distance in metres from the address
            position) and its failed attempts (how many, and the ten most recent with their error code, category
            and message). Each position has its region, near-boundary and claim mismatch, and the address it was
            sent with; (none) where there is no such fix. Positions are WGS-84. Exit status 1 when nothing is
            known of the merchant: no fix, failed attempt, terminal or visit.

            \(formatHelp(rows: "a row for each fix, terminal, visit and failed attempt", owner: "merchant"))

            Examples:
              geoledger show merchant M0001
              geoledger show merchant M0001 --format json
              geoledger show merchant M0001 --format geojson > m0001.geojson
            """,
        run: { words in
            try show(words, kind: "merchant") { id, connection in try CurrentState().merchant(id, on: connection)?.document }
        })

    static let showTerminal = Command(
        words: ["show", "terminal"], summary: "a terminal's binding, position and drift from its merchant",
        help: """
            Usage: geoledger show terminal ID [--format table|json|ndjson|csv|geojson] [--tz ZONE]

            The merchant the terminal is bound to and since when; its position, the latest precise device fix
            by capture time (at binding or reported), and next to it its latest fix of any quality; its drift:
            the distance in metres from its position to the bound merchant's address position (a fix that is
            not precise never makes a drift; no precise fix, no drift); and its failed attempts. Positions are
            WGS-84. Exit status 1 when the terminal is unknown.

            \(formatHelp(rows: "a row for its position, its latest fix and each failed attempt", owner: "terminal"))

            Examples:
              geoledger show terminal T0001 --tz Asia/Shanghai
              geoledger show terminal T0001 --format csv
            """,
        run: { words in
            try show(words, kind: "terminal") { id, connection in try CurrentState().terminal(id, on: connection)?.document }
        })

    private static func show(
        _ words: [String], kind: String, read: (String, Postgres.Connection) throws -> Document?
    ) throws -> Int32 {
        let arguments = try Arguments(words, options: ["format", "tz"])
        let (format, presentation) = try OutputOptions.read(arguments, default: .table)
        guard arguments.positionals.count == 1, let id = arguments.positionals.first else {
            throw UsageError("say which \(kind): geoledger show \(kind) ID")
        }
        let connection = try Settings.fromEnvironment().connectForReading()
        guard let document = try read(id, connection) else {
            printError("no \(kind) \(id)")
            return ExitCode.failure
        }
        var output = BufferedOutput()
        try output.append(try document.rendered(as: format, presentation))
        try output.flush()
        return ExitCode.ok
    }
}
