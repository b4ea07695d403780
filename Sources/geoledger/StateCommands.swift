import CommandLineArguments
import Foundation
import Postgres
import Projections

/// `show merchant|terminal ID`: the current state from the projections.
enum StateCommands {
    static let all = [showMerchant, showTerminal]

    static let showMerchant = Command(
        words: ["show", "merchant"], summary: "a merchant's address position, latest fix, bound terminals and visits",
        help: """
            Usage: geoledger show merchant ID [--format table|json]

            The merchant's address position (its latest precise fix by capture time), its latest fix of any
            quality, the terminals bound to it with their drift in metres, and its visits (how many, and the ten
            most recent with their distance in metres from the address position).
            Positions are WGS-84. Exit status 1 when the merchant has no fix.

            Example:
              geoledger show merchant M0001 --format json
            """,
        run: { words in
            try show(words, kind: "merchant") { id, connection in try CurrentState().merchant(id, on: connection) }
        })

    static let showTerminal = Command(
        words: ["show", "terminal"], summary: "a terminal's binding, position and drift from its merchant",
        help: """
            Usage: geoledger show terminal ID [--format table|json]

            The merchant the terminal is bound to and since when, its latest device fix by capture time, and its
            drift: the distance in metres from the bound merchant's address position. Positions are WGS-84.
            Exit status 1 when the terminal is unknown.

            Example:
              geoledger show terminal T0001
            """,
        run: { words in
            try show(words, kind: "terminal") { id, connection in try CurrentState().terminal(id, on: connection) }
        })

    private static func show<State: Encodable>(
        _ words: [String], kind: String, read: (String, Postgres.Connection) throws -> State?
    ) throws -> Int32 {
        let arguments = try Arguments(words, options: ["format"])
        let format = try arguments.choice("format", from: ["table", "json"], default: "table")
        guard arguments.positionals.count == 1, let id = arguments.positionals.first else {
            throw UsageError("say which \(kind): geoledger show \(kind) ID")
        }
        let connection = try Settings.fromEnvironment().connect()
        guard let state = try read(id, connection) else {
            printError("no \(kind) \(id)")
            return ExitCode.failure
        }
        print(format == "json" ? try Output.json(state) : try Output.table(state))
        return ExitCode.ok
    }
}
