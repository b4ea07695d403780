import Output

/// The reports, each one SQL function over the projections (`Migrations/0009_reports.sql`) and the columns it
/// answers. The one list for the command line and any other caller.
public enum Report: String, CaseIterable, Sendable {
    case regionMismatch = "region-mismatch"
    case accuracy
    case providers
    case terminalDrift = "terminal-drift"
    case visitDistance = "visit-distance"
    case outsideRegion = "outside-region"
    case stale
    case daily

    /// One line saying what it answers.
    public var summary: String {
        switch self {
        case .regionMismatch: "fixes whose client region claim disagrees with the server's check, by provider, app and region"
        case .accuracy: "shares of precise, approximate, unusable and reduced-authorisation fixes, by provider, app and day"
        case .providers: "per provider and platform: fixes, failures by category, median and p90 accuracy, mismatch rate"
        case .terminalDrift: "bound terminals whose latest precise fix is over --threshold (1000 m) from their merchant"
        case .visitDistance: "visits recorded over --threshold (500 m) from the merchant's address position, by visitor"
        case .outsideRegion: "merchants whose address position is not in mainland China"
        case .stale: "merchants and bound terminals without a fix for --days (90)"
        case .daily: "events appended per day of receipt (UTC) and type"
        }
    }

    /// A command line that runs it.
    public var example: String {
        switch self {
        case .regionMismatch: "geoledger report region-mismatch --from 2026-01-01 --provider amap"
        case .accuracy: "geoledger report accuracy --app onboarding --format csv"
        case .providers: "geoledger report providers --from 2026-10-01 --to 2026-11-01"
        case .terminalDrift: "geoledger report terminal-drift --threshold 2000 --format geojson"
        case .visitDistance: "geoledger report visit-distance --threshold 300"
        case .outsideRegion: "geoledger report outside-region --format geojson"
        case .stale: "geoledger report stale --days 30"
        case .daily: "geoledger report daily --from 2026-11-01T00:00:00+08:00"
        }
    }

    /// The distance in metres past which a row is reported, for the reports that take `--threshold`.
    public var defaultThreshold: Double? {
        switch self {
        case .terminalDrift: 1000
        case .visitDistance: 500
        default: nil
        }
    }

    /// Days without a fix, for the report that takes `--days`.
    public var defaultDays: Int? { self == .stale ? 90 : nil }

    /// Whether it takes `--from`: `stale` measures from one instant, `--to` (default now).
    public var takesFrom: Bool { self != .stale }

    /// Whether its rows have a position (and so a GeoJSON form).
    public var hasPositions: Bool { columns.contains { $0.kind == .latitude } }

    /// The columns of its rows, in the order of its SQL function's.
    public var columns: [Column] {
        switch self {
        case .regionMismatch:
            [Column("provider"), Column("app"), Column("region"), Column("mismatches", .integer),
             Column("firstCapturedAt", .time), Column("lastCapturedAt", .time)]
        case .accuracy:
            [Column("provider"), Column("app"), Column("day"), Column("fixes", .integer), Column("precise", .number),
             Column("approximate", .number), Column("unusable", .number), Column("reduced", .number)]
        case .providers:
            [Column("provider"), Column("platform"), Column("fixes", .integer), Column("failures", .integer),
             Column("failuresByCategory", .counts), Column("medianAccuracy", .metres), Column("p90Accuracy", .metres, title: "P90 ACCURACY"),
             Column("mismatchRate", .number)]
        case .terminalDrift:
            [Column("terminalId"), Column("merchantId"), Column("drift", .metres), Column("lat", .latitude),
             Column("lon", .longitude), Column("capturedAt", .time), Column("provider"), Column("app"),
             Column("merchantLat", .latitude), Column("merchantLon", .longitude)]
        case .visitDistance:
            [Column("visitorId"), Column("visitId"), Column("merchantId"), Column("distance", .metres),
             Column("lat", .latitude), Column("lon", .longitude), Column("capturedAt", .time), Column("provider"),
             Column("app")]
        case .outsideRegion:
            [Column("merchantId"), Column("region"), Column("nearBoundary", .bool), Column("lat", .latitude),
             Column("lon", .longitude), Column("capturedAt", .time), Column("provider"), Column("app")]
        case .stale:
            [Column("kind"), Column("id"), Column("lastFixAt", .time), Column("daysSince", .integer),
             Column("lat", .latitude), Column("lon", .longitude), Column("provider"), Column("app")]
        case .daily:
            [Column("day"), Column("eventType"), Column("answer"), Column("events", .integer)]
        }
    }

    /// The SQL function's name.
    var function: String { "report_" + rawValue.replacingOccurrences(of: "-", with: "_") }
}
