internal import CLibCrypto

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
    /// curves written out. A curve that is not one of them must also pass the validity checks of SEC 1
    /// §3.1.1.2.1 (`ECCurve.init(p:a:b:generator:order:cofactor:)`).
    public static let maxECFieldBits = 1024

    /// Largest finite-field Diffie-Hellman modulus: 4096 bits. ICAO 9303-11 §9.5.1 standardises the
    /// RFC 5114 groups of 1024 and 2048 bits; 4096 leaves room for the RFC 3526 groups up to 4096.
    public static let maxDHModulusBits = 4096

    /// Bits of a big-endian unsigned magnitude (leading zero octets ignored), counted on the bytes so
    /// that a limit is checked before a big number is built.
    public static func bitLength(_ bytes: [UInt8]) -> Int {
        guard let i = bytes.firstIndex(where: { $0 != 0 }) else { return 0 }
        return (bytes.count - i - 1) * 8 + (8 - bytes[i].leadingZeroBitCount)
    }

    /// Throws `limitExceeded` when `bytes` holds a number of more than `limit` bits.
    static func check(_ bytes: [UInt8], atMost limit: Int, _ name: String, what: String, function: String) throws(CryptoError) {
        // the byte count bounds the bit count from above: only long inputs need counting
        guard bytes.count * 8 > limit else { return }
        let bits = bitLength(bytes)
        guard bits <= limit else {
            throw CryptoError(.limitExceeded, function: function,
                              "\(what) of \(bits) bits exceeds the limit of \(limit) bits (CryptoLimits.\(name))")
        }
    }
}

extension BigNumber {
    /// Miller–Rabin with the number of rounds libcrypto picks for the size (BN_check_prime: error
    /// probability below 2^-128).
    var isProbablePrime: Bool {
        let n = bn, ctx = BNContext()
        return BN_check_prime(n.pointer, ctx.pointer, nil) == 1
    }

    /// ⌊√a⌋ by Newton's iteration on big numbers.
    static func integerSquareRoot(_ a: BigNumber) -> BigNumber {
        if a.isZero { return a }
        // start above the root: 2^⌈bits/2⌉
        var x = BigNumber([1] + [UInt8](repeating: 0, count: (a.bitCount + 1) / 2 / 8 + 1))
        while true {
            let y = BigNumber.divide(x + BigNumber.divide(a, x).0, BigNumber(2)).0
            if !(y < x) { return x }
            x = y
        }
    }
}
