import CCrypto
import Foundation

/// SHA-256 through OpenSSL's libcrypto.
enum SHA256 {
    static func digest(_ chunks: [UInt8]...) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        var context = SHA256_CTX()
        SHA256_Init(&context)
        for chunk in chunks {
            chunk.withUnsafeBytes { _ = SHA256_Update(&context, $0.baseAddress, $0.count) }
        }
        output.withUnsafeMutableBufferPointer { _ = SHA256_Final($0.baseAddress, &context) }
        return output
    }

    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }
}
