@testable import Console
import Foundation
import Testing

@Suite("HTML escaping")
struct HTMLTests {
    @Test("the five markup characters become character references")
    func markup() {
        #expect(HTML.escaped(#"<script>alert("x")</script> & 'y'"#) == "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;y&#39;")
        #expect(HTML.escaped("&lt;") == "&amp;lt;", "an entity sent is shown as the text it is")
    }

    @Test("control characters show as their pictures; text, CJK and direction marks stay")
    func controls() {
        #expect(HTML.escaped("a\u{0}b\u{1B}[31mc") == "a\u{2400}b\u{241B}[31mc")
        #expect(HTML.escaped("\u{85}") == "\u{FFFD}")
        #expect(HTML.escaped("上海\t1\n2") == "上海\t1\n2")
        #expect(HTML.escaped("\u{202E}abc") == "\u{202E}abc")
    }

    @Test("text a submission carried is isolated in <bdi> and escaped; a missing one reads (none)")
    func sent() {
        var html = HTML()
        html.sent("\u{202E}<b>x</b>")
        html.sent(nil)
        #expect(html.markup == "<bdi>\u{202E}&lt;b&gt;x&lt;/b&gt;</bdi><span class=\"none\">(none)</span>")
    }

    @Test("attribute values are escaped and double-quoted")
    func attributes() {
        var html = HTML()
        html.open("input", [("value", #"" onfocus="alert(1)"#)])
        #expect(html.markup == #"<input value="&quot; onfocus=&quot;alert(1)">"#)
        var link = HTML()
        link.link("/merchants/" + HTML.pathSegment("javascript:M.1"), text: "<i>")
        #expect(link.markup == #"<a href="/merchants/javascript:M.1">&lt;i&gt;</a>"#)
    }

    @Test("path segments and query values are percent-encoded")
    func urls() {
        #expect(HTML.pathSegment("M-1_a.b:c") == "M-1_a.b:c")
        #expect(HTML.pathSegment("a/b?c#d e\"<") == "a%2Fb%3Fc%23d%20e%22%3C")
        #expect(HTML.query([("q", "上 &"), ("none", nil), ("next", "/x?y=1")]) == "q=%E4%B8%8A%20%26&next=%2Fx%3Fy%3D1")
    }

    @Test("JSON inside a script element cannot close it, and reads back the same")
    func scriptJSON() throws {
        let json = #"{"label":"</script><script>alert(1)</script> & \u2028"}"#
        let safe = HTML.scriptJSON(json)
        #expect(!safe.contains("<") && !safe.contains(">") && !safe.contains("&"))
        let original = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: String]
        let read = try JSONSerialization.jsonObject(with: Data(safe.utf8)) as? [String: String]
        #expect(read == original)
        // Escaped where they stand, each byte around them kept, whatever its length in UTF-8.
        #expect(HTML.scriptJSON("[\"上<海>\u{2028}&\u{2029}é\"]") == #"["上\u003c海\u003e\u2028\u0026\u2029é"]"#)
        #expect(HTML.scriptJSON("<") == #"\u003c"#)
        #expect(HTML.scriptJSON("上海\u{2027}\u{202A}") == "上海\u{2027}\u{202A}")
    }
}

@Suite("Forms and cookies")
struct FormTests {
    @Test("form fields are percent-decoded, + is a space, a field not UTF-8 is left out")
    func form() {
        let form = Form(Array("token=glt_a%2Bb+c&next=%2Fmerchants%2FM1&bad=%FF&empty=&flag".utf8))
        #expect(form["token"] == "glt_a+b c")
        #expect(form["next"] == "/merchants/M1")
        #expect(form["bad"] == nil)
        #expect(form["empty"] == "")
        #expect(form["flag"] == "")
        #expect(form["missing"] == nil)
        #expect(Form(Array("a=%4".utf8))["a"] == "%4", "a broken escape stays as it is")
    }

    @Test("a cookie is found by its name among others")
    func cookies() {
        #expect(Cookies.value("geoledger_session", in: "a=1; geoledger_session=abc-_; b=2") == "abc-_")
        #expect(Cookies.value("geoledger_session", in: "geoledger_sessionx=1") == nil)
        #expect(Cookies.value("geoledger_session", in: nil) == nil)
    }

    @Test("after signing in, only a path of this server")
    func localTarget() {
        #expect(Console.localTarget("/merchants/M1?cursor=x") == "/merchants/M1?cursor=x")
        for target in ["//evil.example", "/\\evil.example", "https://evil.example", "javascript:alert(1)", "/a\r\nSet-Cookie: x", "/上海", nil] {
            #expect(Console.localTarget(target) == "/", "\(target ?? "nil")")
        }
    }
}

@Suite("HTML escaping's fast path")
struct HTMLFastPathTests {
    @Test("text without a character to escape comes back as it is; one such character anywhere is escaped",
          arguments: ["plain", "上海市黄浦区南京东路100号", "tab\there", "é ü ß", "\u{202E}rtl", ""])
    func clean(_ text: String) {
        #expect(HTML.escaped(text) == text)
        #expect(HTML.escaped(text + "<") == text + "&lt;")
        #expect(HTML.escaped("\u{9B}" + text) == "\u{FFFD}" + text, "a C1 control, 0xC2 0x9B in UTF-8")
        #expect(HTML.escaped(text + "\u{7F}") == text + "\u{FFFD}")
    }
}
