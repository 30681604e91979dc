/// The mapping of PACE Integrated Mapping (ICAO Doc 9303-11 §4.4.3.3.2 and Appendix B), used by both the
/// terminal (`MRTDAccessControl`) and the virtual chip: the pseudo-random function R(s, t), the point encoding
/// f_G, and the mapped generator for ECDH and DH.
public enum PACEIntegratedMapping {
    /// Constants c0, c1 of the pseudo-random function (§4.4.3.3.2): l = 128 for 3DES and AES-128,
    /// l = 256 for AES-192 and AES-256.
    static let c0L128: [UInt8] = [
        0xA6, 0x68, 0x89, 0x2A, 0x7C, 0x41, 0xE3, 0xCA, 0x73, 0x9F, 0x40, 0xB0, 0x57, 0xD8, 0x59, 0x04,
    ]
    static let c1L128: [UInt8] = [
        0xA4, 0xE1, 0x36, 0xAC, 0x72, 0x5F, 0x73, 0x8B, 0x01, 0xC1, 0xF6, 0x02, 0x17, 0xC1, 0x88, 0xAD,
    ]
    static let c0L256: [UInt8] = [
        0xD4, 0x63, 0xD6, 0x52, 0x34, 0x12, 0x4E, 0xF7, 0x89, 0x70, 0x54, 0x98, 0x6D, 0xCA, 0x0A, 0x17,
        0x4E, 0x28, 0xDF, 0x75, 0x8C, 0xBA, 0xA0, 0x3F, 0x24, 0x06, 0x16, 0x41, 0x4D, 0x5A, 0x16, 0x76,
    ]
    static let c1L256: [UInt8] = [
        0x54, 0xBD, 0x72, 0x55, 0xF0, 0xAA, 0xF8, 0x31, 0xBE, 0xC3, 0x42, 0x3F, 0xCF, 0x39, 0xD6, 0x9B,
        0x6C, 0xBF, 0x06, 0x66, 0x77, 0xD0, 0xFA, 0xAE, 0x5A, 0xAD, 0xD9, 0x9D, 0xF8, 0xE5, 0x35, 0x17,
    ]

    /// The length l of the nonce s and of each output block x_i, in bytes: 16 (3DES, AES-128) or 32 (AES-192/256).
    public static func nonceLength(_ cipher: CipherAlgorithm) -> Int {
        switch cipher {
        case .tripleDES, .aes128: return 16
        case .aes192, .aes256: return 32
        }
    }

    /// R(s, t) (§4.4.3.3.2, Figure 2), E in CBC mode with IV = 0: k_0 = E(t, s); for i = 1…n:
    /// x_i = E(k_{i-1}, c1), k_i = E(k_{i-1}, c0) truncated to the key size k; output x_1 || … || x_n with n
    /// the smallest number such that n·l ≥ log2 p + 64. t has k bits (3DES: k = 128); s is a whole number of
    /// cipher blocks (l bits from a conforming chip).
    public static func pseudoRandom(s: [UInt8], t: [UInt8], cipher: CipherAlgorithm, primeBits: Int) throws(CryptoError)
        -> [UInt8]
    {
        let function = "PACEIntegratedMapping.pseudoRandom"
        guard t.count == cipher.keyLength else {
            throw CryptoError(
                .invalidInput, function: function, "nonce t of \(t.count) bytes, expected \(cipher.keyLength)")
        }
        guard !s.isEmpty, s.count % cipher.blockSize == 0 else {
            throw CryptoError(.invalidInput, function: function, "nonce s of \(s.count) bytes is not whole blocks")
        }
        let l = nonceLength(cipher)
        let (c0, c1) = l == 16 ? (c0L128, c1L128) : (c0L256, c1L256)
        func e(_ key: [UInt8], _ data: [UInt8]) throws(CryptoError) -> [UInt8] {
            let k = SecretBytes(Array(key.prefix(cipher.keyLength)))
            if cipher == .tripleDES { return try TripleDES.encryptCBC(key: k, data) }
            return try AES.encryptCBC(key: k, iv: [UInt8](repeating: 0, count: 16), data)
        }
        let n = (primeBits + 64 + l * 8 - 1) / (l * 8)
        var k = try e(t, s)
        var out: [UInt8] = []
        out.reserveCapacity(n * l)
        for _ in 0..<n {
            out += try e(k, c1)
            k = try e(k, c0)
        }
        return out
    }

    /// The point encoding f_G(t) for curves with p ≡ 3 mod 4 (Appendix B.2), returned uncompressed:
    /// α = -t² ; X2 = -b·a⁻¹·(1 + (α + α²)⁻¹) ; X3 = α·X2 ; h2 = X2³ + a·X2 + b ; U = t³·h2 ;
    /// A = h2^(p-1-(p+1)/4) ; (x, y) = (X2, A·h2) if A²·h2 = 1, else (X3, A·U).
    public static func pointEncoding(_ tValue: BigNumber, curve: ECCurve) throws(CryptoError) -> [UInt8] {
        let function = "PACEIntegratedMapping.pointEncoding"
        let p = BigNumber(curve.p)
        let a = BigNumber(curve.a)
        let b = BigNumber(curve.b)
        let zero = BigNumber(0)
        let one = BigNumber(1)
        let four = BigNumber(4)
        guard p.mod(four) == BigNumber(3) else {
            throw CryptoError(.unsupportedAlgorithm, function: function, "p is not 3 mod 4")
        }
        let t = tValue.mod(p)
        func mul(_ x: BigNumber, _ y: BigNumber) -> BigNumber { BigNumber.modMul(x, y, p) }
        func add(_ x: BigNumber, _ y: BigNumber) -> BigNumber { BigNumber.modAdd(x, y, p) }
        func neg(_ x: BigNumber) -> BigNumber { BigNumber.modSub(zero, x, p) }
        let t2 = mul(t, t)
        let alpha = neg(t2)
        guard let aInv = BigNumber.modInverse(a, p), let sumInv = BigNumber.modInverse(add(alpha, mul(alpha, alpha)), p)
        else {
            throw CryptoError(.invalidInput, function: function, "value not invertible")
        }
        let x2 = mul(neg(mul(b, aInv)), add(one, sumInv))
        let x3 = mul(alpha, x2)
        let h2 = add(add(mul(mul(x2, x2), x2), mul(a, x2)), b)
        let u = mul(mul(t2, t), h2)
        let exponent = p - one - BigNumber.divide(p + one, four).0
        let aa = BigNumber.modExp(h2, exponent, p)
        let x: BigNumber
        let y: BigNumber
        if mul(mul(aa, aa), h2) == one {
            x = x2
            y = mul(aa, h2)
        } else {
            x = x3
            y = mul(aa, u)
        }
        let width = curve.fieldSize
        let point = [0x04] + x.bytes(width: width) + y.bytes(width: width)
        guard curve.isOnCurve(point) else {
            throw CryptoError(.invalidPoint, function: function, "encoded point not on the curve")
        }
        return point
    }

    /// ECDH: G̃ = f_G(R_p(s, t)), multiplied by the cofactor (1 for every PACE standard curve).
    public static func mapECDH(s: [UInt8], t: [UInt8], cipher: CipherAlgorithm, curve: ECCurve) throws(CryptoError)
        -> [UInt8]
    {
        let p = BigNumber(curve.p)
        let r = try pseudoRandom(s: s, t: t, cipher: cipher, primeBits: p.bitCount)
        var point = try pointEncoding(BigNumber(r).mod(p), curve: curve)
        let cofactor = BigNumber(curve.cofactor)
        if cofactor != BigNumber(1) { point = try curve.multiply(point, by: cofactor.bytes) }
        return point
    }

    /// DH: g̃ = R_p(s, t)^((p-1)/q) mod p, which must not be 0 or 1 (§4.4.3.3.2); fixed width of p.
    public static func mapDH(s: [UInt8], t: [UInt8], cipher: CipherAlgorithm, group: DHGroup) throws(CryptoError)
        -> [UInt8]
    {
        let function = "PACEIntegratedMapping.mapDH"
        guard let q = group.q else {
            throw CryptoError(.invalidParameters, function: function, "the subgroup order q is unknown")
        }
        let p = BigNumber(group.p)
        let r = try pseudoRandom(s: s, t: t, cipher: cipher, primeBits: p.bitCount)
        let exponent = BigNumber.divide(p - BigNumber(1), BigNumber(q)).0
        let g = BigNumber.modExp(BigNumber(r).mod(p), exponent, p)
        guard g > BigNumber(1) else {
            throw CryptoError(.invalidPoint, function: function, "the mapped generator is degenerate")
        }
        return g.bytes(width: group.primeSize)
    }
}
