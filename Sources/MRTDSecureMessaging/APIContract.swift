// MRTDSecureMessaging public API contract (ICAO 9303-11 §9.8; ISO/IEC 7816-4 §6).
//
// Fixes the signatures that access control, the reader and the virtual chip are written against.
// The owner replaces the `fatalError` bodies and may ADD API, not rename or remove it.
public import ISO7816
public import MRTDCrypto

/// Session keys KSenc / KSmac for a cipher.
public struct SessionKeys: Sendable, Hashable {
    public var cipher: CipherAlgorithm
    public var encryption: SecretBytes
    public var mac: SecretBytes
    public init(cipher: CipherAlgorithm, encryption: SecretBytes, mac: SecretBytes) {
        self.cipher = cipher; self.encryption = encryption; self.mac = mac
    }
    /// KSenc = KDF(K, 1), KSmac = KDF(K, 2) (ICAO 9303-11 §9.7.1).
    public static func derive(sharedSecret: [UInt8], cipher: CipherAlgorithm) -> SessionKeys {
        SessionKeys(cipher: cipher,
                    encryption: KDF.derive(sharedSecret, counter: KDF.encryptionCounter, cipher: cipher),
                    mac: KDF.derive(sharedSecret, counter: KDF.macCounter, cipher: cipher))
    }
}

/// Why secure messaging failed. After any failure the session is dead (`SecureMessagingSession.isDead`).
public struct SecureMessagingError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// The response MAC (DO'8E') did not verify.
        case macMismatch
        /// A required data object (DO'99', DO'8E', …) was missing or malformed.
        case malformedResponse
        /// The chip answered with an SM error status (6987/6988) or without SM.
        case chipRejectedSecureMessaging
        /// Padding or decryption failed after the MAC had verified.
        case decryptionFailed
        /// The command cannot be protected (too long for the path).
        case commandTooLong
        /// The session was already dead.
        case sessionDead
    }
    public var code: Code
    public var reason: String
    public init(_ code: Code, _ reason: String) { self.code = code; self.reason = reason }
    public var description: String { "secure messaging: \(code.rawValue): \(reason)" }
}

/// A secure-messaging session: keys and the send sequence counter (8 bytes for 3DES, 16 for AES).
/// A value type owned by one actor at a time. Used by both sides: the reader (`protect` /
/// `unprotect`) and the virtual chip (`unprotectCommand` / `protectResponse`).
public struct SecureMessagingSession: Sendable {
    public init(keys: SessionKeys, ssc: [UInt8]) { fatalError("unimplemented") }
    /// A session whose SSC starts at zero (PACE, CA).
    public init(keys: SessionKeys) { fatalError("unimplemented") }

    public var cipher: CipherAlgorithm { fatalError("unimplemented") }
    /// True after any failure: every further call throws `.sessionDead`.
    public var isDead: Bool { fatalError("unimplemented") }

    /// Largest plaintext the chip can return in one protected short response (223 AES, 231 3DES).
    public static func maxShortResponsePlaintext(cipher: CipherAlgorithm) -> Int { fatalError("unimplemented") }

    /// Reader side: increments the SSC and wraps the command (DO'87'/'85', DO'97', DO'8E').
    public mutating func protect(_ command: CommandAPDU) throws(SecureMessagingError) -> CommandAPDU { fatalError("unimplemented") }
    /// Reader side: increments the SSC, verifies DO'8E' in constant time before decrypting, checks DO'99'
    /// and returns the plain response with the protected status word.
    public mutating func unprotect(_ response: ResponseAPDU) throws(SecureMessagingError) -> ResponseAPDU { fatalError("unimplemented") }

    /// Chip side: increments the SSC, verifies and unwraps a protected command.
    public mutating func unprotectCommand(_ command: CommandAPDU) throws(SecureMessagingError) -> CommandAPDU { fatalError("unimplemented") }
    /// Chip side: increments the SSC and wraps a response.
    public mutating func protectResponse(_ response: ResponseAPDU) throws(SecureMessagingError) -> ResponseAPDU { fatalError("unimplemented") }

    /// Encrypts with the session's encryption key in the way PACE-CAM's encrypted chip data uses
    /// (AES-CBC, IV = E(KSenc, FF…FF)); exposed for the CAM step.
    public func encryptCAMData(_ data: [UInt8]) throws(SecureMessagingError) -> [UInt8] { fatalError("unimplemented") }
    public func decryptCAMData(_ data: [UInt8]) throws(SecureMessagingError) -> [UInt8] { fatalError("unimplemented") }
}

/// One exchange as seen through a secure channel, for progress and redacted traces: the plain
/// command header and lengths, never keys, SSC or command data.
public struct ChannelExchange: Sendable {
    public var plainCommand: CommandAPDU
    public var plainResponse: ResponseAPDU?
    public var protectedCommandLength: Int
    public var protectedResponseLength: Int
    public init(plainCommand: CommandAPDU, plainResponse: ResponseAPDU?, protectedCommandLength: Int, protectedResponseLength: Int) {
        self.plainCommand = plainCommand; self.plainResponse = plainResponse
        self.protectedCommandLength = protectedCommandLength; self.protectedResponseLength = protectedResponseLength
    }
}

/// A transport plus the secure-messaging session that protects it: the actor that owns the session.
/// `transmit` protects the command, sends it and unprotects the answer. After a secure-messaging
/// failure the channel is dead; after a transport failure the session is considered lost too
/// (the chip drops it), so callers re-run access control.
public actor SecureChannel {
    public let transport: any CardTransport
    public init(transport: any CardTransport, session: SecureMessagingSession) { fatalError("unimplemented") }
    /// Sends a plain command protected; returns the plain response (status word from DO'99').
    public func transmit(_ command: CommandAPDU) async throws -> ResponseAPDU { fatalError("unimplemented") }
    /// Sends a command without secure messaging (e.g. before PACE-CAM / after a failure); rarely needed.
    public func transmitPlain(_ command: CommandAPDU) async throws -> ResponseAPDU { fatalError("unimplemented") }
    /// Replaces the session (Chip Authentication restarts SM with new keys and SSC 0).
    public func replaceSession(_ session: SecureMessagingSession) { fatalError("unimplemented") }
    public var cipher: CipherAlgorithm { fatalError("unimplemented") }
    public var isDead: Bool { fatalError("unimplemented") }
    /// Called after every exchange (for progress and redacted traces).
    public func setObserver(_ observer: (@Sendable (ChannelExchange) -> Void)?) { fatalError("unimplemented") }
}
