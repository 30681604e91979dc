public import ISO7816

/// Why an access-control or clone-detection protocol failed (BAC, PACE, Chip Authentication, Active
/// Authentication). Messages never contain keys, nonces, passwords, MRZ or CAN.
public struct AccessControlError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// The chip refused the password: wrong MRZ/CAN/PIN (EXTERNAL AUTHENTICATE or GA mutual
        /// authentication answered 6300 / 63Cx, or the chip's cryptogram/token does not verify).
        case wrongPassword
        /// The chip answered a step with an error status word.
        case chipRejected
        /// The chip's answer was malformed (missing DO, wrong length, bad encoding).
        case malformedResponse
        /// The chip's cryptogram, MAC or authentication token did not verify.
        case authenticationFailed
        /// The protocol or its parameters are not supported by this implementation.
        case unsupported
        /// The inputs were unusable (MRZ fields with bad characters, missing domain parameters, …).
        case invalidInput
        /// A cryptographic primitive failed (bad point, key outside range, …).
        case cryptoFailure
        /// Secure messaging failed during the step.
        case secureMessaging
        /// A signature (Active Authentication) or key relation (PACE-CAM) did not verify.
        case verificationFailed
        /// Neither PACE nor (allowed) BAC could be chosen.
        case noProtocolAvailable
    }

    public var code: Code
    /// The protocol step that failed, e.g. "GET CHALLENGE", "EXTERNAL AUTHENTICATE", "MSE:Set AT",
    /// "GA encrypted nonce", "GA map nonce", "GA key agreement", "GA mutual authentication", "CA", "AA".
    public var step: String
    public var reason: String
    /// The status word the chip answered with, when the failure came from one.
    public var statusWord: StatusWord?

    public init(_ code: Code, step: String, _ reason: String, statusWord: StatusWord? = nil) {
        self.code = code
        self.step = step
        self.reason = reason
        self.statusWord = statusWord
    }

    public var description: String {
        var s = "\(step): \(code.rawValue): \(reason)"
        if let sw = statusWord { s += " (SW \(sw))" }
        return s
    }
}

/// Names of the protocol steps used in `AccessControlError.step`.
public enum AccessControlStep {
    public static let getChallenge = "GET CHALLENGE"
    public static let externalAuthenticate = "EXTERNAL AUTHENTICATE"
    public static let mseSetAT = "MSE:Set AT"
    public static let mseSetKAT = "MSE:Set KAT"
    public static let gaEncryptedNonce = "GA encrypted nonce"
    public static let gaMapNonce = "GA map nonce"
    public static let gaKeyAgreement = "GA key agreement"
    public static let gaMutualAuthentication = "GA mutual authentication"
    public static let cam = "CAM"
    public static let chipAuthentication = "CA"
    public static let activeAuthentication = "AA"
    public static let password = "password"
    public static let choose = "choose protocol"
}
