/// What the server records of a request once its answer is ready: for access logs and metrics.
public struct CompletedRequest: Sendable {
    /// The request id, as sent in `X-Request-Id`.
    public let id: String
    public let method: HTTPMethod
    /// The route pattern that matched (`/v1/merchants/{id}`); nil when none did, or the request was answered
    /// before routing (a body over the limit, a stopping server).
    public let route: String?
    public let status: HTTPStatus
    /// The response body's size as sent (after compression).
    public let bytes: Int
    /// From the request's headers to its answer.
    public let duration: Duration
    public let remoteAddress: String
    /// ``HTTPResponse/principal`` of the answer.
    public let principal: String?
    /// The client's verified certificate, on a mutual-TLS connection.
    public var clientCertificate: ClientCertificate? = nil
}

extension CompletedRequest {
    /// The record of an answer to a request whose headers did not all arrive: its method and route are not known.
    static func beforeHeaders(
        id: String, answer: HTTPResponse, started: ContinuousClock.Instant, remoteAddress: String,
        clientCertificate: ClientCertificate? = nil
    ) -> CompletedRequest {
        CompletedRequest(
            id: id, method: HTTPMethod(rawValue: ""), route: nil, status: answer.status, bytes: answer.body.count,
            duration: ContinuousClock.now - started, remoteAddress: remoteAddress, principal: nil,
            clientCertificate: clientCertificate)
    }
}
