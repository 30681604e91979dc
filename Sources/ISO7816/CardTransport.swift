/// What the path from the host to the chip can carry, as far as the transport knows.
public struct TransportCapabilities: Hashable, Sendable {
    /// Whether the reader path carries extended-length APDUs.
    public var supportsExtendedLength: Bool
    /// Largest command APDU (bytes, header included) the path carries.
    public var maxCommandSize: Int
    /// Largest response APDU (bytes, SW included) the path carries.
    public var maxResponseSize: Int
    /// Whether `supportsExtendedLength` is known (from reader properties or a profile) or a guess.
    public var isKnown: Bool

    public init(supportsExtendedLength: Bool, maxCommandSize: Int, maxResponseSize: Int, isKnown: Bool = true) {
        self.supportsExtendedLength = supportsExtendedLength
        self.maxCommandSize = maxCommandSize
        self.maxResponseSize = maxResponseSize
        self.isKnown = isKnown
    }

    /// Short APDUs only: 5 + 255 command bytes, 256 + 2 response bytes.
    public static let shortOnly = TransportCapabilities(
        supportsExtendedLength: false, maxCommandSize: 261, maxResponseSize: 258)
    /// Extended APDUs up to the ISO/IEC 7816-4 maximum.
    public static let extended = TransportCapabilities(
        supportsExtendedLength: true, maxCommandSize: 65544, maxResponseSize: 65538)
}

/// A transport-level failure (reader, card, link). Raised by `CardTransport` implementations.
public struct TransportError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        /// The card left the field (or was pulled off the reader).
        case cardRemoved
        /// The card was reset by another party; a reconnect is needed.
        case cardReset
        /// No card is present.
        case noCard
        /// The reader disappeared or is unusable.
        case readerUnavailable
        /// No reader matches.
        case noReader
        /// Another process holds the card exclusively.
        case sharingViolation
        /// The operation timed out.
        case timeout
        /// The operation was cancelled.
        case cancelled
        /// The card did not answer as the protocol requires (no status word, garbled frame).
        case protocolError
        /// Anything else the lower layer reported.
        case other
    }

    public var kind: Kind
    /// The call that failed (e.g. "SCardTransmit").
    public var function: String
    public var message: String
    /// The lower layer's own code for the failure when it has one (a PC/SC return code such as
    /// 0x8010001D), so that a caller can tell apart failures of one kind that need different handling.
    public var code: UInt32?

    public init(_ kind: Kind, function: String, _ message: String, code: UInt32? = nil) {
        self.kind = kind
        self.function = function
        self.message = message
        self.code = code
    }

    /// Whether re-presenting the card (and re-running access control) may let a read continue.
    public var isRecoverableByRepresenting: Bool {
        switch kind {
        case .cardRemoved, .cardReset, .noCard, .timeout, .protocolError: return true
        default: return false
        }
    }

    public var description: String { "\(function): \(message)" }
}

/// Something that carries command APDUs to a chip and brings back its responses:
/// a PC/SC reader, the in-process virtual chip, a replay of a recorded session.
///
/// Implementations are reference types shared between tasks; they serialise their own access.
public protocol CardTransport: AnyObject, Sendable {
    /// A short human name (the PC/SC reader name, "virtual chip", …).
    var name: String { get }
    /// What the path can carry.
    var capabilities: TransportCapabilities { get async }
    /// The answer-to-reset (or ATS-derived ATR) of the card currently connected.
    var atr: [UInt8] { get async throws }
    /// Sends a command and returns the response. Throws `TransportError` on a link failure;
    /// an error status word is a normal response, not an error.
    func transmit(_ command: CommandAPDU) async throws -> ResponseAPDU
    /// Reconnects to the card, waiting at most `timeout` seconds for it to be presented again.
    /// `reset` asks for a cold/warm reset (which drops any secure-messaging session on the chip).
    func reconnect(reset: Bool, timeout: Double) async throws
}
