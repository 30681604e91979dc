internal import CPCSCLite
internal import CPCSCLiteShims
import Dispatch
public import ISO7816
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A `CardTransport` over a PC/SC reader (pcsc-lite): one card connection, with its own context
/// and its own dedicated thread for the blocking calls.
///
/// - Connects with T=1 preferred and T=0 as fallback, shared or exclusive.
/// - Transmits short and extended APDUs as they are encoded (`CommandAPDU.bytes`). On T=0 it
///   performs the ISO/IEC 7816-3 §12.2 / 7816-4 §5.3.4 transport rules: '61xx' → GET RESPONSE
///   with Le = xx (repeated, data concatenated), '6Cxx' → the same command re-issued with Le = xx.
/// - Every pcsc-lite failure becomes a `TransportError` naming the call (see `PCSCReturnCode`).
/// - `reconnect(reset:timeout:)` waits (bounded) for the card to be presented again, then
///   `SCardReconnect`s (or connects afresh when the old handle cannot be revived).
/// - Task cancellation: waits end through `SCardCancel`; an APDU already sent completes (a
///   transmit cannot be aborted half-way), a cancelled task's next transmit fails with `.cancelled`.
public final class PCSCCardTransport: CardTransport {
    public let name: String
    public let shareMode: PCSCShareMode

    private let box: ContextBox
    /// Touched only on `box.thread`.
    private let link: Link

    private struct Snapshot {
        var atr: [UInt8]
        var proto: PCSCProtocol
        var report: ReaderCapabilityReport
        var statistics = TransportStatistics()
    }
    private let snapshot: Mutex<Snapshot>

    /// The card handle and receive buffer; only the context's thread touches them.
    private final class Link: @unchecked Sendable {
        var handle: SCARDHANDLE
        var proto: PCSCProtocol
        var connected = true
        var buffer = [UInt8](repeating: 0, count: Int(emrtd_pcsc_max_buffer_size_extended()))
        init(handle: SCARDHANDLE, proto: PCSCProtocol) {
            self.handle = handle
            self.proto = proto
        }
    }

    private init(
        name: String, share: PCSCShareMode, box: ContextBox, link: Link, atr: [UInt8], report: ReaderCapabilityReport
    ) {
        self.name = name
        self.shareMode = share
        self.box = box
        self.link = link
        self.snapshot = Mutex(Snapshot(atr: atr, proto: link.proto, report: report))
    }

    deinit {
        let link = self.link
        box.thread.submit {
            if link.connected { _ = SCardDisconnect(link.handle, PCSCConst.leaveCard) }
            link.connected = false
        }
    }

    /// Connects to the card on `reader` (exact PC/SC name). Fails with `.noReader` when the reader
    /// does not exist, `.noCard` when no card is on it, `.sharingViolation` when another
    /// application holds it exclusively. Reads the reader's capabilities on the way.
    public static func connect(
        reader: String, share: PCSCShareMode = .shared,
        profiles: ReaderProfiles = .builtIn
    ) async throws -> PCSCCardTransport {
        let box = try await ContextBox.establish(threadName: "pcsc-card")
        let (link, atr, props) = try await box.run { ctx, _ in
            let (handle, proto) = try connectSync(ctx, reader: reader, share: share)
            let link = Link(handle: handle, proto: proto)
            do {
                let atr = try statusATRSync(handle)
                return (link, atr, readReaderPropertiesSync(handle))
            } catch {
                _ = SCardDisconnect(handle, PCSCConst.leaveCard)
                link.connected = false
                throw error
            }
        }
        let report = ReaderCapabilityReport(
            readerName: reader, properties: props, profile: profiles.profile(forReader: reader))
        return PCSCCardTransport(name: reader, share: share, box: box, link: link, atr: atr, report: report)
    }

    /// Waits (at most `timeout` seconds) for a card and connects to it: what `emrtd read` does.
    /// `readerQuery`: an exact reader name or a case-insensitive part of one that matches exactly
    /// one reader (`PCSCContext.selectReader`); nil: the first reader a card is presented on
    /// (readers plugged in meanwhile count). Throws `.noReader` when the query matches no reader
    /// or several, `.timeout` when no card came.
    ///
    /// Presence races do not end the wait: a card that leaves between "present" and the connection, or
    /// flickers in and out (a passport laid on a reader), is waited for again; when pcscd stops or
    /// restarts meanwhile (`SCARD_E_NO_SERVICE`, `SCARD_E_SERVICE_STOPPED`), a new context is established
    /// once it answers again. All within `timeout`. Only a pcscd that is not there at the start fails at once.
    public static func connectWhenPresented(
        readerQuery: String?, timeout: Double, share: PCSCShareMode = .shared,
        profiles: ReaderProfiles = .builtIn
    ) async throws -> PCSCCardTransport {
        let deadline = PresenceDeadline(timeout)
        var context = try await PCSCContext.establish()
        var reader: String? = nil
        var serviceLost = false
        var failuresWithCardPresent = 0
        while true {
            do {
                if reader == nil, let readerQuery, !readerQuery.isEmpty {
                    reader = try PCSCContext.selectReader(readerQuery, from: try await context.readerStates())
                }
                let state = try await context.waitForCard(reader: reader, timeout: deadline.secondsLeft)
                do {
                    return try await connect(reader: state.reader, share: share, profiles: profiles)
                } catch let e as TransportError where !isServiceLost(e) && e.kind != .cancelled && !isCardAbsence(e) {
                    // A card that leaves while SCardConnect powers it fails in many ways (pcsc-lite with vpcd:
                    // SCARD_E_PROTO_MISMATCH, the ATR being gone); it was a flicker when the reader saw the card go.
                    if try await context.cardLeft(since: state) {
                        throw TransportError(
                            .cardRemoved, function: e.function,
                            "the card left the reader while connecting (\(e.message))", code: e.code)
                    }
                    // pcscd may not have noticed a card that left and came back within its polling interval:
                    // try again a few times, then report the failure (a card that never connects is not waited for)
                    failuresWithCardPresent += 1
                    guard failuresWithCardPresent <= PresenceDeadline.connectRetriesWithCardPresent else { throw e }
                    try await deadline.pause(after: e, milliseconds: 300)
                    continue
                }
            } catch let e as TransportError where isCardAbsence(e) {
                // The card went between "present" and the connection: wait for it again.
                try await deadline.pause(after: e, milliseconds: 100)
            } catch let e as TransportError where isServiceLost(e) || (serviceLost && e.kind == .noReader) {
                // pcscd went away (or is back without its readers yet): a new context once it answers.
                serviceLost = true
                try await deadline.pause(after: e, milliseconds: 200)
                if let fresh = try? await PCSCContext.establish() { context = fresh }
            }
        }
    }

    /// The protocol of the current connection.
    public var activeProtocol: PCSCProtocol { snapshot.withLock { $0.proto } }

    /// The capabilities and how they were learnt.
    public var capabilityReport: ReaderCapabilityReport { snapshot.withLock { $0.report } }

    public var capabilities: TransportCapabilities { snapshot.withLock { $0.report.capabilities } }

    public var atr: [UInt8] { snapshot.withLock { $0.atr } }

    public var statistics: TransportStatistics { snapshot.withLock { $0.statistics } }

    public func resetStatistics() { snapshot.withLock { $0.statistics = TransportStatistics() } }

    public func transmit(_ command: CommandAPDU) async throws -> ResponseAPDU {
        if Task.isCancelled { throw TransportError(.cancelled, function: "SCardTransmit", "the read was cancelled") }
        let link = self.link
        let start = DispatchTime.now().uptimeNanoseconds
        let reader = name
        let (response, sent, received): (ResponseAPDU, Int, Int) = try await box.run { ctx, cancel in
            do {
                return try Self.exchange(link, command)
            } catch let error as TransportError where error.kind == .protocolError || error.kind == .other {
                // A failed exchange is often the card leaving the field; say so when it did.
                throw Self.removalDiagnosis(ctx, reader: reader, cancel: cancel) ?? error
            } catch let error as TransportError where isServiceLost(error) {
                // pcscd stopped or restarted: the card session is gone with it (the card is powered anew);
                // `reconnect` establishes a new context and connects afresh.
                throw Self.serviceStopped(error)
            }
        }
        let ns = DispatchTime.now().uptimeNanoseconds &- start
        snapshot.withLock { s in
            s.statistics.apdus += 1
            s.statistics.bytesSent += sent
            s.statistics.bytesReceived += received
            s.statistics.apdusByInstruction[command.ins, default: 0] += 1
            s.statistics.nanoseconds += ns
        }
        return response
    }

    /// One raw `SCardTransmit`.
    private static func rawTransmit(_ link: Link, _ bytes: [UInt8]) throws(TransportError) -> [UInt8] {
        guard link.connected else {
            throw TransportError(.cardRemoved, function: "SCardTransmit", "not connected to a card (reconnect first)")
        }
        let pci = link.proto == .t1 ? emrtd_pcsc_pci_t1() : emrtd_pcsc_pci_t0()
        var received = DWORD(link.buffer.count)
        let handle = link.handle
        let rc = PCSCReturnCode(
            returned: bytes.withUnsafeBufferPointer { c in
                link.buffer.withUnsafeMutableBufferPointer { r in
                    SCardTransmit(handle, pci, c.baseAddress, DWORD(c.count), nil, r.baseAddress, &received)
                }
            })
        try rc.check("SCardTransmit")
        return Array(link.buffer.prefix(Int(received)))
    }

    /// After a failed exchange: whether the card has left the reader (pcscd notices within its
    /// polling interval, so look for up to a second). Returns the `.cardRemoved` error if so.
    ///
    /// A pcscd that stops in the middle of an exchange does not always say so in SCardTransmit's answer
    /// (pcsc-lite 1.9 with vpcd answers SCARD_W_SECURITY_VIOLATION while it shuts down): when the reader's state
    /// cannot be asked because the service is gone, the card session is lost with it (`serviceStopped`).
    private static func removalDiagnosis(_ ctx: SCARDCONTEXT, reader: String, cancel: CancelFlag) -> TransportError? {
        for attempt in 0..<10 {
            if attempt > 0 { usleep(100_000) }
            let raw: [RawReaderState]?
            do {
                raw = try getStatusChangeSync(
                    ctx, readers: [reader], current: [0], timeoutMilliseconds: 0, cancel: cancel)
            } catch  where isServiceLost(error) {
                return serviceStopped(error)
            } catch {
                return nil
            }
            guard let state = raw?.first.map({ PCSCReaderState(reader: reader, raw: $0) }) else { return nil }
            if !state.flags.contains(.present) {
                return TransportError(
                    .cardRemoved, function: "SCardTransmit",
                    "the card was removed from the reader during the exchange")
            }
        }
        return nil
    }

    /// pcscd stopped or restarted under a connection: the card session is lost and needs a reconnect.
    private static func serviceStopped(_ error: TransportError) -> TransportError {
        TransportError(
            .cardReset, function: error.function,
            "the PC/SC service (pcscd) stopped; the card session is lost and needs a reconnect (\(error.message))",
            code: error.code)
    }

    /// A command and its response, with the T=0 GET RESPONSE / re-issue rules applied.
    /// Returns the response and the bytes sent/received on the link.
    private static func exchange(_ link: Link, _ command: CommandAPDU) throws(TransportError) -> (
        ResponseAPDU, Int, Int
    ) {
        var sent = 0
        var received = 0
        func once(_ c: CommandAPDU) throws(TransportError) -> ResponseAPDU {
            let bytes = c.bytes
            let r = try rawTransmit(link, bytes)
            sent += bytes.count
            received += r.count
            guard let response = try? ResponseAPDU(bytes: r) else {
                throw TransportError(
                    .protocolError, function: "SCardTransmit",
                    "the card answered \(r.count) byte(s), without a status word")
            }
            return response
        }
        var response = try once(command)
        guard link.proto == .t0 else { return (response, sent, received) }
        // 6Cxx: wrong Le; re-issue with the exact length (once).
        if response.statusWord.isWrongLe {
            var again = command
            let sw2 = Int(response.statusWord.sw2)
            again.ne = sw2 == 0 ? 256 : sw2
            response = try once(again)
        }
        // 61xx: more data; GET RESPONSE until done (bounded as `ResponseChaining`: small parts are followed, a
        // trickle is not)
        var data = response.data
        var rounds = 0
        while response.statusWord.isMoreDataAvailable {
            rounds += 1
            guard ResponseChaining.mayContinue(part: rounds, bytes: data.count) else {
                throw TransportError(
                    .protocolError, function: "SCardTransmit", "the card kept answering 61xx to GET RESPONSE")
            }
            let sw2 = Int(response.statusWord.sw2)
            var getResponse = CommandAPDU.getResponse(ne: sw2 == 0 ? 256 : sw2)
            getResponse.cla = command.cla & 0x03  // keep the logical channel
            response = try once(getResponse)
            data += response.data
        }
        return (ResponseAPDU(data: data, statusWord: response.statusWord), sent, received)
    }

    /// Waits at most `timeout` seconds for a card on this reader, then reconnects to it
    /// (`SCardReconnect`, or a fresh `SCardConnect` when the handle cannot be revived).
    /// `reset`: cold/warm reset the card (drops any secure-messaging session).
    /// Throws `.timeout` when no card came, `.cancelled` when the task was cancelled.
    ///
    /// As `connectWhenPresented`: a card that flickers keeps the wait going, and a pcscd restart
    /// (`SCARD_E_NO_SERVICE`, `SCARD_E_SERVICE_STOPPED`, `SCARD_E_INVALID_HANDLE`) gives this connection a
    /// new context and a fresh `SCardConnect`, within `timeout`.
    public func reconnect(reset: Bool, timeout: Double) async throws {
        let link = self.link
        let reader = name
        let share = shareMode
        let box = self.box
        let deadline = PresenceDeadline(timeout)
        /// SCardReconnect on the handle we have, else a fresh SCardConnect (on the context's thread).
        @Sendable func connectOrRevive(_ ctx: SCARDCONTEXT) throws(TransportError) -> ([UInt8], PCSCProtocol) {
            if link.connected {
                if let proto = try? reconnectSync(link.handle, share: share, reset: reset),
                    let atr = try? statusATRSync(link.handle)
                {
                    link.proto = proto
                    return (atr, proto)
                }
                _ = SCardDisconnect(link.handle, PCSCConst.leaveCard)
                link.connected = false
            }
            let (handle, proto) = try connectSync(ctx, reader: reader, share: share)
            link.handle = handle
            link.proto = proto
            link.connected = true
            if reset { _ = try? reconnectSync(handle, share: share, reset: true) }
            return (try statusATRSync(handle), link.proto)
        }
        let (atr, proto): ([UInt8], PCSCProtocol) = try await box.run { ctx0, cancel in
            var ctx = ctx0
            var serviceLost = false
            var failuresWithCardPresent = 0
            while true {
                do {
                    let seen = try waitForCardSync(ctx, reader: reader, timeout: deadline.secondsLeft, cancel: cancel)
                    do {
                        return try connectOrRevive(ctx)
                    } catch let e as TransportError where !isServiceLost(e) && e.kind != .cancelled && !isCardAbsence(e)
                    {
                        // as in connectWhenPresented: a failure while the card flickered out is its absence
                        if cardLeftSync(ctx, reader: reader, since: seen, cancel: cancel) {
                            throw TransportError(
                                .cardRemoved, function: e.function,
                                "the card left the reader while connecting (\(e.message))", code: e.code)
                        }
                        failuresWithCardPresent += 1
                        guard failuresWithCardPresent <= PresenceDeadline.connectRetriesWithCardPresent else { throw e }
                        try deadline.pauseSync(after: e, milliseconds: 300)
                        continue
                    }
                } catch let e as TransportError where isCardAbsence(e) {
                    if cancel.isSet { throw PCSCReturnCode.cancelled.error(function: "SCardConnect") }
                    try deadline.pauseSync(after: e, milliseconds: 100)
                } catch let e as TransportError where isServiceLost(e) || (serviceLost && e.kind == .noReader) {
                    // The old pcscd took our handle with it; connect afresh on a new context.
                    serviceLost = true
                    link.connected = false
                    if cancel.isSet { throw PCSCReturnCode.cancelled.error(function: "SCardConnect") }
                    try deadline.pauseSync(after: e, milliseconds: 200)
                    if let fresh = try? box.renewSync() { ctx = fresh }
                }
            }
        }
        snapshot.withLock {
            $0.atr = atr
            $0.proto = proto
        }
    }

    /// `SCardBeginTransaction`: until `endTransaction`, other connections' exchanges with this
    /// card wait (pcsc-lite holds them; a test checks it), so a shared-mode read with a
    /// secure-messaging session is not interleaved with someone else's APDUs. Blocks while another
    /// connection holds a transaction. Note: our own transmit likewise waits, uninterruptibly,
    /// while another application holds one; use short transactions.
    public func beginTransaction() async throws {
        let link = self.link
        try await box.run { _, _ in
            guard link.connected else {
                throw TransportError(
                    .cardRemoved, function: "SCardBeginTransaction", "not connected to a card (reconnect first)")
            }
            try PCSCReturnCode(returned: SCardBeginTransaction(link.handle)).check("SCardBeginTransaction")
        }
    }

    /// `SCardEndTransaction`, leaving the card as it is (or resetting it).
    public func endTransaction(resetCard: Bool = false) async throws {
        let link = self.link
        try await box.run { _, _ in
            guard link.connected else { return }
            try PCSCReturnCode(
                returned: SCardEndTransaction(link.handle, resetCard ? PCSCConst.resetCard : PCSCConst.leaveCard)
            )
            .check("SCardEndTransaction")
        }
    }

    /// Ends the connection (`SCardDisconnect`), leaving the card as it is or resetting / powering it down.
    public func disconnect(resetCard: Bool = false) async throws {
        let link = self.link
        try await box.run { _, _ in
            guard link.connected else { return }
            link.connected = false
            try PCSCReturnCode(
                returned: SCardDisconnect(link.handle, resetCard ? PCSCConst.resetCard : PCSCConst.leaveCard)
            )
            .check("SCardDisconnect")
        }
    }
}

/// The time left of a presence wait (`connectWhenPresented`, `reconnect`).
struct PresenceDeadline: Sendable {
    /// How many times a connection that fails while the card seems present is tried again (300 ms apart):
    /// a card that left and came back within pcscd's polling interval is not seen leaving.
    static let connectRetriesWithCardPresent = 3

    let timeout: Double
    let end: ContinuousClock.Instant

    init(_ timeout: Double) {
        self.timeout = max(0, timeout)
        end = ContinuousClock.now + .milliseconds(Int64(self.timeout * 1000))
    }

    var secondsLeft: Double {
        let left = end - ContinuousClock.now
        return left <= .zero ? 0 : Double(left.components.seconds) + Double(left.components.attoseconds) / 1e18
    }

    /// The error that ends the wait once no time is left: a timeout naming what kept it from succeeding.
    func expired(after error: TransportError) -> TransportError {
        TransportError(
            .timeout, function: error.function,
            "no card could be connected within \(formatSeconds(timeout)) s (last: \(error.message))", code: error.code)
    }

    /// Sleeps `milliseconds` (not past the deadline) before the next attempt, or throws `expired` when no time is left.
    func pause(after error: TransportError, milliseconds: Int) async throws {
        let left = secondsLeft
        guard left > 0 else { throw expired(after: error) }
        try? await Task.sleep(for: .milliseconds(min(milliseconds, Int(left * 1000) + 1)))
        if Task.isCancelled { throw PCSCReturnCode.cancelled.error(function: error.function) }
    }

    /// `pause` on a PC/SC thread.
    func pauseSync(after error: TransportError, milliseconds: Int) throws(TransportError) {
        let left = secondsLeft
        guard left > 0 else { throw expired(after: error) }
        usleep(UInt32(min(milliseconds, Int(left * 1000) + 1)) * 1000)
    }
}
