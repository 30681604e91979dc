/// Key and domain-parameter sizes this package accepts, each checked from the encoded length before any
/// big-number arithmetic (docs/reliability.md, "Limits"). A key or curve beyond them is refused with a
/// `CryptoError` of code `limitExceeded` naming the limit: verification cost grows with the square to
/// the cube of the size, so without them a 32768-bit key or a 16384-bit curve from a chip, a bundle or a
/// master list costs seconds to minutes.
public enum CryptoLimits {
    /// Largest RSA modulus: 8192 bits. The largest seen on CSCAs and document signers is 4096 bits
    /// (ICAO 9303-12 §4 recommends at most 4096 for CSCAs); 8192 leaves room for one doubling. Active
    /// Authentication keys are held to 4096 bits by DG15's parser (`LDSLimits.maxActiveAuthenticationRSABits`).
    public static let maxRSAModulusBits = 8192

    /// Largest RSA public exponent: 256 bits, the FIPS 186-5 §A.1.1 bound (e < 2^256). Every genuine
    /// certificate seen uses 65537 (17 bits) or 3.
    public static let maxRSAExponentBits = 256

    /// Largest explicit elliptic-curve field: 1024 bits. The largest standardised curves of ICAO 9303-11
    /// §9.5.1 / BSI TR-03111 are P-521 and brainpoolP512r1; explicit parameters on documents are those
    /// curves written out. Checked first, on the encoded length, before the table lookup of
    /// `explicitCurves`.
    public static let maxECFieldBits = 1024

    /// The only curves accepted as explicit EC parameters: the standard curves written out (the NIST and
    /// brainpool curves of ICAO 9303-11 §9.5.1 and BSI TR-03111, which is what every document and CSCA seen
    /// carries). Refusing any other curve costs a table lookup; validating it (SEC 1 §3.1.1.2.1, down to the
    /// primality of n and p) would cost 1000–3000 times that per hostile input.
    public static let explicitCurves: [NamedCurve] = NamedCurve.allCases

    /// Largest finite-field Diffie-Hellman modulus: 4096 bits. ICAO 9303-11 §9.5.1 standardises the
    /// RFC 5114 groups of 1024 and 2048 bits; 4096 leaves room for the RFC 3526 groups up to 4096.
    public static let maxDHModulusBits = 4096

    /// Deepest nesting in a key structure MRTDCrypto parses (SubjectPublicKeyInfo, PKCS #8, ECDSA-Sig-Value):
    /// 10. The deepest genuine one is an RSASSA-PSS SubjectPublicKeyInfo whose parameters name the MGF1 hash
    /// (SPKI / AlgorithmIdentifier / RSASSA-PSS-params / [1] / MaskGenAlgorithm / AlgorithmIdentifier / OID):
    /// 7 levels; explicit EC parameters nest 4.
    public static let maxKeyStructureDepth = 10

    /// Most data objects in one key structure MRTDCrypto parses: 128. An SPKI with explicit EC parameters
    /// and a seed holds 16, a PKCS #8 EC key about 20, an RSA-PSS SPKI about 15.
    public static let maxKeyStructureElements = 128

    /// Bits of a big-endian unsigned magnitude (leading zero octets ignored), counted on the bytes so
    /// that a limit is checked before a big number is built.
    public static func bitLength(_ bytes: [UInt8]) -> Int {
        guard let i = bytes.firstIndex(where: { $0 != 0 }) else { return 0 }
        return (bytes.count - i - 1) * 8 + (8 - bytes[i].leadingZeroBitCount)
    }

    /// Throws `limitExceeded` when `bytes` holds a number of more than `limit` bits.
    static func check(_ bytes: [UInt8], atMost limit: Int, _ name: String, what: String, function: String)
        throws(CryptoError)
    {
        // the byte count bounds the bit count from above: only long inputs need counting
        guard bytes.count * 8 > limit else { return }
        let bits = bitLength(bytes)
        guard bits <= limit else {
            throw CryptoError(
                .limitExceeded, function: function,
                "\(what) of \(bits) bits exceeds the limit of \(limit) bits (CryptoLimits.\(name))")
        }
    }
}
