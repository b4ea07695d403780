import CivilCalendar
import CommandLineArguments
import Foundation
import LocationEvents
import Output
import Queries

/// `history merchant|terminal|enterprise ID` and `visits --merchant ID | --visitor ID`: every fix and failed
/// attempt in a time range, newest first, a page at a time.
enum HistoryCommands {
    static let all = [historyMerchant, historyTerminal, historyEnterprise, visits]

    static let rangeHelp = """
          --since TIME  the earliest capture time listed: RFC 3339 (2026-11-01T00:00:00+08:00) or a
                        time ago, a number and a unit: 30m, 24h, 7d (minutes, hours, days)
          --until TIME  the capture time where the listing stops, excluded; the same forms
          --limit N     rows on the page, 1 to 10000 (default 100), newest first
          --cursor C    the next page: the cursor the previous page printed on standard error
          --format F    table (the default on a terminal): aligned columns for people, metres to 0.1,
                          degrees to 7 places, times to the second
                        csv (the default into a file or a pipe): a header, then a row per fix, failed
                          attempt or unbind; missing values empty
                        json: an array of row objects; ndjson: an object per line; missing values null
                        geojson: the fixes as Point features of a FeatureCollection, coordinates
                          [lon, lat] in WGS-84, the other columns as properties (failed attempts and
                          unbinds have no position and are left out)
        \(MapFormat.historyHelp)
          --tz ZONE     the time zone of times: an IANA name (Asia/Shanghai), UTC, or an offset
                        (+08:00, -0530). Default: the machine's in a table, UTC (…Z) in the others

        Each row: the capture time, the event type, the WGS-84 and GCJ-02 position, the horizontal
        accuracy and the accuracy flag (precise, approximate, unusable), the accuracy authorisation,
        the provider, the region with near-boundary and claim mismatch, the address as sent, app and
        user; a failed attempt has its error code, category and message instead of a position. When
        more rows match than the page holds, the command for the next page is printed on standard
        error.
        """

    static let historyMerchant = entityCommand(
        "merchant", summary: "every address fix and failed attempt of a merchant, newest first",
        what: "The merchant's address fixes (onboarding, relocation, edit, shop) and failed attempts.",
        examples: """
              geoledger history merchant M0001 --since 7d
              geoledger history merchant M0001 --since 2026-11-01T00:00:00+08:00 --tz Asia/Shanghai
              geoledger history merchant M0001 --format geojson > m0001.geojson
              geoledger history merchant M0001 --format svg > m0001.svg
            """, subject: HistorySubject.merchant)

    static let historyTerminal = entityCommand(
        "terminal", summary: "every fix, failed attempt, bind and unbind of a terminal, newest first",
        what: """
            The terminal's fixes (at each binding, and reported by the device) and failed attempts, with its
            bindings over time: a bind (TerminalBound) or an unbind (TerminalUnbound) names the merchant in
            the column merchantId; an unbind has no fix and is listed at its receive time.
            """,
        examples: """
              geoledger history terminal T0001 --since 24h
              geoledger history terminal T0001 --format csv > t0001.csv
            """, subject: HistorySubject.terminal)

    static let historyEnterprise = entityCommand(
        "enterprise", summary: "every address fix and failed attempt of an enterprise, newest first",
        what: "The enterprise's registered-address fixes and failed attempts.",
        examples: """
              geoledger history enterprise E0001 --limit 20
            """, subject: HistorySubject.enterprise)

    static func entityCommand(
        _ kind: String, summary: String, what: String, examples: String, subject: @escaping @Sendable (String) -> HistorySubject
    ) -> Command {
        Command(
            words: ["history", kind], summary: summary,
            help: """
                Usage: geoledger history \(kind) ID [--since TIME] [--until TIME] [--limit N] [--cursor C]
                                                    [--format table|json|ndjson|csv|geojson|svg] [--tz ZONE]

                \(what)

                Options:
                \(rangeHelp)

                Examples:
                \(examples)
                """,
            run: { words in
                let arguments = try Arguments(words, options: optionNames)
                guard arguments.positionals.count == 1, let id = arguments.positionals.first else {
                    throw UsageError("say which \(kind): geoledger history \(kind) ID")
                }
                return try list(subject(id), arguments, command: ["history", kind] + words)
            })
    }

    static let visits = Command(
        words: ["visits"], summary: "the visit records of a merchant or a visitor, newest first",
        help: """
            Usage: geoledger visits (--merchant ID | --visitor ID) [--since TIME] [--until TIME] [--limit N]
                                    [--cursor C] [--format table|json|ndjson|csv|geojson|svg] [--tz ZONE]

            The visit records naming a merchant, or recorded by a visitor, each with its visit, merchant and
            visitor, its fix and its distance in metres from the merchant's address position (its latest
            precise fix); and the failed attempts to locate those visits.

            Options:
              --merchant ID the merchant visited
              --visitor ID  the visitor (a sales user)
            \(rangeHelp)

            Examples:
              geoledger visits --merchant M0001 --since 30d
              geoledger visits --visitor sales-17 --format geojson > sales-17.geojson
            """,
        run: { words in
            let arguments = try Arguments(words, options: optionNames.union(["merchant", "visitor"]))
            if let extra = arguments.positionals.first { throw UsageError("unexpected argument '\(extra)'") }
            switch (arguments.value("merchant"), arguments.value("visitor")) {
            case (let merchant?, nil):
                return try list(.visitsToMerchant(merchant), arguments, command: ["visits"] + words)
            case (nil, let visitor?):
                return try list(.visitsBy(visitor), arguments, command: ["visits"] + words)
            default:
                throw UsageError("say whose visits: --merchant ID or --visitor ID, one of them")
            }
        })

    static let optionNames: Set<String> = ["since", "until", "limit", "cursor", "format", "tz"]

    /// - Parameter command: the command's words as given, for the next page's command line.
    private static func list(_ subject: HistorySubject, _ arguments: Arguments, command: [String]) throws -> Int32 {
        let isMap = arguments.value("format") == "svg"
        let (format, presentation) = isMap ? (.json, Presentation())
            : try OutputOptions.read(arguments, default: Presentation.standardOutputIsTerminal ? .table : .csv)
        let now = Date()
        var range = HistoryRange(
            since: try arguments.value("since").map { try TimeOption.parse($0, option: "since", now: now) },
            until: try arguments.value("until").map { try TimeOption.parse($0, option: "until", now: now) },
            limit: try arguments.integer("limit", default: HistoryRange.defaultLimit, range: HistoryRange.limits)!)
        if let text = arguments.value("cursor") {
            guard let cursor = HistoryCursor(text) else {
                throw UsageError("--cursor must be a cursor a page printed, not '\(text)'")
            }
            range.cursor = cursor
        }
        if let since = range.since, let until = range.until, since >= until {
            throw UsageError("--since must be before --until")
        }
        let connection = try Settings.fromEnvironment().connectForReading()
        let page = try History().page(of: subject, range, on: connection)
        var output = BufferedOutput()
        if isMap {
            try output.append(try MapFormat.history(page, of: subject, on: connection))
        } else {
            try output.append(try page.table(of: subject, locatedOnly: format == .geojson).rendered(as: format, presentation))
        }
        try output.flush()
        if let next = page.next {
            printError("more rows: " + nextPage(command, cursor: next))
        }
        return ExitCode.ok
    }

    /// The command line that lists the next page: the words given, without their cursor, and `--cursor`.
    static func nextPage(_ words: [String], cursor: HistoryCursor) -> String {
        var kept: [String] = []
        var rest = words[...]
        while let word = rest.popFirst() {
            if word == "--cursor" { _ = rest.popFirst(); continue }
            if word.hasPrefix("--cursor=") { continue }
            kept.append(word)
        }
        return (["geoledger"] + kept + ["--cursor", cursor.description]).map(shellQuoted).joined(separator: " ")
    }

    /// A word as a POSIX shell reads it back: as it is when it holds only safe characters, else in single quotes.
    static func shellQuoted(_ word: String) -> String {
        let safe = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.:-+=/,@%")
        guard word.isEmpty || !word.allSatisfy(safe.contains) else { return word }
        return "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}

/// `--since` and `--until`: an RFC 3339 time, or a time ago.
enum TimeOption {
    /// `2026-11-01T00:00:00+08:00`, or a whole number and a unit (`30m`, `24h`, `7d`) before `now`.
    static func parse(_ text: String, option: String, now: Date) throws -> Date {
        if let timestamp = Timestamp(rfc3339: text) { return timestamp.date }
        let units: [Character: Double] = ["m": 60, "h": 3600, "d": 86_400]
        if let unit = text.last.flatMap({ units[$0] }), let count = Int(text.dropLast()), count >= 0,
           text.dropLast().allSatisfy(\.isASCII), count <= 1_000_000 {
            return now.addingTimeInterval(-Double(count) * unit)
        }
        throw UsageError(
            "--\(option) must be an RFC 3339 time with its offset (2026-11-01T00:00:00+08:00) or a time ago (30m, 24h, 7d), not '\(text)'")
    }
}
