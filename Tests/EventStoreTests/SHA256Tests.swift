@testable import EventStore
import Foundation
import Postgres
import Testing

@Suite("SHA-256")
struct SHA256Tests {
    @Test("the FIPS 180-2 vectors, whole and in chunks", arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
    ])
    func vectors(text: String, hex: String) {
        #expect(SHA256.digest(Array(text.utf8)).hex == hex)
        let middle = text.utf8.count / 2
        #expect(SHA256.digest(Array(text.utf8.prefix(middle)), Data(text.utf8.dropFirst(middle))).hex == hex)
    }

    @Test("one hasher gives digest after digest, each of the chunks fed since the one before")
    func hasherReused() {
        var hasher = SHA256.Hasher()
        hasher.update(Array("ab".utf8))
        hasher.update(Data("c".utf8))
        #expect(hasher.finish().hex == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(hasher.finish().hex == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        hasher.update(Array("abc".utf8))
        #expect(hasher.finish().hex == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    @Test("a digest holds its 32 bytes: as given, in hex, as bytea both ways; anything but 32 bytes is not one")
    func digestBytes() throws {
        let bytes = (0..<32).map { UInt8($0 * 7 + 3) }
        let digest = try #require(Digest(bytes: bytes))
        #expect(digest.bytes == bytes)
        #expect(digest.hex == bytes.map { String(format: "%02x", $0) }.joined())
        #expect(try Digest(postgresText: digest.postgresText) == digest)
        #expect(digest.postgresText == "\\x" + digest.hex)
        #expect(Digest(bytes: bytes.dropLast()) == nil && Digest(bytes: bytes + [0]) == nil)
        #expect(throws: PostgresError.self) { try Digest(postgresText: "\\x00ff") }
        #expect(Digest.zero.bytes == [UInt8](repeating: 0, count: 32))
    }

    @Test("digests are equal, and equal in constant time, exactly when every byte is", arguments: [0, 7, 8, 15, 31])
    func digestEquality(differingByte: Int) throws {
        var bytes = (0..<32).map { UInt8($0) }
        let digest = try #require(Digest(bytes: bytes))
        let same = try #require(Digest(bytes: bytes))
        #expect(digest == same && digest.equalsInConstantTime(same))
        bytes[differingByte] ^= 0x80
        let other = try #require(Digest(bytes: bytes))
        #expect(digest != other && !digest.equalsInConstantTime(other))
        #expect(Set([digest, other, digest]).count == 2)
    }

    @Test("a failed EVP call stops the process, naming the call, instead of giving a digest")
    func failedCallStops() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            SHA256.succeeded(0, "EVP_DigestUpdate")
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("OpenSSL's EVP_DigestUpdate failed"), "\(message)")
    }
}
