public import ISO7816

/// A PC/SC return code (`LONG` of winscard.h) with its meaning and the `TransportError.Kind` it maps to.
///
/// pcsc-lite declares `LONG` as C `long` (8 bytes on 64-bit Linux) but the codes are 32-bit values
/// ('8010xxxx'); they are compared as `UInt32`. Every code pcsclite.h 1.9 defines has an entry here;
/// unknown codes map to `.other` with their hex value. This is the one checked helper that turns a
/// return code into a typed error naming the call (docs/architecture.md §3.1).
public struct PCSCReturnCode: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt32

    public init(_ rawValue: UInt32) { self.rawValue = rawValue }

    /// From the `LONG` a pcsc-lite call returned (any width, truncated to 32 bits).
    public init<T: BinaryInteger>(returned value: T) { self.rawValue = UInt32(truncatingIfNeeded: value) }

    public var isSuccess: Bool { rawValue == 0 }

    /// The pcsclite.h symbol, e.g. "SCARD_W_REMOVED_CARD"; nil for codes it does not define.
    public var symbol: String? { Self.table[rawValue]?.symbol }

    /// What the code means, in words for an operator.
    public var meaning: String { Self.table[rawValue]?.meaning ?? "unknown PC/SC error" }

    /// The transport error kind the code maps to.
    public var kind: TransportError.Kind { Self.table[rawValue]?.kind ?? .other }

    public var description: String {
        let hex = "0x" + String(rawValue, radix: 16, uppercase: true).leftPadded(to: 8)
        if let symbol { return "\(symbol), \(hex)" }
        return hex
    }

    /// The typed error for a failed call: `function` names the call (e.g. "SCardTransmit").
    public func error(function: String) -> TransportError {
        TransportError(kind, function: function, "\(meaning) (\(description))", code: rawValue)
    }

    /// Throws the mapped error unless the code is `SCARD_S_SUCCESS`.
    public func check(_ function: String) throws(TransportError) {
        if !isSuccess { throw error(function: function) }
    }

    // MARK: Named codes used by the transport (pcsclite.h)

    public static let success = PCSCReturnCode(0x0000_0000)
    public static let cancelled = PCSCReturnCode(0x8010_0002)
    public static let invalidHandle = PCSCReturnCode(0x8010_0003)
    public static let insufficientBuffer = PCSCReturnCode(0x8010_0008)
    public static let unknownReader = PCSCReturnCode(0x8010_0009)
    public static let timeout = PCSCReturnCode(0x8010_000A)
    public static let sharingViolation = PCSCReturnCode(0x8010_000B)
    public static let noSmartcard = PCSCReturnCode(0x8010_000C)
    public static let protocolMismatch = PCSCReturnCode(0x8010_000F)
    public static let notTransacted = PCSCReturnCode(0x8010_0016)
    public static let readerUnavailable = PCSCReturnCode(0x8010_0017)
    public static let noService = PCSCReturnCode(0x8010_001D)
    public static let serviceStopped = PCSCReturnCode(0x8010_001E)
    public static let commError = PCSCReturnCode(0x8010_0013)
    public static let unresponsiveCard = PCSCReturnCode(0x8010_0066)
    public static let unpoweredCard = PCSCReturnCode(0x8010_0067)
    public static let unsupportedFeature = PCSCReturnCode(0x8010_001F)
    public static let noReadersAvailable = PCSCReturnCode(0x8010_002E)
    public static let resetCard = PCSCReturnCode(0x8010_0068)
    public static let removedCard = PCSCReturnCode(0x8010_0069)

    struct Entry: Sendable {
        let symbol: String
        let kind: TransportError.Kind
        let meaning: String
    }

    /// Every return code of pcsclite.h (pcsc-lite 1.9.9), with the kind it maps to.
    /// `SCARD_E_UNEXPECTED` and `SCARD_E_UNSUPPORTED_FEATURE` share '8010001F' in pcsc-lite.
    public static var allKnown: [PCSCReturnCode] { table.keys.sorted().map(PCSCReturnCode.init) }

    static let table: [UInt32: Entry] = {
        var t: [UInt32: Entry] = [:]
        func add(_ code: UInt32, _ symbol: String, _ kind: TransportError.Kind, _ meaning: String) {
            t[code] = Entry(symbol: symbol, kind: kind, meaning: meaning)
        }
        add(0x0000_0000, "SCARD_S_SUCCESS", .other, "no error")
        add(0x8010_0001, "SCARD_F_INTERNAL_ERROR", .other, "an internal consistency check failed in the PC/SC service")
        add(0x8010_0002, "SCARD_E_CANCELLED", .cancelled, "the wait was cancelled (SCardCancel)")
        add(
            0x8010_0003, "SCARD_E_INVALID_HANDLE", .readerUnavailable,
            "the card or context handle is no longer valid (reader unplugged or pcscd restarted)")
        add(0x8010_0004, "SCARD_E_INVALID_PARAMETER", .other, "a parameter of the call was invalid")
        add(0x8010_0005, "SCARD_E_INVALID_TARGET", .other, "registry startup information is missing or invalid")
        add(0x8010_0006, "SCARD_E_NO_MEMORY", .other, "not enough memory in the PC/SC service")
        add(0x8010_0007, "SCARD_F_WAITED_TOO_LONG", .timeout, "an internal timer of the PC/SC service expired")
        add(
            0x8010_0008, "SCARD_E_INSUFFICIENT_BUFFER", .protocolError, "the response is larger than the receive buffer"
        )
        add(0x8010_0009, "SCARD_E_UNKNOWN_READER", .noReader, "no reader of that name is known to pcscd")
        add(0x8010_000A, "SCARD_E_TIMEOUT", .timeout, "the timeout expired")
        add(
            0x8010_000B, "SCARD_E_SHARING_VIOLATION", .sharingViolation,
            "another application holds the card (exclusive access or open transaction)")
        add(0x8010_000C, "SCARD_E_NO_SMARTCARD", .noCard, "no card is on the reader")
        add(0x8010_000D, "SCARD_E_UNKNOWN_CARD", .other, "the card name is not recognised")
        add(0x8010_000E, "SCARD_E_CANT_DISPOSE", .other, "the card could not be disposed of as requested")
        add(
            0x8010_000F, "SCARD_E_PROTO_MISMATCH", .protocolError,
            "the card does not support the requested protocol (T=0/T=1)")
        add(0x8010_0010, "SCARD_E_NOT_READY", .readerUnavailable, "the reader or card is not ready to accept commands")
        add(0x8010_0011, "SCARD_E_INVALID_VALUE", .other, "a parameter value was invalid")
        add(
            0x8010_0012, "SCARD_E_SYSTEM_CANCELLED", .cancelled,
            "the system cancelled the operation (log-off or shutdown)")
        add(
            0x8010_0013, "SCARD_F_COMM_ERROR", .protocolError,
            "internal communication error between the application and pcscd")
        add(0x8010_0014, "SCARD_F_UNKNOWN_ERROR", .other, "an internal error of unknown source in the PC/SC service")
        add(0x8010_0015, "SCARD_E_INVALID_ATR", .protocolError, "the card's answer-to-reset is not valid")
        add(
            0x8010_0016, "SCARD_E_NOT_TRANSACTED", .protocolError,
            "the reader did not carry out the exchange (driver refused or failed the request)")
        add(
            0x8010_0017, "SCARD_E_READER_UNAVAILABLE", .readerUnavailable,
            "the reader is not available (unplugged or failing)")
        add(0x8010_0018, "SCARD_P_SHUTDOWN", .readerUnavailable, "the PC/SC service is shutting down")
        add(
            0x8010_0019, "SCARD_E_PCI_TOO_SMALL", .protocolError, "the protocol control information buffer is too small"
        )
        add(
            0x8010_001A, "SCARD_E_READER_UNSUPPORTED", .readerUnavailable,
            "the reader driver does not meet the minimal requirements")
        add(
            0x8010_001B, "SCARD_E_DUPLICATE_READER", .readerUnavailable,
            "the reader driver did not produce a unique reader name")
        add(0x8010_001C, "SCARD_E_CARD_UNSUPPORTED", .protocolError, "the card does not meet the minimal requirements")
        add(
            0x8010_001D, "SCARD_E_NO_SERVICE", .readerUnavailable,
            "the PC/SC service (pcscd) is not running or refused access (polkit)")
        add(0x8010_001E, "SCARD_E_SERVICE_STOPPED", .readerUnavailable, "the PC/SC service (pcscd) stopped")
        add(
            0x8010_001F, "SCARD_E_UNSUPPORTED_FEATURE", .other,
            "the reader or driver does not support this feature (SCARD_E_UNEXPECTED)")
        add(0x8010_0020, "SCARD_E_ICC_INSTALLATION", .other, "no primary provider for the card")
        add(0x8010_0021, "SCARD_E_ICC_CREATEORDER", .other, "the requested order of object creation is not supported")
        add(0x8010_0023, "SCARD_E_DIR_NOT_FOUND", .other, "the directory does not exist on the card")
        add(0x8010_0024, "SCARD_E_FILE_NOT_FOUND", .other, "the file does not exist on the card")
        add(0x8010_0025, "SCARD_E_NO_DIR", .other, "the path is not a card directory")
        add(0x8010_0026, "SCARD_E_NO_FILE", .other, "the path is not a card file")
        add(0x8010_0027, "SCARD_E_NO_ACCESS", .other, "access is denied")
        add(0x8010_0028, "SCARD_E_WRITE_TOO_MANY", .other, "the card does not have enough memory")
        add(0x8010_0029, "SCARD_E_BAD_SEEK", .other, "could not set the card file pointer")
        add(0x8010_002A, "SCARD_E_INVALID_CHV", .other, "the PIN is incorrect")
        add(0x8010_002B, "SCARD_E_UNKNOWN_RES_MNG", .other, "unrecognised error from a layered component")
        add(0x8010_002C, "SCARD_E_NO_SUCH_CERTIFICATE", .other, "the certificate does not exist")
        add(0x8010_002D, "SCARD_E_CERTIFICATE_UNAVAILABLE", .other, "the certificate could not be obtained")
        add(0x8010_002E, "SCARD_E_NO_READERS_AVAILABLE", .noReader, "no smart-card reader is connected")
        add(0x8010_002F, "SCARD_E_COMM_DATA_LOST", .protocolError, "communication with the card failed; data was lost")
        add(0x8010_0030, "SCARD_E_NO_KEY_CONTAINER", .other, "the key container does not exist")
        add(0x8010_0031, "SCARD_E_SERVER_TOO_BUSY", .readerUnavailable, "the PC/SC service is too busy")
        add(
            0x8010_0065, "SCARD_W_UNSUPPORTED_CARD", .protocolError,
            "the reader cannot communicate with the card (ATR configuration conflict)")
        add(0x8010_0066, "SCARD_W_UNRESPONSIVE_CARD", .protocolError, "the card does not answer to reset (mute card)")
        add(
            0x8010_0067, "SCARD_W_UNPOWERED_CARD", .cardReset,
            "the card was powered down; reconnect to power it up again")
        add(
            0x8010_0068, "SCARD_W_RESET_CARD", .cardReset, "the card was reset by another application; reconnect needed"
        )
        add(0x8010_0069, "SCARD_W_REMOVED_CARD", .cardRemoved, "the card was removed from the reader")
        add(
            0x8010_006A, "SCARD_W_SECURITY_VIOLATION", .other,
            "access was denied (with polkit: org.debian.pcsc-lite.access_card refused this user or reader)")
        add(0x8010_006B, "SCARD_W_WRONG_CHV", .other, "the wrong PIN was presented")
        add(0x8010_006C, "SCARD_W_CHV_BLOCKED", .other, "the PIN is blocked")
        add(0x8010_006D, "SCARD_W_EOF", .other, "end of the card file reached")
        add(0x8010_006E, "SCARD_W_CANCELLED_BY_USER", .cancelled, "the user cancelled")
        add(0x8010_006F, "SCARD_W_CARD_NOT_AUTHENTICATED", .other, "no PIN was presented to the card")
        return t
    }()
}

extension String {
    func leftPadded(to n: Int, with c: Character = "0") -> String {
        count >= n ? self : String(repeating: c, count: n - count) + self
    }
}
