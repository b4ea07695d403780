import Output

// The columns of the current-state views, for every format. The names are those of the JSON `show` has always
// written, and the history's for what it added.

extension FixSummary {
    public static let columns = [
        Column("capturedAt", .time, title: "CAPTURED"), Column("lat", .latitude), Column("lon", .longitude),
        Column("accuracy"), Column("horizontalAccuracy", .metres, title: "WITHIN"), Column("provider"),
        Column("region"), Column("nearBoundary", .bool), Column("claimMismatch", .bool), Column("address"),
        Column("position", .integer, title: "LOG POSITION"), Column("eventId", title: "EVENT"),
    ]

    public var row: [Value] {
        [.time(capturedAt), .number(lat), .number(lon), .text(accuracy), .number(horizontalAccuracy), .text(provider),
         .text(region), .bool(nearBoundary), .bool(claimMismatch), Value(address), .integer(position), .text(eventId)]
    }
}

extension FailureSummary {
    public static let columns = [
        Column("capturedAt", .time, title: "CAPTURED"), Column("provider"), Column("errorCode"), Column("errorCategory"),
        Column("errorMessage"), Column("app"), Column("position", .integer, title: "LOG POSITION"),
        Column("eventId", title: "EVENT"),
    ]

    public var row: [Value] {
        [.time(capturedAt), .text(provider), .text(errorCode), .text(errorCategory), Value(errorMessage), Value(app),
         .integer(position), .text(eventId)]
    }

    /// The section of an entity's failed attempts.
    static func section(_ failures: [FailureSummary]) -> Document.Section {
        Document.Section(
            "recentFailures", title: "Failed attempts (the ten newest)",
            table: Table(columns: columns, rows: failures.map(\.row)))
    }
}

extension MerchantState {
    /// The merchant: its id, visit and failure counts, its address position and latest fix, its terminals, its
    /// recent visits and failed attempts.
    public var document: Document {
        let terminalColumns = [
            Column("terminalId", title: "TERMINAL"), Column("boundSince", .time), Column("driftMetres", .metres, title: "DRIFT"),
        ]
        let visitColumns = [
            Column("visitId", title: "VISIT"), Column("visitorId", title: "VISITOR"), Column("capturedAt", .time, title: "CAPTURED"),
            Column("distanceMetres", .metres, title: "DISTANCE"),
        ]
        return Document(
            fields: [
                Document.Field(Column("merchantId", title: "merchant"), .text(merchantId)),
                Document.Field(Column("visits", .integer, title: "visits"), Value(visits)),
                Document.Field(Column("failedAttempts", .integer, title: "failed attempts"), Value(failedAttempts)),
            ],
            sections: [
                Document.Section("addressPosition", title: "Address position (latest precise fix)", columns: FixSummary.columns, row: addressPosition?.row),
                Document.Section("latestFix", title: "Latest fix", columns: FixSummary.columns, row: latestFix?.row),
                Document.Section("terminals", title: "Bound terminals (drift from their latest precise fix)", table: Table(columns: terminalColumns, rows: terminals.map { terminal in
                    [.text(terminal.terminalId), Value(terminal.boundSince), Value(terminal.driftMetres)]
                })),
                Document.Section("recentVisits", title: "Recent visits (the ten newest)", table: Table(columns: visitColumns, rows: recentVisits.map { visit in
                    [.text(visit.visitId), .text(visit.visitorId), .time(visit.capturedAt), Value(visit.distanceMetres)]
                })),
                FailureSummary.section(recentFailures),
            ])
    }
}

extension TerminalState {
    /// The terminal: its binding and drift, its position and latest fix, its recent failed attempts.
    public var document: Document {
        Document(
            fields: [
                Document.Field(Column("terminalId", title: "terminal"), .text(terminalId)),
                Document.Field(Column("merchantId", title: "bound to"), Value(merchantId)),
                Document.Field(Column("boundSince", .time, title: "bound since"), Value(boundSince)),
                Document.Field(Column("unboundAt", .time, title: "unbound at"), Value(unboundAt)),
                Document.Field(Column("lastMerchantId", title: "last merchant"), Value(lastMerchantId)),
                Document.Field(Column("driftMetres", .metres, title: "drift"), Value(driftMetres)),
                Document.Field(Column("failedAttempts", .integer, title: "failed attempts"), Value(failedAttempts)),
            ],
            sections: [
                Document.Section("position", title: "Position (latest precise fix)", columns: FixSummary.columns, row: position?.row),
                Document.Section("latestFix", title: "Latest fix", columns: FixSummary.columns, row: latestFix?.row),
                FailureSummary.section(recentFailures),
            ])
    }
}
