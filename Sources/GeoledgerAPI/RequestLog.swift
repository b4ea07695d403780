import Foundation
import HTTPServer
import JSON

/// The server's log lines on standard error: one JSON object per line, for a request or for a message. A request's
/// line never holds its token or its body; on a mutual-TLS connection it names the client certificate's subject.
enum RequestLog {
    static func line(_ request: CompletedRequest) -> String {
        let milliseconds = Double(request.duration.components.attoseconds) / 1e15
            + Double(request.duration.components.seconds) * 1000
        var members: JSONObject = [
            "time": .string(Date().formatted(EventRoutes.time)),
            "requestId": .string(request.id),
            "method": .string(request.method.rawValue),
            "route": request.route.map(JSONValue.string) ?? .null,
            "status": .number(Double(request.status.rawValue)),
            "durationMs": .number((milliseconds * 1000).rounded() / 1000),
            "bytes": .number(Double(request.bytes)),
            "token": request.principal.map(JSONValue.string) ?? .null,
        ]
        members["remote"] = .string(request.remoteAddress)
        // On a mutual-TLS connection: whose certificate the client presented (its subject, never the certificate).
        if let certificate = request.clientCertificate { members["clientCertificate"] = .string(certificate.subject) }
        return JSONValue.object(members).canonicalString()
    }

    static func message(_ text: String) -> String {
        JSONValue.object(["time": .string(Date().formatted(EventRoutes.time)), "message": .string(text)]).canonicalString()
    }
}
