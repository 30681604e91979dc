import Foundation

/// A lock for the generator's caches.
final class NSLockShim: @unchecked Sendable {
    private let lock = NSLock()
    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock(); defer { lock.unlock() }
        return try body()
    }
}
