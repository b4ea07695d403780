import Foundation
import LocationEvents
import HTTPServer
import Postgres
import Queries

// The pages of a merchant, a terminal, an enterprise and a visit: what `show` and `history` print, and a map of it.

extension Console {
    func merchantPage(_ page: PageRequest) throws -> HTTPResponse {
        let id = try entityId(page, kind: "merchant")
        let range = try historyRange(page.request)
        let (state, history, terminalPositions) = try reading { connection in
            let state = try CurrentState().merchant(id, on: connection)
            let history = try History().page(of: .merchant(id), range, on: connection)
            let positions = try CurrentState().terminalPositions(state?.terminals.map(\.terminalId) ?? [], on: connection)
            return (state, history, positions)
        }
        guard let state else { throw PageError(.notFound, "No merchant \(id)", "The log holds nothing of a merchant with this id.") }
        let text = page.text
        let map = mapOfMerchant(state, history, terminalPositions, text)
        return self.page("Merchant \(id)", page, map: map) { html in
            html.facts([
                ("Merchant", .sent(state.merchantId)),
                ("Bound terminals", .plain("\(state.terminals.count)")),
                ("Visits", .plain("\(state.visits)")),
                ("Failed attempts", .plain("\(state.failedAttempts)")),
            ], id: "merchant-facts")
            writeFix(state.addressPosition, title: "Address position (latest precise fix)", id: "address-position", text, into: &html)
            writeFix(state.latestFix, title: "Latest fix", id: "latest-fix", text, into: &html)
            html.raw("<section id=\"terminals\">")
            html.element("h2", text: "Bound terminals (drift from their latest precise fix)")
            html.table(
                ["Terminal", "Bound since", "Drift"],
                state.terminals.map { terminal in
                    [.link(Self.link(.terminal, terminal.terminalId), terminal.terminalId), .plain(text.time(terminal.boundSince)),
                     .number(text.metres(terminal.driftMetres))]
                }, id: "terminals-table")
            html.raw("</section><section id=\"visits\">")
            html.element("h2", text: "Recent visits (\(state.visits); the ten newest)")
            html.table(
                ["Visit", "Visitor", "Captured", "Distance"],
                state.recentVisits.map { visit in
                    [.link(Self.link(.visit, visit.visitId), visit.visitId), .sent(visit.visitorId), .plain(text.time(visit.capturedAt)),
                     .number(text.metres(visit.distanceMetres))]
                }, id: "visits-table")
            html.raw("</section>")
            writeFailures(state.recentFailures, count: state.failedAttempts, text, into: &html)
            writeHistory(history, of: .merchant(id), page, into: &html)
        }
    }

    /// The merchant's address position and latest fix, its terminals with a line each to the address, and the
    /// history page's fixes.
    private func mapOfMerchant(
        _ state: MerchantState, _ history: HistoryPage, _ terminals: [String: FixSummary], _ text: PageText
    ) -> MapData {
        var map = MapData()
        writeHistoryPoints(history, into: &map, text)
        map.add(state.latestFix, role: "latest", label: "Latest fix of merchant \(state.merchantId)", text: text)
        map.add(state.addressPosition, role: "address", label: "Address position of merchant \(state.merchantId)", text: text)
        for terminal in state.terminals {
            guard let fix = terminals[terminal.terminalId] else { continue }
            map.add(fix, role: "terminal", label: "Terminal \(terminal.terminalId)", link: Self.link(.terminal, terminal.terminalId), text: text)
            if let address = state.addressPosition {
                map.lines.append(MapData.Line(
                    from: (fix.lat, fix.lon), to: (address.lat, address.lon),
                    label: "Terminal \(terminal.terminalId): drift \(text.metres(terminal.driftMetres))"))
            }
        }
        return map
    }

    /// The located rows of a history page, as points of the map.
    func writeHistoryPoints(_ history: HistoryPage, into map: inout MapData, _ text: PageText) {
        for entry in history.entries {
            guard let lat = entry.lat, let lon = entry.lon else { continue }
            map.points.append(MapData.Point(
                lat: lat, lon: lon, accuracyMetres: entry.horizontalAccuracy, flag: entry.accuracy, role: "fix",
                label: "\(entry.eventType) \(text.time(entry.capturedAt))", link: entry.visitId.map { Self.link(.visit, $0) },
                details: ["\(entry.accuracy ?? "?"), within \(text.metres(entry.horizontalAccuracy))", entry.provider ?? ""]
                    + (entry.address.map { [$0] } ?? [])))
        }
    }

    func terminalPage(_ page: PageRequest) throws -> HTTPResponse {
        let id = try entityId(page, kind: "terminal")
        let range = try historyRange(page.request)
        let (state, changes, history, address) = try reading { connection in
            let state = try CurrentState().terminal(id, on: connection)
            let changes = try Bindings().changes(of: id, on: connection)
            let history = try History().page(of: .terminal(id), range, on: connection)
            let address = try state?.merchantId.flatMap { try CurrentState().addressPosition(ofMerchant: $0, on: connection) }
            return (state, changes, history, address)
        }
        guard let state else { throw PageError(.notFound, "No terminal \(id)", "The log holds nothing of a terminal with this id.") }
        let text = page.text
        var map = MapData()
        writeHistoryPoints(history, into: &map, text)
        map.add(state.latestFix, role: "latest", label: "Latest fix of terminal \(id)", text: text)
        map.add(state.position, role: "terminal", label: "Terminal \(id) (latest precise fix)", text: text)
        if let merchant = state.merchantId, let address {
            map.add(address, role: "address", label: "Address position of merchant \(merchant)", link: Self.link(.merchant, merchant), text: text)
            if let position = state.position {
                map.lines.append(MapData.Line(
                    from: (position.lat, position.lon), to: (address.lat, address.lon), label: "Drift \(text.metres(state.driftMetres))"))
            }
        }
        return self.page("Terminal \(id)", page, map: map) { html in
            html.facts([
                ("Terminal", .sent(state.terminalId)),
                ("Bound to", state.merchantId.map { .link(Self.link(.merchant, $0), $0) } ?? .plain("(none): unbound")),
                ("Bound since", .plain(text.time(state.boundSince))),
                ("Unbound at", .plain(text.time(state.unboundAt))),
                ("Last merchant", state.lastMerchantId.map { .link(Self.link(.merchant, $0), $0) } ?? .sent(nil)),
                ("Drift", .plain(text.metres(state.driftMetres))),
                ("Failed attempts", .plain("\(state.failedAttempts)")),
            ], id: "terminal-facts")
            writeFix(state.position, title: "Position (latest precise fix)", id: "position", text, into: &html)
            writeFix(state.latestFix, title: "Latest fix", id: "latest-fix", text, into: &html)
            html.raw("<section id=\"bindings\">")
            html.element("h2", text: "Bindings over time (newest first)")
            html.table(
                ["When", "Change", "Merchant", "Reason"],
                changes.map { change in
                    [.plain(text.time(change.at)), .plain(change.bound ? "bound" : "unbound"),
                     .link(Self.link(.merchant, change.merchantId), change.merchantId), .sent(change.reason)]
                }, id: "bindings-table")
            html.raw("</section>")
            writeFailures(state.recentFailures, count: state.failedAttempts, text, into: &html)
            writeHistory(history, of: .terminal(id), page, into: &html)
        }
    }

    func enterprisePage(_ page: PageRequest) throws -> HTTPResponse {
        let id = try entityId(page, kind: "enterprise")
        let range = try historyRange(page.request)
        let history = try reading { try History().page(of: .enterprise(id), range, on: $0) }
        guard !history.entries.isEmpty || range.cursor != nil else {
            throw PageError(.notFound, "No enterprise \(id)", "The log holds nothing of an enterprise with this id.")
        }
        var map = MapData()
        writeHistoryPoints(history, into: &map, page.text)
        return self.page("Enterprise \(id)", page, map: map) { html in
            writeHistory(history, of: .enterprise(id), page, into: &html)
        }
    }

    func visitPage(_ page: PageRequest) throws -> HTTPResponse {
        let id = try entityId(page, kind: "visit")
        let (visit, addresses) = try reading { connection in
            let visit = try VisitRecords().visit(id, on: connection)
            var addresses: [String: FixSummary] = [:]
            for merchant in Set(visit?.records.map(\.merchantId) ?? []) {
                addresses[merchant] = try CurrentState().addressPosition(ofMerchant: merchant, on: connection)
            }
            return (visit, addresses)
        }
        guard let visit else { throw PageError(.notFound, "No visit \(id)", "The log holds nothing of a visit with this id.") }
        let text = page.text
        var map = MapData()
        for (merchant, address) in addresses.sorted(by: { $0.key < $1.key }) {
            map.add(address, role: "address", label: "Address position of merchant \(merchant)", link: Self.link(.merchant, merchant), text: text)
        }
        for record in visit.records.reversed() {
            map.add(record.fix, role: "visit", label: "Visit \(id) by \(record.visitorId)", text: text)
            if let address = addresses[record.merchantId] {
                map.lines.append(MapData.Line(
                    from: (record.fix.lat, record.fix.lon), to: (address.lat, address.lon),
                    label: "\(text.metres(record.distanceMetres)) from the merchant's address position"))
            }
        }
        return self.page("Visit \(id)", page, map: map) { html in
            let current = visit.records.first
            html.facts([
                ("Visit", .sent(visit.visitId)),
                ("Merchant", current.map { .link(Self.link(.merchant, $0.merchantId), $0.merchantId) } ?? .sent(nil)),
                ("Visitor", .sent(current?.visitorId)),
                ("Captured", .plain(text.time(current?.capturedAt))),
                ("Distance from the address position", .plain(text.metres(current?.distanceMetres))),
                ("Note", .sent(current?.note)),
            ], id: "visit-facts")
            html.raw("<section id=\"records\">")
            html.element("h2", text: "Records (newest first: the first is the visit's current record)")
            html.table(
                ["Captured", "Merchant", "Visitor", "Lat", "Lon", "Within", "Accuracy", "Provider", "Address", "Distance", "Note"],
                visit.records.map { record in
                    [.plain(text.time(record.capturedAt)), .link(Self.link(.merchant, record.merchantId), record.merchantId),
                     .sent(record.visitorId), .number(text.degrees(record.fix.lat)), .number(text.degrees(record.fix.lon)),
                     .number(text.metres(record.fix.horizontalAccuracy)), .flag(record.fix.accuracy), .sent(record.fix.provider),
                     .sent(record.fix.address), .number(text.metres(record.distanceMetres)), .sent(record.note)]
                }, id: "records-table")
            html.raw("</section>")
            writeFailures(visit.recentFailures, count: visit.failedAttempts, text, into: &html)
        }
    }
}
