import ASN1TLV
public import MRTDCrypto
public import MRTDDocument

/// The group a PACE or Chip Authentication key agreement runs in: an elliptic curve (ECDH) or a
/// finite-field group (DH) (ICAO 9303-11 §9.5; BSI TR-03110-3 A.2).
public enum KeyAgreementGroup: Sendable, Hashable {
    case ec(ECCurve)
    case dh(DHGroup)

    public var isEC: Bool { if case .ec = self { return true } else { return false } }

    /// The tag of the public key in the public key data object 7F49 (ICAO 9303-11 §9.4.3–§9.4.4: '86' EC point, '84' DH value).
    public var publicKeyTag: UInt8 { isEC ? 0x86 : 0x84 }

    /// Width of a public value / shared secret in bytes.
    public var elementSize: Int {
        switch self {
        case .ec(let c): return c.fieldSize
        case .dh(let g): return g.primeSize
        }
    }

    /// The group of standardized domain parameters `id` (9303-11 §9.5.1), nil when unknown.
    public static func standardized(_ id: Int) -> KeyAgreementGroup? {
        switch StandardDomainParameters.parameters(id: id) {
        case .ec(let c)?: return .ec(c)
        case .dh(let g)?: return .dh(g)
        case nil: return nil
        }
    }

    static let namedCurveOIDs: [String: NamedCurve] = [
        "1.2.840.10045.3.1.1": .secp192r1, "1.3.132.0.33": .secp224r1, "1.2.840.10045.3.1.7": .secp256r1,
        "1.3.132.0.34": .secp384r1, "1.3.132.0.35": .secp521r1,
        "1.3.36.3.3.2.8.1.1.3": .brainpoolP192r1, "1.3.36.3.3.2.8.1.1.5": .brainpoolP224r1,
        "1.3.36.3.3.2.8.1.1.7": .brainpoolP256r1, "1.3.36.3.3.2.8.1.1.9": .brainpoolP320r1,
        "1.3.36.3.3.2.8.1.1.11": .brainpoolP384r1, "1.3.36.3.3.2.8.1.1.13": .brainpoolP512r1,
    ]

    /// The group described by parsed domain parameters (standardized id, named curve, explicit EC or DH).
    public init(_ parameters: DomainParameters, step: String) throws(AccessControlError) {
        switch parameters {
        case .standardized(let id):
            guard let g = KeyAgreementGroup.standardized(id) else {
                throw AccessControlError(.unsupported, step: step, "standardized domain parameters \(id) are unknown")
            }
            self = g
        case .namedCurve(let oid):
            guard let n = KeyAgreementGroup.namedCurveOIDs[oid.dotted] else {
                throw AccessControlError(.unsupported, step: step, "named curve \(oid) is not supported")
            }
            self = .ec(ECCurve(named: n))
        case .ecExplicit(let e):
            do {
                self = .ec(
                    try ECCurve(p: e.p, a: e.a, b: e.b, generator: e.base, order: e.order, cofactor: e.cofactor ?? [1]))
            } catch {
                throw AccessControlError(.cryptoFailure, step: step, "explicit curve parameters: \(error.description)")
            }
        case .dh(let d):
            do {
                self = .dh(try DHGroup(p: d.p, g: d.g, q: d.q))
            } catch {
                throw AccessControlError(.cryptoFailure, step: step, "DH parameters: \(error.description)")
            }
        }
    }

    /// The order from which private keys are drawn (curve order, DH q, or p when q is unknown).
    var privateKeyBound: [UInt8] {
        switch self {
        case .ec(let c): return c.order
        case .dh(let g): return g.q ?? g.p
        }
    }

    /// Draws a private key in [1, bound-1] from `random` (width of the bound, bits above the bound's length
    /// cleared, redrawn when out of range)
    /// and computes the public key with the group's current generator. Deterministic for a fixed source.
    public func generateKeyPair(random: any RandomSource, step: String) throws(AccessControlError) -> (
        privateKey: SecretBytes, publicKey: [UInt8]
    ) {
        let bound = BigNumber(privateKeyBound)
        let width = (bound.bitCount + 7) / 8
        let excess = width * 8 - bound.bitCount
        for _ in 0..<64 {
            var candidate = random.randomBytes(count: width)
            if excess > 0, !candidate.isEmpty { candidate[0] &= UInt8(0xFF >> excess) }
            let k = BigNumber(candidate)
            guard !k.isZero, k < bound else { continue }
            let sk = SecretBytes(candidate)
            do {
                return (sk, try publicKey(for: sk))
            } catch {
                throw AccessControlError(.cryptoFailure, step: step, "key generation: \(error.description)")
            }
        }
        throw AccessControlError(.cryptoFailure, step: step, "the random source gave no usable private key")
    }

    /// The public key of a private key, fixed width.
    public func publicKey(for privateKey: SecretBytes) throws(CryptoError) -> [UInt8] {
        switch self {
        case .ec(let c): return try c.multiplyGenerator(by: privateKey.bytes)
        case .dh(let g): return try g.publicKey(for: privateKey)
        }
    }

    /// Key agreement: ECDH x-coordinate or DH value, fixed width (9303-11 §9.6).
    public func sharedSecret(privateKey: SecretBytes, peerPublicKey: [UInt8]) throws(CryptoError) -> SecretBytes {
        switch self {
        case .ec(let c): return try c.sharedSecret(privateKey: privateKey, peerPublicKey: peerPublicKey)
        case .dh(let g): return try g.sharedSecret(privateKey: privateKey, peerPublicKey: peerPublicKey)
        }
    }

    /// Validates a peer's public key and returns its canonical encoding (uncompressed point / fixed-width value).
    public func validatePublicKey(_ key: [UInt8]) throws(CryptoError) -> [UInt8] {
        switch self {
        case .ec(let c):
            return try c.decodePoint(key)
        case .dh(let g):
            let y = BigNumber(key)
            let p = BigNumber(g.p)
            guard BigNumber(1) < y, y < p - BigNumber(1) else {
                throw CryptoError(.invalidKey, function: "DH public key", "value outside [2, p-2]")
            }
            return y.bytes(width: g.primeSize)
        }
    }

    /// The plain public key value as carried in data objects and public key data objects (ICAO 9303-11
    /// §9.4.1, §9.4.5, §4.4.5.2.1, §6.2.4.3): EC points uncompressed (fixed width); DH values as unsigned
    /// integers with the minimum number of octets (no leading 00).
    public func encodePublicKey(_ key: [UInt8]) -> [UInt8] {
        guard !isEC else { return key }
        let stripped = Array(key.drop { $0 == 0 })
        return stripped.isEmpty ? [0] : stripped
    }

    /// The same group with another generator (the PACE mapping result).
    public func withGenerator(_ generator: [UInt8]) throws(CryptoError) -> KeyAgreementGroup {
        switch self {
        case .ec(let c): return .ec(try c.withGenerator(generator))
        case .dh(let g): return .dh(try g.withGenerator(generator))
        }
    }

    /// The current generator (uncompressed point, or g fixed width).
    public var generator: [UInt8] {
        switch self {
        case .ec(let c): return c.generator
        case .dh(let g): return BigNumber(g.g).bytes(width: g.primeSize)
        }
    }
}
