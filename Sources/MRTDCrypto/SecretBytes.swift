internal import CLibCrypto
import Synchronization

/// Key material that is zeroized when the last copy goes away (docs/architecture.md §3.8). Never printed:
/// `description` is redacted. Equality is constant time.
public struct SecretBytes: Sendable, Hashable, CustomStringConvertible {
    /// Owns the heap buffer and wipes it with `OPENSSL_cleanse` (which the compiler may not elide)
    /// before freeing it. Immutable after creation, hence safe to share between threads.
    private final class Storage: @unchecked Sendable {
        let buffer: UnsafeMutableRawBufferPointer
        init(_ bytes: [UInt8]) {
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(bytes.count, 1), alignment: 16)
            bytes.withUnsafeBytes { src in
                if let base = src.baseAddress { buffer.baseAddress!.copyMemory(from: base, byteCount: src.count) }
            }
            self.buffer = buffer
            count = bytes.count
        }
        let count: Int
        deinit {
            OPENSSL_cleanse(buffer.baseAddress, buffer.count)
            buffer.deallocate()
        }
    }

    private let storage: Storage

    public init(_ bytes: [UInt8]) { storage = Storage(bytes) }
    public var count: Int { storage.count }
    /// Lend the bytes out for the duration of the closure.
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(rebasing: storage.buffer[0..<storage.count]))
    }
    /// Typed-throws variant of `withUnsafeBytes` for this module's OpenSSL calls.
    func withBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try body(UnsafeRawBufferPointer(rebasing: storage.buffer[0..<storage.count]))
    }
    /// A copy of the bytes (the caller owns its zeroization).
    public var bytes: [UInt8] { withUnsafeBytes { Array($0) } }
    public var description: String { "SecretBytes(\(count) bytes, redacted)" }
    public static func == (a: SecretBytes, b: SecretBytes) -> Bool {
        a.withUnsafeBytes { pa in b.withUnsafeBytes { pb in ConstantTime.equals(pa, pb) } }
    }
    public func hash(into hasher: inout Hasher) {
        withUnsafeBytes { hasher.combine(bytes: $0) }
    }
}

/// Where random bytes come from; tests inject a fixed source.
public protocol RandomSource: Sendable {
    func randomBytes(count: Int) -> [UInt8]
}

/// OpenSSL's CSPRNG (RAND_bytes).
public struct SystemRandom: RandomSource {
    public init() {}
    public func randomBytes(count: Int) -> [UInt8] {
        guard count > 0 else { return [] }
        var out = [UInt8](repeating: 0, count: count)
        let rc = out.withUnsafeMutableBufferPointer { RAND_bytes($0.baseAddress, Int32(count)) }
        precondition(rc == 1, "RAND_bytes failed: \(OpenSSL.drainErrors())")
        return out
    }
}

/// Returns queued byte strings in order (each call takes the next `count` bytes of the queue);
/// for tests that reproduce published examples. Runs out → precondition failure.
public final class FixedRandom: RandomSource {
    private struct State {
        var queue: [UInt8]
        var position: Int
    }
    private let state: Mutex<State>

    public init(_ chunks: [[UInt8]]) { state = Mutex(State(queue: chunks.flatMap { $0 }, position: 0)) }
    public func randomBytes(count: Int) -> [UInt8] {
        state.withLock { s in
            precondition(
                s.position + count <= s.queue.count,
                "FixedRandom exhausted: \(count) bytes asked, \(s.queue.count - s.position) left")
            defer { s.position += count }
            return Array(s.queue[s.position..<(s.position + count)])
        }
    }
    /// Bytes not yet handed out.
    public var remaining: Int { state.withLock { $0.queue.count - $0.position } }
}

/// Constant-time helpers.
public enum ConstantTime {
    /// Equal length and equal bytes, in time independent of where they differ.
    public static func equals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        a.withUnsafeBytes { pa in b.withUnsafeBytes { pb in equals(pa, pb) } }
    }

    static func equals(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
        guard a.count == b.count else { return false }
        var diff: UInt8 = 0
        for i in 0..<a.count { diff |= a[i] ^ b[i] }
        return diff == 0
    }
}
