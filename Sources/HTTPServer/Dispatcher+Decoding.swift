/// What a request decodes to: the request and its path's decoded segments, or the answer that refuses it.
enum DecodedRequest {
    case request(HTTPRequest, segments: [String])
    case refused(HTTPResponse)
}

extension Dispatcher {
    /// Turns what libmicrohttpd read into an `HTTPRequest`, on a worker: the path and query percent-decoded
    /// and checked to be UTF-8, the body inflated when it is gzip; with the path's decoded segments.
    func decode(_ context: RequestContext, body: [UInt8]) -> DecodedRequest {
        guard let rawPath = Self.path(ofTarget: context.rawPath) else {
            return .refused(.error(
                .badRequest, code: "invalid_path",
                message: "the request target must be a path starting with /, or an http or https URI with a host"))
        }
        guard let path = PercentDecoding.text(rawPath) else {
            return .refused(.error(
                .badRequest, code: "invalid_path", message: "the path is not percent-encoded UTF-8"))
        }
        var segments: [String] = []
        for raw in rawPath.dropFirst().split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false) {
            guard let segment = PercentDecoding.text(raw) else {
                return .refused(.error(
                    .badRequest, code: "invalid_path", message: "the path is not percent-encoded UTF-8"))
            }
            segments.append(segment)
        }

        var items: [QueryParameters.Item] = []
        for (rawName, rawValue) in context.rawQuery {
            guard let name = PercentDecoding.text(rawName[...]) else {
                return .refused(.error(
                    .badRequest, code: "invalid_query", message: "a query parameter's name is not percent-encoded UTF-8"))
            }
            guard let value = PercentDecoding.text(rawValue[...]) else {
                return .refused(.error(
                    .badRequest, code: "invalid_query",
                    message: "the value of query parameter \(name) is not percent-encoded UTF-8", field: name))
            }
            items.append((name, value))
        }

        var content = body
        if case .gzip = ContentCoding(context.headers.combined("Content-Encoding")) {
            do throws(HTTPServerError) {
                content = try Gzip.inflate(body, limit: configuration.maximumBodyBytes)
            } catch {
                switch error.kind {
                case .bodyTooLarge:
                    return .refused(.error(
                        .contentTooLarge, code: "body_too_large",
                        message: "the gzip request body inflates to more than the limit of "
                            + "\(configuration.maximumBodyBytes) bytes"))
                default:
                    return .refused(.error(
                        .badRequest, code: "invalid_gzip", message: "the gzip request body cannot be read: \(error.message)",
                        field: "Content-Encoding"))
                }
            }
        }

        let request = HTTPRequest(
            id: context.id, method: context.method, path: path, query: QueryParameters(items), headers: context.headers,
            body: content, remoteAddress: context.remoteAddress, clientCertificate: context.clientCertificate)
        return .request(request, segments: segments)
    }
}

extension Dispatcher {
    /// The path of a request target without its query: the target itself in origin form (`/v1/events`); in absolute
    /// form (`http://host:8080/v1/events`), which RFC 9112 section 3.2.2 says a server must accept, what follows the
    /// scheme and authority, `/` when nothing does. Nil for any other target: another scheme, no host, a user name
    /// (RFC 9110 section 4.2.4), the authority form of CONNECT or the `*` of OPTIONS.
    static func path(ofTarget target: [UInt8]) -> ArraySlice<UInt8>? {
        if target.first == UInt8(ascii: "/") { return target[...] }
        let lowercased = target.prefix(8).map(\.asciiLowercased)
        let scheme = ["http://", "https://"].first { lowercased.starts(with: $0.utf8) }
        guard let scheme else { return nil }
        let rest = target.dropFirst(scheme.utf8.count)
        let slash = rest.firstIndex(of: UInt8(ascii: "/")) ?? rest.endIndex
        let authority = rest[..<slash]
        guard !authority.isEmpty, !authority.contains(UInt8(ascii: "@")) else { return nil }
        return slash == rest.endIndex ? Array("/".utf8)[...] : rest[slash...]
    }
}

/// A request body's `Content-Encoding`.
enum ContentCoding: Equatable {
    case identity
    case gzip
    case unsupported(String)

    init(_ header: String?) {
        let codings = (header ?? "").split(separator: ",")
            .map { $0.trimmingASCIISpaces.lowercased() }
            .filter { !$0.isEmpty && $0 != "identity" }
        switch codings {
        case []: self = .identity
        case ["gzip"], ["x-gzip"]: self = .gzip
        default: self = .unsupported(header ?? "")
        }
    }
}

/// Whether `Accept-Encoding` allows gzip: named, or covered by `*`, with a weight above 0.
func acceptsGzip(_ headers: [String]) -> Bool {
    var gzip: Double?
    var wildcard: Double?
    for element in headers.flatMap({ $0.split(separator: ",") }) {
        let parts = element.split(separator: ";")
        guard let coding = parts.first?.trimmingASCIISpaces.lowercased() else { continue }
        var weight = 1.0
        for parameter in parts.dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingASCIISpaces }
            if pair.count == 2, pair[0].lowercased() == "q" { weight = Double(pair[1]) ?? 0 }
        }
        switch coding {
        case "gzip", "x-gzip": gzip = weight
        case "*": wildcard = weight
        default: break
        }
    }
    return (gzip ?? wildcard ?? 0) > 0
}

public enum PercentDecoding {
    /// `%XX` sequences decoded, then read as UTF-8; nil for a malformed escape or bytes that are not UTF-8.
    static func text(_ raw: ArraySlice<UInt8>) -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(raw.count)
        var index = raw.startIndex
        while index < raw.endIndex {
            let byte = raw[index]
            if byte == UInt8(ascii: "%") {
                guard raw.endIndex - index >= 3,
                    let high = hexValue(raw[index + 1]), let low = hexValue(raw[index + 2])
                else { return nil }
                bytes.append(high << 4 | low)
                index += 3
            } else {
                bytes.append(byte)
                index += 1
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    /// A hex digit's value, either case; nil for any other byte.
    public static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

extension StringProtocol {
    var trimmingASCIISpaces: String {
        var slice = Substring(self)
        while let first = slice.first, first == " " || first == "\t" { slice.removeFirst() }
        while let last = slice.last, last == " " || last == "\t" { slice.removeLast() }
        return String(slice)
    }
}
