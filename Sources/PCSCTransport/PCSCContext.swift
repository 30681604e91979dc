internal import CPCSCLite
public import ISO7816

#if canImport(Glibc)
    import Glibc
#endif

/// A reader and what SCardGetStatusChange says about it.
public struct PCSCReaderState: Hashable, Sendable {
    /// Reader state flags (`SCARD_STATE_*` of pcsclite.h).
    public struct Flags: OptionSet, Hashable, Sendable {
        public let rawValue: UInt32
        public init(rawValue: UInt32) { self.rawValue = rawValue }
        public static let ignore = Flags(rawValue: 0x0001)
        public static let changed = Flags(rawValue: 0x0002)
        public static let unknown = Flags(rawValue: 0x0004)
        public static let unavailable = Flags(rawValue: 0x0008)
        public static let empty = Flags(rawValue: 0x0010)
        public static let present = Flags(rawValue: 0x0020)
        public static let atrMatch = Flags(rawValue: 0x0040)
        public static let exclusive = Flags(rawValue: 0x0080)
        public static let inUse = Flags(rawValue: 0x0100)
        public static let mute = Flags(rawValue: 0x0200)
        public static let unpowered = Flags(rawValue: 0x0400)
    }

    public var reader: String
    public var flags: Flags
    /// pcsc-lite's card event counter (high 16 bits of dwEventState): it changes on every insertion
    /// and removal, so a quick remove + re-insert between two looks is still seen.
    public var eventCounter: UInt16
    public var atr: [UInt8]

    public init(reader: String, flags: Flags, eventCounter: UInt16 = 0, atr: [UInt8] = []) {
        self.reader = reader
        self.flags = flags
        self.eventCounter = eventCounter
        self.atr = atr
    }

    init(reader: String, raw: RawReaderState) {
        self.init(
            reader: reader, flags: Flags(rawValue: UInt32(raw.eventState & 0xFFFF)),
            eventCounter: UInt16(truncatingIfNeeded: raw.eventState >> 16), atr: raw.atr)
    }

    public var isCardPresent: Bool { flags.contains(.present) && !flags.contains(.mute) }
    public var isCardMute: Bool { flags.contains(.present) && flags.contains(.mute) }
    /// The dwEventState value to hand back as dwCurrentState.
    var dwordValue: UInt64 { UInt64(eventCounter) << 16 | UInt64(flags.subtracting(.changed).rawValue) }
}

/// A PC/SC resource-manager context (`SCardEstablishContext`) with its own dedicated thread.
/// Released (`SCardReleaseContext`) when the last reference goes.
///
/// Calls on one context run one after another; a long `waitForCard` blocks other calls on the
/// same context, so card connections (`PCSCCardTransport`) and event streams open their own.
public final class PCSCContext: Sendable {
    let box: ContextBox

    private init(box: ContextBox) { self.box = box }

    /// Establishes a context (`SCARD_SCOPE_SYSTEM`). Fails with `.readerUnavailable`
    /// (SCARD_E_NO_SERVICE) when pcscd is not running or polkit refuses access.
    public static func establish() async throws -> PCSCContext {
        PCSCContext(box: try await ContextBox.establish(threadName: "pcsc-context"))
    }

    /// The names of the connected readers (`SCardListReaders`); empty when none.
    public func readerNames() async throws -> [String] {
        try await box.run { ctx, _ in try listReadersSync(ctx) }
    }

    /// The current state of each reader (or of the given ones), without waiting.
    public func readerStates(_ readers: [String]? = nil) async throws -> [PCSCReaderState] {
        try await box.run { ctx, cancel in
            let names = try readers ?? listReadersSync(ctx)
            if names.isEmpty { return [] }
            guard
                let raw = try getStatusChangeSync(
                    ctx, readers: names, current: names.map { _ in 0 },
                    timeoutMilliseconds: 0, cancel: cancel)
            else {
                throw PCSCReturnCode.timeout.error(function: "SCardGetStatusChange")
            }
            return zip(names, raw).map { PCSCReaderState(reader: $0, raw: $1) }
        }
    }

    /// Waits until a card is present on `reader` (or on any reader when nil; readers plugged in
    /// meanwhile count), at most `timeout` seconds. Throws `.timeout` when none came, `.noReader`
    /// when `reader` does not exist, `.cancelled` when the task is cancelled (via `SCardCancel`).
    public func waitForCard(reader: String? = nil, timeout: Double) async throws -> PCSCReaderState {
        try await box.run { ctx, cancel in
            try waitForCardSync(ctx, reader: reader, timeout: timeout, cancel: cancel)
        }
    }

    /// The capabilities of `reader` as the driver and the profiles describe them, read over a
    /// direct connection (no card needed). Drivers that refuse direct connections give only the
    /// profile's view.
    public func capabilityReport(reader: String, profiles: ReaderProfiles = .builtIn) async throws
        -> ReaderCapabilityReport
    {
        let props: ReaderProperties = try await box.run { ctx, _ in
            guard try listReadersSync(ctx).contains(reader) else {
                throw PCSCReturnCode.unknownReader.error(function: "SCardConnect")
            }
            guard let handle = try? connectDirectSync(ctx, reader: reader) else { return ReaderProperties() }
            defer { _ = SCardDisconnect(handle, PCSCConst.leaveCard) }
            return readReaderPropertiesSync(handle)
        }
        return ReaderCapabilityReport(
            readerName: reader, properties: props, profile: profiles.profile(forReader: reader))
    }

    /// Connects to the card on `reader` (see `PCSCCardTransport.connect`); the connection has its
    /// own context and thread.
    public func connect(
        reader: String, share: PCSCShareMode = .shared,
        profiles: ReaderProfiles = .builtIn
    ) async throws -> PCSCCardTransport {
        try await PCSCCardTransport.connect(reader: reader, share: share, profiles: profiles)
    }

    /// Picks a reader by name: the exact name, else the only reader whose name contains `query`
    /// (case-insensitive); with no query, the only reader or the first with a card.
    public static func selectReader(_ query: String?, from states: [PCSCReaderState]) throws(TransportError) -> String {
        let names = states.map(\.reader)
        guard !names.isEmpty else { throw PCSCReturnCode.noReadersAvailable.error(function: "SCardListReaders") }
        guard let query, !query.isEmpty else {
            if names.count == 1 { return names[0] }
            if let withCard = states.first(where: \.isCardPresent) { return withCard.reader }
            return names[0]
        }
        if names.contains(query) { return query }
        let hits = names.filter { $0.lowercased().contains(query.lowercased()) }
        if hits.count == 1 { return hits[0] }
        if hits.isEmpty {
            throw TransportError(
                .noReader, function: "selectReader",
                "no reader matches \"\(query)\" (readers: \(names.joined(separator: ", ")))")
        }
        throw TransportError(
            .noReader, function: "selectReader", "\"\(query)\" matches several readers: \(hits.joined(separator: ", "))"
        )
    }
}

extension PCSCContext {
    /// Whether the card `seen` present has left `seen.reader` since (absent now, or its event counter moved).
    func cardLeft(since seen: PCSCReaderState) async throws -> Bool {
        try await box.run { ctx, cancel in cardLeftSync(ctx, reader: seen.reader, since: seen, cancel: cancel) }
    }
}

/// Whether the card `seen` present on `reader` has left since: absent, mute, or the reader's event counter
/// moved (removed and put back). pcscd notices a removal within its polling interval, so this looks for up to
/// a second before answering no.
func cardLeftSync(_ ctx: SCARDCONTEXT, reader: String, since seen: PCSCReaderState, cancel: CancelFlag) -> Bool {
    for attempt in 0..<10 {
        if attempt > 0 { usleep(100_000) }
        if cancel.isSet { return false }
        guard
            let raw = try? getStatusChangeSync(
                ctx, readers: [reader], current: [0], timeoutMilliseconds: 0, cancel: cancel),
            let now = raw.first.map({ PCSCReaderState(reader: reader, raw: $0) })
        else { return false }
        if !now.isCardPresent || now.eventCounter != seen.eventCounter { return true }
    }
    return false
}

/// The wait loop of `waitForCard`, also used by `PCSCCardTransport.reconnect`.
func waitForCardSync(_ ctx: SCARDCONTEXT, reader: String?, timeout: Double, cancel: CancelFlag) throws(TransportError)
    -> PCSCReaderState
{
    let start = ContinuousClock.now
    let limit = Duration.milliseconds(Int64(max(0, timeout) * 1000))
    var known: [String: UInt64] = [:]
    while true {
        var names = try listReadersSync(ctx)
        if let reader {
            guard names.contains(reader) else {
                throw PCSCReturnCode.unknownReader.error(function: "SCardGetStatusChange")
            }
            names = [reader]
        }
        let watched = names + [pnpNotificationReader]
        let current = names.map { known[$0] ?? 0 } + [known[pnpNotificationReader] ?? 0]
        let elapsed = ContinuousClock.now - start
        let left = elapsed >= limit ? 0 : Int((limit - elapsed) / .milliseconds(1))
        // The first pass (all unaware) returns at once with the current states.
        guard
            let raw = try getStatusChangeSync(
                ctx, readers: watched, current: current,
                timeoutMilliseconds: left, cancel: cancel)
        else {
            throw TransportError(
                .timeout, function: "SCardGetStatusChange",
                "no card was presented within \(formatSeconds(timeout)) s")
        }
        for (name, r) in zip(watched, raw) {
            let state = PCSCReaderState(reader: name, raw: r)
            if name != pnpNotificationReader && state.isCardPresent { return state }
            known[name] = state.dwordValue
        }
        if ContinuousClock.now - start >= limit {
            throw TransportError(
                .timeout, function: "SCardGetStatusChange",
                "no card was presented within \(formatSeconds(timeout)) s")
        }
    }
}

/// Seconds for a message: whole seconds, or tenths below 10 s (a deadline's remainder is 1.9988…, not a figure
/// anyone needs to read).
func formatSeconds(_ s: Double) -> String {
    let tenths = (s * 10).rounded() / 10
    return tenths == tenths.rounded() || s >= 10 ? String(Int(s.rounded())) : String(tenths)
}
