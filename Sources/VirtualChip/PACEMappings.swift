import MRTDCrypto
import MRTDSecureMessaging

/// PACE Integrated Mapping (ICAO 9303-11 §4.4.3.3.2 and Appendix B).
enum IntegratedMapping {
    /// Constants c0, c1 of the pseudo-random function for AES-128 (ICAO 9303-11 §4.4.3.3.2).
    static let c0AES128: [UInt8] = [0xA6, 0x68, 0x89, 0x2A, 0x7C, 0x41, 0xE3, 0xCA, 0x73, 0x9F, 0x40, 0xB0, 0x57, 0xD8, 0x59, 0x04]
    static let c1AES128: [UInt8] = [0xA4, 0xE1, 0x36, 0xAC, 0x72, 0x5F, 0x73, 0x8B, 0x01, 0xC1, 0xF6, 0x02, 0x17, 0xC1, 0x88, 0xAD]

    /// The ciphers whose pseudo-random function this chip implements (AES-128 only).
    static func supports(_ cipher: CipherAlgorithm) -> Bool { cipher == .aes128 }

    /// R(s, t) (ICAO 9303-11 §4.4.3.3.2): k_0 = E(t, s); for i = 0…n-1: x_i = E(k_i, c1),
    /// k_{i+1} = E(k_i, c0); output x_0 || … || x_{n-1} with n = ⌈(log2 p + 64) / ℓ⌉, ℓ the block size in bits.
    static func pseudoRandom(s: [UInt8], t: [UInt8], cipher: CipherAlgorithm, primeBits: Int) throws(CryptoError) -> [UInt8] {
        guard cipher == .aes128 else {
            throw CryptoError(.unsupportedAlgorithm, function: "IntegratedMapping.pseudoRandom", "only AES-128 is implemented")
        }
        guard t.count == cipher.keyLength, s.count == cipher.blockSize else {
            throw CryptoError(.invalidInput, function: "IntegratedMapping.pseudoRandom", "nonce length")
        }
        let blockBits = cipher.blockSize * 8
        let n = (primeBits + 64 + blockBits - 1) / blockBits
        var k = try AES.encryptECB(key: SecretBytes(t), s)
        var out: [UInt8] = []
        for _ in 0..<n {
            out += try AES.encryptECB(key: SecretBytes(k), c1AES128)
            k = try AES.encryptECB(key: SecretBytes(k), c0AES128)
        }
        return out
    }

    /// ECDH: G̃ = f_G(R_p(s, t)) with the point encoding of Appendix B (simplified SWU, p ≡ 3 mod 4),
    /// multiplied by the cofactor.
    static func mapECDH(s: [UInt8], t: [UInt8], cipher: CipherAlgorithm, curve: ECCurve) throws(CryptoError) -> [UInt8] {
        let p = BigNumber(curve.p)
        let r = try pseudoRandom(s: s, t: t, cipher: cipher, primeBits: p.bitCount)
        let rp = BigNumber(r).mod(p)
        var point = try pointEncoding(rp, curve: curve)
        let cofactor = BigNumber(curve.cofactor)
        if cofactor != BigNumber(1) { point = try curve.multiply(point, by: cofactor.bytes) }
        return point
    }

    /// DH: g̃ = R_p(s, t)^((p-1)/q) mod p (ICAO 9303-11 §4.4.3.3.2).
    static func mapDH(s: [UInt8], t: [UInt8], cipher: CipherAlgorithm, group: DHGroup) throws(CryptoError) -> [UInt8] {
        guard let qBytes = group.q else {
            throw CryptoError(.invalidParameters, function: "IntegratedMapping.mapDH", "group order q unknown")
        }
        let p = BigNumber(group.p)
        let r = try pseudoRandom(s: s, t: t, cipher: cipher, primeBits: p.bitCount)
        let rp = BigNumber(r).mod(p)
        let (exponent, _) = BigNumber.divide(p - BigNumber(1), BigNumber(qBytes))
        let g = BigNumber.modExp(rp, exponent, p)
        guard g > BigNumber(1) else {
            throw CryptoError(.invalidPoint, function: "IntegratedMapping.mapDH", "degenerate generator")
        }
        return g.bytes(width: group.primeSize)
    }

    /// Point encoding f_G(t) for curves with p ≡ 3 mod 4 (ICAO 9303-11 Appendix B.2):
    /// α = -t² ; X2 = -b·a⁻¹·(1 + (α + α²)⁻¹) ; X3 = α·X2 ; h2 = X2³ + a·X2 + b ; U = t³·h2 ;
    /// A = h2^(p-1-(p+1)/4) ; (x, y) = (X2, A·h2) if A²·h2 = 1, else (X3, A·U).
    static func pointEncoding(_ t: BigNumber, curve: ECCurve) throws(CryptoError) -> [UInt8] {
        let p = BigNumber(curve.p), a = BigNumber(curve.a), b = BigNumber(curve.b)
        let zero = BigNumber(0), one = BigNumber(1)
        guard p.mod(BigNumber(4)) == BigNumber(3) else {
            throw CryptoError(.unsupportedAlgorithm, function: "IntegratedMapping.pointEncoding", "p is not 3 mod 4")
        }
        func mul(_ x: BigNumber, _ y: BigNumber) -> BigNumber { BigNumber.modMul(x, y, p) }
        func neg(_ x: BigNumber) -> BigNumber { BigNumber.modSub(zero, x, p) }
        let t2 = mul(t, t)
        let alpha = neg(t2)
        let alphaSum = BigNumber.modAdd(alpha, mul(alpha, alpha), p)
        guard let aInv = BigNumber.modInverse(a, p), let sumInv = BigNumber.modInverse(alphaSum, p) else {
            throw CryptoError(.invalidInput, function: "IntegratedMapping.pointEncoding", "not invertible")
        }
        let x2 = mul(neg(mul(b, aInv)), BigNumber.modAdd(one, sumInv, p))
        let x3 = mul(alpha, x2)
        let h2 = BigNumber.modAdd(BigNumber.modAdd(mul(mul(x2, x2), x2), mul(a, x2), p), b, p)
        let u = mul(mul(t2, t), h2)
        let (quarter, _) = BigNumber.divide(p + one, BigNumber(4))
        let exponent = p - one - quarter
        let aa = BigNumber.modExp(h2, exponent, p)
        let x: BigNumber, y: BigNumber
        if mul(mul(aa, aa), h2) == one {
            x = x2; y = mul(aa, h2)
        } else {
            x = x3; y = mul(aa, u)
        }
        let width = curve.fieldSize
        let point = [0x04] + x.bytes(width: width) + y.bytes(width: width)
        guard curve.isOnCurve(point) else {
            throw CryptoError(.invalidPoint, function: "IntegratedMapping.pointEncoding", "encoded point not on the curve")
        }
        return point
    }
}

/// PACE Chip Authentication Mapping, chip side (ICAO 9303-11 §4.4.3.5).
enum ChipAuthenticationMapping {
    /// CA_IC = SK_map,IC · SK_IC⁻¹ mod n, so that PK_map,IC = CA_IC · PK_IC (fixed width of n).
    static func chipAuthenticationData(mapPrivate: SecretBytes, staticPrivate: SecretBytes, order: [UInt8]) throws(CryptoError) -> [UInt8] {
        let n = BigNumber(order)
        guard let inverse = BigNumber.modInverse(BigNumber(staticPrivate.bytes).mod(n), n) else {
            throw CryptoError(.invalidKey, function: "ChipAuthenticationMapping", "static key not invertible")
        }
        return BigNumber.modMul(BigNumber(mapPrivate.bytes), inverse, n).bytes(width: n.bytes.count)
    }

    /// A_IC = E(KS_enc, CA_IC) with AES-CBC, IV = E(KS_enc, 'FF'…'FF'), ISO/IEC 9797-1 padding method 2.
    static func encrypt(_ data: [UInt8], keys: SessionKeys) throws(CryptoError) -> [UInt8] {
        let iv = try AES.encryptECB(key: keys.encryption, [UInt8](repeating: 0xFF, count: 16))
        return try AES.encryptCBC(key: keys.encryption, iv: iv, Padding.pad(data, blockSize: 16))
    }
}
