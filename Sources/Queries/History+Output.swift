import Output

// The columns of a history, for every format: those every history has, and those of a terminal's bindings and of
// visits next to the event type.

extension HistoryEntry {
    /// A column and how an entry fills it.
    struct Field: Sendable {
        let column: Column
        let value: @Sendable (HistoryEntry) -> Value

        init(_ column: Column, _ value: @escaping @Sendable (HistoryEntry) -> Value) {
            (self.column, self.value) = (column, value)
        }
    }

    static let leading = [
        Field(Column("capturedAt", .time, title: "CAPTURED")) { .time($0.capturedAt) },
        Field(Column("eventType", title: "EVENT TYPE")) { .text($0.eventType) },
    ]

    /// The merchant of a terminal's bind or unbind.
    static let binding = [Field(Column("merchantId", title: "MERCHANT")) { Value($0.merchantId) }]

    static let visit = [
        Field(Column("visitId", title: "VISIT")) { Value($0.visitId) },
        Field(Column("merchantId", title: "MERCHANT")) { Value($0.merchantId) },
        Field(Column("visitorId", title: "VISITOR")) { Value($0.visitorId) },
    ]

    /// The WGS-84 position comes first: GeoJSON takes a feature's point from the first latitude and longitude.
    static let fix = [
        Field(Column("lat", .latitude)) { Value($0.lat) },
        Field(Column("lon", .longitude)) { Value($0.lon) },
        Field(Column("gcj02Lat", .latitude, title: "GCJ-02 LAT")) { Value($0.gcj02Lat) },
        Field(Column("gcj02Lon", .longitude, title: "GCJ-02 LON")) { Value($0.gcj02Lon) },
        Field(Column("horizontalAccuracy", .metres, title: "WITHIN")) { Value($0.horizontalAccuracy) },
        Field(Column("accuracy")) { Value($0.accuracy) },
        Field(Column("accuracyAuthorization", title: "AUTHORIZATION")) { Value($0.accuracyAuthorization) },
        Field(Column("provider")) { Value($0.provider) },
        Field(Column("region")) { Value($0.region) },
        Field(Column("nearBoundary", .bool)) { Value($0.nearBoundary) },
        Field(Column("claimMismatch", .bool)) { Value($0.claimMismatch) },
        Field(Column("address")) { Value($0.address) },
        Field(Column("adcode")) { Value($0.adcode) },
    ]

    static let distance = [Field(Column("distanceMetres", .metres, title: "DISTANCE")) { Value($0.distanceMetres) }]

    static let trailing = [
        Field(Column("app")) { Value($0.app) },
        Field(Column("userId", title: "USER")) { Value($0.userId) },
        Field(Column("errorCode")) { Value($0.errorCode) },
        Field(Column("errorCategory")) { Value($0.errorCategory) },
        Field(Column("errorMessage")) { Value($0.errorMessage) },
        Field(Column("position", .integer, title: "LOG POSITION")) { .integer($0.position) },
        Field(Column("eventId", title: "EVENT")) { .text($0.eventId) },
    ]

    static func fields(of subject: HistorySubject) -> [Field] {
        switch subject {
        case .merchant, .enterprise: leading + fix + trailing
        case .terminal: leading + binding + fix + trailing
        case .visitsToMerchant, .visitsBy: leading + visit + fix + distance + trailing
        }
    }
}

extension HistoryPage {
    /// The page as a table of `subject`'s columns, newest first.
    /// - Parameter locatedOnly: only the rows with a position (GeoJSON's features): failed attempts and unbinds
    ///   are left out.
    public func table(of subject: HistorySubject, locatedOnly: Bool = false) -> Table {
        let fields = HistoryEntry.fields(of: subject)
        let shown = locatedOnly ? entries.filter { $0.lat != nil && $0.lon != nil } : entries
        return Table(columns: fields.map(\.column), rows: shown.map { entry in fields.map { $0.value(entry) } })
    }
}
