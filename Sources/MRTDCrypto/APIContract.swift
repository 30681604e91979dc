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

// MARK: - Errors

/// A cryptographic failure, naming the OpenSSL (or internal) function that failed.
public struct CryptoError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        case invalidKey, invalidInput, invalidPoint, invalidParameters, unsupportedAlgorithm
        case badPadding, verificationFailed, openSSL
    }
    public var code: Code
    public var function: String
    public var reason: String
    public init(_ code: Code, function: String, _ reason: String) {
        self.code = code; self.function = function; self.reason = reason
    }
    public var description: String { "\(function): \(reason)" }
}

// MARK: - Secrets and randomness

/// Key material that is zeroized when the last copy goes away. Never printed: `description` is redacted.
public struct SecretBytes: Sendable, Hashable, CustomStringConvertible {
    public init(_ bytes: [UInt8]) { fatalError("unimplemented") }
    public var count: Int { fatalError("unimplemented") }
    /// Lend the bytes out for the duration of the closure.
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R { fatalError("unimplemented") }
    /// A copy of the bytes (the caller owns its zeroization).
    public var bytes: [UInt8] { fatalError("unimplemented") }
    public var description: String { "SecretBytes(\(count) bytes, redacted)" }
    public static func == (a: SecretBytes, b: SecretBytes) -> Bool { fatalError("unimplemented") }
    public func hash(into hasher: inout Hasher) { fatalError("unimplemented") }
}

/// Where random bytes come from; tests inject a fixed source.
public protocol RandomSource: Sendable {
    func randomBytes(count: Int) -> [UInt8]
}

/// OpenSSL's CSPRNG (RAND_bytes).
public struct SystemRandom: RandomSource {
    public init() {}
    public func randomBytes(count: Int) -> [UInt8] { fatalError("unimplemented") }
}

/// Returns queued byte strings in order (each call takes the next `count` bytes of the queue);
/// for tests that reproduce published examples. Runs out → precondition failure.
public final class FixedRandom: RandomSource {
    public init(_ chunks: [[UInt8]]) { fatalError("unimplemented") }
    public func randomBytes(count: Int) -> [UInt8] { fatalError("unimplemented") }
}

/// Constant-time helpers.
public enum ConstantTime {
    /// Equal length and equal bytes, in time independent of where they differ.
    public static func equals(_ a: [UInt8], _ b: [UInt8]) -> Bool { fatalError("unimplemented") }
}

// MARK: - Hashes

public enum HashAlgorithm: String, Sendable, CaseIterable, Hashable {
    case sha1, sha224, sha256, sha384, sha512
    public var outputLength: Int { fatalError("unimplemented") }
    /// Dotted OID (e.g. 2.16.840.1.101.3.4.2.1 for SHA-256).
    public var oid: String { fatalError("unimplemented") }
    public init?(oid: String) { fatalError("unimplemented") }
    public func hash(_ data: [UInt8]) -> [UInt8] { fatalError("unimplemented") }
}

// MARK: - Block ciphers, MACs, padding

public enum CipherAlgorithm: String, Sendable, Hashable, CaseIterable {
    case tripleDES = "3DES", aes128 = "AES-128", aes192 = "AES-192", aes256 = "AES-256"
    /// Key length in bytes (16 for 2-key 3DES).
    public var keyLength: Int { fatalError("unimplemented") }
    /// 8 for 3DES, 16 for AES.
    public var blockSize: Int { fatalError("unimplemented") }
}

/// ISO/IEC 9797-1 padding method 2 (0x80 then zeros to the block size; always adds padding).
public enum Padding {
    public static func pad(_ data: [UInt8], blockSize: Int) -> [UInt8] { fatalError("unimplemented") }
    public static func unpad(_ data: [UInt8], blockSize: Int) throws(CryptoError) -> [UInt8] { fatalError("unimplemented") }
}

/// 2-key (16-byte key) or 3-key (24-byte key) Triple DES, EDE, no padding.
public enum TripleDES {
    public static func encryptCBC(key: SecretBytes, iv: [UInt8] = [UInt8](repeating: 0, count: 8), _ data: [UInt8]) throws(CryptoError) -> [UInt8] { fatalError("unimplemented") }
    public static func decryptCBC(key: SecretBytes, iv: [UInt8] = [UInt8](repeating: 0, count: 8), _ data: [UInt8]) throws(CryptoError) -> [UInt8] { fatalError("unimplemented") }
    /// Sets the DES odd-parity bit of every byte.
    public static func adjustParity(_ key: [UInt8]) -> [UInt8] { fatalError("unimplemented") }
}

/// AES-128/192/256 by key length, no padding.
public enum AES {
    public static func encryptCBC(key: SecretBytes, iv: [UInt8], _ data: [UInt8]) throws(CryptoError) -> [UInt8] { fatalError("unimplemented") }
    public static func decryptCBC(key: SecretBytes, iv: [UInt8], _ data: [UInt8]) throws(CryptoError) -> [UInt8] { fatalError("unimplemented") }
    public static func encryptECB(key: SecretBytes, _ data: [UInt8]) throws(CryptoError) -> [UInt8] { fatalError("unimplemented") }
    public static func decryptECB(key: SecretBytes, _ data: [UInt8]) throws(CryptoError) -> [UInt8] { fatalError("unimplemented") }
}

/// ISO/IEC 9797-1 MAC algorithm 3 ("retail MAC", single DES with final 3DES) with a 16-byte key.
public enum RetailMAC {
    /// `data` must already be padded (ISO 9797-1 method 2) to a multiple of 8 when `padded` is true;
    /// otherwise padding method 2 is applied here. Returns the 8-byte MAC.
    public static func mac(key: SecretBytes, _ data: [UInt8], padded: Bool = false) throws(CryptoError) -> [UInt8] { fatalError("unimplemented") }
}

/// AES-CMAC (NIST SP 800-38B, RFC 4493), full 16-byte tag.
public enum AESCMAC {
    public static func mac(key: SecretBytes, _ data: [UInt8]) throws(CryptoError) -> [UInt8] { fatalError("unimplemented") }
}

/// The ICAO 9303-11 §9.7.1 key derivation function: KDF(K, c) = H(K || c) truncated/split per cipher.
/// SHA-1 for 3DES (two keys with parity adjusted) and AES-128; SHA-256 for AES-192/256.
public enum KDF {
    public static let encryptionCounter: UInt32 = 1
    public static let macCounter: UInt32 = 2
    public static let passwordCounter: UInt32 = 3
    public static func derive(_ sharedSecret: [UInt8], counter: UInt32, cipher: CipherAlgorithm) -> SecretBytes { fatalError("unimplemented") }
}

// MARK: - Big integers (for PACE mappings)

/// Non-negative big integer (OpenSSL BIGNUM behind the scenes), big-endian magnitude.
public struct BigNumber: Sendable, Hashable, Comparable, CustomStringConvertible {
    public init(_ magnitude: [UInt8]) { fatalError("unimplemented") }
    public init(_ value: UInt64) { fatalError("unimplemented") }
    /// Minimal big-endian bytes ([0] for zero).
    public var bytes: [UInt8] { fatalError("unimplemented") }
    /// Left-padded to `width` bytes (precondition: fits).
    public func bytes(width: Int) -> [UInt8] { fatalError("unimplemented") }
    public var bitCount: Int { fatalError("unimplemented") }
    public var isZero: Bool { fatalError("unimplemented") }
    public static func < (a: BigNumber, b: BigNumber) -> Bool { fatalError("unimplemented") }
    public var description: String { fatalError("unimplemented") }

    public func mod(_ m: BigNumber) -> BigNumber { fatalError("unimplemented") }
    public static func modAdd(_ a: BigNumber, _ b: BigNumber, _ m: BigNumber) -> BigNumber { fatalError("unimplemented") }
    public static func modSub(_ a: BigNumber, _ b: BigNumber, _ m: BigNumber) -> BigNumber { fatalError("unimplemented") }
    public static func modMul(_ a: BigNumber, _ b: BigNumber, _ m: BigNumber) -> BigNumber { fatalError("unimplemented") }
    public static func modExp(_ a: BigNumber, _ e: BigNumber, _ m: BigNumber) -> BigNumber { fatalError("unimplemented") }
    /// nil when not invertible.
    public static func modInverse(_ a: BigNumber, _ m: BigNumber) -> BigNumber? { fatalError("unimplemented") }
    public static func + (a: BigNumber, b: BigNumber) -> BigNumber { fatalError("unimplemented") }
    /// precondition a >= b
    public static func - (a: BigNumber, b: BigNumber) -> BigNumber { fatalError("unimplemented") }
    public static func * (a: BigNumber, b: BigNumber) -> BigNumber { fatalError("unimplemented") }
    /// Quotient and remainder.
    public static func divide(_ a: BigNumber, _ b: BigNumber) -> (BigNumber, BigNumber) { fatalError("unimplemented") }
}

// MARK: - Elliptic curves

/// Named curves used by ICAO 9303-11 standardized domain parameters and by document signers.
public enum NamedCurve: String, Sendable, CaseIterable, Hashable {
    case secp192r1, secp224r1, secp256r1, secp384r1, secp521r1
    case brainpoolP192r1, brainpoolP224r1, brainpoolP256r1, brainpoolP320r1, brainpoolP384r1, brainpoolP512r1
}

/// An elliptic curve group over a prime field, named or given by explicit parameters.
public struct ECCurve: Sendable, Hashable {
    public init(named: NamedCurve) { fatalError("unimplemented") }
    /// Explicit parameters (X9.62 ECParameters). The generator is an encoded point (04||X||Y or compressed).
    /// Matches a named curve when the parameters are identical (so `namedCurve` is set).
    public init(p: [UInt8], a: [UInt8], b: [UInt8], generator: [UInt8], order: [UInt8], cofactor: [UInt8]) throws(CryptoError) { fatalError("unimplemented") }
    /// Set when the curve is (or equals) a named curve.
    public var namedCurve: NamedCurve? { fatalError("unimplemented") }
    public var p: [UInt8] { fatalError("unimplemented") }
    public var a: [UInt8] { fatalError("unimplemented") }
    public var b: [UInt8] { fatalError("unimplemented") }
    public var order: [UInt8] { fatalError("unimplemented") }
    public var cofactor: [UInt8] { fatalError("unimplemented") }
    /// Uncompressed generator 04||X||Y.
    public var generator: [UInt8] { fatalError("unimplemented") }
    /// Field size in bytes (32 for 256-bit curves, 66 for P-521).
    public var fieldSize: Int { fatalError("unimplemented") }

    /// Validates and returns the uncompressed encoding (accepts compressed input); rejects points not on the curve or at infinity.
    public func decodePoint(_ encoded: [UInt8]) throws(CryptoError) -> [UInt8] { fatalError("unimplemented") }
    public func isOnCurve(_ point: [UInt8]) -> Bool { fatalError("unimplemented") }
    public func add(_ p: [UInt8], _ q: [UInt8]) throws(CryptoError) -> [UInt8] { fatalError("unimplemented") }
    /// scalar · point
    public func multiply(_ point: [UInt8], by scalar: [UInt8]) throws(CryptoError) -> [UInt8] { fatalError("unimplemented") }
    /// scalar · G
    public func multiplyGenerator(by scalar: [UInt8]) throws(CryptoError) -> [UInt8] { fatalError("unimplemented") }
    /// A key pair with private scalar in [1, n-1] from the random source.
    public func generateKeyPair(random: any RandomSource) throws(CryptoError) -> (privateKey: SecretBytes, publicKey: [UInt8]) { fatalError("unimplemented") }
    /// ECDH: x-coordinate of privateKey · peerPublic, fixed width (fieldSize). Validates the peer point.
    public func sharedSecret(privateKey: SecretBytes, peerPublicKey: [UInt8]) throws(CryptoError) -> SecretBytes { fatalError("unimplemented") }
    /// x-coordinate of an encoded point, fixed width.
    public func xCoordinate(_ point: [UInt8]) throws(CryptoError) -> [UInt8] { fatalError("unimplemented") }
    /// Same curve with a different generator (PACE mapping result).
    public func withGenerator(_ point: [UInt8]) throws(CryptoError) -> ECCurve { fatalError("unimplemented") }
}

// MARK: - Finite-field Diffie-Hellman

public struct DHGroup: Sendable, Hashable {
    /// RFC 5114 groups: 1 = 1024-bit/160-bit subgroup (id 0), 2 = 2048/224 (id 1), 3 = 2048/256 (id 2).
    public enum RFC5114: Int, Sendable, CaseIterable { case group1024_160 = 0, group2048_224 = 1, group2048_256 = 2 }
    public init(_ group: RFC5114) { fatalError("unimplemented") }
    public init(p: [UInt8], g: [UInt8], q: [UInt8]?) throws(CryptoError) { fatalError("unimplemented") }
    public var p: [UInt8] { fatalError("unimplemented") }
    public var g: [UInt8] { fatalError("unimplemented") }
    public var q: [UInt8]? { fatalError("unimplemented") }
    /// Size of p in bytes; public keys and shared secrets are this wide.
    public var primeSize: Int { fatalError("unimplemented") }
    /// Private key in [1, q-1] (or of the size of q); public = g^x mod p, fixed width.
    public func generateKeyPair(random: any RandomSource) throws(CryptoError) -> (privateKey: SecretBytes, publicKey: [UInt8]) { fatalError("unimplemented") }
    public func publicKey(for privateKey: SecretBytes) throws(CryptoError) -> [UInt8] { fatalError("unimplemented") }
    /// peer^x mod p, fixed width; rejects peer values outside [2, p-2] (and not in the subgroup when q is known).
    public func sharedSecret(privateKey: SecretBytes, peerPublicKey: [UInt8]) throws(CryptoError) -> SecretBytes { fatalError("unimplemented") }
    /// Same group with a different generator.
    public func withGenerator(_ g: [UInt8]) throws(CryptoError) -> DHGroup { fatalError("unimplemented") }
}

/// ICAO 9303-11 §9.5.1 standardized domain parameters, ids 0–2 (DH) and 8–18 (ECDH).
public enum StandardDomainParameters {
    public enum Parameters: Sendable, Hashable {
        case dh(DHGroup)
        case ec(ECCurve)
    }
    /// nil for reserved or unknown ids.
    public static func parameters(id: Int) -> Parameters? { fatalError("unimplemented") }
}

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
