internal import CMicroHTTPD

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where libmicrohttpd left the pieces of a request head it parsed, to tell whether it read every byte that was sent.
///
/// libmicrohttpd (0.9.75) parses the head in place in its read buffer: it turns the space after the method and the
/// one before the version, each header's colon, and every CR and LF into NUL bytes, and then reads each piece as a C
/// string. A NUL sent inside a piece ends it early and what follows is dropped without a word: the sizes it reports
/// (`MHD_get_connection_values_n`) are those strings' lengths, and a line that begins with a NUL is taken for the
/// empty line that ends the headers. So the head is checked where it lies, from the method to the end of the empty
/// line (`MHD_CONNECTION_INFO_REQUEST_HEADER_SIZE` bytes): after the request line and after each header's value, up to
/// the next header's name, there must be exactly one line break, 1 NUL (LF) or 2 (CR LF), and 2 to 4 after the last
/// one (its line break and the empty line). A NUL sent right before a bare LF looks like a CR there; it cuts nothing.
/// Once that holds, every CR left in the head is a bare one: libmicrohttpd ends a line only at CR LF or a bare LF, and
/// keeps any other CR in the line, where RFC 9112 section 2.2 has a recipient refuse it (or read it as a space).
struct ParsedHead {
    /// The offset of the NUL that was the space after the method.
    var methodEnd: Int
    /// The request target's bytes as libmicrohttpd found them at the end of the request line.
    var target: Range<Int>
    /// The request target's length as a C string when the request line arrived (``Dispatcher/requestLine``), before
    /// libmicrohttpd split off the query.
    var targetLength: Int
    /// The offset of the byte after the version.
    var versionEnd: Int
    /// The headers in the order sent.
    var fields: [Field]

    struct Field {
        var name: String
        /// The offset of the name; outside the head when libmicrohttpd moved it, as it does to a folded header.
        var start: Int
        /// The offset of the byte after the value.
        var valueEnd: Int
    }

    enum Fault: Equatable {
        case method
        case target
        /// After the request line's version.
        case requestLine
        /// In the value of the header, or on the line after it.
        case header(String)
        /// A CR not followed by LF in the request line.
        case requestLineCR
        /// A CR not followed by LF in the header's name or value.
        case headerCR(String)
        /// A header continued on the next line (obsolete line folding, RFC 9112 section 5.2).
        case folded
        /// A header name that is not a token, such as one with whitespace before its colon.
        case headerName(String)
    }

    /// Where a NUL byte (or a folded header) hides part of the head, or where a bare CR is in it; nil when
    /// libmicrohttpd read all of it and it holds no bare CR.
    /// - Parameter head: the head as it lies in libmicrohttpd's buffer, from the method to the end of the empty line.
    func fault(in head: UnsafeRawBufferPointer) -> Fault? {
        if fields.contains(where: { !head.indices.contains($0.start) }) { return .folded }
        let space = UInt8(ascii: " ")
        // Spaces between the method and the target are skipped, and left as they are.
        guard methodEnd < target.lowerBound, target.upperBound < head.count, head[methodEnd] == 0,
            head[(methodEnd + 1)..<target.lowerBound].allSatisfy({ $0 == space })
        else { return .method }
        guard target.count == targetLength else { return .target }
        var lineEnd = versionEnd
        var owner = Fault.requestLine
        for field in fields.sorted(by: { $0.start < $1.start }) {
            guard Self.isLineBreak(head, from: lineEnd, to: field.start, lines: 1) else { return owner }
            lineEnd = field.valueEnd
            owner = .header(field.name)
        }
        guard Self.isLineBreak(head, from: lineEnd, to: head.count, lines: 2) else { return owner }
        // Every line break is NUL bytes now: a CR is in the request line, or in the last header that starts before it.
        guard let cr = head.firstIndex(of: UInt8(ascii: "\r")) else {
            // A name is a token (RFC 9112 section 5.1, which has a server refuse whitespace before the colon):
            // libmicrohttpd keeps such whitespace in the name, and so would not frame the body by `Content-Length `.
            return fields.first { !Self.isToken($0.name) }.map { .headerName($0.name) }
        }
        guard let field = fields.filter({ $0.start <= cr }).max(by: { $0.start < $1.start }) else {
            return .requestLineCR
        }
        return .headerCR(field.name)
    }

    /// Whether `name` is a token of RFC 9110 section 5.6.2: letters, digits and ``!#$%&'*+-.^_`|~``, at least one.
    static func isToken(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"):
                true
            default: "!#$%&'*+-.^_`|~".utf8.contains(byte)
            }
        }
    }

    /// Whether the bytes from `start` to `end` are `lines` line breaks as libmicrohttpd leaves them: 1 or 2 NUL bytes
    /// each.
    private static func isLineBreak(_ head: UnsafeRawBufferPointer, from start: Int, to end: Int, lines: Int) -> Bool {
        guard 0 <= start, start <= end, end <= head.count, (lines...(2 * lines)).contains(end - start) else {
            return false
        }
        return head[start..<end].allSatisfy { $0 == 0 }
    }

    /// The answer to a head with a fault: 400, and the connection closed, since what follows the head may have been
    /// framed by what libmicrohttpd dropped.
    static func refusal(_ fault: Fault) -> HTTPResponse {
        var response: HTTPResponse = switch fault {
        case .method:
            .error(.badRequest, code: "invalid_request_line", message: "the method holds a NUL byte")
        case .target:
            .error(.badRequest, code: "invalid_request_line", message: "the request target holds a NUL byte")
        case .requestLine:
            .error(.badRequest, code: "invalid_request_line", message: "a NUL byte follows the request line")
        case .header(let name):
            .error(
                .badRequest, code: "invalid_header", message: "header \(name) holds a NUL byte, or the line after it does",
                field: name)
        case .requestLineCR:
            .error(
                .badRequest, code: "invalid_request_line",
                message: "the request line holds a CR not followed by LF (a bare CR)")
        case .headerCR(let name):
            .error(
                .badRequest, code: "invalid_header",
                message: "header \(name) holds a CR not followed by LF (a bare CR)", field: name)
        case .folded:
            .error(
                .badRequest, code: "folded_header",
                message: "a header is continued on the next line (obsolete line folding): send each on one line")
        case .headerName(let name):
            .error(
                .badRequest, code: "invalid_header",
                message: "header name \"\(name)\" is not a token: no whitespace or separator may come before its colon",
                field: name)
        }
        response.headers.set("Connection", "close")
        return response
    }
}

extension ParsedHead {
    /// A header as libmicrohttpd read it, with where its name starts and its value ends in libmicrohttpd's buffer.
    struct RawField {
        var name: String
        var value: String
        var nameAddress: Int
        var valueEndAddress: Int

        /// The request's headers in the order sent: one walk, for the request's headers and for the check of its head.
        static func all(of connection: OpaquePointer) -> [RawField] {
            var fields: [RawField] = []
            withUnsafeMutablePointer(to: &fields) { pointer in
                _ = MHD_get_connection_values_n(connection, .HEADER_KIND, { context, _, key, keySize, value, valueSize in
                    guard let key else { return .YES }
                    let valueSize = value == nil ? 0 : valueSize
                    context!.assumingMemoryBound(to: [RawField].self).pointee.append(RawField(
                        name: String(decoding: UnsafeRawBufferPointer(start: key, count: keySize), as: UTF8.self),
                        value: String(decoding: UnsafeRawBufferPointer(start: value, count: valueSize), as: UTF8.self),
                        nameAddress: Int(bitPattern: key), valueEndAddress: Int(bitPattern: value.map { $0 + valueSize })))
                    return .YES
                }, pointer)
            }
            return fields
        }
    }

    /// Checks the head where libmicrohttpd left its pieces, in its access callback: `method`, `url` and `version` are
    /// the pointers that callback was given, which point into the head, `headBytes` long from `method`.
    static func fault(
        method: UnsafePointer<CChar>, url: UnsafePointer<CChar>, version: UnsafePointer<CChar>, fields: [RawField],
        headBytes: Int, targetLength: Int
    ) -> Fault? {
        let address = Int(bitPattern: method)
        let targetStart = Int(bitPattern: url) - address
        let versionStart = Int(bitPattern: version) - address
        // The version follows the target and the NUL that was the space before it.
        guard versionStart > targetStart else { return .requestLine }
        let head = ParsedHead(
            methodEnd: strlen(method), target: targetStart..<(versionStart - 1), targetLength: targetLength,
            versionEnd: versionStart + strlen(version),
            fields: fields.compactMap { field in
                // A header without a value (never, from libmicrohttpd's parser) has no end to check.
                guard field.valueEndAddress != 0 else { return nil }
                return Field(name: field.name, start: field.nameAddress - address, valueEnd: field.valueEndAddress - address)
            })
        return head.fault(in: UnsafeRawBufferPointer(start: method, count: headBytes))
    }
}
