import Foundation
@testable import HTTPServer
import Testing

@Suite struct GzipTests {
    static let text = Array((0..<5000).map { #"{"position":\#($0),"type":"merchant.located"}"# }.joined(separator: "\n").utf8)

    @Test func deflatedBodiesInflateToTheSameBytes() throws {
        let compressed = Gzip.deflate(Self.text)
        #expect(compressed.count < Self.text.count / 5)
        #expect(Array(compressed.prefix(2)) == [0x1F, 0x8B])
        #expect(try Gzip.inflate(compressed, limit: Self.text.count) == Self.text)
    }

    @Test func concatenatedMembersInflateInOrder() throws {
        let first = Array("first member\n".utf8), second = Array("second member\n".utf8)
        #expect(try Gzip.inflate(Gzip.deflate(first) + Gzip.deflate(second), limit: 1000) == first + second)
    }

    @Test func inflatingStopsPastTheLimit() {
        let bomb = Gzip.deflate([UInt8](repeating: 0, count: 8 << 20))
        #expect(bomb.count < 64 << 10)
        #expect { try Gzip.inflate(bomb, limit: 1 << 20) } throws: { ($0 as? HTTPServerError)?.kind == .bodyTooLarge }
        #expect { try Gzip.inflate(Gzip.deflate(Self.text), limit: Self.text.count - 1) } throws: {
            ($0 as? HTTPServerError)?.kind == .bodyTooLarge
        }
    }

    @Test func brokenGzipIsMalformed() {
        let compressed = Gzip.deflate(Self.text)
        for broken in [Array("not gzip at all".utf8), Array(compressed.prefix(compressed.count / 2)), compressed + [0, 1, 2]] {
            #expect {
                try Gzip.inflate(broken, limit: 1 << 20)
            } throws: { error in
                (error as? HTTPServerError)?.kind == .malformedBody
            }
        }
    }

    @Test(arguments: [
        (["gzip"], true), (["deflate, gzip"], true), (["br;q=1.0, gzip;q=0.5"], true), (["*"], true),
        (["gzip;q=0"], false), (["identity"], false), ([], false), (["*;q=0"], false), (["gzip;q=0, *"], false),
        (["deflate", "x-gzip"], true),
    ])
    func acceptEncodingDecidesCompression(headers: [String], accepted: Bool) {
        #expect(acceptsGzip(headers) == accepted)
    }

    @Test func contentEncodingsTheServerReads() {
        #expect(ContentCoding(nil) == .identity)
        #expect(ContentCoding("identity") == .identity)
        #expect(ContentCoding("GZIP") == .gzip)
        #expect(ContentCoding(" x-gzip ") == .gzip)
        #expect(ContentCoding("br") == .unsupported("br"))
        #expect(ContentCoding("gzip, gzip") == .unsupported("gzip, gzip"))
    }
}
