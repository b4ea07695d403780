import Foundation
import HTTPServer
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

    /// The `format` parameter; json when absent.
    static func read(_ request: HTTPRequest) throws(APIError) -> Format {
        guard let text = request.query["format"] else { return .json }
        guard let format = Format(rawValue: text), history.contains(format) else {
            throw .badParameter("format", "format must be one of \(history.map(\.rawValue).joined(separator: ", ")), not '\(text)'")
        }
        return format
    }

    static func describeParameter() -> APIRoute.Parameter {
        .init(
            "format", "string",
            "json (default: an array of row objects), ndjson (an object per line), csv (a header, then a row each; "
                + "missing values empty) or geojson (a FeatureCollection of the rows with a position, [lon, lat] in WGS-84)")
    }
}

extension GeoledgerAPI {
    /// `Link: <…>; rel="next"` on a page that has a next one.
    static let nextPageHeader = [
        "Link": #"On a page with more rows after it: <the same URL with cursor=NEXT>; rel="next". No Link: the last page."#
    ]

    /// The routes of the histories, visits and reports, listed in ``routes``.
    var queryRoutes: [APIRoute] {
        let range: [APIRoute.Parameter] = [
            .init("since", "string", "the earliest capture time listed, RFC 3339 with its offset (2026-11-01T00:00:00+08:00)"),
            .init("until", "string", "the capture time where the listing stops, excluded; RFC 3339"),
            .init(
                "limit", "integer",
                "rows on the page, \(HistoryRange.limits.lowerBound) to \(HistoryRange.limits.upperBound) (default \(HistoryRange.defaultLimit)), newest first"),
            .init("cursor", "string", #"the next page: the cursor of the previous page's Link header (rel="next")"#),
            AnswerFormat.describeParameter(),
        ]
        let formats = AnswerFormat.history.map(AnswerFormat.mediaType)
        let historyAnswers: [Int: String] = [
            200: "A page of the history, newest first; Link names the next page when there is one; an unknown id has an empty history",
            400: "A parameter is malformed (error.field names it)",
        ]
        return [
            APIRoute(
                .get, "/v1/merchants/{id}/history", access: .token(.read),
                summary: "Every address fix and failed attempt of a merchant, newest first, a page at a time",
                query: range, responses: historyAnswers, produces: formats[0], alsoProduces: Array(formats.dropFirst()),
                responseHeaders: Self.nextPageHeader,
                handler: { [self] in try history($0, kind: "merchant", HistorySubject.merchant) }),
            APIRoute(
                .get, "/v1/terminals/{id}/history", access: .token(.read),
                summary: "Every fix, failed attempt, bind and unbind of a terminal, newest first, a page at a time",
                query: range, responses: historyAnswers, produces: formats[0], alsoProduces: Array(formats.dropFirst()),
                responseHeaders: Self.nextPageHeader,
                handler: { [self] in try history($0, kind: "terminal", HistorySubject.terminal) }),
            APIRoute(
                .get, "/v1/visits", access: .token(.read),
                summary: "The visit records of a merchant or of a visitor, with their distance from the merchant's address position",
                query: [
                    .init("merchant", "string", "the merchant visited; give merchant or visitor, one of them"),
                    .init("visitor", "string", "the visitor (a sales user)"),
                ] + range,
                responses: [
                    200: "A page of visits, newest first; Link names the next page when there is one",
                    400: "A parameter is malformed, or neither or both of merchant and visitor given (error.field names it)",
                ], produces: formats[0], alsoProduces: Array(formats.dropFirst()), responseHeaders: Self.nextPageHeader,
                handler: { [self] in try visits($0) }),
            APIRoute(
                .get, "/v1/reports/{name}", access: .token(.read),
                summary: "A report over the projections: " + Report.allCases.map(\.rawValue).joined(separator: ", "),
                query: [
                    .init("from", "string", "only what was captured at or after this: RFC 3339, or a date (2026-11-01: its midnight in UTC); not for stale"),
                    .init("to", "string", "only what was captured before this; for stale, the instant the days are counted back from (default now)"),
                    .init("app", "string", "only fixes (events, for daily) sent by this app"),
                    .init("provider", "string", "only fixes (and failures) of this provider"),
                    .init("threshold", "number", "metres: terminal-drift (default 1000), visit-distance (default 500)"),
                    .init("days", "integer", "stale: days without a fix (default 90)"),
                    .init(
                        "format", "string",
                        "json (default), ndjson, csv; geojson for the reports with positions (terminal-drift, visit-distance, outside-region, stale)"),
                ],
                responses: [
                    200: "The report's rows", 400: "A filter is malformed or not taken by this report (error.field names it)",
                    404: "No report of this name; the message lists the reports",
                ], produces: formats[0], alsoProduces: Array(formats.dropFirst()),
                handler: { [self] in try report($0) }),
        ]
    }

    private func history(
        _ request: HTTPRequest, kind: String, _ subject: (String) -> HistorySubject
    ) throws -> HTTPResponse {
        try request.acceptOnly(HistoryParameters.names)
        let id = request.pathParameters["id"] ?? ""
        guard EntityID.isValid(id) else {
            throw APIError(
                .badRequest, code: "invalid_id", message: "a \(kind) id is 1–64 characters of A–Z, a–z, 0–9, _ . : -, not . or ..",
                field: "id")
        }
        return try page(subject(id), request)
    }

    private func visits(_ request: HTTPRequest) throws -> HTTPResponse {
        try request.acceptOnly(HistoryParameters.names.union(["merchant", "visitor"]))
        let subject: HistorySubject
        switch (request.query["merchant"], request.query["visitor"]) {
        case (let merchant?, nil):
            guard EntityID.isValid(merchant) else {
                throw APIError.badParameter("merchant", "a merchant id is 1–64 characters of A–Z, a–z, 0–9, _ . : -, not . or ..")
            }
            subject = .visitsToMerchant(merchant)
        case (nil, let visitor?):
            guard !visitor.isEmpty, visitor.utf8.count <= 256 else {
                throw APIError.badParameter("visitor", "a visitor id is 1 to 256 bytes")
            }
            subject = .visitsBy(visitor)
        case (nil, nil):
            throw APIError.badParameter("merchant", "say whose visits: merchant=ID or visitor=ID")
        case (_?, _?):
            throw APIError.badParameter("visitor", "give merchant or visitor, not both")
        }
        return try page(subject, request)
    }

    /// A page of `subject`'s history in the format asked for, with the next page's `Link`.
    private func page(_ subject: HistorySubject, _ request: HTTPRequest) throws -> HTTPResponse {
        let range = try HistoryParameters.range(request)
        let format = try AnswerFormat.read(request)
        let page = try reading { try History().page(of: subject, range, on: $0) }
        let body = try page.table(of: subject, locatedOnly: format == .geojson).rendered(as: format)
        var response = HTTPResponse(status: .ok, headers: ["Content-Type": AnswerFormat.mediaType(format)], body: Array(body.utf8))
        if let next = page.next {
            response.headers.set("Link", "<\(Self.target(request, cursor: next.description))>; rel=\"next\"")
        }
        return response
    }

    private func report(_ request: HTTPRequest) throws -> HTTPResponse {
        let names = Report.allCases.map(\.rawValue).joined(separator: ", ")
        let name = request.pathParameters["name"] ?? ""
        guard let report = Report(rawValue: name) else {
            throw APIError(.notFound, code: "not_found", message: "no report '\(name)'; the reports: \(names)")
        }
        try request.acceptOnly(["from", "to", "app", "provider", "threshold", "days", "format"])
        let format = try AnswerFormat.read(request)
        if format == .geojson, !report.hasPositions {
            throw APIError.badParameter(
                "format", "geojson needs positions, and \(report.rawValue) has none; ask for json, ndjson or csv")
        }
        var filters = ReportFilters(app: request.query["app"], provider: request.query["provider"])
        for parameter in ["from", "to"] {
            guard let text = request.query[parameter] else { continue }
            guard let instant = ReportFilters.instant(text) else {
                throw APIError.badParameter(
                    parameter, "\(parameter) must be RFC 3339 (2026-11-01T08:00:00+08:00) or a date (2026-11-01), not '\(text)'")
            }
            if parameter == "from" { filters.from = instant } else { filters.to = instant }
        }
        if let text = request.query["threshold"] {
            guard let metres = Double(text), metres.isFinite, metres >= 0 else {
                throw APIError.badParameter("threshold", "threshold must be metres, 0 or more, not '\(text)'")
            }
            filters.threshold = metres
        }
        if request.query["days"] != nil {
            filters.days = Int(try request.integer("days", default: 0, range: 0...100_000))
        }
        do {
            try filters.check(for: report)
        } catch let error as ReportFilterError {
            throw APIError.badParameter(error.filter, "\(report.rawValue): \(error.filter) \(error.message)")
        }
        let table = try reading { try Reports.table(report, filters, on: $0) }
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
    static let names: Set<String> = ["since", "until", "limit", "cursor", "format"]

    static func range(_ request: HTTPRequest) throws(APIError) -> HistoryRange {
        func time(_ name: String) throws(APIError) -> Date? {
            guard let text = request.query[name] else { return nil }
            guard let timestamp = Timestamp(rfc3339: text) else {
                throw .badParameter(name, "\(name) must be an RFC 3339 time with its offset (2026-11-01T00:00:00+08:00), not '\(text)'")
            }
            return timestamp.date
        }
        let limits = Int64(HistoryRange.limits.lowerBound)...Int64(HistoryRange.limits.upperBound)
        var range = HistoryRange(
            since: try time("since"), until: try time("until"),
            limit: Int(try request.integer("limit", default: Int64(HistoryRange.defaultLimit), range: limits)))
        if let since = range.since, let until = range.until, since >= until {
            throw .badParameter("until", "until must be after since")
        }
        if let text = request.query["cursor"] {
            guard let cursor = HistoryCursor(text) else {
                throw .badParameter("cursor", "cursor must be one that a page's Link header gave, not '\(text)'")
            }
            range.cursor = cursor
        }
        return range
    }
}
