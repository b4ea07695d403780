import Foundation
import LocationEvents
import HTTPServer
import Output
import Queries

// The reports of `geoledger report`: each with its filters, its table, its downloads (CSV, and GeoJSON for those with
// positions) and, for those with positions, a map.

extension Console {
    /// Rows a report's page shows; the downloads hold them all.
    public static let reportRowsShown = 500

    func reportsPage(_ page: PageRequest) -> HTTPResponse {
        self.page("Reports", page) { html in
            html.raw("<ul id=\"reports\">")
            for report in Report.allCases {
                html.raw("<li>")
                html.link("/reports/\(report.rawValue)", text: report.rawValue, attributes: [("id", "report-\(report.rawValue)")])
                html.text(": " + report.summary.replacingOccurrences(of: "--", with: ""))
                html.raw("</li>")
            }
            html.raw("</ul>")
        }
    }

    private func report(_ page: PageRequest) throws -> Report {
        guard let report = Report(rawValue: page.request.pathParameters["name"] ?? "") else {
            throw PageError(.notFound, "No such report", "The reports are: \(Report.allCases.map(\.rawValue).joined(separator: ", ")).")
        }
        return report
    }

    /// The filters of the form, each left out when empty.
    private func filters(of report: Report, _ request: HTTPRequest) -> (ReportFilters, [String: String], String?) {
        var given: [String: String] = [:]
        for name in ["from", "to", "app", "provider", "threshold", "days"] {
            if let value = request.query[name]?.trimmingCharacters(in: .whitespaces), !value.isEmpty { given[name] = value }
        }
        var filters = ReportFilters()
        func instant(_ name: String) throws -> Date? {
            guard let text = given[name] else { return nil }
            guard let date = ReportFilters.instant(text) else {
                throw QueryError.filter(name: name, message: "RFC 3339 (2026-11-01T08:00:00+08:00) or a date (2026-11-01), not '\(text)'")
            }
            return date
        }
        do {
            if report.takesFrom { filters.from = try instant("from") }
            filters.to = try instant("to")
            filters.app = given["app"]
            filters.provider = given["provider"]
            if report.defaultThreshold != nil, let text = given["threshold"] {
                guard let metres = Double(text) else { throw QueryError.filter(name: "threshold", message: "metres, a number, not '\(text)'") }
                filters.threshold = metres
            }
            if report.defaultDays != nil, let text = given["days"] {
                guard let days = Int(text) else { throw QueryError.filter(name: "days", message: "a whole number of days, not '\(text)'") }
                filters.days = days
            }
            try filters.check(for: report)
            return (filters, given, nil)
        } catch QueryError.filter(let name, let message) {
            return (filters, given, "\(name): \(message)")
        } catch {
            return (filters, given, "\(error)")
        }
    }

    func reportPage(_ page: PageRequest) throws -> HTTPResponse {
        let report = try report(page)
        let (filters, given, problem) = filters(of: report, page.request)
        let first = problem == nil
            ? try reading { try Reports.firstRows(report, filters, limit: Self.reportRowsShown, on: $0) } : nil
        let table = first?.table
        let text = page.text
        let map = report.hasPositions ? table.map { mapOfReport(report, $0, text) } : nil
        return self.page("Report \(report.rawValue)", page, status: problem == nil ? .ok : .badRequest, map: map) { html in
            html.element("p", text: report.summary.replacingOccurrences(of: "--", with: ""))
            writeFilterForm(report, given, into: &html)
            if let problem {
                html.element("p", [("class", "error"), ("id", "report-error")], text: problem)
                return
            }
            guard let table else { return }
            let query = HTML.query(["from", "to", "app", "provider", "threshold", "days"].map { ($0, given[$0]) })
            html.raw("<p class=\"downloads\">Download: ")
            html.link(
                "/reports/\(report.rawValue)/download?" + HTML.query([("format", "csv")]) + (query.isEmpty ? "" : "&" + query),
                text: "CSV", attributes: [("id", "download-csv")])
            if report.hasPositions {
                html.text(" · ")
                html.link(
                    "/reports/\(report.rawValue)/download?" + HTML.query([("format", "geojson")]) + (query.isEmpty ? "" : "&" + query),
                    text: "GeoJSON", attributes: [("id", "download-geojson")])
            }
            html.raw("</p>")
            let total = first?.total ?? table.rows.count
            html.element(
                "p", [("id", "report-count")],
                text: "\(total) row\(total == 1 ? "" : "s")"
                    + (total > table.rows.count ? "; the first \(table.rows.count) shown, the downloads hold all." : "."))
            html.table(
                table.columns.map(\.title),
                table.rows.map { row in zip(table.columns, row).map { column, value in cell(column, value, row: row, of: table, text) } },
                id: "report-table")
        }
    }

    private func cell(_ column: Column, _ value: Value, row: [Value], of table: Table, _ text: PageText) -> Cell {
        if case .text(let id) = value {
            switch column.name {
            case "merchantId": return .link(Self.link(.merchant, id), id)
            case "terminalId": return .link(Self.link(.terminal, id), id)
            case "visitId": return .link(Self.link(.visit, id), id)
            case "id":
                if let index = table.columns.firstIndex(where: { $0.name == "kind" }), case .text(let kind) = row[index],
                   let entity = EntityKind(rawValue: kind) {
                    return .link(Self.link(entity, id), id)
                }
            default: break
            }
            return .sent(id)
        }
        switch column.kind {
        case .integer, .number, .metres, .latitude, .longitude: return .number(text.value(value, column.kind))
        default: return .plain(text.value(value, column.kind))
        }
    }

    private func writeFilterForm(_ report: Report, _ given: [String: String], into html: inout HTML) {
        html.raw("<form method=\"get\" class=\"filters\" id=\"report-filters\">")
        var fields: [(String, String)] = []
        if report.takesFrom { fields.append(("from", "From (RFC 3339 or a date)")) }
        fields.append(("to", report.takesFrom ? "To, excluded" : "Counted back from (default now)"))
        fields += [("app", "App"), ("provider", "Provider")]
        if let threshold = report.defaultThreshold { fields.append(("threshold", "Threshold, metres (default \(Int(threshold)))")) }
        if let days = report.defaultDays { fields.append(("days", "Days without a fix (default \(days))")) }
        for (name, label) in fields {
            html.raw("<label>")
            html.text(label)
            html.open("input", [("type", "text"), ("name", name), ("value", given[name] ?? "")])
            html.raw("</label>")
        }
        html.raw("<button type=\"submit\" id=\"run-report\">Run</button></form>")
    }

    /// The rows' positions: each row's first latitude and longitude; a terminal's merchant's address position and
    /// the line between them for terminal-drift.
    private func mapOfReport(_ report: Report, _ table: Table, _ text: PageText) -> MapData {
        // A report may list thousands: every marker may join a cluster.
        var map = MapData(single: [])
        let names = table.columns.map(\.name)
        func number(_ row: [Value], _ name: String) -> Double? {
            guard let index = names.firstIndex(of: name), case .number(let value) = row[index] else { return nil }
            return value
        }
        func string(_ row: [Value], _ name: String) -> String? {
            guard let index = names.firstIndex(of: name), case .text(let value) = row[index] else { return nil }
            return value
        }
        // A few of the row's values for its popup (the table has them all).
        let shown: Set<String> = ["drift", "distance", "capturedAt", "lastFixAt", "daysSince", "region", "provider", "visitorId"]
        let detailed = table.columns.indices.filter { shown.contains(table.columns[$0].name) }
        for row in table.rows {
            guard let lat = number(row, "lat"), let lon = number(row, "lon") else { continue }
            let details = detailed.map { "\(table.columns[$0].title): \(text.value(row[$0], table.columns[$0].kind))" }
            switch report {
            case .terminalDrift:
                let terminal = string(row, "terminalId") ?? "", merchant = string(row, "merchantId") ?? ""
                map.points.append(MapData.Point(
                    lat: lat, lon: lon, flag: "precise", role: "terminal", label: "Terminal \(terminal)",
                    link: Self.link(.terminal, terminal), details: details))
                if let merchantLat = number(row, "merchantLat"), let merchantLon = number(row, "merchantLon") {
                    map.points.append(MapData.Point(
                        lat: merchantLat, lon: merchantLon, flag: "precise", role: "address",
                        label: "Address position of merchant \(merchant)", link: Self.link(.merchant, merchant), details: []))
                    map.lines.append(MapData.Line(
                        from: (lat, lon), to: (merchantLat, merchantLon), label: "Drift \(text.metres(number(row, "drift")))"))
                }
            case .visitDistance:
                let visit = string(row, "visitId") ?? ""
                map.points.append(MapData.Point(
                    lat: lat, lon: lon, role: "visit", label: "Visit \(visit)", link: Self.link(.visit, visit), details: details))
            case .outsideRegion:
                let merchant = string(row, "merchantId") ?? ""
                map.points.append(MapData.Point(
                    lat: lat, lon: lon, flag: "precise", role: "address", label: "Merchant \(merchant)",
                    link: Self.link(.merchant, merchant), details: details))
            default:
                let kind = string(row, "kind").flatMap(EntityKind.init(rawValue:)) ?? .merchant
                let id = string(row, "id") ?? ""
                map.points.append(MapData.Point(
                    lat: lat, lon: lon, role: kind == .terminal ? "terminal" : "address", label: "\(kind.rawValue) \(id)",
                    link: Self.link(kind, id), details: details))
            }
        }
        return map
    }

    func reportDownload(_ page: PageRequest) throws -> HTTPResponse {
        let report = try report(page)
        let format: Format
        switch page.request.query["format"] {
        case "csv": format = .csv
        case "geojson" where report.hasPositions: format = .geojson
        default:
            throw PageError(
                .badRequest, "No such download",
                "format is csv" + (report.hasPositions ? " or geojson." : "; this report has no positions for GeoJSON."))
        }
        let (filters, _, problem) = filters(of: report, page.request)
        if let problem { throw PageError(.badRequest, "Bad filter", problem) }
        let table = try reading { try Reports.table(report, filters, on: $0) }
        let body = try table.rendered(as: format)
        var response = HTTPResponse(
            status: .ok,
            headers: ["Content-Type": format == .csv ? "text/csv; charset=utf-8; header=present" : "application/geo+json"],
            body: Array(body.utf8))
        response.headers.set("Content-Disposition", "attachment; filename=\"\(report.rawValue).\(format == .csv ? "csv" : "geojson")\"")
        return response
    }
}
