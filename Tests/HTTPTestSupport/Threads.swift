import Foundation
import Synchronization

/// Runs `body` on a thread of its own and returns what it returns. Clients in these tests block, and their timings
/// matter: on Swift's cooperative pool (a thread per core, shared with every other test) they would both starve
/// other tests and be starved by them.
public func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread {
            continuation.resume(with: Result { try body() })
        }
    }
}

/// Runs `count` copies of `body` on threads of their own, all at once, and returns their results in order.
public func concurrently<T: Sendable>(_ count: Int, _ body: @escaping @Sendable (Int) throws -> T) throws -> [T] {
    let results = Mutex<[Int: Result<T, any Error>]>([:])
    let group = DispatchGroup()
    for index in 0..<count {
        group.enter()
        Thread.detachNewThread {
            let result = Result { try body(index) }
            results.withLock { $0[index] = result }
            group.leave()
        }
    }
    group.wait()
    return try (0..<count).map { index in try results.withLock { $0[index]! }.get() }
}
