public import ISO7816
public import MRTDCrypto

/// Session keys KSenc / KSmac for a cipher (ICAO 9303-11 §9.8).
public struct SessionKeys: Sendable, Hashable, CustomStringConvertible {
    public var cipher: CipherAlgorithm
    public var encryption: SecretBytes
    public var mac: SecretBytes
    public init(cipher: CipherAlgorithm, encryption: SecretBytes, mac: SecretBytes) {
        self.cipher = cipher
        self.encryption = encryption
        self.mac = mac
    }
    /// KSenc = KDF(K, 1), KSmac = KDF(K, 2) (ICAO 9303-11 §9.7.1).
    public static func derive(sharedSecret: [UInt8], cipher: CipherAlgorithm) -> SessionKeys {
        SessionKeys(
            cipher: cipher,
            encryption: KDF.derive(sharedSecret, counter: KDF.encryptionCounter, cipher: cipher),
            mac: KDF.derive(sharedSecret, counter: KDF.macCounter, cipher: cipher))
    }
    /// Redacted: names the cipher only.
    public var description: String { "SessionKeys(\(cipher.rawValue), redacted)" }
}

/// Why secure messaging failed. After any failure the session is dead (`SecureMessagingSession.isDead`).
/// Reasons never carry keys, the SSC or protected data.
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
    /// The status word the chip answered with, when the failure is an unprotected error status.
    public var statusWord: StatusWord?
    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
        self.statusWord = nil
    }
    public init(_ code: Code, _ reason: String, statusWord: StatusWord?) {
        self.code = code
        self.reason = reason
        self.statusWord = statusWord
    }
    public var description: String { "secure messaging: \(code.rawValue): \(reason)" }
}
