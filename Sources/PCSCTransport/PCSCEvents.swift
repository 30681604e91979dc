internal import CPCSCLite
import ISO7816
import Synchronization

/// A reader or card event seen by `SCardGetStatusChange`.
public enum PCSCEvent: Hashable, Sendable, CustomStringConvertible {
    /// A reader appeared (hot-plugged, or present when the stream started).
    case readerAdded(reader: String)
    /// A reader disappeared.
    case readerRemoved(reader: String)
    /// A card was put on the reader (or lay there when the stream started).
    case cardInserted(reader: String, atr: [UInt8])
    /// The card left the reader.
    case cardRemoved(reader: String)
    /// A card is there but does not answer to reset.
    case cardMute(reader: String)

    public var reader: String {
        switch self {
        case .readerAdded(let r), .readerRemoved(let r), .cardInserted(let r, _), .cardRemoved(let r), .cardMute(let r):
            return r
        }
    }

    public var description: String {
        switch self {
        case .readerAdded(let r): return "reader added: \(r)"
        case .readerRemoved(let r): return "reader removed: \(r)"
        case .cardInserted(let r, let atr):
            return
                "card inserted: \(r) ATR \(atr.map { String($0, radix: 16, uppercase: true).leftPadded(to: 2) }.joined())"
        case .cardRemoved(let r): return "card removed: \(r)"
        case .cardMute(let r): return "card mute (no answer to reset): \(r)"
        }
    }

    /// The events that lead from `old` to `new` reader states (keyed by reader name), in a
    /// stable order: removals first, then additions and insertions, readers sorted by name.
    /// A changed event counter with a card present before and after is a remove + insert.
    public static func diff(from old: [String: PCSCReaderState], to new: [String: PCSCReaderState]) -> [PCSCEvent] {
        var out: [PCSCEvent] = []
        for name in old.keys.sorted() where new[name] == nil {
            if old[name]!.flags.contains(.present) { out.append(.cardRemoved(reader: name)) }
            out.append(.readerRemoved(reader: name))
        }
        for name in new.keys.sorted() {
            let n = new[name]!
            guard let o = old[name] else {
                out.append(.readerAdded(reader: name))
                if n.isCardPresent { out.append(.cardInserted(reader: name, atr: n.atr)) }
                if n.isCardMute { out.append(.cardMute(reader: name)) }
                continue
            }
            let was = o.flags.contains(.present)
            let now = n.flags.contains(.present)
            if was && now && counterJump(o, n) {
                out.append(.cardRemoved(reader: name))
                if n.isCardPresent { out.append(.cardInserted(reader: name, atr: n.atr)) }
                if n.isCardMute { out.append(.cardMute(reader: name)) }
            } else if was && !now {
                out.append(.cardRemoved(reader: name))
            } else if !was && now {
                if n.isCardPresent { out.append(.cardInserted(reader: name, atr: n.atr)) }
                if n.isCardMute { out.append(.cardMute(reader: name)) }
            } else if was && now && !o.isCardPresent && n.isCardPresent {
                out.append(.cardInserted(reader: name, atr: n.atr))
            }
        }
        return out
    }

    /// pcsc-lite bumps the counter on each insertion and removal; a step of 2 or more with the card
    /// present at both looks means it was removed and put back (power-state changes do not count).
    private static func counterJump(_ o: PCSCReaderState, _ n: PCSCReaderState) -> Bool {
        n.eventCounter &- o.eventCounter >= 2
    }
}

extension PCSCContext {
    /// Reader and card events, as they happen, until the consumer stops iterating (which cancels
    /// the wait with `SCardCancel`). Watches the `\\?PnP?\Notification` pseudo reader, so readers
    /// plugged in later are watched too. With `includeInitialState`, the stream starts with
    /// `.readerAdded` (and `.cardInserted`) for what is already there.
    ///
    /// `reader`: only events of readers whose name equals it or contains it (case-insensitive).
    /// The stream runs its own context on its own thread. It ends with an error when pcscd goes away.
    public static func events(reader: String? = nil, includeInitialState: Bool = true) -> AsyncThrowingStream<
        PCSCEvent, any Error
    > {
        AsyncThrowingStream { continuation in
            let monitor = EventMonitor(
                filter: reader, includeInitialState: includeInitialState, continuation: continuation)
            continuation.onTermination = { _ in monitor.stop() }
            monitor.start()
        }
    }
}

/// Runs the `SCardGetStatusChange` loop of an event stream on its own thread and context.
final class EventMonitor: Sendable {
    private let filter: String?
    private let includeInitialState: Bool
    private let continuation: AsyncThrowingStream<PCSCEvent, any Error>.Continuation
    private let thread = PCSCThread(name: "pcsc-events")
    private let cancel = CancelFlag()
    /// The context while the loop runs (0 before and after), for `SCardCancel`.
    private let context = Mutex<SCARDCONTEXT>(0)

    init(
        filter: String?, includeInitialState: Bool, continuation: AsyncThrowingStream<PCSCEvent, any Error>.Continuation
    ) {
        self.filter = filter
        self.includeInitialState = includeInitialState
        self.continuation = continuation
    }

    func start() {
        thread.submit { [self] in
            do {
                try loop()
                continuation.finish()
            } catch let error as TransportError where error.kind == .cancelled && cancel.isSet {
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        thread.stop()
    }

    func stop() {
        cancel.set()
        context.withLock { ctx in if ctx != 0 { _ = SCardCancel(ctx) } }
    }

    private func wanted(_ name: String) -> Bool {
        guard let filter, !filter.isEmpty else { return true }
        return name == filter || name.lowercased().contains(filter.lowercased())
    }

    private func loop() throws {
        let ctx = try establishContextSync()
        context.withLock { $0 = ctx }
        defer {
            context.withLock { $0 = 0 }
            _ = SCardReleaseContext(ctx)
        }
        var states: [String: PCSCReaderState] = [:]
        var pnpState: UInt64 = 0
        var first = true
        while !cancel.isSet {
            let names = try listReadersSync(ctx).filter(wanted)
            let watched = names + [pnpNotificationReader]
            let current = names.map { states[$0]?.dwordValue ?? 0 } + [pnpState]
            // Readers that vanished before we could look: diff them out now.
            var next = states.filter { names.contains($0.key) }
            if let raw = try getStatusChangeSync(
                ctx, readers: watched, current: current,
                timeoutMilliseconds: nil, cancel: cancel)
            {
                for (name, r) in zip(watched, raw) {
                    if name == pnpNotificationReader {
                        pnpState = r.eventState & ~UInt64(PCSCConst.stateChanged)
                        continue
                    }
                    let s = PCSCReaderState(reader: name, raw: r)
                    if s.flags.contains(.unknown) { next[name] = nil } else { next[name] = s }
                }
            }
            var events = PCSCEvent.diff(from: states, to: next)
            if first && !includeInitialState {
                events = []
            }
            first = false
            states = next
            for e in events { continuation.yield(e) }
        }
    }
}
