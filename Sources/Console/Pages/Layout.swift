import Foundation
import LocationEvents
import HTTPServer
import Output

/// Values as the pages show them: as `show` rounds them (metres to 0.1, degrees to 7 places), times to the second in
/// the session's zone.
struct PageText {
    let people: PeopleText

    init(timeZone: TimeZone) {
        people = PeopleText(timeZone: timeZone)
    }

    func time(_ date: Date?) -> String { date.map(people.time) ?? "(none)" }
    func metres(_ metres: Double?) -> String { people.metres(metres) }
    func degrees(_ degrees: Double?) -> String { people.degrees(degrees) }
    func value(_ value: Value, _ kind: Column.Kind) -> String { people.text(value, kind) }
}

/// The zones the picker offers; the browser's own is added by the page's script when it is not among them.
let offeredTimeZones = [
    "Asia/Shanghai", "Asia/Hong_Kong", "Asia/Macau", "Asia/Taipei", "Asia/Singapore", "Asia/Tokyo", "UTC",
    "Europe/London", "Europe/Berlin", "America/New_York", "America/Los_Angeles",
]

extension Console {
    /// A whole page: the header (search, reports, time zone, sign-out), `content`, and the footer. With `map`, the
    /// page loads Leaflet and the console's script, which draws the map from the data embedded in the page.
    func page(
        _ title: String, _ page: PageRequest, status: HTTPStatus = .ok, map: MapData? = nil, content: (inout HTML) throws -> Void
    ) rethrows -> HTTPResponse {
        var html = HTML()
        html.raw("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">")
        html.raw("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">")
        html.element("title", text: title + " · Geoledger")
        if map != nil && assets.leaflet != nil { html.raw("<link rel=\"stylesheet\" href=\"/console/leaflet.css\">") }
        html.raw("<link rel=\"stylesheet\" href=\"/console/console.css\">")
        if map != nil && assets.leaflet != nil { html.raw("<script src=\"/console/leaflet.js\" defer></script>") }
        html.raw("<script src=\"/console/console.js\" defer></script>")
        html.raw("</head><body>")
        header(&html, page)
        html.raw("<main>")
        html.element("h1", text: title)
        if let map {
            html.raw("<div id=\"map\" class=\"map\" role=\"region\" aria-label=\"Map\">")
            if assets.leaflet == nil {
                html.element(
                    "p", [("class", "map-off")],
                    text: "The map needs Leaflet, which is not installed on the server: apt-get install libjs-leaflet.")
            }
            html.raw("</div>")
            html.raw("<script type=\"application/json\" id=\"map-data\">")
            html.raw(HTML.scriptJSON(map.json(tiles: configuration.tiles, converter: converter)))
            html.raw("</script>")
        }
        try content(&html)
        html.raw("</main></body></html>\n")
        var response = HTTPResponse(status: status, headers: ["Content-Type": "text/html; charset=utf-8"], body: Array(html.markup.utf8))
        SecurityHeaders.apply(to: &response.headers, tileSource: tileSource)
        return response
    }

    private func header(_ html: inout HTML, _ page: PageRequest) {
        html.raw("<header>")
        html.raw("<a class=\"brand\" href=\"/\">Geoledger</a>")
        guard let session = page.session else { html.raw("</header>"); return }
        html.raw("<form class=\"search\" action=\"/search\" method=\"get\" role=\"search\">")
        html.raw("<input type=\"search\" name=\"q\" id=\"search-box\" placeholder=\"merchant, terminal, enterprise or visit id\" ")
        html.raw("aria-label=\"Id\" required maxlength=\"64\"")
        if page.request.route == "/search", let q = page.request.query["q"] { html.raw(" value=\"" + HTML.escaped(q) + "\"") }
        html.raw("><button type=\"submit\">Search</button></form>")
        html.raw("<nav><a href=\"/reports\">Reports</a></nav>")
        var here = page.request.path
        let query = HTML.query(page.request.query.map { ($0.name, Optional($0.value)) })
        if !query.isEmpty { here += "?" + query }
        html.raw("<form class=\"time-zone\" method=\"post\" action=\"/time-zone\" id=\"time-zone-form\">")
        html.open("input", [("type", "hidden"), ("name", "csrf"), ("value", session.formSecret)])
        html.open("input", [("type", "hidden"), ("name", "next"), ("value", here)])
        html.raw("<label for=\"time-zone\">Times in</label><select name=\"tz\" id=\"time-zone\">")
        let current = session.timeZoneName
        for zone in (offeredTimeZones.contains(current) ? offeredTimeZones : [current] + offeredTimeZones) {
            html.open("option", [("value", zone)] + (zone == current ? [("selected", "selected")] : []))
            html.text(zone)
            html.raw("</option>")
        }
        html.raw("</select><button type=\"submit\">Set</button></form>")
        html.raw("<form class=\"sign-out\" method=\"post\" action=\"/sign-out\">")
        html.open("input", [("type", "hidden"), ("name", "csrf"), ("value", session.formSecret)])
        html.raw("<span class=\"who\">")
        html.text(session.tokenName)
        html.raw("</span><button type=\"submit\" id=\"sign-out\">Sign out</button></form>")
        html.raw("</header>")
    }

    /// A page saying what went wrong, for a person.
    func errorPage(_ status: HTTPStatus, _ title: String, _ message: String, retryAfter: Int? = nil) -> HTTPResponse {
        var response = page(title, PageRequest(request: HTTPRequest(id: "", method: .get, path: "/"), sessionId: nil, session: nil), status: status) { html in
            html.element("p", [("class", "error")], text: message)
            html.raw("<p><a href=\"/\">Start page</a></p>")
        }
        if let retryAfter { response.headers.set("Retry-After", String(retryAfter)) }
        return response
    }
}

extension HTML {
    /// A table whose cells are text: a header row, then the rows; each cell escaped.
    mutating func table(_ headers: [String], _ rows: [[Cell]], id: String? = nil, caption: String? = nil) {
        open("table", id.map { [("id", $0)] } ?? [])
        if let caption { element("caption", text: caption) }
        raw("<thead><tr>")
        for header in headers { element("th", [("scope", "col")], text: header) }
        raw("</tr></thead><tbody>")
        for row in rows {
            raw("<tr>")
            for cell in row { cell.write(to: &self) }
            raw("</tr>")
        }
        raw("</tbody></table>")
    }

    /// Label and value pairs.
    mutating func facts(_ pairs: [(String, Cell)], id: String? = nil) {
        open("dl", [("class", "facts")] + (id.map { [("id", $0)] } ?? []))
        for (label, value) in pairs {
            element("dt", text: label)
            raw("<dd>")
            value.writeContent(to: &self)
            raw("</dd>")
        }
        raw("</dl>")
    }
}

/// A cell of a table or a fact: the console's own text, text a submission carried, a number, or a link.
enum Cell {
    /// Text the console made: rounded numbers, times, flags.
    case plain(String)
    /// Text as a submission carried it: isolated, escaped; nil shows `(none)`.
    case sent(String?)
    /// A link to a page of the console; the text as sent.
    case link(String, String)
    /// An accuracy flag, coloured as the map colours it.
    case flag(String?)
    case number(String)

    func write(to html: inout HTML) {
        switch self {
        case .number: html.raw("<td class=\"number\">")
        default: html.raw("<td>")
        }
        writeContent(to: &html)
        html.raw("</td>")
    }

    func writeContent(to html: inout HTML) {
        switch self {
        case .plain(let text), .number(let text): html.text(text)
        case .sent(let text): html.sent(text)
        case .link(let target, let text):
            html.open("a", [("href", target)])
            html.sent(text)
            html.raw("</a>")
        case .flag(let flag):
            guard let flag else { html.sent(nil); return }
            html.element("span", [("class", "flag flag-" + HTML.pathSegment(flag))], text: flag)
        }
    }
}
