import Foundation
import EventStore
import Synchronization

/// One signed-in browser: who signed in (the token's name and id, never the token), until when, and the secret its
/// forms carry.
public struct ConsoleSession: Sendable, Equatable {
    /// The name of the token signed in with, for the request log.
    public let tokenName: String
    /// The id part of that token: revoking the token ends the session.
    public let tokenId: String
    public let createdAt: Date
    /// Moved on by each request, up to ``expiresAt``.
    public var lastSeenAt: Date
    /// The session ends then however busy it is.
    public let expiresAt: Date
    /// Each form that changes the session (sign-out, the time zone) sends it back; a page of another site cannot
    /// read it.
    public let formSecret: String
    /// The zone the pages show times in.
    public var timeZone: TimeZone
    /// Its name as picked (`UTC`, `Asia/Shanghai`), which Foundation may spell otherwise.
    public var timeZoneName: String
}

/// The console's sessions, in the server's memory: a session id is 32 random bytes, handed to the browser in a
/// cookie; the store keeps only its SHA-256, so that a dump of the memory holds no cookie that works. A session ends
/// after ``idleTimeout`` without a request, at ``lifetime`` after sign-in, at sign-out, or when the server stops.
public final class SessionStore: Sendable {
    public let idleTimeout: TimeInterval
    public let lifetime: TimeInterval
    private let clock: @Sendable () -> Date
    private let sessions = Mutex<[String: ConsoleSession]>([:])

    /// - Parameter clock: the time now; tests move it.
    public init(idleTimeout: TimeInterval = 30 * 60, lifetime: TimeInterval = 12 * 3600, clock: @escaping @Sendable () -> Date = Date.init) {
        self.idleTimeout = idleTimeout
        self.lifetime = lifetime
        self.clock = clock
    }

    /// Opens a session and returns its id, for the cookie.
    public func open(tokenName: String, tokenId: String, timeZone: TimeZone, timeZoneName: String) -> String {
        let id = Self.randomText(bytes: 32)
        let now = clock()
        let session = ConsoleSession(
            tokenName: tokenName, tokenId: tokenId, createdAt: now, lastSeenAt: now, expiresAt: now + lifetime,
            formSecret: Self.randomText(bytes: 32), timeZone: timeZone,
            timeZoneName: timeZoneName)
        sessions.withLock { all in
            all = all.filter { !isOver($0.value, at: now) }
            all[Self.key(id)] = session
        }
        return id
    }

    /// The session of this id, its idle time restarted; nil when there is none or it is over (then it is removed).
    public func session(_ id: String) -> ConsoleSession? {
        let now = clock()
        let key = Self.key(id)
        return sessions.withLock { all in
            guard var session = all[key] else { return nil }
            guard !isOver(session, at: now) else {
                all[key] = nil
                return nil
            }
            session.lastSeenAt = now
            all[key] = session
            return session
        }
    }

    /// Sets the zone a session's pages show times in.
    public func setTimeZone(_ zone: TimeZone, named name: String, of id: String) {
        sessions.withLock { all in
            all[Self.key(id)]?.timeZone = zone
            all[Self.key(id)]?.timeZoneName = name
        }
    }

    /// Ends the session of this id.
    public func close(_ id: String) {
        _ = sessions.withLock { all in all.removeValue(forKey: Self.key(id)) }
    }

    /// Ends every session signed in with the token of this id.
    public func close(tokenId: String) {
        sessions.withLock { all in all = all.filter { $0.value.tokenId != tokenId } }
    }

    /// Sessions open now.
    public var count: Int {
        let now = clock()
        return sessions.withLock { all in all.values.filter { !isOver($0, at: now) }.count }
    }

    private func isOver(_ session: ConsoleSession, at now: Date) -> Bool {
        now >= session.expiresAt || now.timeIntervalSince(session.lastSeenAt) >= idleTimeout
    }

    /// The store's key for an id: its SHA-256, in hex.
    private static func key(_ id: String) -> String {
        SHA256.digest(Array(id.utf8)).hex
    }

    /// `bytes` bytes from the system's cryptographic random source, as unpadded base64url.
    static func randomText(bytes: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        let data = Data((0..<bytes).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
        return data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
