public import ASN1TLV

/// DG15, the Active Authentication public key (ICAO 9303-10 §4.7.15, 9303-11 §6.1):
/// `6F { SubjectPublicKeyInfo }` (RFC 5280 §4.1.2.7). Parsed structurally only; no cryptography here.
///
/// ```
/// SubjectPublicKeyInfo ::= SEQUENCE { algorithm AlgorithmIdentifier, subjectPublicKey BIT STRING }
/// RSAPublicKey ::= SEQUENCE { modulus INTEGER, publicExponent INTEGER }           -- RFC 8017 A.1.1
/// ECParameters ::= CHOICE { namedCurve OBJECT IDENTIFIER, specifiedCurve SpecifiedECDomain, ... } -- RFC 5480 / X9.62
/// ```
public struct DG15File: Sendable, Hashable {
    public static let rsaEncryption = ASN1ObjectIdentifier(arcs: [1, 2, 840, 113549, 1, 1, 1])
    public static let ecPublicKey = ASN1ObjectIdentifier(arcs: [1, 2, 840, 10045, 2, 1])

    public enum PublicKey: Sendable, Hashable {
        /// Modulus (unsigned, big-endian) and public exponent.
        case rsa(modulus: [UInt8], exponent: [UInt8])
        /// The encoded point and the curve: a named curve OID, or explicit parameters (the DER node's bytes).
        case ec(point: [UInt8], namedCurve: ASN1ObjectIdentifier?, explicitParameters: [UInt8]?, fieldBits: Int?)
        /// Another algorithm: the subjectPublicKey bits as found.
        case other(key: [UInt8])
    }

    public let raw: [UInt8]
    /// The SubjectPublicKeyInfo DER exactly as found (what an AA verifier imports).
    public let subjectPublicKeyInfo: [UInt8]
    public let algorithm: ASN1ObjectIdentifier
    /// AlgorithmIdentifier.parameters as found (nil when absent).
    public let algorithmParameters: [UInt8]?
    public let publicKey: PublicKey

    /// RSA modulus length in bits, or EC field size in bits when known.
    public var keySizeBits: Int? {
        switch publicKey {
        case .rsa(let m, _): return DG15File.bitLength(m)
        case .ec(_, _, _, let bits): return bits
        case .other: return nil
        }
    }

    public init(bytes: [UInt8]) throws(LDSParseError) {
        let r = LDSReader(file: .dg15)
        raw = bytes
        let root = try r.parseFile(bytes, tag: 0x6F)
        let spki = try r.child(root, at: 0, "SubjectPublicKeyInfo")
        try r.expect(spki, 0x30, "SubjectPublicKeyInfo")
        subjectPublicKeyInfo = spki.encodedBytes
        let alg = try r.child(spki, at: 0, "algorithm")
        try r.expect(alg, 0x30, "AlgorithmIdentifier")
        algorithm = try r.oid(try r.child(alg, at: 0, "algorithm"), "algorithm")
        let params = alg.children.count > 1 ? alg.children[1] : nil
        algorithmParameters = params?.encodedBytes
        let bits = try r.child(spki, at: 1, "subjectPublicKey")
        try r.expect(bits, 0x03, "subjectPublicKey BIT STRING")
        let key = try r.value(bits) { n throws(TLVError) in try n.bitStringValue() }
        switch algorithm {
        case DG15File.rsaEncryption:
            let keyNode = try r.parse(bits.value.dropFirst())
            try r.expect(keyNode, 0x30, "RSAPublicKey")
            let m = try r.child(keyNode, at: 0, "modulus")
            let e = try r.child(keyNode, at: 1, "publicExponent")
            try r.expect(m, 0x02, "modulus")
            try r.expect(e, 0x02, "publicExponent")
            // Read as unsigned magnitudes: some issuers encode the modulus without the leading 00 octet that DER
            // requires for a positive INTEGER whose top bit is set (the BSI 2008 specimen does); OpenSSL accepts it.
            let modulus = try DG15File.magnitude(m, reader: r)
            let exponent = try DG15File.magnitude(e, reader: r)
            let modulusBits = DG15File.bitLength(modulus)
            guard modulusBits <= LDSLimits.maxActiveAuthenticationRSABits else {
                throw r.error(
                    .limitExceeded, m,
                    "RSA Active Authentication key of \(modulusBits) bits exceeds the limit of "
                        + "\(LDSLimits.maxActiveAuthenticationRSABits) bits (LDSLimits.maxActiveAuthenticationRSABits)")
            }
            publicKey = .rsa(modulus: modulus, exponent: exponent)
        case DG15File.ecPublicKey:
            guard let p = params else { throw r.error(.missingElement, alg, "EC key without domain parameters") }
            switch p.tag {
            case 0x06:
                let curve = try r.oid(p, "namedCurve")
                publicKey = .ec(
                    point: key, namedCurve: curve, explicitParameters: nil, fieldBits: DG15File.namedCurveBits(curve))
            case 0x30:
                // SpecifiedECDomain ::= SEQUENCE { version, fieldID SEQUENCE { fieldType OID, prime INTEGER }, … }
                var fieldBits: Int?
                if p.children.count > 1, let prime = p.children[1].children.dropFirst().first, prime.tag == 0x02 {
                    fieldBits = DG15File.bitLength(
                        try r.value(prime) { n throws(TLVError) in try n.unsignedIntegerBytes() })
                }
                publicKey = .ec(point: key, namedCurve: nil, explicitParameters: p.encodedBytes, fieldBits: fieldBits)
            default:
                throw r.error(.unsupported, p, "EC parameters \(TLVTag.describe(p.tag)) (implicitlyCA?) not supported")
            }
        default:
            publicKey = .other(key: key)
        }
    }

    static func magnitude(_ n: TLVNode, reader r: LDSReader) throws(LDSParseError) -> [UInt8] {
        guard !n.value.isEmpty else { throw r.error(.invalidValue, n, "empty INTEGER") }
        let stripped = Array(n.value.drop { $0 == 0 })
        return stripped.isEmpty ? [0] : stripped
    }

    static func bitLength(_ b: [UInt8]) -> Int {
        guard let i = b.firstIndex(where: { $0 != 0 }) else { return 0 }
        return (b.count - i) * 8 - b[i].leadingZeroBitCount
    }

    /// Field sizes of the curves ePassports use (RFC 5639 brainpool, SEC 2 / NIST).
    static func namedCurveBits(_ oid: ASN1ObjectIdentifier) -> Int? {
        switch oid.dotted {
        case "1.2.840.10045.3.1.7", "1.3.36.3.3.2.8.1.1.7", "1.3.132.0.10": return 256
        case "1.3.132.0.34", "1.3.36.3.3.2.8.1.1.11": return 384
        case "1.3.132.0.35": return 521
        case "1.3.36.3.3.2.8.1.1.13": return 512
        case "1.3.36.3.3.2.8.1.1.9": return 320
        case "1.3.36.3.3.2.8.1.1.5", "1.3.132.0.33": return 224
        case "1.3.36.3.3.2.8.1.1.3", "1.2.840.10045.3.1.1": return 192
        case "1.3.36.3.3.2.8.1.1.1": return 160
        default: return nil
        }
    }
}
