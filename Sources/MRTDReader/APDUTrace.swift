import ASN1TLV
import Dispatch
public import ISO7816
import Synchronization

/// A redacted APDU trace: for each exchange on the wire, the header, the lengths, the status word and
/// the plain-side command when known — never command or response data (which carry cryptograms an
/// attacker could use to search the MRZ offline), keys, SSC, MRZ or CAN.
public final class APDUTrace: Sendable {
    public struct Entry: Sendable, Codable, Hashable {
        /// Milliseconds since the trace started.
        public var ms: Double
        /// "CLA INS P1 P2" of the wire command, hex.
        public var header: String
        public var commandLength: Int
        public var responseLength: Int
        /// Status word on the wire, hex ("9000"), or the error when the exchange failed.
        public var status: String
        /// What the command was, in words (e.g. "READ BINARY SFI 02 offset 0 Ne 223").
        public var note: String
    }

    private let entries = Mutex<[Entry]>([])
    private let start = DispatchTime.now().uptimeNanoseconds

    public init() {}

    public var all: [Entry] { entries.withLock { $0 } }

    public func record(command: CommandAPDU, response: ResponseAPDU?, error: (any Error)?) {
        let ms = Double(DispatchTime.now().uptimeNanoseconds &- start) / 1e6
        let header = [command.cla, command.ins, command.p1, command.p2].map { Hex.encode([$0]) }.joined(separator: " ")
        let status: String
        if let response {
            status = String(response.statusWord.description.prefix(4))
        } else {
            status = "error: \(error.map { String(describing: type(of: $0)) } ?? "unknown")"
        }
        let entry = Entry(
            ms: ms, header: header, commandLength: command.encodedLength,
            responseLength: (response?.data.count ?? 0) + (response == nil ? 0 : 2),
            status: status, note: APDUTrace.describe(command))
        entries.withLock { $0.append(entry) }
    }

    /// A words-only description of a command; authentication commands say only what they are.
    static func describe(_ c: CommandAPDU) -> String {
        let sm = c.isSecureMessaging ? " (SM)" : ""
        switch c.ins {
        case 0xA4: return "SELECT" + sm
        case 0xB0:
            if c.p1 & 0x80 != 0 { return "READ BINARY SFI \(c.p1 & 0x1F) offset \(c.p2)" + sm }
            return "READ BINARY offset \(Int(c.p1) << 8 | Int(c.p2))" + sm
        case 0xB1: return "READ BINARY (odd INS)" + sm
        case 0x84: return "GET CHALLENGE" + sm
        case 0x82: return "EXTERNAL AUTHENTICATE" + sm
        case 0x88: return "INTERNAL AUTHENTICATE" + sm
        case 0x22: return "MANAGE SECURITY ENVIRONMENT" + sm
        case 0x86: return "GENERAL AUTHENTICATE" + sm
        case 0xC0: return "GET RESPONSE" + sm
        default: return "INS \(c.ins)" + sm
        }
    }
}

/// A transport wrapper that counts every wire exchange (APDUs, bytes each way, time) and, when given a
/// trace, records it redacted. The reader wraps whatever transport it is handed in one of these, so that
/// statistics are the same for PC/SC, the virtual chip and replays.
public final class MeteredTransport: CardTransport {
    public let inner: any CardTransport
    public let trace: APDUTrace?
    private let stats = Mutex(TransportStatistics())

    public init(_ inner: any CardTransport, trace: APDUTrace? = nil) {
        self.inner = inner
        self.trace = trace
    }

    public var name: String { inner.name }
    public var capabilities: TransportCapabilities { get async { await inner.capabilities } }
    public var atr: [UInt8] { get async throws { try await inner.atr } }
    public var statistics: TransportStatistics { stats.withLock { $0 } }

    public func transmit(_ command: CommandAPDU) async throws -> ResponseAPDU {
        let start = DispatchTime.now().uptimeNanoseconds
        do {
            let r = try await inner.transmit(command)
            let ns = DispatchTime.now().uptimeNanoseconds &- start
            let sent = command.encodedLength
            stats.withLock { s in
                s.apdus += 1
                s.bytesSent += sent
                s.bytesReceived += r.data.count + 2
                s.apdusByInstruction[command.ins, default: 0] += 1
                s.nanoseconds &+= ns
            }
            trace?.record(command: command, response: r, error: nil)
            return r
        } catch {
            trace?.record(command: command, response: nil, error: error)
            throw error
        }
    }

    public func reconnect(reset: Bool, timeout: Double) async throws {
        try await inner.reconnect(reset: reset, timeout: timeout)
    }
}
