import Foundation

/// A lock-protected dictionary for the generator's process-wide caches (keys, certificates, DG2 images).
final class LockedCache<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var store: [String: Value] = [:]

    func value(_ key: String) -> Value? {
        lock.lock()
        defer { lock.unlock() }
        return store[key]
    }

    /// Stores `value` unless another thread got there first; returns the stored value.
    func insert(_ key: String, _ value: Value) -> Value {
        lock.lock()
        defer { lock.unlock() }
        if let existing = store[key] { return existing }
        store[key] = value
        return value
    }
}
