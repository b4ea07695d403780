import Foundation
import HTTPServer
import JSON
import LocationEvents
import Output
import Postgres
import Queries

// The histories, visits and reports: the queries `geoledger history`, `visits` and `report` run (``History``,
// ``Reports``), answered in the formats those commands write for programs.

/// The formats of the query routes' answers: those of `Output` for programs, with their media types.
enum AnswerFormat {
    static let history: [Format] = [.json, .ndjson, .csv, .geojson]

    static func mediaType(_ format: Format) -> String {
        switch format {
        case .json, .table: "application/json"
        case .ndjson: "application/x-ndjson"
        case .csv: "text/csv; charset=utf-8; header=present"
        case .geojson: "application/geo+json"
        }
    }

    /// The formats of `report`: geojson only for those with positions.
    static func formats(of report: Report) -> [Format] {
        report.hasPositions ? history : [.json, .ndjson, .csv]
    }
}

extension GeoledgerAPI {
    static let nextPage: (String, String, JSONValue) = (
        "Link", #"On a page with more rows after it: <the same URL with cursor=NEXT>; rel="next". No Link: the last page."#,
        Schema.string(pattern: #"^<[^>]+>; rel="next"$"#)
    )

    /// The routes of the histories, visits and reports, listed in ``routes``.
    var queryRoutes: [APIRoute] {
        let range = HistoryParameters.all
        let id = [QueryParameter<String>.id("id", "the merchant's or terminal's id").documented]
        let page = { (kind: HistoryColumns.Kind, description: String) -> APIRoute.Success in
            APIRoute.Success(
                description, Schema.table(HistoryColumns.columns(kind), formats: AnswerFormat.history), headers: [Self.nextPage])
        }
        let invalidId: [Int: APIRoute.Failure] = [400: .init("The id or a parameter is malformed (error.field names it)", ["invalid_id"])]
        return [
            APIRoute(
                .get, "/v1/merchants/{id}/history", access: .token(.read),
                summary: "Every address fix and failed attempt of a merchant, newest first, a page at a time",
                path: id, query: range, success: page(.merchant, "A page of the history, newest first; an unknown id has an empty history"),
                failures: invalidId, handler: { [self] in try history($0, kind: "merchant", HistorySubject.merchant) }),
            APIRoute(
                .get, "/v1/terminals/{id}/history", access: .token(.read),
                summary: "Every fix, failed attempt, bind and unbind of a terminal, newest first, a page at a time",
                path: id, query: range, success: page(.terminal, "A page of the history, newest first; an unknown id has an empty history"),
                failures: invalidId, handler: { [self] in try history($0, kind: "terminal", HistorySubject.terminal) }),
            APIRoute(
                .get, "/v1/visits", access: .token(.read),
                summary: "The visit records of a merchant or of a visitor, with their distance from the merchant's address position",
                query: [HistoryParameters.visitsOf] + range,
                success: page(.visits, "A page of visits, newest first"),
                failures: [400: .init("A parameter is malformed, or neither or both of merchant and visitor given", [])],
                handler: { [self] in try visits($0) }),
        ] + Report.allCases.map { report in
            APIRoute(
                .get, "/v1/reports/\(report.rawValue)", access: .token(.read), summary: "Report: " + report.summary,
                query: ReportParameters.all(of: report),
                success: APIRoute.Success("The report's rows", Schema.table(report.columns, formats: AnswerFormat.formats(of: report))),
                failures: [400: .init("A filter is malformed (error.field names it)", [])],
                handler: { [self] in try self.report(report, $0) })
        }
    }

    private func history(
        _ request: HTTPRequest, kind: String, _ subject: (String) -> HistorySubject
    ) throws -> HTTPResponse {
        let id = request.pathParameters["id"] ?? ""
        guard EntityID.isValid(id) else {
            throw APIError(
                .badRequest, code: "invalid_id", message: "a \(kind) id is 1–64 characters of A–Z, a–z, 0–9, _ . : -, not . or ..",
                field: "id")
        }
        return try page(subject(id), request)
    }

    private func visits(_ request: HTTPRequest) throws -> HTTPResponse {
        let subject: HistorySubject
        switch (try request.value(HistoryParameters.merchant), try request.value(HistoryParameters.visitor)) {
        case (let merchant?, nil): subject = .visitsToMerchant(merchant)
        case (nil, let visitor?): subject = .visitsBy(visitor)
        case (nil, nil): throw APIError.badParameter("merchant", "say whose visits: merchant=ID or visitor=ID")
        case (_?, _?): throw APIError.badParameter("visitor", "give merchant or visitor, not both")
        }
        return try page(subject, request)
    }

    /// A page of `subject`'s history in the format asked for, with the next page's `Link`.
    private func page(_ subject: HistorySubject, _ request: HTTPRequest) throws -> HTTPResponse {
        let range = try HistoryParameters.range(request)
        let format = try request.value(HistoryParameters.format) ?? .json
        let page = try reading { try History().page(of: subject, range, on: $0) }
        let body = try page.table(of: subject, locatedOnly: format == .geojson).rendered(as: format)
        var response = HTTPResponse(status: .ok, headers: ["Content-Type": AnswerFormat.mediaType(format)], body: Array(body.utf8))
        if let next = page.next {
            response.headers.set("Link", "<\(Self.target(request, cursor: PageCursor.text(of: next)))>; rel=\"next\"")
        }
        return response
    }

    private func report(_ report: Report, _ request: HTTPRequest) throws -> HTTPResponse {
        let format = try request.value(ReportParameters.format(of: report)) ?? .json
        let filters = try ReportParameters.filters(of: report, request)
        // An empty interval holds no rows.
        let empty = filters.from.flatMap { from in filters.to.map { from >= $0 } } ?? false
        let table = empty ? Table(columns: report.columns, rows: []) : try reading { try Reports.table(report, filters, on: $0) }
        return HTTPResponse(
            status: .ok, headers: ["Content-Type": AnswerFormat.mediaType(format)], body: Array(try table.rendered(as: format).utf8))
    }

    /// The request's path and query with `cursor` set to `cursor`: the next page's URL, relative to the server.
    static func target(_ request: HTTPRequest, cursor: String) -> String {
        var items = request.query.filter { $0.name != "cursor" }.map { ($0.name, $0.value) }
        items.append(("cursor", cursor))
        let allowed = CharacterSet.alphanumerics.intersection(CharacterSet(charactersIn: Unicode.Scalar(0)..<Unicode.Scalar(128)))
            .union(CharacterSet(charactersIn: "-._~"))
        func encoded(_ text: String) -> String { text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text }
        let path = request.path.split(separator: "/", omittingEmptySubsequences: false).map { encoded(String($0)) }
            .joined(separator: "/")
        return path + "?" + items.map { encoded($0.0) + "=" + encoded($0.1) }.joined(separator: "&")
    }
}

/// The query parameters of a history page, read as `geoledger history` reads its options, but only RFC 3339 times.
enum HistoryParameters {
    static let since = QueryParameter.time("since", "the earliest capture time listed")
    static let until = QueryParameter.time("until", "the capture time where the listing stops, excluded (none listed when not after since)")
    static let limit = QueryParameter.integer(
        "limit", "rows on the page, newest first", range: Int64(HistoryRange.limits.lowerBound)...Int64(HistoryRange.limits.upperBound),
        default: Int64(HistoryRange.defaultLimit))
    static let cursor = QueryParameter<HistoryCursor>(
        name: "cursor", description: #"the next page: the cursor of the previous page's Link header (rel="next")"#,
        schema: Schema.string(pattern: PageCursor.pattern), rule: "one that a page's Link header gave", read: PageCursor.cursor)
    static let format = QueryParameter.format(
        AnswerFormat.history,
        "json: an array of row objects; ndjson: an object per line; csv: a header, then a row each, missing values empty; "
            + "geojson: a FeatureCollection of the rows with a position, [lon, lat] in WGS-84")
    static let merchant = QueryParameter.id("merchant", "the merchant visited")
    static let visitor = QueryParameter.id("visitor", "the visitor (a sales user)")

    static let all = [since.documented, until.documented, limit.documented, cursor.documented, format.documented]

    /// `merchant=ID` or `visitor=ID`, one of them: an object parameter, its member the query's name.
    static let visitsOf = APIRoute.Parameter(
        "of", "whose visits: merchant=ID (the merchant visited) or visitor=ID (a sales user), one of them",
        schema: Schema.oneOf([merchant, visitor].map { parameter in
            Schema.object([(parameter.name, parameter.schema)], required: [parameter.name])
        }), names: [merchant.name, visitor.name], required: true)

    static func range(_ request: HTTPRequest) throws(APIError) -> HistoryRange {
        HistoryRange(
            since: try request.value(since), until: try request.value(until),
            limit: Int(try request.value(limit) ?? Int64(HistoryRange.defaultLimit)), cursor: try request.value(cursor))
    }
}
