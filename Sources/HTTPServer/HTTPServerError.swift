/// What goes wrong in the HTTP server, the module's one error type: why it could not start, with the address or
/// setting concerned, or why a request body could not be read.
public struct HTTPServerError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable, Equatable {
        /// A setting is out of range; the message names it.
        case invalidConfiguration
        /// Another socket already listens on the address.
        case addressInUse
        /// The listening socket could not be set up (permission, unknown address, no descriptors left).
        case listen
        /// libmicrohttpd refused to start.
        case start
        /// A TLS certificate, key or CA file cannot be read or used; the message names the file.
        case tls
        /// A gzip request body inflates to more than the limit; nothing past the limit was kept.
        case bodyTooLarge
        /// A gzip request body is not gzip, or is cut short; the message is zlib's reason.
        case malformedBody
    }

    public var kind: Kind
    public var message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}
