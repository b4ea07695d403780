import Foundation
@testable import HTTPServer
import Testing

/// The error document and the percent-decoding of paths and queries.
@Suite struct WireFormatTests {
    @Test func errorDocumentsAreJSONWhateverTheMessage() throws {
        let response = HTTPResponse.error(.badRequest, code: "bad", message: "a \"quoted\"\nline\u{1} \\ ✓", field: "x")
        #expect(response.headers["content-type"] == "application/json")
        let error = try errorObject(response.body)
        #expect(error == ["code": "bad", "message": "a \"quoted\"\nline\u{1} \\ ✓", "field": "x"])
    }

    @Test func percentDecodingChecksEscapesAndUTF8() {
        #expect(PercentDecoding.text(Array("a%2Fb%20%E2%9C%93".utf8)[...]) == "a/b ✓")
        #expect(PercentDecoding.text(Array("%".utf8)[...]) == nil)
        #expect(PercentDecoding.text(Array("%4".utf8)[...]) == nil)
        #expect(PercentDecoding.text(Array("%zz".utf8)[...]) == nil)
        #expect(PercentDecoding.text(Array("%FF".utf8)[...]) == nil)
        #expect(PercentDecoding.text([0x61, 0xC3][...]) == nil)
    }
}
