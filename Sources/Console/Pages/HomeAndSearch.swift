import EventStore
import Foundation
import HTTPServer
import LocationEvents
import Projections
import Queries

// The start page (search, the log's head, the projector's position) and the search's answers.

extension Console {
    func homePage(_ page: PageRequest) throws -> HTTPResponse {
        let (head, lag) = try pool.withConnection { connection in
            (try EventLog().head(on: connection), try ProjectionLag.read(on: connection))
        }
        let status = projector.status
        return self.page("Geoledger", page) { html in
            html.raw("<p>Find a merchant, terminal, enterprise or visit by its id (or the start of it) in the box above, or read the <a href=\"/reports\">reports</a>.</p>")
            html.element("h2", text: "The log and the projections")
            html.facts(
                [
                    ("Log head", .plain("\(head.position)")),
                    ("Head hash", .plain(head.description)),
                    ("Projected up to", .plain("\(lag.projected)")),
                    ("Behind", .plain(lag.events == 0 ? "nothing: caught up" : "\(lag.events) events, the oldest \(String(format: "%.1f", lag.seconds)) s ago")),
                    ("This server's projector", .plain(status.lastError.map { "failing: \($0)" } ?? "running")),
                ], id: "log-status")
            html.element(
                "p", [("class", "hint")],
                text: "The head hash is what 'geoledger verify --head' checks a later log against.")
        }
    }

    func searchPage(_ page: PageRequest) throws -> HTTPResponse {
        let q = (page.request.query["q"] ?? "").trimmingCharacters(in: .whitespaces)
        let kind = page.request.query["kind"].flatMap(EntityKind.init(rawValue:))
        guard EntityID.isValid(q) else {
            return self.page("Search", page, status: q.isEmpty ? .ok : .badRequest) { html in
                html.raw("<p class=\"error\" id=\"search-error\">")
                if q.isEmpty {
                    html.text("Type an id to search for.")
                } else {
                    html.text("No id looks like ")
                    html.sent(q)
                    html.text(": ids are 1–64 characters of A–Z, a–z, 0–9, _ . : -.")
                }
                html.raw("</p>")
            }
        }
        let matches = try reading { try EntitySearch().find(q, kinds: kind.map { [$0] } ?? EntityKind.allCases, on: $0) }
        return self.page("Search", page) { html in
            html.raw("<p>")
            html.text("\(matches.count) match\(matches.count == 1 ? "" : "es") for ")
            html.sent(q)
            html.text(matches.count >= EntitySearch.limitPerKind ? " (the first \(EntitySearch.limitPerKind) of each kind):" : ":")
            html.raw("</p><ul id=\"search-results\">")
            for match in matches {
                html.raw("<li>")
                html.element("span", [("class", "kind")], text: match.kind.rawValue)
                html.raw(" ")
                html.link(Self.link(match.kind, match.id), text: match.id, attributes: [("class", "result")])
                html.raw("</li>")
            }
            html.raw("</ul>")
        }
    }

    /// The page of an entity.
    static func link(_ kind: EntityKind, _ id: String) -> String {
        let folder = switch kind {
        case .merchant: "merchants"
        case .terminal: "terminals"
        case .enterprise: "enterprises"
        case .visit: "visits"
        }
        return "/\(folder)/\(HTML.pathSegment(id))"
    }
}
