@testable import EventStore
import Foundation
import Testing

@Suite("SHA-256")
struct SHA256Tests {
    @Test("the FIPS 180-2 vectors, whole and in chunks", arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
    ])
    func vectors(text: String, hex: String) {
        #expect(SHA256.hex(SHA256.digest(Array(text.utf8))) == hex)
        let middle = text.utf8.count / 2
        #expect(SHA256.hex(SHA256.digest(Array(text.utf8.prefix(middle)), Data(text.utf8.dropFirst(middle)))) == hex)
    }

    @Test("one hasher gives digest after digest, each of the chunks fed since the one before")
    func hasherReused() {
        var hasher = SHA256.Hasher()
        hasher.update(Array("ab".utf8))
        hasher.update(Data("c".utf8))
        #expect(SHA256.hex(hasher.finish()) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SHA256.hex(hasher.finish()) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        hasher.update(Array("abc".utf8))
        #expect(SHA256.hex(hasher.finish()) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
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
