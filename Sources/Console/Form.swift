import Foundation
import HTTPServer

/// The fields of an `application/x-www-form-urlencoded` body, names and values percent-decoded (`+` is a space);
/// a field that is not UTF-8 once decoded is left out.
struct Form {
    private let fields: [(String, String)]

    init(_ body: [UInt8]) {
        fields = body.split(separator: UInt8(ascii: "&")).compactMap { pair in
            let parts = pair.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = Self.decoded(parts[0]) else { return nil }
            guard let value = parts.count > 1 ? Self.decoded(parts[1]) : "" else { return nil }
            return (name, value)
        }
    }

    subscript(name: String) -> String? {
        fields.first { $0.0 == name }?.1
    }

    static func decoded(_ bytes: ArraySlice<UInt8>) -> String? {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "+") {
                output.append(UInt8(ascii: " "))
            } else if byte == UInt8(ascii: "%"),
                      bytes.distance(from: index, to: bytes.endIndex) >= 3,
                      let high = PercentDecoding.hexValue(bytes[index + 1]),
                      let low = PercentDecoding.hexValue(bytes[index + 2]) {
                output.append(high << 4 | low)
                index += 2
            } else {
                output.append(byte)
            }
            index += 1
        }
        return String(validating: output, as: UTF8.self)
    }
}

/// The cookies a request sent (RFC 6265 `Cookie: a=1; b=2`), by name.
enum Cookies {
    static func value(_ name: String, in header: String?) -> String? {
        guard let header else { return nil }
        for pair in header.split(separator: ";") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            if parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces) == name {
                return parts[1].trimmingCharacters(in: .whitespaces)
            }
        }
        return nil
    }
}
