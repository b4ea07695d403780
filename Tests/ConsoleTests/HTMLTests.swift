@testable import Console
import Testing

@Suite("HTML escaping")
struct HTMLTests {
    @Test("markup characters become character references") func markup() {
        #expect(HTML.escaped(#"<script>alert("x")</script> & 'y'"#) == "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;y&#39;")
    }
}
