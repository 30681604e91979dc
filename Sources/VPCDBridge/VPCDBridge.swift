import Foundation
public import ISO7816
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Connects a `CardEmulator` (the virtual chip) to vsmartcard's virtual reader driver (vpcd) over
/// TCP, so pcscd sees the emulator as a card on "Virtual PCD 00 00" (port 35963) or
/// "Virtual PCD 00 01" (35964).
///
/// vpcd's wire protocol (vsmartcard `virtualsmartcard/src/vpcd/vpcd.c`): vpcd listens, the card
/// side connects; every message both ways is a 2-byte big-endian length followed by the payload.
/// From vpcd, a 1-byte payload is a control code — 0 power off, 1 power on, 2 reset, 4 "send the
/// ATR" (answered with the ATR) — and anything longer is a command APDU, answered with the
/// response APDU (data || SW1 SW2). Closing the connection is the card leaving the reader.
///
/// Blocking socket I/O runs on a dedicated thread, not on the cooperative pool.
public final class VPCDBridge: Sendable {
    /// Why `run()` returned.
    public enum EndReason: String, Sendable, Hashable {
        /// vpcd closed the connection (pcscd stopped or restarted).
        case closedByVPCD
        /// `stop()` was called or the task was cancelled.
        case stopped
        /// The simulated card pull (`removeCardAfterAPDUs`) happened.
        case cardPulled
    }

    public let host: String
    public let port: UInt16
    /// After answering this many APDUs, the bridge closes the connection when the next command
    /// arrives, without answering it: the card leaves the field in the middle of a command.
    public let removeCardAfterAPDUs: Int?
    /// How long `run()` keeps retrying while vpcd does not accept the connection (pcscd starting).
    public let connectTimeout: Double
    /// The card leaves the field on the n-th power-on (counting from 1), before answering it: pcscd powers
    /// the card at insertion to read its ATR and again for a connection after it powered it down when idle,
    /// so n = 2 is a card that was seen present and is gone when the application connects (a passport
    /// flickering on the reader). `run()` returns `.cardPulled`.
    public let leaveOnPowerOn: Int?

    private let emulator: any CardEmulator
    private struct State {
        var fd: Int32 = -1
        var stopped = false
        var apdus = 0
        var connected = false
        var powered = false
        var powerOns = 0
    }
    private let state = Mutex(State())

    public init(
        emulator: any CardEmulator, host: String = "127.0.0.1", port: UInt16 = 35963,
        removeCardAfterAPDUs: Int? = nil, connectTimeout: Double = 5, leaveOnPowerOn: Int? = nil
    ) {
        self.emulator = emulator
        self.host = host
        self.port = port
        self.removeCardAfterAPDUs = removeCardAfterAPDUs
        self.connectTimeout = connectTimeout
        self.leaveOnPowerOn = leaveOnPowerOn
    }

    /// Number of command APDUs answered so far.
    public var apduCount: Int { state.withLock { $0.apdus } }

    /// Whether the bridge is connected to vpcd now (the card is "on the reader").
    public var isConnected: Bool { state.withLock { $0.connected } }

    /// Whether the card is powered now (pcscd powers it down when it has been idle a while).
    public var isPowered: Bool { state.withLock { $0.powered } }

    /// How many times vpcd powered the card on (or reset it).
    public var powerOns: Int { state.withLock { $0.powerOns } }

    /// Connects to vpcd and serves the emulator until the connection ends. Throws `VPCDError`
    /// when vpcd cannot be reached within `connectTimeout` or sends a malformed message.
    @discardableResult
    public func run() async throws -> EndReason {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (cont: CheckedContinuation<EndReason, any Error>) in
                let thread = Thread { [self] in
                    cont.resume(with: Result { () throws(VPCDError) -> EndReason in try self.serve() })
                }
                thread.name = "vpcd-bridge"
                thread.start()
            }
        } onCancel: {
            stop()
        }
    }

    /// Ends the connection (the card leaves the reader); `run()` returns `.stopped`.
    public func stop() {
        state.withLock { s in
            s.stopped = true
            if s.fd >= 0 { _ = shutdown(s.fd, Int32(SHUT_RDWR)) }
        }
    }

    // MARK: - The blocking loop (on the bridge thread)

    private func serve() throws(VPCDError) -> EndReason {
        guard let fd = try connectWithRetry() else { return .stopped }
        let proceed: Bool = state.withLock { s in
            if s.stopped { return false }
            s.fd = fd
            s.connected = true
            return true
        }
        defer {
            state.withLock { s in
                s.fd = -1
                s.connected = false
                s.powered = false
            }
            close(fd)
        }
        guard proceed else { return .stopped }
        var powered = false
        while true {
            guard let payload = try readFrame(fd) else {
                return state.withLock { $0.stopped } ? .stopped : .closedByVPCD
            }
            if payload.isEmpty { continue }  // vpcd sends none; tolerate it
            if payload.count == 1 {
                switch payload[0] {
                case 0:
                    if powered { emulator.powerOff() }
                    powered = false
                case 1, 2:
                    let leave: Bool = state.withLock { s in
                        s.powerOns += 1
                        return leaveOnPowerOn == s.powerOns
                    }
                    if leave {
                        if powered { emulator.powerOff() }
                        return .cardPulled
                    }
                    if payload[0] == 1 { emulator.powerOn() } else { emulator.reset() }
                    powered = true
                case 4:
                    try writeFrame(fd, emulator.atr)
                default:
                    break  // unknown control codes are ignored, as vpicc does
                }
                state.withLock { $0.powered = powered }
                continue
            }
            let pull: Bool = state.withLock { s in
                if let n = removeCardAfterAPDUs, s.apdus >= n { return true }
                return false
            }
            if pull {
                emulator.powerOff()
                return .cardPulled
            }
            if !powered {
                emulator.powerOn()
                powered = true
                state.withLock { $0.powered = true }
            }
            let response = emulator.process(payload)
            try writeFrame(fd, response)
            state.withLock { $0.apdus += 1 }
        }
    }

    /// nil when `stop()` came first.
    private func connectWithRetry() throws(VPCDError) -> Int32? {
        let deadline = Date().addingTimeInterval(max(0, connectTimeout))
        while true {
            if state.withLock({ $0.stopped }) { return nil }
            switch Self.connect(host: host, port: port) {
            case .success(let fd): return fd
            case .failure(let error):
                if Date() >= deadline { throw error }
                usleep(100_000)
            }
        }
    }

    private static func connect(host: String, port: UInt16) -> Result<Int32, VPCDError> {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>? = nil
        let gai = getaddrinfo(host, String(port), &hints, &list)
        guard gai == 0, let first = list else {
            return .failure(VPCDError(reason: "cannot resolve \(host): \(String(cString: gai_strerror(gai)))"))
        }
        defer { freeaddrinfo(list) }
        var lastError: Int32 = 0
        var ai: UnsafeMutablePointer<addrinfo>? = first
        while let a = ai {
            let fd = socket(a.pointee.ai_family, a.pointee.ai_socktype, a.pointee.ai_protocol)
            if fd >= 0 {
                if Glibc.connect(fd, a.pointee.ai_addr, a.pointee.ai_addrlen) == 0 {
                    var one: Int32 = 1
                    _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
                    return .success(fd)
                }
                lastError = errno
                close(fd)
            } else {
                lastError = errno
            }
            ai = a.pointee.ai_next
        }
        return .failure(
            VPCDError(
                reason:
                    "cannot connect to vpcd at \(host):\(port): \(String(cString: strerror(lastError))) (is pcscd running with vsmartcard-vpcd?)"
            ))
    }

    /// Reads one message; nil when the connection closed cleanly before a new message began.
    private func readFrame(_ fd: Int32) throws(VPCDError) -> [UInt8]? {
        guard let header = try readExactly(fd, 2, allowEOF: true) else { return nil }
        let length = Int(header[0]) << 8 | Int(header[1])
        if length == 0 { return [] }
        guard let payload = try readExactly(fd, length, allowEOF: true) else { return nil }
        return payload
    }

    private func readExactly(_ fd: Int32, _ n: Int, allowEOF: Bool) throws(VPCDError) -> [UInt8]? {
        var out = [UInt8](repeating: 0, count: n)
        var got = 0
        while got < n {
            let r = out.withUnsafeMutableBytes { recv(fd, $0.baseAddress! + got, n - got, 0) }
            if r == 0 { return nil }
            if r < 0 {
                if errno == EINTR { continue }
                if state.withLock({ $0.stopped }) { return nil }
                if errno == ECONNRESET { return nil }
                throw VPCDError(reason: "reading from vpcd: \(String(cString: strerror(errno)))")
            }
            got += r
        }
        return out
    }

    private func writeFrame(_ fd: Int32, _ payload: [UInt8]) throws(VPCDError) {
        guard payload.count <= 0xFFFF else {
            throw VPCDError(reason: "a \(payload.count)-byte message does not fit vpcd's 2-byte length")
        }
        let frame = Self.frame(payload)
        var sent = 0
        while sent < frame.count {
            let r = frame.withUnsafeBytes { send(fd, $0.baseAddress! + sent, frame.count - sent, Int32(MSG_NOSIGNAL)) }
            if r < 0 {
                if errno == EINTR { continue }
                throw VPCDError(reason: "writing to vpcd: \(String(cString: strerror(errno)))")
            }
            sent += r
        }
    }

    /// Parses `emrtd simulate --vpcd HOST:PORT` (also "PORT" alone, "HOST" alone, "[::1]:PORT";
    /// a bare IPv6 address such as "::1" is a host).
    /// Defaults: host 127.0.0.1, port 35963 (slot 0). Nil when the port is not 1...65535.
    public static func parseAddress(_ text: String) -> (host: String, port: UInt16)? {
        let defaultHost = "127.0.0.1"
        let defaultPort: UInt16 = 35963
        if text.isEmpty { return (defaultHost, defaultPort) }
        var host = text
        var portText: String? = nil
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            host = String(text[text.index(after: text.startIndex)..<close])
            let rest = text[text.index(after: close)...]
            if !rest.isEmpty {
                guard rest.hasPrefix(":") else { return nil }
                portText = String(rest.dropFirst())
            }
        } else if text.allSatisfy(\.isNumber) {
            host = defaultHost
            portText = text
        } else if let colon = text.lastIndex(of: ":"), text.firstIndex(of: ":") == colon {
            host = String(text[..<colon])
            portText = String(text[text.index(after: colon)...])
        }
        if host.isEmpty { host = defaultHost }
        guard let portText else { return (host, defaultPort) }
        guard let p = Int(portText), (1...65535).contains(p) else { return nil }
        return (host, UInt16(p))
    }

    /// A vpcd message: 2-byte big-endian length, then the payload.
    public static func frame(_ payload: [UInt8]) -> [UInt8] {
        [UInt8(payload.count >> 8 & 0xFF), UInt8(payload.count & 0xFF)] + payload
    }
}

/// A failure of the vpcd connection.
public struct VPCDError: Error, Hashable, Sendable, CustomStringConvertible {
    public var reason: String
    public init(reason: String) { self.reason = reason }
    public var description: String { "vpcd: \(reason)" }
}
