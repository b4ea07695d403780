import CCrypto
import Foundation

/// SHA-256 through OpenSSL's libcrypto (the EVP interface).
enum SHA256 {
    static func digest(_ chunks: any ContiguousBytes...) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        guard let context = EVP_MD_CTX_new() else { preconditionFailure("OpenSSL could not allocate a digest context") }
        defer { EVP_MD_CTX_free(context) }
        EVP_DigestInit_ex(context, EVP_sha256(), nil)
        for chunk in chunks {
            chunk.withUnsafeBytes { _ = EVP_DigestUpdate(context, $0.baseAddress, $0.count) }
        }
        output.withUnsafeMutableBufferPointer { _ = EVP_DigestFinal_ex(context, $0.baseAddress, &length) }
        return Array(output.prefix(Int(length)))
    }

    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }
}
