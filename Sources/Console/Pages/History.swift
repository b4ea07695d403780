import Foundation
import HTTPServer
import Postgres
import Queries
import LocationEvents

// The paged history under each entity's page: the rows `geoledger history` lists, newest first, with links to the
// older pages, and their positions on the page's map.

extension Console {
    /// Which page of a history the request asks for: `cursor` from an "Older" link, `limit` up to 1,000.
    func historyRange(_ request: HTTPRequest) throws -> HistoryRange {
        var limit = configuration.historyPageSize
        if let text = request.query["limit"] {
            guard let number = Int(text), (1...1000).contains(number) else {
                throw PageError(.badRequest, "Bad page size", "limit is a whole number of rows from 1 to 1000.")
            }
            limit = number
        }
        var cursor: HistoryCursor?
        if let text = request.query["cursor"] {
            guard let read = HistoryCursor(text) else {
                throw PageError(.badRequest, "Bad page link", "The link to the older page is damaged: start from the newest.")
            }
            cursor = read
        }
        return HistoryRange(limit: limit, cursor: cursor)
    }

    /// The history's table and its page links (``writeHistoryPoints(_:into:_:)`` puts its rows on the map).
    func writeHistory(_ history: HistoryPage, of subject: HistorySubject, _ page: PageRequest, into html: inout HTML) {
        let text = page.text
        html.raw("<section id=\"history\">")
        html.element("h2", text: "History")
        let isTerminal = if case .terminal = subject { true } else { false }
        let isVisits = switch subject {
        case .visitsToMerchant, .visitsBy: true
        default: false
        }
        var headers = ["Captured", "Event"]
        if isTerminal { headers.append("Merchant") }
        if isVisits { headers += ["Visit", "Merchant", "Visitor"] }
        headers += ["Lat", "Lon", "Within", "Accuracy", "Provider", "Region", "Address"]
        if isVisits { headers.append("Distance") }
        headers += ["App", "User", "Error", "Category", "Message"]
        var rows: [[Cell]] = []
        for entry in history.entries {
            var row: [Cell] = [.plain(text.time(entry.capturedAt)), .plain(entry.eventType)]
            if isTerminal { row.append(entry.merchantId.map { .link(Self.link(.merchant, $0), $0) } ?? .sent(nil)) }
            if isVisits {
                row.append(entry.visitId.map { .link(Self.link(.visit, $0), $0) } ?? .sent(nil))
                row.append(entry.merchantId.map { .link(Self.link(.merchant, $0), $0) } ?? .sent(nil))
                row.append(.sent(entry.visitorId))
            }
            row += [
                .number(text.degrees(entry.lat)), .number(text.degrees(entry.lon)), .number(text.metres(entry.horizontalAccuracy)),
                .flag(entry.accuracy), .sent(entry.provider),
                .plain(entry.region.map { $0 + (entry.nearBoundary == true ? ", near boundary" : "") + (entry.claimMismatch == true ? ", claim mismatch" : "") } ?? "(none)"),
                .sent(entry.address),
            ]
            if isVisits { row.append(.number(text.metres(entry.distanceMetres))) }
            row += [.sent(entry.app), .sent(entry.userId), .sent(entry.errorCode), .sent(entry.errorCategory), .sent(entry.errorMessage)]
            rows.append(row)
        }
        html.table(headers, rows, id: "history-table")
        html.raw("<p class=\"pages\">")
        html.text("\(history.entries.count) row\(history.entries.count == 1 ? "" : "s"), newest first. ")
        var base = page.request.path
        let limit = page.request.query["limit"]
        if page.request.query["cursor"] != nil {
            html.link(base + (limit.map { "?" + HTML.query([("limit", $0)]) } ?? ""), text: "Newest", attributes: [("id", "history-newest")])
            html.text(" ")
        }
        if let next = history.next {
            base += "?" + HTML.query([("cursor", next.description), ("limit", limit)])
            html.link(base + "#history", text: "Older", attributes: [("id", "history-older"), ("rel", "next")])
        } else {
            html.text("No older rows.")
        }
        html.raw("</p></section>")
    }

    /// A fix's facts: when, where, how precise, from what, and the address it was sent with.
    func writeFix(_ fix: FixSummary?, title: String, id: String, _ text: PageText, into html: inout HTML) {
        html.raw("<section id=\"\(id)\">")
        html.element("h2", text: title)
        guard let fix else {
            html.element("p", [("class", "none")], text: "(none)")
            html.raw("</section>")
            return
        }
        html.facts([
            ("Captured", .plain(text.time(fix.capturedAt))),
            ("Position (WGS-84)", .plain("\(text.degrees(fix.lat)), \(text.degrees(fix.lon))")),
            ("Accuracy", .flag(fix.accuracy)),
            ("Within", .plain(text.metres(fix.horizontalAccuracy))),
            ("Provider", .sent(fix.provider)),
            ("Region", .plain(fix.region + (fix.nearBoundary ? ", near a boundary" : "") + (fix.claimMismatch ? "; the client claimed otherwise" : ""))),
            ("Address as sent", .sent(fix.address)),
            ("Log position", .plain("\(fix.position)")),
        ])
        html.raw("</section>")
    }

    /// An entity's failed attempts, with their categories.
    func writeFailures(_ failures: [FailureSummary], count: Int, _ text: PageText, into html: inout HTML) {
        html.raw("<section id=\"failures\">")
        html.element("h2", text: "Failed attempts (\(count); the ten newest)")
        html.table(
            ["Captured", "Provider", "Code", "Category", "Message", "App"],
            failures.map { failure in
                [.plain(text.time(failure.capturedAt)), .sent(failure.provider), .sent(failure.errorCode),
                 .sent(failure.errorCategory), .sent(failure.errorMessage), .sent(failure.app)]
            }, id: "failures-table")
        html.raw("</section>")
    }

    /// The entity's id from the path, or a 404 page.
    func entityId(_ page: PageRequest, kind: String) throws -> String {
        let id = page.request.pathParameters["id"] ?? ""
        guard EntityID.isValid(id) else {
            throw PageError(.notFound, "No such \(kind)", "A \(kind) id is 1–64 characters of A–Z, a–z, 0–9, _ . : -.")
        }
        return id
    }
}
