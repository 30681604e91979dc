internal import CPCSCLite
internal import CPCSCLiteShims
import Foundation
import ISO7816
import Synchronization

// Blocking pcsc-lite calls, each checked through `PCSCReturnCode` so a failure becomes a
// `TransportError` naming the call. These run only on a `PCSCThread` (never on the cooperative pool).

/// pcsc-lite constants (pcsclite.h), as the `DWORD` (C `unsigned long`) the calls take.
enum PCSCConst {
    static let scopeSystem: DWORD = 2
    static let protocolT0: DWORD = 0x0001
    static let protocolT1: DWORD = 0x0002
    static let leaveCard: DWORD = 0
    static let resetCard: DWORD = 1
    static let unpowerCard: DWORD = 2
    static let infinite: DWORD = 0xFFFF_FFFF
    static let stateUnaware: DWORD = 0
    static let stateChanged: DWORD = 0x0002
}

/// The longest single `SCardGetStatusChange` wait. Longer waits are cut into slices of this length,
/// so a cancellation that arrives before the blocking call starts (and so misses `SCardCancel`)
/// is still noticed within one slice.
let statusChangeSliceMilliseconds: Int = 2000

/// An established `SCARDCONTEXT` and the thread its calls run on. Released in `deinit`.
/// The context is replaced (`renewSync`) when pcscd was restarted: a context of the old pcscd answers
/// `SCARD_E_NO_SERVICE` / `SCARD_E_SERVICE_STOPPED` / `SCARD_E_INVALID_HANDLE` to every call.
final class ContextBox: @unchecked Sendable {
    /// The current context; replaced only on `thread`, read by `SCardCancel` from anywhere.
    private let current: ContextCell
    let thread: PCSCThread

    /// The context value, shared with the cancellation handler and `deinit`'s release.
    final class ContextCell: Sendable {
        private let value: Mutex<SCARDCONTEXT>
        init(_ v: SCARDCONTEXT) { value = Mutex(v) }
        func withLock<R>(_ body: (inout SCARDCONTEXT) -> R) -> R { value.withLock { body(&$0) } }
    }

    private init(context: SCARDCONTEXT, thread: PCSCThread) {
        self.current = ContextCell(context)
        self.thread = thread
    }

    var context: SCARDCONTEXT { current.withLock { $0 } }

    /// `SCardEstablishContext(SCARD_SCOPE_SYSTEM)` on a new dedicated thread.
    static func establish(threadName: String) async throws -> ContextBox {
        let thread = PCSCThread(name: threadName)
        do {
            let ctx: SCARDCONTEXT = try await thread.run { try establishContextSync() }
            return ContextBox(context: ctx, thread: thread)
        } catch {
            thread.stop()
            throw error
        }
    }

    deinit {
        let box = current
        thread.submit { _ = SCardReleaseContext(box.withLock { $0 }) }
        thread.stop()
    }

    /// A new context in place of the current one (released); call on `thread` only. Throws when pcscd
    /// does not answer (yet): the old context stays, and the caller retries within its timeout.
    func renewSync() throws(TransportError) -> SCARDCONTEXT {
        let fresh = try establishContextSync()
        let old = current.withLock { ctx in
            let old = ctx
            ctx = fresh
            return old
        }
        _ = SCardReleaseContext(old)
        return fresh
    }

    /// Runs `body` on the context's thread; task cancellation sets the flag `body` receives and
    /// calls `SCardCancel`, which ends a blocked `SCardGetStatusChange` with `SCARD_E_CANCELLED`.
    func run<T: Sendable>(_ body: @escaping @Sendable (SCARDCONTEXT, CancelFlag) throws -> T) async throws -> T {
        let flag = CancelFlag()
        let current = self.current
        return try await withTaskCancellationHandler {
            try await thread.run {
                if flag.isSet {
                    throw TransportError(.cancelled, function: "SCardCancel", "the operation was cancelled")
                }
                return try body(current.withLock { $0 }, flag)
            }
        } onCancel: {
            flag.set()
            _ = SCardCancel(current.withLock { $0 })
        }
    }
}

/// Whether a failure means the PC/SC service went away under the context (pcscd stopped or restarted):
/// a new context may work once pcscd is back.
func isServiceLost(_ error: TransportError) -> Bool {
    let lost: Set<PCSCReturnCode> = [.noService, .serviceStopped, .invalidHandle, .commError]
    return error.code.map { lost.contains(PCSCReturnCode($0)) } ?? false
}

/// Whether a failure to connect means the card was not (or no longer) there to connect to, or went
/// while connecting: a card laid on a reader flickers in and out of the field before it settles.
func isCardAbsence(_ error: TransportError) -> Bool {
    switch error.kind {
    case .noCard, .cardRemoved, .cardReset: return true
    default:
        let absent: Set<PCSCReturnCode> = [.unresponsiveCard, .unpoweredCard]
        return error.code.map { absent.contains(PCSCReturnCode($0)) } ?? false
    }
}

func establishContextSync() throws(TransportError) -> SCARDCONTEXT {
    var ctx: SCARDCONTEXT = 0
    try PCSCReturnCode(returned: SCardEstablishContext(PCSCConst.scopeSystem, nil, nil, &ctx)).check(
        "SCardEstablishContext")
    return ctx
}

/// `SCardListReaders`: the reader names; no readers is an empty list, not an error.
func listReadersSync(_ ctx: SCARDCONTEXT) throws(TransportError) -> [String] {
    for _ in 0..<3 {
        var length: DWORD = 0
        var rc = PCSCReturnCode(returned: SCardListReaders(ctx, nil, nil, &length))
        if rc == .noReadersAvailable { return [] }
        try rc.check("SCardListReaders")
        var buffer = [CChar](repeating: 0, count: Int(length) + 1)
        rc = PCSCReturnCode(
            returned: buffer.withUnsafeMutableBufferPointer { SCardListReaders(ctx, nil, $0.baseAddress, &length) })
        if rc == .noReadersAvailable { return [] }
        if rc == .insufficientBuffer { continue }  // a reader arrived between the two calls
        try rc.check("SCardListReaders")
        return parseMultiString(buffer.prefix(Int(length)).map { UInt8(bitPattern: $0) })
    }
    throw TransportError(.other, function: "SCardListReaders", "the reader list kept changing while it was read")
}

/// Splits a PC/SC multi-string (NUL-separated, double-NUL-terminated) into its strings.
func parseMultiString(_ bytes: [UInt8]) -> [String] {
    bytes.split(separator: 0, omittingEmptySubsequences: true).map { String(decoding: $0, as: UTF8.self) }
}

/// One reader's state as `SCardGetStatusChange` reports it.
struct RawReaderState: Sendable {
    var eventState: UInt64
    var atr: [UInt8]
}

/// `SCardGetStatusChange` over `readers` with their last known states, waiting at most
/// `timeoutMilliseconds` (nil: until a change) in slices, checking `cancel` between slices.
/// Returns nil when the timeout expired without a change.
func getStatusChangeSync(
    _ ctx: SCARDCONTEXT, readers: [String], current: [UInt64],
    timeoutMilliseconds: Int?, cancel: CancelFlag
) throws(TransportError) -> [RawReaderState]? {
    precondition(readers.count == current.count)
    let names = readers.map { strdup($0) }
    defer { for name in names { free(name) } }
    var states = [SCARD_READERSTATE](repeating: SCARD_READERSTATE(), count: readers.count)
    for i in states.indices {
        states[i].szReader = UnsafePointer(names[i])
        states[i].dwCurrentState = DWORD(current[i])
    }
    let deadline = timeoutMilliseconds.map { DispatchTime.now().uptimeNanoseconds + UInt64(max(0, $0)) * 1_000_000 }
    while true {
        if cancel.isSet { throw PCSCReturnCode.cancelled.error(function: "SCardGetStatusChange") }
        var slice = statusChangeSliceMilliseconds
        if let deadline {
            let now = DispatchTime.now().uptimeNanoseconds
            let left = deadline > now ? Int((deadline - now) / 1_000_000) : 0
            slice = min(slice, left)
        }
        let count = DWORD(states.count)
        let rc = PCSCReturnCode(
            returned: states.withUnsafeMutableBufferPointer {
                SCardGetStatusChange(ctx, DWORD(slice), $0.baseAddress, count)
            })
        if rc == .timeout {
            if let deadline, DispatchTime.now().uptimeNanoseconds >= deadline { return nil }
            continue
        }
        try rc.check("SCardGetStatusChange")
        return states.map { s in
            let n = min(Int(s.cbAtr), 33)
            let atr = withUnsafeBytes(of: s.rgbAtr) { Array($0.prefix(n)) }
            return RawReaderState(eventState: UInt64(s.dwEventState), atr: atr)
        }
    }
}

/// The PnP pseudo reader name `\\?PnP?\Notification`.
let pnpNotificationReader: String = String(cString: emrtd_pcsc_pnp_notification())

/// Share modes of `SCardConnect`.
public enum PCSCShareMode: Sendable, Hashable {
    /// Other applications may use the card between our transactions (`SCARD_SHARE_SHARED`).
    case shared
    /// Nobody else may connect while we hold the card (`SCARD_SHARE_EXCLUSIVE`).
    case exclusive

    var dword: DWORD { self == .shared ? 2 : 1 }
}

/// The transmission protocol in use on a connection (ISO/IEC 7816-3 T=0 or T=1).
public enum PCSCProtocol: String, Sendable, Hashable {
    case t0 = "T=0"
    case t1 = "T=1"

    init?(dword: DWORD) {
        switch dword {
        case PCSCConst.protocolT0: self = .t0
        case PCSCConst.protocolT1: self = .t1
        default: return nil
        }
    }

    var dword: DWORD { self == .t0 ? PCSCConst.protocolT0 : PCSCConst.protocolT1 }
}

/// `SCardConnect` with T=1 preferred and T=0 as fallback (`SCARD_E_PROTO_MISMATCH` on T=1).
func connectSync(_ ctx: SCARDCONTEXT, reader: String, share: PCSCShareMode) throws(TransportError) -> (
    SCARDHANDLE, PCSCProtocol
) {
    var handle: SCARDHANDLE = 0
    var active: DWORD = 0
    var rc = PCSCReturnCode(returned: SCardConnect(ctx, reader, share.dword, PCSCConst.protocolT1, &handle, &active))
    if rc == .protocolMismatch {
        rc = PCSCReturnCode(returned: SCardConnect(ctx, reader, share.dword, PCSCConst.protocolT0, &handle, &active))
    }
    try rc.check("SCardConnect")
    guard let proto = PCSCProtocol(dword: active) else {
        _ = SCardDisconnect(handle, PCSCConst.leaveCard)
        throw TransportError(
            .protocolError, function: "SCardConnect", "the reader chose protocol \(active), neither T=0 nor T=1")
    }
    return (handle, proto)
}

/// `SCardConnect` in `SCARD_SHARE_DIRECT` mode (no card needed), to talk to the reader itself.
func connectDirectSync(_ ctx: SCARDCONTEXT, reader: String) throws(TransportError) -> SCARDHANDLE {
    var handle: SCARDHANDLE = 0
    var active: DWORD = 0
    try PCSCReturnCode(returned: SCardConnect(ctx, reader, 3, 0, &handle, &active)).check("SCardConnect(direct)")
    return handle
}

/// `SCardReconnect` with T=1 preferred and T=0 as fallback.
func reconnectSync(_ handle: SCARDHANDLE, share: PCSCShareMode, reset: Bool) throws(TransportError) -> PCSCProtocol {
    var active: DWORD = 0
    let initialization = reset ? PCSCConst.resetCard : PCSCConst.leaveCard
    var rc = PCSCReturnCode(
        returned: SCardReconnect(handle, share.dword, PCSCConst.protocolT1, initialization, &active))
    if rc == .protocolMismatch {
        rc = PCSCReturnCode(
            returned: SCardReconnect(handle, share.dword, PCSCConst.protocolT0, initialization, &active))
    }
    try rc.check("SCardReconnect")
    guard let proto = PCSCProtocol(dword: active) else {
        throw TransportError(
            .protocolError, function: "SCardReconnect", "the reader chose protocol \(active), neither T=0 nor T=1")
    }
    return proto
}

/// `SCardStatus`: the ATR of the connected card.
func statusATRSync(_ handle: SCARDHANDLE) throws(TransportError) -> [UInt8] {
    var nameBuffer = [CChar](repeating: 0, count: 512)
    var nameLength = DWORD(nameBuffer.count)
    var state: DWORD = 0
    var proto: DWORD = 0
    var atr = [UInt8](repeating: 0, count: 40)
    var atrLength = DWORD(atr.count)
    let rc = PCSCReturnCode(
        returned: nameBuffer.withUnsafeMutableBufferPointer { n in
            atr.withUnsafeMutableBufferPointer { a in
                SCardStatus(handle, n.baseAddress, &nameLength, &state, &proto, a.baseAddress, &atrLength)
            }
        })
    try rc.check("SCardStatus")
    return Array(atr.prefix(Int(atrLength)))
}

/// `SCardControl` with no input; returns the output bytes.
func controlSync(_ handle: SCARDHANDLE, code: DWORD, input: [UInt8] = []) throws(TransportError) -> [UInt8] {
    var out = [UInt8](repeating: 0, count: 1024)
    var outLength: DWORD = 0
    let outCapacity = DWORD(out.count)
    let rc = PCSCReturnCode(
        returned: input.withUnsafeBufferPointer { i in
            out.withUnsafeMutableBufferPointer { o in
                SCardControl(handle, code, i.baseAddress, DWORD(i.count), o.baseAddress, outCapacity, &outLength)
            }
        })
    try rc.check("SCardControl")
    return Array(out.prefix(Int(outLength)))
}

/// `SCardGetAttrib`; returns the attribute bytes.
func getAttribSync(_ handle: SCARDHANDLE, attribute: DWORD) throws(TransportError) -> [UInt8] {
    var out = [UInt8](repeating: 0, count: 512)
    var length = DWORD(out.count)
    let rc = PCSCReturnCode(
        returned: out.withUnsafeMutableBufferPointer { SCardGetAttrib(handle, attribute, $0.baseAddress, &length) })
    try rc.check("SCardGetAttrib")
    return Array(out.prefix(Int(length)))
}

/// Reads the reader's PC/SC part 10 properties and attributes over `handle` (card or direct
/// connection). Each source that the driver does not expose is simply absent.
func readReaderPropertiesSync(_ handle: SCARDHANDLE) -> ReaderProperties {
    var props = ReaderProperties()
    if let features = try? controlSync(handle, code: DWORD(emrtd_pcsc_cm_ioctl_get_feature_request())) {
        props.features = ReaderProperties.parseFeatures(features)
        if let code = props.features[ReaderProperties.featureGetTLVProperties],
            let tlv = try? controlSync(handle, code: DWORD(code))
        {
            props.tlvProperties = ReaderProperties.parseTLVProperties(tlv)
        }
    }
    if let maxInput = try? getAttribSync(handle, attribute: DWORD(emrtd_pcsc_attr_maxinput())), !maxInput.isEmpty {
        props.maxInput = ReaderProperties.littleEndian(maxInput)
    }
    if let vendor = try? getAttribSync(handle, attribute: DWORD(emrtd_pcsc_attr_vendor_name())), !vendor.isEmpty {
        props.vendorName = String(decoding: vendor.prefix { $0 != 0 }, as: UTF8.self)
    }
    return props
}
