@testable import Console
import Foundation
import Synchronization
import Testing

@Suite("Console sessions")
struct SessionStoreTests {
    /// A clock the test moves.
    final class Clock: Sendable {
        let now = Mutex(Date(timeIntervalSince1970: 1_800_000_000))
        func advance(_ seconds: TimeInterval) { now.withLock { $0 += seconds } }
        var read: @Sendable () -> Date { { self.now.withLock { $0 } } }
    }

    static let shanghai = TimeZone(identifier: "Asia/Shanghai")!

    @Test("a session lasts while it is used, and ends after the idle timeout without a request")
    func idle() {
        let clock = Clock()
        let store = SessionStore(idleTimeout: 60, lifetime: 3600, clock: clock.read)
        let id = store.open(tokenName: "reader", tokenId: "t1", timeZone: Self.shanghai, timeZoneName: "Asia/Shanghai")
        for _ in 0..<10 {
            clock.advance(50)
            #expect(store.session(id)?.tokenName == "reader")
        }
        clock.advance(60)
        #expect(store.session(id) == nil)
        clock.advance(-60)
        #expect(store.session(id) == nil, "an ended session is gone, not merely hidden")
    }

    @Test("a session ends at its lifetime however busy it is")
    func lifetime() {
        let clock = Clock()
        let store = SessionStore(idleTimeout: 60, lifetime: 300, clock: clock.read)
        let id = store.open(tokenName: "reader", tokenId: "t1", timeZone: Self.shanghai, timeZoneName: "Asia/Shanghai")
        for _ in 0..<5 {
            clock.advance(59)
            #expect(store.session(id) != nil)
        }
        clock.advance(59)
        #expect(store.session(id) == nil)
    }

    @Test("sign-out ends one session; revoking a token ends all of its")
    func close() {
        let store = SessionStore()
        let a = store.open(tokenName: "reader", tokenId: "t1", timeZone: Self.shanghai, timeZoneName: "Asia/Shanghai")
        let b = store.open(tokenName: "reader", tokenId: "t1", timeZone: Self.shanghai, timeZoneName: "Asia/Shanghai")
        let c = store.open(tokenName: "other", tokenId: "t2", timeZone: Self.shanghai, timeZoneName: "Asia/Shanghai")
        #expect(store.count == 3)
        store.close(a)
        #expect(store.session(a) == nil)
        #expect(store.session(b) != nil)
        store.close(tokenId: "t1")
        #expect(store.session(b) == nil)
        #expect(store.session(c)?.tokenName == "other")
    }

    @Test("ids and form secrets are long, random and distinct; an id is not a key of another session")
    func ids() {
        let store = SessionStore()
        let ids = (0..<100).map { _ in store.open(tokenName: "r", tokenId: "t", timeZone: Self.shanghai, timeZoneName: "Asia/Shanghai") }
        #expect(Set(ids).count == 100)
        #expect(ids.allSatisfy { $0.utf8.count == 43 }, "32 bytes as unpadded base64url")
        let secrets = ids.compactMap { store.session($0)?.formSecret }
        #expect(Set(secrets).count == 100)
        #expect(Set(secrets).isDisjoint(with: ids))
        #expect(store.session("made-up") == nil)
        #expect(store.session(String(ids[0].dropLast())) == nil)
    }

    @Test("the time zone picked is kept by its name")
    func timeZone() {
        let store = SessionStore()
        let id = store.open(tokenName: "r", tokenId: "t", timeZone: Self.shanghai, timeZoneName: "Asia/Shanghai")
        store.setTimeZone(TimeZone(identifier: "UTC")!, named: "UTC", of: id)
        #expect(store.session(id)?.timeZoneName == "UTC")
        #expect(store.session(id)?.timeZone.secondsFromGMT() == 0)
    }

    @Test("the cookie is HttpOnly, SameSite=Strict, for the whole site, expiring, and Secure over TLS")
    func cookie() {
        #expect(Console.sessionCookie("abc", maxAge: 43200, secure: false) == "geoledger_session=abc; Path=/; HttpOnly; SameSite=Strict; Max-Age=43200")
        #expect(Console.sessionCookie("abc", maxAge: 43200, secure: true).hasSuffix("; Secure"))
        #expect(Console.sessionCookie("", maxAge: 0, secure: false).contains("Max-Age=0"))
    }
}
