import MRTDCrypto
import MRTDTestSupport
import Testing

private func algorithm(_ d: [String: Any]) -> SignatureAlgorithm {
    let hash = HashAlgorithm(rawValue: d["hash"] as! String)!
    switch d["type"] as! String {
    case "rsaPKCS1v15": return .rsaPKCS1v15(hash)
    case "rsaPSS":
        return .rsaPSS(
            hash: hash, mgf1Hash: HashAlgorithm(rawValue: d["mgf1Hash"] as! String)!,
            saltLength: d["saltLength"] as! Int)
    case "ecdsa": return .ecdsa(hash)
    default: preconditionFailure("unknown algorithm")
    }
}

/// Shared keys (RSA generation is slow).
enum TestKeys {
    static let rsa2048: PrivateKey = try! PrivateKey.generateRSA(bits: 2048)
}

@Suite struct SignatureTests {
    /// Real self-signed CSCA certificates: explicit brainpool/NIST parameters, RSA PKCS#1 v1.5 and RSA-PSS.
    @Test(arguments: 0..<6)
    func selfSignedCSCA(_ index: Int) throws {
        let file = try Vector("crypto/csca-self-signed-certificates.json")
        let v = file.list("certificates")[index]
        let key = try PublicKey(subjectPublicKeyInfo: v["subject_public_key_info"])
        let alg = algorithm(v.fields["algorithm"] as! [String: Any])
        #expect(try key.verify(signature: v["signature"], message: v["tbs_certificate"], algorithm: alg))
        // negative twins: changed message, changed signature
        #expect(
            try !key.verify(signature: v["signature"], message: flipBit(v["tbs_certificate"], at: 40), algorithm: alg))
        #expect(
            try !key.verify(
                signature: flipBit(v["signature"], at: v["signature"].count - 5), message: v["tbs_certificate"],
                algorithm: alg))
        if let curveName = v.fields["named_curve"] as? String {
            guard case .ec(let curve) = key.kind else {
                Issue.record("not EC")
                return
            }
            #expect(curve.namedCurve == NamedCurve(rawValue: curveName))
            #expect(curve == ECCurve(named: NamedCurve(rawValue: curveName)!))
        }
        // re-encoding: named-curve OID when the explicit parameters match a named curve; same key back
        let reencoded = key.subjectPublicKeyInfo
        #expect(try PublicKey(subjectPublicKeyInfo: reencoded) == key)
        if case .ec(let curve) = key.kind, curve.namedCurve != nil {
            #expect(reencoded.count < v["subject_public_key_info"].count)
        }
    }

    static let curves: [NamedCurve] = [
        .secp192r1, .secp256r1, .secp521r1, .brainpoolP256r1, .brainpoolP384r1, .brainpoolP512r1,
    ]

    @Test(arguments: curves)
    func ecdsaRoundTrip(_ named: NamedCurve) throws {
        let curve = ECCurve(named: named)
        let key = try PrivateKey.generateEC(curve: curve)
        let message = Array("ICAO 9303 document security object".utf8)
        for hash in [HashAlgorithm.sha1, .sha256, .sha512] {
            let der = try key.sign(message, algorithm: .ecdsa(hash))
            #expect(try key.publicKey.verify(signature: der, message: message, algorithm: .ecdsa(hash)))
            #expect(try !key.publicKey.verify(signature: der, message: message + [0], algorithm: .ecdsa(hash)))
            let plain = try key.sign(message, algorithm: .ecdsaPlain(hash))
            #expect(plain.count == 2 * curve.fieldSize)
            #expect(try key.publicKey.verify(signature: plain, message: message, algorithm: .ecdsaPlain(hash)))
            #expect(
                try !key.publicKey.verify(
                    signature: flipBit(plain, at: 3), message: message, algorithm: .ecdsaPlain(hash)))
            // conversions both ways
            let converted = try ECDSASignature.plain(fromDER: der, width: curve.fieldSize)
            #expect(try key.publicKey.verify(signature: converted, message: message, algorithm: .ecdsaPlain(hash)))
            #expect(
                try key.publicKey.verify(
                    signature: ECDSASignature.der(fromPlain: plain), message: message, algorithm: .ecdsa(hash)))
        }
        #expect(key.ecPrivateScalar?.count == curve.orderSize)
        // PKCS#8 round trip
        let restored = try PrivateKey(pkcs8: key.pkcs8.bytes)
        #expect(restored.publicKey == key.publicKey)
        #expect(restored.ecPrivateScalar == key.ecPrivateScalar)
        // garbage signatures are a plain "false", not an error
        #expect(
            try !key.publicKey.verify(
                signature: [0x30, 0x03, 0x02, 0x01], message: message, algorithm: .ecdsa(.sha256)))
        #expect(throws: CryptoError.self) {
            try key.publicKey.verify(signature: [1], message: message, algorithm: .rsaPKCS1v15(.sha256))
        }
    }

    /// A curve with a generator that is no standard curve's (a PACE-mapped generator): usable in memory, but its
    /// key written out with explicit parameters is refused when read back (`CryptoLimits.explicitCurves`).
    @Test func ecdsaOnExplicitCurve() throws {
        let g1 = try Vector("crypto/icao-9303-11-appG1-pace-ecdh-gm.json")
        let curve = try ECCurve(named: .brainpoolP256r1).withGenerator(g1["mapped_generator"])
        #expect(curve.namedCurve == nil)
        let key = try PrivateKey.generateEC(curve: curve)
        let message: [UInt8] = [1, 2, 3]
        let signature = try key.sign(message, algorithm: .ecdsa(.sha256))
        #expect(try key.publicKey.verify(signature: signature, message: message, algorithm: .ecdsa(.sha256)))
        #expect(try !key.publicKey.verify(signature: signature, message: [1, 2, 4], algorithm: .ecdsa(.sha256)))
        let spki = key.publicKey.subjectPublicKeyInfo
        do {
            _ = try PublicKey(subjectPublicKeyInfo: spki)
            Issue.record("explicit parameters with a non-standard generator were accepted")
        } catch {
            #expect(error.reason.contains("CryptoLimits.explicitCurves"), "\(error)")
        }
    }

    @Test(arguments: [
        SignatureAlgorithm.rsaPKCS1v15(.sha256), .rsaPKCS1v15(.sha1), .rsaPKCS1v15(.sha512),
        .rsaPSS(hash: .sha256, mgf1Hash: .sha256, saltLength: 32),
        .rsaPSS(hash: .sha512, mgf1Hash: .sha512, saltLength: 64),
        .rsaPSS(hash: .sha1, mgf1Hash: .sha1, saltLength: 20),
    ])
    func rsaRoundTrip(_ alg: SignatureAlgorithm) throws {
        let key = TestKeys.rsa2048
        #expect(key.publicKey.kind == .rsa(modulusBits: 2048))
        let message = Array("EF.SOD signed attributes".utf8)
        let signature = try key.sign(message, algorithm: alg)
        #expect(signature.count == 256)
        #expect(try key.publicKey.verify(signature: signature, message: message, algorithm: alg))
        #expect(try !key.publicKey.verify(signature: signature, message: message + [1], algorithm: alg))
        #expect(try !key.publicKey.verify(signature: flipBit(signature, at: 100), message: message, algorithm: alg))
        // a superfluous leading zero is tolerated
        #expect(try key.publicKey.verify(signature: [0] + signature, message: message, algorithm: alg))
        if case .rsaPSS(let h, let m, _) = alg {
            #expect(
                try key.publicKey.verify(
                    signature: signature, message: message, algorithm: .rsaPSS(hash: h, mgf1Hash: m, saltLength: -1)))
            #expect(
                try !key.publicKey.verify(
                    signature: signature, message: message, algorithm: .rsaPSS(hash: h, mgf1Hash: m, saltLength: 0)))
        }
        #expect(throws: CryptoError.self) {
            try key.publicKey.verify(signature: signature, message: message, algorithm: .ecdsa(.sha256))
        }
    }

    @Test func rsaRawOperationsAndPKCS8() throws {
        let key = TestKeys.rsa2048
        var m = [UInt8](repeating: 0x5A, count: 256)
        m[0] = 0x6A
        let s = try key.rsaPrivateOperation(m)
        #expect(s.count == 256)
        #expect(try key.publicKey.rsaPublicOperation(s) == m)
        #expect(try key.publicKey.rsaPublicOperation([0] + s) == m)
        #expect(try key.publicKey.rsaPublicOperation(flipBit(s, at: 10)) != m)
        #expect(throws: CryptoError.self) { try key.publicKey.rsaPublicOperation([UInt8](repeating: 0xFF, count: 256)) }
        let restored = try PrivateKey(pkcs8: key.pkcs8.bytes)
        #expect(restored.publicKey == key.publicKey)
        #expect(try restored.rsaPrivateOperation(m) == s)
        #expect(key.ecPrivateScalar == nil)
        let spki = key.publicKey.subjectPublicKeyInfo
        #expect(try PublicKey(subjectPublicKeyInfo: spki) == key.publicKey)
        #expect(try PublicKey(rsaModulus: key.publicKey.rsaModulus!, exponent: [1, 0, 1]) == key.publicKey)
    }

    @Test func ecdsaSignatureFormats() throws {
        // non-minimal INTEGER (extra leading zero) is tolerated; widths are fixed
        let der = hex("300902020001020300FF01")
        #expect(try ECDSASignature.plain(fromDER: der, width: 4) == hex("00000001" + "0000FF01"))
        #expect(try ECDSASignature.der(fromPlain: hex("00000001" + "0000FF01")) == hex("3008020101020300FF01"))
        #expect(throws: CryptoError.self) { try ECDSASignature.plain(fromDER: der, width: 1) }
        #expect(throws: CryptoError.self) { try ECDSASignature.plain(fromDER: hex("3003020101"), width: 4) }
        #expect(throws: CryptoError.self) { try ECDSASignature.der(fromPlain: [1, 2, 3]) }
    }

    @Test func rejectsBadKeys() {
        #expect(throws: CryptoError.self) { try PublicKey(subjectPublicKeyInfo: [0x30, 0x00]) }
        #expect(throws: CryptoError.self) { try PublicKey(rsaModulus: [0x0F], exponent: [3]) }
        #expect(throws: CryptoError.self) { try PublicKey(ecPoint: [0x04, 1, 2], curve: ECCurve(named: .secp256r1)) }
    }
}
