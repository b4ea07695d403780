import EventStore
import Foundation
import LocationEvents
import HTTPServer
import Output

// Signing in and out, and the session's time zone: the only forms the console has, and none of them writes to the
// database.

extension Console {
    func signInPage(_ page: PageRequest, status: HTTPStatus = .ok, message: String? = nil) -> HTTPResponse {
        let next = Self.localTarget(page.request.query["next"])
        return self.page("Sign in", PageRequest(request: page.request, sessionId: nil, session: nil), status: status) { html in
            if let message { html.element("p", [("class", "error"), ("id", "sign-in-error")], text: message) }
            html.raw("<form method=\"post\" action=\"/sign-in\" class=\"sign-in\" autocomplete=\"off\">")
            html.open("input", [("type", "hidden"), ("name", "next"), ("value", next)])
            html.raw("<label for=\"token\">Token of scope read or admin</label>")
            html.raw("<input type=\"password\" name=\"token\" id=\"token\" required autocomplete=\"off\" spellcheck=\"false\">")
            html.raw("<button type=\"submit\" id=\"sign-in\">Sign in</button></form>")
            html.element(
                "p", [("class", "hint")],
                text: "Make one with 'geoledger token create --name NAME --scopes read'. The token stays on the server's side: "
                    + "the browser keeps only a session cookie, which ends at sign-out, after "
                    + "\(Int(configuration.sessionIdleTimeout / 60)) minutes unused, or \(Int(configuration.sessionLifetime / 3600)) hours after sign-in.")
        }
    }

    func signIn(_ page: PageRequest) throws -> HTTPResponse {
        let form = Form(page.request.body)
        let request = HTTPRequest(
            id: page.request.id, method: .get, path: "/sign-in", query: QueryParameters([("next", form["next"] ?? "/")]),
            headers: page.request.headers, remoteAddress: page.request.remoteAddress)
        let signInAgain = PageRequest(request: request, sessionId: nil, session: nil)
        let token = (form["token"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        guard !token.isEmpty, let holder = try tokens.holder(token, page.request) else {
            return signInPage(signInAgain, status: .unauthorized, message: "That token is not known: it is mistyped, or was revoked.")
        }
        guard holder.mayRead else {
            var response = signInPage(
                signInAgain, status: .forbidden,
                message: "Token \(holder.name) has scopes \(holder.scopes); the console needs read or admin.")
            response.principal = holder.name
            return response
        }
        if let previous = page.sessionId { sessions.close(previous) }
        let id = sessions.open(
            tokenName: holder.name, tokenId: holder.tokenId, timeZone: configuration.defaultTimeZone,
            timeZoneName: configuration.defaultTimeZone.identifier)
        var response = Self.redirect(Self.localTarget(form["next"]))
        response.headers.add("Set-Cookie", sessionCookie(id, maxAge: Int(configuration.sessionLifetime)))
        response.principal = holder.name
        return response
    }

    func signOut(_ page: PageRequest) throws -> HTTPResponse {
        try checkFormSecret(page)
        if let id = page.sessionId { sessions.close(id) }
        var response = Self.redirect("/sign-in")
        response.headers.add("Set-Cookie", sessionCookie("", maxAge: 0))
        return response
    }

    func setTimeZone(_ page: PageRequest) throws -> HTTPResponse {
        try checkFormSecret(page)
        let form = Form(page.request.body)
        guard let name = form["tz"], let zone = TimeZoneName.parse(name) else {
            throw PageError(.badRequest, "Unknown time zone", "Pick a zone from the list: \(TimeZoneName.accepted).")
        }
        if let id = page.sessionId { sessions.setTimeZone(zone, named: name, of: id) }
        return Self.redirect(Self.localTarget(form["next"]))
    }

    /// The form's `csrf` field must be the session's secret: a page of another site cannot post to these.
    private func checkFormSecret(_ page: PageRequest) throws {
        let sent = Form(page.request.body)["csrf"] ?? ""
        guard let session = page.session,
              SHA256.digest(Array(sent.utf8)).equalsInConstantTime(SHA256.digest(Array(session.formSecret.utf8)))
        else {
            throw PageError(.forbidden, "The form has expired", "Reload the page and send the form again.")
        }
    }

    func sessionCookie(_ id: String, maxAge: Int) -> String {
        Self.sessionCookie(id, maxAge: maxAge, secure: configuration.secureCookies)
    }

    /// `geoledger_session=ID; Path=/; HttpOnly; SameSite=Strict; Max-Age=N`, and `Secure` over TLS: scripts cannot
    /// read it, no other site's page sends it, and over TLS it never travels in clear.
    static func sessionCookie(_ id: String, maxAge: Int, secure: Bool) -> String {
        "\(cookieName)=\(id); Path=/; HttpOnly; SameSite=Strict; Max-Age=\(maxAge)" + (secure ? "; Secure" : "")
    }

    /// A path of this server to go to after signing in: `/` unless `text` is a path here (`/x`, not `//host` or
    /// `/\host`, which browsers read as another host).
    static func localTarget(_ text: String?) -> String {
        guard let text, text.hasPrefix("/"), !text.hasPrefix("//"), !text.hasPrefix("/\\"),
              !text.unicodeScalars.contains(where: { $0.value < 0x21 || $0 == "\\" || $0.value >= 0x7F }),
              text.utf8.count <= 2048
        else { return "/" }
        return text
    }
}
