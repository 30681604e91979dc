import Foundation
import HTTPServer
import Synchronization

/// Server-Sent Events framing: `event: NAME` and one `data:` line of compact JSON.
enum SSE {
    static func frame(_ event: String, _ data: [String: Any]) -> [UInt8] {
        Array("event: \(event)\ndata: ".utf8) + JSON.encode(data) + Array("\n\n".utf8)
    }

    static let headers: [(String, String)] = [
        ("Content-Type", "text/event-stream"), ("Cache-Control", "no-store"), ("X-Accel-Buffering", "no"),
    ]
}

/// The subscribers of one event source (a read, or the whole terminal), bounded in number.
final class Subscribers: Sendable {
    private let streams = Mutex<[ObjectIdentifier: HTTPStream]>([:])
    let limit: Int

    init(limit: Int) { self.limit = limit }

    /// Adds a stream; false when the limit is reached.
    func add(_ s: HTTPStream) -> Bool {
        let ok = streams.withLock { m -> Bool in
            guard m.count < limit else { return false }
            m[ObjectIdentifier(s)] = s
            return true
        }
        if ok { s.onClose { [weak self] in self?.remove(s) } }
        return ok
    }

    func remove(_ s: HTTPStream) { _ = streams.withLock { $0.removeValue(forKey: ObjectIdentifier(s)) } }

    /// Sends a frame to every subscriber; the frame is encoded only when there is one (a read reports some thirty
    /// progress events, mostly to nobody).
    func send(_ frame: @autoclosure () -> [UInt8]) {
        let targets = streams.withLock { Array($0.values) }
        guard !targets.isEmpty else { return }
        let bytes = frame()
        for s in targets where !s.send(bytes) { remove(s) }
    }

    func finishAll() {
        for s in streams.withLock({ m in
            let v = Array(m.values)
            m.removeAll()
            return v
        }) { s.finish() }
    }

    var count: Int { streams.withLock { $0.count } }
}
