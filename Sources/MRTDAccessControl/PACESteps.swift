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
    public static func mseSetAT(protocol oid: ASN1ObjectIdentifier, password: PACEPasswordType, parameterId: Int?)
        -> CommandAPDU
    {
        var data = TLVWriter.encode(0x80, oid.encodedValue) + TLVWriter.encode(0x83, [password.rawValue])
        if let id = parameterId { data += TLVWriter.encode(0x84, minimalUnsigned(id)) }
        return .manageSecurityEnvironment(p1: 0xC1, p2: 0xA4, data: data)
    }

    static func minimalUnsigned(_ v: Int) -> [UInt8] {
        var out: [UInt8] = []
        var x = v
        repeat {
            out.insert(UInt8(x & 0xFF), at: 0)
            x >>= 8
        } while x > 0
        return out
    }

    /// GENERAL AUTHENTICATE step with DO'7C' (9303-11 §4.4.4.2, §4.4.4.3): chained (CLA '10') except the last.
    public static func generalAuthenticate(_ objects: [(tag: UInt8, value: [UInt8])], last: Bool) -> CommandAPDU {
        .generalAuthenticate(DynamicAuthenticationData.encode(objects), chained: !last, ne: 256)
    }

    // MARK: Nonce

    /// s = D(K_π, z) (9303-11 §4.4.3.3): CBC with a zero IV, 3DES or AES by the protocol's cipher.
    public static func decryptNonce(_ z: [UInt8], key: SecretBytes, cipher: CipherAlgorithm) throws(AccessControlError)
        -> SecretBytes
    {
        let step = AccessControlStep.gaEncryptedNonce
        guard !z.isEmpty, z.count % cipher.blockSize == 0 else {
            throw AccessControlError(
                .malformedResponse, step: step, "encrypted nonce of \(z.count) bytes is not a whole number of blocks")
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
    public static func genericMapping(
        group: KeyAgreementGroup, nonce s: SecretBytes, terminalMappingKey: SecretBytes,
        chipMappingPublicKey: [UInt8]
    ) throws(AccessControlError) -> (h: [UInt8], mapped: KeyAgreementGroup) {
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

    /// The pseudo-random function R(s,t) of 9303-11 §4.4.3.3.2 (Figure 2), as `PACEIntegratedMapping.pseudoRandom`
    /// (shared with the virtual chip), for the prime p; s must be at least k bits in whole blocks, t k bits.
    public static func pseudoRandom(s: [UInt8], t: [UInt8], p: [UInt8], cipher: CipherAlgorithm)
        throws(AccessControlError) -> [UInt8]
    {
        let step = AccessControlStep.gaMapNonce
        try checkNonces(s: s.count, t: t.count, cipher: cipher)
        do {
            return try PACEIntegratedMapping.pseudoRandom(s: s, t: t, cipher: cipher, primeBits: BigNumber(p).bitCount)
        } catch {
            throw AccessControlError(.cryptoFailure, step: step, "pseudo-random function: \(error.description)")
        }
    }

    /// Integrated Mapping's nonces: t of the cipher's key length, s at least that long in whole cipher blocks.
    private static func checkNonces(s: Int, t: Int, cipher: CipherAlgorithm) throws(AccessControlError) {
        guard t == cipher.keyLength else {
            throw AccessControlError(
                .invalidInput, step: AccessControlStep.gaMapNonce, "nonce t must be \(cipher.keyLength) bytes")
        }
        guard s >= cipher.keyLength, s % cipher.blockSize == 0 else {
            throw AccessControlError(
                .invalidInput, step: AccessControlStep.gaMapNonce,
                "nonce s of \(s) bytes is too short for Integrated Mapping")
        }
    }

    /// The point encoding f_G of 9303-11 Appendix B for curves with p ≡ 3 (mod 4), as
    /// `PACEIntegratedMapping.pointEncoding`: maps t ∈ F_p to a curve point (returned uncompressed).
    public static func pointEncode(_ tValue: [UInt8], curve: ECCurve) throws(AccessControlError) -> [UInt8] {
        do { return try PACEIntegratedMapping.pointEncoding(BigNumber(tValue), curve: curve) } catch {
            let code: AccessControlError.Code = error.code == .unsupportedAlgorithm ? .unsupported : .cryptoFailure
            throw AccessControlError(code, step: AccessControlStep.gaMapNonce, "point encoding: \(error.description)")
        }
    }

    /// Integrated Mapping: G~ = f_G(R_p(s,t)) for ECDH, g~ = R_p(s,t)^((p-1)/q) mod p for DH
    /// (`PACEIntegratedMapping`, shared with the virtual chip).
    public static func integratedMapping(
        group: KeyAgreementGroup, nonce s: SecretBytes, terminalNonce t: [UInt8],
        cipher: CipherAlgorithm
    ) throws(AccessControlError) -> KeyAgreementGroup {
        let step = AccessControlStep.gaMapNonce
        try checkNonces(s: s.count, t: t.count, cipher: cipher)
        do {
            switch group {
            case .ec(let curve):
                return .ec(
                    try curve.withGenerator(
                        try PACEIntegratedMapping.mapECDH(s: s.bytes, t: t, cipher: cipher, curve: curve)))
            case .dh(let dh):
                guard dh.q != nil else {
                    throw AccessControlError(
                        .unsupported, step: step, "DH Integrated Mapping needs the subgroup order q")
                }
                return .dh(
                    try dh.withGenerator(try PACEIntegratedMapping.mapDH(s: s.bytes, t: t, cipher: cipher, group: dh)))
            }
        } catch let error as AccessControlError {
            throw error
        } catch let error as CryptoError {
            let code: AccessControlError.Code = error.code == .unsupportedAlgorithm ? .unsupported : .cryptoFailure
            throw AccessControlError(code, step: step, "integrated mapping: \(error.description)")
        } catch {
            throw AccessControlError(.cryptoFailure, step: step, "integrated mapping: \(error)")
        }
    }

    // MARK: Authentication token (§4.4.3.4, §9.4)

    /// The public key data object 7F49 { 06 OID, 86 point | 84 DH value } over which tokens are computed
    /// (§9.4; the DH value as an unsigned integer of minimal length, §9.4.1).
    public static func publicKeyDataObject(
        protocol oid: ASN1ObjectIdentifier, publicKey: [UInt8], group: KeyAgreementGroup
    )
        -> [UInt8]
    {
        TLVWriter.encode(
            0x7F49,
            TLVWriter.encode(0x06, oid.encodedValue)
                + TLVWriter.encode(UInt32(group.publicKeyTag), group.encodePublicKey(publicKey)))
    }

    /// T = MAC(KSmac, 7F49{…}) — AES-CMAC truncated to 8 bytes, or the 3DES retail MAC (padding inside).
    public static func authenticationToken(
        macKey: SecretBytes, cipher: CipherAlgorithm, protocol oid: ASN1ObjectIdentifier,
        publicKey: [UInt8], group: KeyAgreementGroup
    ) throws(CryptoError) -> [UInt8] {
        let input = publicKeyDataObject(protocol: oid, publicKey: publicKey, group: group)
        if cipher == .tripleDES { return try RetailMAC.mac(key: macKey, input) }
        return Array(try AESCMAC.mac(key: macKey, input).prefix(8))
    }

    // MARK: Chip Authentication Mapping (§4.4.3.3.3, §4.4.3.5)

    /// CA_IC = D(KSenc, A_IC) with AES-CBC and IV = E(KSenc, FF…FF), padding method 2 removed (§4.4.3.5.3–4).
    public static func decryptChipAuthenticationData(_ aIC: [UInt8], keys: SessionKeys) throws(AccessControlError)
        -> [UInt8]
    {
        let step = AccessControlStep.cam
        guard keys.cipher != .tripleDES, !aIC.isEmpty, aIC.count % 16 == 0 else {
            throw AccessControlError(
                .malformedResponse, step: step, "encrypted chip authentication data of \(aIC.count) bytes")
        }
        do {
            let iv = try AES.encryptECB(key: keys.encryption, [UInt8](repeating: 0xFF, count: 16))
            let padded = try AES.decryptCBC(key: keys.encryption, iv: iv, aIC)
            return try Padding.unpad(padded, blockSize: 16)
        } catch {
            throw AccessControlError(
                .authenticationFailed, step: step, "chip authentication data does not decrypt: \(error.description)")
        }
    }

    /// The PACE-CAM check of 9303-11 §4.4.3.5.2: PK_map,IC = KA(CA_IC, PK_IC) = CA_IC · PK_IC (points compared) on the (unmapped) domain
    /// parameters, with PK_IC the chip's static CA key from EF.CardSecurity.
    public static func verifyChipAuthenticationMapping(
        chipAuthenticationData caIC: [UInt8], chipMappingPublicKey: [UInt8],
        chipStaticPublicKey: [UInt8], curve: ECCurve
    ) throws(AccessControlError) -> Bool {
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
