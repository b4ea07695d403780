import Foundation
import HTTPServer
import JSON
import Output
import Queries

/// The filters of `GET /v1/reports/NAME`: each report lists only those it takes (``Report``), so that a filter a
/// report does not take is an unknown parameter, refused before it runs.
enum ReportParameters {
    static let from = QueryParameter.instant(
        "from", "only what was captured at or after this: RFC 3339, or a date (its midnight in UTC)")
    static let to = QueryParameter.instant("to", "only what was captured before this; none when not after from")
    static let staleTo = QueryParameter.instant("to", "the instant the days are counted back from (default now)")
    static let app = QueryParameter.text("app", "only fixes (events, for daily) sent by this app")
    static let provider = QueryParameter.text("provider", "only fixes (and failures) of this provider")
    static let days = QueryParameter.integer("days", "days without a fix", range: 0...100_000, default: 90)

    static func threshold(of report: Report) -> QueryParameter<Double> {
        .metres("threshold", "metres past which a row is reported (default \(Int(report.defaultThreshold ?? 0)))")
    }

    static func format(of report: Report) -> QueryParameter<Format> {
        .format(
            AnswerFormat.formats(of: report),
            "json (an array of row objects), ndjson, csv" + (report.hasPositions ? ", or geojson (the rows' positions)" : ""))
    }

    /// The parameters `report` takes, as the document lists them.
    static func all(of report: Report) -> [APIRoute.Parameter] {
        var parameters = report.takesFrom ? [from.documented, to.documented] : [staleTo.documented]
        parameters += [app.documented, provider.documented]
        if report.defaultThreshold != nil { parameters.append(threshold(of: report).documented) }
        if report.defaultDays != nil { parameters.append(days.documented) }
        return parameters + [format(of: report).documented]
    }

    /// The filters the request gives; those `report` does not take are refused by the route (``all(of:)``).
    static func filters(of report: Report, _ request: HTTPRequest) throws(APIError) -> ReportFilters {
        var filters = ReportFilters(
            from: try request.value(from), to: try request.value(to), app: try request.value(app), provider: try request.value(provider))
        if report.defaultThreshold != nil { filters.threshold = try request.value(threshold(of: report)) }
        if report.defaultDays != nil { filters.days = try request.value(days).map(Int.init) }
        return filters
    }
}

extension QueryParameter where Value == String {
    /// Any text without a NUL character, which the database cannot hold.
    static func text(_ name: String, _ description: String) -> Self {
        Self(
            name: name, description: description, schema: Schema.string(pattern: #"^[^\u0000]*$"#), rule: "text without a NUL character",
            read: { $0.contains("\0") ? nil : $0 })
    }
}
