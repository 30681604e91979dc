import Foundation

/// A response body written while the connection stays open (Server-Sent Events). The handler keeps
/// the stream and calls `send`; the connection's thread waits in `read` for bytes, sends a keep-alive
/// comment when nothing came for `keepAliveSeconds`, and ends the response after `finish()`.
///
/// A client that stops reading cannot make the service hold unbounded memory: once more than the
/// backlog limit waits unsent, the stream is dropped (the connection closes).
public final class HTTPStream: @unchecked Sendable {
    private let condition = NSCondition()
    // guarded by condition
    private var pending: [UInt8] = []
    private var finished = false
    private var dropped = false
    private var keepAliveSeconds: Double = 10
    private var maxBacklog = 1 << 20
    private var closeActions: [@Sendable () -> Void] = []
    private var closed = false

    public init() {}

    /// Queues bytes for the client. Returns false when the stream has ended (finished, dropped, closed).
    @discardableResult
    public func send(_ bytes: [UInt8]) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard !finished && !dropped && !closed else { return false }
        if pending.count + bytes.count > maxBacklog {
            dropped = true
            pending = []
        } else {
            pending.append(contentsOf: bytes)
        }
        condition.broadcast()
        return !dropped
    }

    /// Sends what is queued, then ends the response.
    public func finish() {
        condition.lock()
        finished = true
        condition.broadcast()
        condition.unlock()
    }

    /// Whether the stream still accepts bytes.
    public var isOpen: Bool {
        condition.lock()
        defer { condition.unlock() }
        return !finished && !dropped && !closed
    }

    /// Runs `action` once the connection is gone (or at once when it is already gone).
    public func onClose(_ action: @escaping @Sendable () -> Void) {
        condition.lock()
        if closed {
            condition.unlock()
            action()
            return
        }
        closeActions.append(action)
        condition.unlock()
    }

    // MARK: - The server side

    func configure(limits: HTTPServerLimits) {
        condition.lock()
        keepAliveSeconds = limits.keepAliveSeconds
        maxBacklog = limits.maxStreamBacklogBytes
        condition.unlock()
    }

    enum Chunk { case bytes(Int), end, error }

    /// Copies at most `max` bytes into `buffer`, waiting for them; a keep-alive comment after the interval.
    func read(into buffer: UnsafeMutableRawBufferPointer) -> Chunk {
        condition.lock()
        defer { condition.unlock() }
        let deadline = Date().addingTimeInterval(keepAliveSeconds)
        while pending.isEmpty && !finished && !dropped && !closed {
            if !condition.wait(until: deadline) { break }
        }
        if dropped || closed { return .error }
        if pending.isEmpty {
            if finished { return .end }
            let comment = Array(": keep-alive\n\n".utf8)
            let n = min(comment.count, buffer.count)
            comment.withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0.prefix(n))) }
            return .bytes(n)
        }
        let n = min(pending.count, buffer.count)
        pending.withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0.prefix(n))) }
        pending.removeFirst(n)
        return .bytes(n)
    }

    /// The connection ended (libmicrohttpd freed the response) or the server stops.
    func close() {
        condition.lock()
        let actions = closed ? [] : closeActions
        closed = true
        closeActions = []
        pending = []
        condition.broadcast()
        condition.unlock()
        for a in actions { a() }
    }
}
