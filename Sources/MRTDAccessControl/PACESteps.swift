public import ASN1TLV
public import ISO7816
public import MRTDCrypto
public import MRTDSecureMessaging

/// PACE (ICAO 9303-11 §4.4; commands §4.4.4; mappings §4.4.3.3; tokens §4.4.3.4; key derivation §9.7.3;
/// BSI TR-03110-2 §3.2): pure steps named after the specification. `PACE.perform` drives them.
public enum PACE {
    // MARK: Commands

    /// MSE:Set AT for PACE (9303-11 §4.4.4.1; DO'84' is required when the domain parameters are ambiguous): `00 22 C1 A4` with DO'80' protocol OID, DO'83' password
    /// reference and, when given, DO'84' the parameter id.
    public static func mseSetAT(protocol oid: ObjectIdentifier, password: PACEPasswordType, parameterId: Int?) -> CommandAPDU {
        var data = TLVWriter.encode(0x80, oid.encodedValue) + TLVWriter.encode(0x83, [password.rawValue])
        if let id = parameterId { data += TLVWriter.encode(0x84, minimalUnsigned(id)) }
        return .manageSecurityEnvironment(p1: 0xC1, p2: 0xA4, data: data)
    }

    static func minimalUnsigned(_ v: Int) -> [UInt8] {
        var out: [UInt8] = []
        var x = v
        repeat { out.insert(UInt8(x & 0xFF), at: 0); x >>= 8 } while x > 0
        return out
    }

    /// GENERAL AUTHENTICATE step with DO'7C' (9303-11 §4.4.4.2, §4.4.4.3): chained (CLA '10') except the last.
    public static func generalAuthenticate(_ objects: [(tag: UInt8, value: [UInt8])], last: Bool) -> CommandAPDU {
        .generalAuthenticate(DynamicAuthenticationData.encode(objects), chained: !last, ne: 256)
    }

    // MARK: Nonce

    /// s = D(K_π, z) (9303-11 §4.4.3.3): CBC with a zero IV, 3DES or AES by the protocol's cipher.
    public static func decryptNonce(_ z: [UInt8], key: SecretBytes, cipher: CipherAlgorithm) throws(AccessControlError) -> SecretBytes {
        let step = AccessControlStep.gaEncryptedNonce
        guard !z.isEmpty, z.count % cipher.blockSize == 0 else {
            throw AccessControlError(.malformedResponse, step: step, "encrypted nonce of \(z.count) bytes is not a whole number of blocks")
        }
        do {
            if cipher == .tripleDES { return SecretBytes(try TripleDES.decryptCBC(key: key, z)) }
            return SecretBytes(try AES.decryptCBC(key: key, iv: [UInt8](repeating: 0, count: 16), z))
        } catch {
            throw AccessControlError(.cryptoFailure, step: step, error.description)
        }
    }

    // MARK: Generic Mapping (§4.4.3.3.1)

    /// Generic Mapping: H = SK_map,IFD · PK_map,IC (ECDH) or PK_map,IC^x mod p (DH), then
    /// G~ = s·G + H (ECDH) or g~ = g^s · H mod p (DH). Returns H and the mapped group.
    public static func genericMapping(group: KeyAgreementGroup, nonce s: SecretBytes, terminalMappingKey: SecretBytes,
                                      chipMappingPublicKey: [UInt8]) throws(AccessControlError) -> (h: [UInt8], mapped: KeyAgreementGroup) {
        let step = AccessControlStep.gaMapNonce
        do {
            switch group {
            case .ec(let curve):
                // multiply validates the point (on the curve, finite, in the subgroup) as it decodes it
                let h = try curve.multiply(chipMappingPublicKey, by: terminalMappingKey.bytes)
                let sg = try curve.multiplyGenerator(by: s.bytes)
                let g = try curve.add(sg, h)
                return (h, .ec(try curve.withGenerator(g)))
            case .dh(let dh):
                let h = try dh.sharedSecret(privateKey: terminalMappingKey, peerPublicKey: chipMappingPublicKey).bytes
                let p = BigNumber(dh.p)
                let gs = BigNumber.modExp(BigNumber(dh.g), BigNumber(s.bytes), p)
                let g = BigNumber.modMul(gs, BigNumber(h), p)
                return (h, .dh(try dh.withGenerator(g.bytes(width: dh.primeSize))))
            }
        } catch {
            throw AccessControlError(.cryptoFailure, step: step, "generic mapping: \(error.description)")
        }
    }

    // MARK: Integrated Mapping (§4.4.3.3.2, Appendix B)

    static let c0_128: [UInt8] = [0xA6, 0x68, 0x89, 0x2A, 0x7C, 0x41, 0xE3, 0xCA, 0x73, 0x9F, 0x40, 0xB0, 0x57, 0xD8, 0x59, 0x04]
    static let c1_128: [UInt8] = [0xA4, 0xE1, 0x36, 0xAC, 0x72, 0x5F, 0x73, 0x8B, 0x01, 0xC1, 0xF6, 0x02, 0x17, 0xC1, 0x88, 0xAD]
    static let c0_256: [UInt8] = [0xD4, 0x63, 0xD6, 0x52, 0x34, 0x12, 0x4E, 0xF7, 0x89, 0x70, 0x54, 0x98, 0x6D, 0xCA, 0x0A, 0x17,
                                  0x4E, 0x28, 0xDF, 0x75, 0x8C, 0xBA, 0xA0, 0x3F, 0x24, 0x06, 0x16, 0x41, 0x4D, 0x5A, 0x16, 0x76]
    static let c1_256: [UInt8] = [0x54, 0xBD, 0x72, 0x55, 0xF0, 0xAA, 0xF8, 0x31, 0xBE, 0xC3, 0x42, 0x3F, 0xCF, 0x39, 0xD6, 0x9B,
                                  0x6C, 0xBF, 0x06, 0x66, 0x77, 0xD0, 0xFA, 0xAE, 0x5A, 0xAD, 0xD9, 0x9D, 0xF8, 0xE5, 0x35, 0x17]

    /// The pseudo-random function R(s,t) of 9303-11 §4.4.3.3.2 (Figure 2): k0 = E(t, s);
    /// x_i = E(k_i, c1), k_{i+1} = E(k_i, c0) truncated to the key length; all CBC with IV 0;
    /// R = x_0 || … || x_{n-1} with n·l ≥ log2 p + 64. l = 128 for 3DES (k taken as 128 bits) and AES-128,
    /// 256 for AES-192/256; s must be l bits (the smallest block multiple ≥ k, §4.4.3.3) and t k bits.
    public static func pseudoRandom(s: [UInt8], t: [UInt8], p: [UInt8], cipher: CipherAlgorithm) throws(AccessControlError) -> [UInt8] {
        let step = AccessControlStep.gaMapNonce
        guard t.count == cipher.keyLength else {
            throw AccessControlError(.invalidInput, step: step, "nonce t must be \(cipher.keyLength) bytes")
        }
        let (c0, c1) = cipher.keyLength == 16 ? (c0_128, c1_128) : (c0_256, c1_256)
        let l = c1.count * 8
        guard s.count * 8 >= cipher.keyLength * 8, s.count % cipher.blockSize == 0 else {
            throw AccessControlError(.invalidInput, step: step, "nonce s of \(s.count) bytes is too short for Integrated Mapping")
        }
        let bits = BigNumber(p).bitCount
        let n = (bits + 64 + l - 1) / l
        func e(_ key: [UInt8], _ data: [UInt8]) throws(CryptoError) -> [UInt8] {
            let k = SecretBytes(key)
            if cipher == .tripleDES { return try TripleDES.encryptCBC(key: k, data) }
            return try AES.encryptCBC(key: k, iv: [UInt8](repeating: 0, count: 16), data)
        }
        do {
            var k = Array(try e(t, s).prefix(cipher.keyLength))
            var out: [UInt8] = []
            for _ in 0..<n {
                out += try e(k, c1)
                k = Array(try e(k, c0).prefix(cipher.keyLength))
            }
            return out
        } catch {
            throw AccessControlError(.cryptoFailure, step: step, "pseudo-random function: \(error.description)")
        }
    }

    /// The point encoding f_G of 9303-11 Appendix B for curves with p ≡ 3 (mod 4) and cofactor 1:
    /// maps t ∈ F_p to a curve point (returned uncompressed).
    public static func pointEncode(_ tValue: [UInt8], curve: ECCurve) throws(AccessControlError) -> [UInt8] {
        let step = AccessControlStep.gaMapNonce
        let p = BigNumber(curve.p), a = BigNumber(curve.a), b = BigNumber(curve.b)
        let one = BigNumber(1), three = BigNumber(3), four = BigNumber(4)
        guard BigNumber.divide(p, four).1 == three else {
            throw AccessControlError(.unsupported, step: step, "Integrated Mapping point encoding needs p ≡ 3 mod 4")
        }
        let t = BigNumber(tValue).mod(p)
        func neg(_ x: BigNumber) -> BigNumber { x.isZero ? x : p - x.mod(p) }
        func mul(_ x: BigNumber, _ y: BigNumber) -> BigNumber { BigNumber.modMul(x, y, p) }
        func add(_ x: BigNumber, _ y: BigNumber) -> BigNumber { BigNumber.modAdd(x, y, p) }
        let alpha = neg(mul(t, t))                                      // 1. α = -t² mod p
        guard let aInv = BigNumber.modInverse(a, p),
              let inv = BigNumber.modInverse(add(alpha, mul(alpha, alpha)), p) else {
            throw AccessControlError(.cryptoFailure, step: step, "point encoding: value not invertible")
        }
        let x2 = mul(neg(mul(b, aInv)), add(one, inv))                  // 2. X2 = -b·a⁻¹·(1 + (α + α²)⁻¹)
        let x3 = mul(alpha, x2)                                         // 3. X3 = α·X2
        func rhs(_ x: BigNumber) -> BigNumber { add(add(mul(mul(x, x), x), mul(a, x)), b) }
        let h2 = rhs(x2)                                                // 4. h2 = X2³ + a·X2 + b
        let u = mul(mul(mul(t, t), t), h2)                              // 6. U = t³·h2
        let exponent = (p - one) - BigNumber.divide(p + one, four).0    // 7. A = h2^(p-1-(p+1)/4)
        let aa = BigNumber.modExp(h2, exponent, p)
        let x: BigNumber, y: BigNumber
        if mul(mul(aa, aa), h2) == one {                                // 8. A²·h2 = 1 → (X2, A·h2)
            x = x2; y = mul(aa, h2)
        } else {                                                        // 9. else (X3, A·U)
            x = x3; y = mul(aa, u)
        }
        let w = curve.fieldSize
        let point = [0x04] + x.bytes(width: w) + y.bytes(width: w)
        guard curve.isOnCurve(point) else {
            throw AccessControlError(.cryptoFailure, step: step, "point encoding produced a point off the curve")
        }
        return point
    }

    /// Integrated Mapping: G~ = f_G(R_p(s,t)) for ECDH, g~ = R_p(s,t)^((p-1)/q) mod p for DH.
    public static func integratedMapping(group: KeyAgreementGroup, nonce s: SecretBytes, terminalNonce t: [UInt8],
                                         cipher: CipherAlgorithm) throws(AccessControlError) -> KeyAgreementGroup {
        let step = AccessControlStep.gaMapNonce
        switch group {
        case .ec(let curve):
            let r = try pseudoRandom(s: s.bytes, t: t, p: curve.p, cipher: cipher)
            let rp = BigNumber(r).mod(BigNumber(curve.p))
            let g = try pointEncode(rp.bytes(width: curve.fieldSize), curve: curve)
            do { return .ec(try curve.withGenerator(g)) } catch {
                throw AccessControlError(.cryptoFailure, step: step, error.description)
            }
        case .dh(let dh):
            guard let q = dh.q else {
                throw AccessControlError(.unsupported, step: step, "DH Integrated Mapping needs the subgroup order q")
            }
            let p = BigNumber(dh.p)
            let r = try pseudoRandom(s: s.bytes, t: t, p: dh.p, cipher: cipher)
            let rp = BigNumber(r).mod(p)
            let e = BigNumber.divide(p - BigNumber(1), BigNumber(q)).0
            let g = BigNumber.modExp(rp, e, p)
            guard !(g == BigNumber(1)) else {
                throw AccessControlError(.cryptoFailure, step: step, "the mapped generator is 1")   // §4.4.3.3.2: ĝ ≠ 1
            }
            do { return .dh(try dh.withGenerator(g.bytes(width: dh.primeSize))) } catch {
                throw AccessControlError(.cryptoFailure, step: step, error.description)
            }
        }
    }

    // MARK: Authentication token (§4.4.3.4, §9.4)

    /// The public key data object 7F49 { 06 OID, 86 point | 84 DH value } over which tokens are computed
    /// (§9.4; the DH value as an unsigned integer of minimal length, §9.4.1).
    public static func publicKeyDataObject(protocol oid: ObjectIdentifier, publicKey: [UInt8], group: KeyAgreementGroup) -> [UInt8] {
        TLVWriter.encode(0x7F49, TLVWriter.encode(0x06, oid.encodedValue)
                         + TLVWriter.encode(UInt32(group.publicKeyTag), group.encodePublicKey(publicKey)))
    }

    /// T = MAC(KSmac, 7F49{…}) — AES-CMAC truncated to 8 bytes, or the 3DES retail MAC (padding inside).
    public static func authenticationToken(macKey: SecretBytes, cipher: CipherAlgorithm, protocol oid: ObjectIdentifier,
                                           publicKey: [UInt8], group: KeyAgreementGroup) throws(CryptoError) -> [UInt8] {
        let input = publicKeyDataObject(protocol: oid, publicKey: publicKey, group: group)
        if cipher == .tripleDES { return try RetailMAC.mac(key: macKey, input) }
        return Array(try AESCMAC.mac(key: macKey, input).prefix(8))
    }

    // MARK: Chip Authentication Mapping (§4.4.3.3.3, §4.4.3.5)

    /// CA_IC = D(KSenc, A_IC) with AES-CBC and IV = E(KSenc, FF…FF), padding method 2 removed (§4.4.3.5.3–4).
    public static func decryptChipAuthenticationData(_ aIC: [UInt8], keys: SessionKeys) throws(AccessControlError) -> [UInt8] {
        let step = AccessControlStep.cam
        guard keys.cipher != .tripleDES, !aIC.isEmpty, aIC.count % 16 == 0 else {
            throw AccessControlError(.malformedResponse, step: step, "encrypted chip authentication data of \(aIC.count) bytes")
        }
        do {
            let iv = try AES.encryptECB(key: keys.encryption, [UInt8](repeating: 0xFF, count: 16))
            let padded = try AES.decryptCBC(key: keys.encryption, iv: iv, aIC)
            return try Padding.unpad(padded, blockSize: 16)
        } catch {
            throw AccessControlError(.authenticationFailed, step: step, "chip authentication data does not decrypt: \(error.description)")
        }
    }

    /// The PACE-CAM check of 9303-11 §4.4.3.5.2: PK_map,IC = KA(CA_IC, PK_IC) = CA_IC · PK_IC (points compared) on the (unmapped) domain
    /// parameters, with PK_IC the chip's static CA key from EF.CardSecurity.
    public static func verifyChipAuthenticationMapping(chipAuthenticationData caIC: [UInt8], chipMappingPublicKey: [UInt8],
                                                       chipStaticPublicKey: [UInt8], curve: ECCurve) throws(AccessControlError) -> Bool {
        do {
            let pk = try curve.decodePoint(chipStaticPublicKey)
            let expected = try curve.decodePoint(chipMappingPublicKey)
            let product = try curve.multiply(pk, by: caIC)
            return ConstantTime.equals(product, expected)
        } catch {
            throw AccessControlError(.cryptoFailure, step: AccessControlStep.cam, error.description)
        }
    }
}
