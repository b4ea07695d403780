import Foundation
import HTTPServer

/// What the API refuses, the module's one error type: a request, with its answer, thrown by handlers and answered by
/// the route's wrapper; or a token that cannot be made as asked.
public struct APIError: Error, CustomStringConvertible {
    /// The answer: its status and `{"error":{"code":...,"message":...,"field":...}}`.
    public internal(set) var response: HTTPResponse
    public let message: String

    init(_ status: HTTPStatus, code: String, message: String, field: String? = nil) {
        response = .error(status, code: code, message: message, field: field)
        self.message = message
    }

    public var description: String { message }

    /// A token that cannot be made as asked: a name or scope that is not one, or a name in use.
    static func token(_ message: String) -> APIError {
        APIError(.badRequest, code: "invalid_token", message: message)
    }

    static func badParameter(_ name: String, _ message: String) -> APIError {
        APIError(.badRequest, code: "invalid_parameter", message: message, field: name)
    }
}

extension HTTPRequest {
    /// 400 naming the first query parameter the route does not take, or one given twice: a misspelt filter must not
    /// pass unnoticed, nor one of two values be taken silently.
    func acceptOnly(_ names: Set<String>) throws(APIError) {
        var seen: Set<String> = []
        for item in query {
            guard names.contains(item.name) else {
                throw .badParameter(item.name, "unknown parameter '\(item.name)'; this route takes \(names.sorted().joined(separator: ", "))")
            }
            guard seen.insert(item.name).inserted else {
                throw .badParameter(item.name, "\(item.name) is given twice; give it once")
            }
        }
    }

    /// `Content-Type`, every value it was sent with joined by `, `.
    var contentType: String? {
        headers.combined("Content-Type")
    }

    /// The `charset` parameter of the body's media type, lower case and unquoted; nil without one.
    var charset: String? {
        guard let header = contentType else { return nil }
        for parameter in header.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if pair.count == 2, pair[0].lowercased() == "charset" {
                return pair[1].trimmingCharacters(in: ["\""]).lowercased()
            }
        }
        return nil
    }

    /// The media type of the body, lower case, without parameters: `application/json`. Of a `Content-Type` sent
    /// twice, the two joined, which names no media type.
    var mediaType: String? {
        contentType.map { ($0.split(separator: ";").first ?? "").trimmingCharacters(in: .whitespaces).lowercased() }
    }
}
