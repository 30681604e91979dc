// MRTDCrypto public API contract.
//
// This file fixes the signatures that the other modules (secure messaging, access control, the
// virtual chip, trust) are written against. The crypto owner replaces every `fatalError` body with
// an OpenSSL-backed implementation (moving types into their own files is fine) and may ADD API, but
// must not rename or remove what is declared here without updating all callers.
//
// Conventions: all byte strings are `[UInt8]`, big-endian for integers; field elements and
// coordinates are fixed width (the field size in bytes; a leading zero is never dropped);
// EC points are uncompressed `04 || X || Y`.

// MARK: - Public keys and signatures

public enum SignatureAlgorithm: Sendable, Hashable {
    case rsaPKCS1v15(HashAlgorithm)
    case rsaPSS(hash: HashAlgorithm, mgf1Hash: HashAlgorithm, saltLength: Int)
    /// DER-encoded ECDSA-Sig-Value.
    case ecdsa(HashAlgorithm)
    /// Plain r||s (BSI TR-03111), each `fieldSize` wide — as used by Active Authentication.
    case ecdsaPlain(HashAlgorithm)
}

/// A public key from a SubjectPublicKeyInfo: RSA, or EC on a named or explicit curve.
public struct PublicKey: Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        case rsa(modulusBits: Int)
        case ec(ECCurve)
    }
    /// Accepts EC keys with explicit domain parameters (matched to the named curve when equal; otherwise
    /// used as given). Tolerates BER oddities real documents carry where harmless.
    public init(subjectPublicKeyInfo der: [UInt8]) throws(CryptoError) { fatalError("unimplemented") }
    public init(rsaModulus: [UInt8], exponent: [UInt8]) throws(CryptoError) { fatalError("unimplemented") }
    public init(ecPoint: [UInt8], curve: ECCurve) throws(CryptoError) { fatalError("unimplemented") }
    public var kind: Kind { fatalError("unimplemented") }
    /// Re-encoded DER SubjectPublicKeyInfo (named curve OID when the curve is named).
    public var subjectPublicKeyInfo: [UInt8] { fatalError("unimplemented") }
    /// RSA modulus / EC public point.
    public var rsaModulus: [UInt8]? { fatalError("unimplemented") }
    public var ecPoint: [UInt8]? { fatalError("unimplemented") }
    /// Verifies `signature` over `message` (the message is hashed here). False on any mismatch;
    /// throws only when the algorithm does not fit the key. Tolerates a superfluous leading zero
    /// in an RSA signature and non-minimal DER integers in ECDSA signatures.
    public func verify(signature: [UInt8], message: [UInt8], algorithm: SignatureAlgorithm) throws(CryptoError) -> Bool { fatalError("unimplemented") }
    /// Verifies over an already computed digest.
    public func verify(signature: [UInt8], digest: [UInt8], algorithm: SignatureAlgorithm) throws(CryptoError) -> Bool { fatalError("unimplemented") }
    /// Raw RSA public operation s^e mod n, fixed width (modulus size) — for ISO/IEC 9796-2 message recovery.
    public func rsaPublicOperation(_ signature: [UInt8]) throws(CryptoError) -> [UInt8] { fatalError("unimplemented") }
}

/// A private key, for the virtual chip and for generating test PKIs.
public struct PrivateKey: Sendable {
    public static func generateRSA(bits: Int, publicExponent: UInt64 = 65537) throws(CryptoError) -> PrivateKey { fatalError("unimplemented") }
    public static func generateEC(curve: ECCurve) throws(CryptoError) -> PrivateKey { fatalError("unimplemented") }
    /// PKCS#8 DER import/export (so generated profiles can be saved and loaded).
    public init(pkcs8 der: [UInt8]) throws(CryptoError) { fatalError("unimplemented") }
    public var pkcs8: SecretBytes { fatalError("unimplemented") }
    public var publicKey: PublicKey { fatalError("unimplemented") }
    /// EC private scalar (fixed width) — for the chip's CA/PACE-CAM key agreement.
    public var ecPrivateScalar: SecretBytes? { fatalError("unimplemented") }
    public func sign(_ message: [UInt8], algorithm: SignatureAlgorithm) throws(CryptoError) -> [UInt8] { fatalError("unimplemented") }
    /// Raw RSA private operation m^d mod n, fixed width — for ISO/IEC 9796-2 signatures (active authentication).
    public func rsaPrivateOperation(_ message: [UInt8]) throws(CryptoError) -> [UInt8] { fatalError("unimplemented") }
}

/// ECDSA signature format conversions.
public enum ECDSASignature {
    /// DER ECDSA-Sig-Value → r||s, each `width` bytes.
    public static func plain(fromDER der: [UInt8], width: Int) throws(CryptoError) -> [UInt8] { fatalError("unimplemented") }
    /// r||s → DER ECDSA-Sig-Value.
    public static func der(fromPlain plain: [UInt8]) throws(CryptoError) -> [UInt8] { fatalError("unimplemented") }
}
