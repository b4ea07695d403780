import Testing
@testable import Output

@Suite("Output: text widths on a terminal")
struct TerminalTextTests {
    @Test("columns: one per printable ASCII character, two for wide characters and emoji, none for combining marks", arguments: [
        ("M00017, tencent", 15),
        ("", 0),
        ("~ !", 3),
        ("上海市", 6),
        ("Shop 上海", 9),
        ("e\u{0301}", 1),
        ("\u{0301}", 0),
        ("📍 pin", 6),
        ("a\u{200B}b", 2),
        ("ＡＢ", 4),
    ])
    func width(text: String, columns: Int) {
        #expect(TerminalText.width(text) == columns)
        #expect(text.reduce(0) { $0 + TerminalText.width(of: $1) } == columns)
    }
}
