internal import CCrypto
import Foundation
import Postgres

/// SHA-256 through OpenSSL's libcrypto (the EVP interface).
public enum SHA256 {
    /// SHA-256 fetched from the default provider once. `EVP_sha256()` would have `EVP_DigestInit_ex` look the
    /// algorithm up again, under a lock, at every digest, which showed in ingest profiles.
    /// Immutable once fetched, and OpenSSL's fetched algorithms may be used from any thread.
    nonisolated(unsafe) private static let algorithm: OpaquePointer = {
        guard let algorithm = EVP_MD_fetch(nil, "SHA2-256", nil) else { failed("EVP_MD_fetch") }
        return algorithm
    }()

    public static func digest(_ chunks: any ContiguousBytes...) -> Digest {
        var hasher = Hasher()
        for chunk in chunks { chunk.withUnsafeBytes { hasher.update($0) } }
        return hasher.finish()
    }

    /// Digests fed chunk by chunk, one after another, in one OpenSSL context: a batch's events take two digests
    /// each, and a context allocated, set up and freed for every one of them, with every chunk passed as `any
    /// ContiguousBytes`, cost a tenth of the hashing itself.
    public struct Hasher: ~Copyable {
        private let context: OpaquePointer
        private let algorithm = SHA256.algorithm

        public init() {
            guard let context = EVP_MD_CTX_new() else { fatalError("OpenSSL could not allocate a digest context") }
            self.context = context
            succeeded(EVP_DigestInit_ex(context, algorithm, nil), "EVP_DigestInit_ex")
        }

        deinit { EVP_MD_CTX_free(context) }

        public mutating func update(_ bytes: UnsafeRawBufferPointer) {
            succeeded(EVP_DigestUpdate(context, bytes.baseAddress, bytes.count), "EVP_DigestUpdate")
        }

        public mutating func update(_ bytes: [UInt8]) {
            bytes.withUnsafeBytes { update($0) }
        }

        public mutating func update(_ bytes: Data) {
            bytes.withUnsafeBytes { update($0) }
        }

        /// The digest of the chunks fed since the last one; the next digest starts empty.
        public mutating func finish() -> Digest {
            var length: UInt32 = 0
            // SHA-256 writes its 32 bytes, no more.
            let digest = Digest { output in
                succeeded(EVP_DigestFinal_ex(context, output.baseAddress, &length), "EVP_DigestFinal_ex")
            }
            guard length == 32 else { fatalError("OpenSSL's SHA-256 gave a digest of \(length) bytes, not 32") }
            succeeded(EVP_DigestInit_ex(context, algorithm, nil), "EVP_DigestInit_ex")
            return digest
        }

        public mutating func update(_ digest: Digest) {
            digest.withUnsafeBytes { update($0) }
        }
    }

    /// Stops the process, saying why, when an EVP call failed (it answers 1 on success): every hash of the log is
    /// chained to the one before, so there is no going on with a digest that is not one.
    static func succeeded(_ result: Int32, _ call: String) {
        guard result != 1 else { return }
        failed(call)
    }

    private static func failed(_ call: String) -> Never {
        let code = ERR_get_error()
        var reason = [CChar](repeating: 0, count: 256)
        if code != 0 { ERR_error_string_n(code, &reason, reason.count) }
        let text = String(decoding: reason.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        fatalError("OpenSSL's \(call) failed: \(code == 0 ? "it gave no reason" : text)")
    }
}
