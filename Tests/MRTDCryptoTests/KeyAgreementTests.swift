import MRTDCrypto
import MRTDTestSupport
import Testing

/// ECDH / DH on the standardized domain parameters and the PACE GM worked examples.
@Suite struct KeyAgreementTests {
    /// ICAO 9303-11 App. G.1 (and the BSI EAC worked example, same curve): every EC value of PACE GM.
    @Test(arguments: [
        "crypto/icao-9303-11-appG1-pace-ecdh-gm.json", "crypto/bsi-tr03110-eac-worked-example-pace-ecdh.json",
    ])
    func paceECDHGenericMapping(_ file: String) throws {
        let v = try Vector(file)
        guard case .ec(let curve) = StandardDomainParameters.parameters(id: 13) else {
            Issue.record("id 13")
            return
        }
        #expect(curve.namedCurve == .brainpoolP256r1)

        // K_pi = KDF(K, 3) and the nonce s = D(K_pi, z) (§4.4.3.3, §9.7.3)
        if file.contains("icao") {
            let k = HashAlgorithm.sha1.hash(ascii(v.string("mrz_information_ascii")))
            #expect(k == v["k_sha1_mrz"])
            #expect(KDF.derive(k, counter: KDF.passwordCounter, cipher: .aes128).bytes == v["k_pi"])
        } else {
            #expect(
                KDF.derive(ascii(v.string("password_ascii")), counter: KDF.passwordCounter, cipher: .aes128).bytes
                    == v["k_pi"])
        }
        let kpi = SecretBytes(v["k_pi"])
        let s = try AES.decryptCBC(key: kpi, iv: [UInt8](repeating: 0, count: 16), v["encrypted_nonce"])
        #expect(s == v["nonce_s"])
        #expect(
            try AES.decryptCBC(key: kpi, iv: [UInt8](repeating: 0, count: 16), flipBit(v["encrypted_nonce"], at: 0))
                != v["nonce_s"])

        // mapping keys and H
        #expect(try curve.multiplyGenerator(by: v["map_ifd_private"]) == v["map_ifd_public"])
        #expect(try curve.multiplyGenerator(by: v["map_ic_private"]) == v["map_ic_public"])
        let h1 = try curve.multiply(v["map_ic_public"], by: v["map_ifd_private"])
        let h2 = try curve.multiply(v["map_ifd_public"], by: v["map_ic_private"])
        #expect(h1 == v["shared_secret_h"] && h2 == h1)
        #expect(
            try curve.multiply(v["map_ic_public"], by: flipBit(v["map_ifd_private"], at: 31)) != v["shared_secret_h"])

        // Generic mapping: G~ = s·G + H
        let mapped = try curve.add(curve.multiplyGenerator(by: s), h1)
        #expect(mapped == v["mapped_generator"])
        let mappedCurve = try curve.withGenerator(mapped)
        #expect(mappedCurve.namedCurve == nil)
        #expect(mappedCurve.generator == v["mapped_generator"])
        #expect(mappedCurve != curve)

        // ephemeral keys on the mapped generator and the shared secret K
        #expect(try mappedCurve.multiplyGenerator(by: v["eph_ifd_private"]) == v["eph_ifd_public"])
        #expect(try mappedCurve.multiplyGenerator(by: v["eph_ic_private"]) == v["eph_ic_public"])
        let k = try mappedCurve.sharedSecret(
            privateKey: SecretBytes(v["eph_ifd_private"]), peerPublicKey: v["eph_ic_public"])
        let kChip = try mappedCurve.sharedSecret(
            privateKey: SecretBytes(v["eph_ic_private"]), peerPublicKey: v["eph_ifd_public"])
        #expect(k.bytes == v["shared_secret_k"] && kChip == k)
        #expect(try mappedCurve.xCoordinate(v["eph_ic_public"]).count == 32)

        // session keys and tokens
        let ksEnc = KDF.derive(k.bytes, counter: 1, cipher: .aes128)
        let ksMac = KDF.derive(k.bytes, counter: 2, cipher: .aes128)
        #expect(ksEnc.bytes == v["ks_enc"] && ksMac.bytes == v["ks_mac"])
        if v.fields["token_input_t_ifd"] != nil {
            #expect(Array(try AESCMAC.mac(key: ksMac, v["token_input_t_ifd"]).prefix(8)) == v["t_ifd"])
            #expect(Array(try AESCMAC.mac(key: ksMac, v["token_input_t_ic"]).prefix(8)) == v["t_ic"])
            #expect(Array(try AESCMAC.mac(key: ksMac, flipBit(v["token_input_t_ic"], at: 20)).prefix(8)) != v["t_ic"])
        }
        // a fixed random source reproduces the published private key (exact byte count drawn)
        let pair = try mappedCurve.generateKeyPair(random: FixedRandom([Array(v["eph_ifd_private"].suffix(32))]))
        #expect(pair.publicKey == v["eph_ifd_public"])

        // invalid peer points are rejected
        #expect(throws: CryptoError.self) {
            try mappedCurve.sharedSecret(privateKey: k, peerPublicKey: flipBit(v["eph_ic_public"], at: 64))
        }
        #expect(!curve.isOnCurve(flipBit(v["map_ic_public"], at: 40)))
    }

    /// ICAO 9303-11 App. G.2: PACE DH GM on the RFC 5114 1024-bit group (id 0).
    @Test func paceDHGenericMapping() throws {
        let v = try Vector("crypto/icao-9303-11-appG2-pace-dh-gm.json")
        guard case .dh(let group) = StandardDomainParameters.parameters(id: 0) else {
            Issue.record("id 0")
            return
        }
        #expect(group.p == v["dh_p"] && group.g == v["dh_g"] && group.q == v["dh_q"])
        #expect(group.primeSize == 128)

        let s = try AES.decryptCBC(
            key: SecretBytes(v["k_pi"]), iv: [UInt8](repeating: 0, count: 16), v["encrypted_nonce"])
        #expect(s == v["nonce_s"])
        #expect(try group.publicKey(for: SecretBytes(v["map_ifd_private"])) == v["map_ifd_public"])
        #expect(try group.publicKey(for: SecretBytes(v["map_ic_private"])) == v["map_ic_public"])
        let h = try group.sharedSecret(privateKey: SecretBytes(v["map_ifd_private"]), peerPublicKey: v["map_ic_public"])
        #expect(h.bytes == v["shared_secret_h"])
        #expect(
            try group.sharedSecret(privateKey: SecretBytes(v["map_ic_private"]), peerPublicKey: v["map_ifd_public"])
                == h)
        #expect(
            try group.sharedSecret(
                privateKey: SecretBytes(flipBit(v["map_ifd_private"], at: 19)), peerPublicKey: v["map_ic_public"]
            ).bytes != v["shared_secret_h"])

        // g~ = g^s · H mod p
        let p = BigNumber(group.p)
        let mapped = BigNumber.modMul(BigNumber.modExp(BigNumber(group.g), BigNumber(s), p), BigNumber(h.bytes), p)
        #expect(mapped.bytes(width: 128) == v["mapped_generator"])
        let mappedGroup = try group.withGenerator(mapped.bytes(width: 128))
        #expect(mappedGroup.g == v["mapped_generator"])

        #expect(try mappedGroup.publicKey(for: SecretBytes(v["eph_ifd_private"])) == v["eph_ifd_public"])
        #expect(try mappedGroup.publicKey(for: SecretBytes(v["eph_ic_private"])) == v["eph_ic_public"])
        let k = try mappedGroup.sharedSecret(
            privateKey: SecretBytes(v["eph_ifd_private"]), peerPublicKey: v["eph_ic_public"])
        #expect(k.bytes == v["shared_secret_k"])
        #expect(
            try mappedGroup.sharedSecret(
                privateKey: SecretBytes(v["eph_ic_private"]), peerPublicKey: v["eph_ifd_public"]) == k)
        let ksMac = KDF.derive(k.bytes, counter: 2, cipher: .aes128)
        #expect(KDF.derive(k.bytes, counter: 1, cipher: .aes128).bytes == v["ks_enc"] && ksMac.bytes == v["ks_mac"])
        #expect(Array(try AESCMAC.mac(key: ksMac, v["token_input_t_ifd"]).prefix(8)) == v["t_ifd"])
        #expect(Array(try AESCMAC.mac(key: ksMac, v["token_input_t_ic"]).prefix(8)) == v["t_ic"])

        // peer values outside [2, p-2] or outside the subgroup are rejected
        #expect(throws: CryptoError.self) { try group.sharedSecret(privateKey: k, peerPublicKey: [1]) }
        #expect(throws: CryptoError.self) {
            try group.sharedSecret(privateKey: k, peerPublicKey: flipBit(v["map_ic_public"], at: 127))
        }
        // a generator outside the subgroup is refused
        #expect(throws: CryptoError.self) { try group.withGenerator(flipBit(v["mapped_generator"], at: 127)) }
        // the fixed random source reproduces the published 160-bit private key
        let pair = try mappedGroup.generateKeyPair(random: FixedRandom([v["eph_ifd_private"]]))
        #expect(pair.publicKey == v["eph_ifd_public"])
    }

    /// BSI EAC worked example, DH: private keys as wide as p (not reduced mod q) and a peer value
    /// stored with a superfluous leading zero.
    @Test func bsiDHGenericMapping() throws {
        let v = try Vector("crypto/bsi-tr03110-eac-worked-example-pace-dh.json")
        let group = DHGroup(.group1024_160)
        #expect(
            KDF.derive(ascii(v.string("password_ascii")), counter: KDF.passwordCounter, cipher: .aes128).bytes
                == v["k_pi"])
        let s = try AES.decryptCBC(
            key: SecretBytes(v["k_pi"]), iv: [UInt8](repeating: 0, count: 16), v["encrypted_nonce"])
        #expect(s == v["nonce_s"])
        #expect(try group.publicKey(for: SecretBytes(v["map_ifd_private"])) == v["map_ifd_public"])
        #expect(try group.publicKey(for: SecretBytes(v["map_ic_private"])) == v["map_ic_public"])
        let h = try group.sharedSecret(privateKey: SecretBytes(v["map_ic_private"]), peerPublicKey: v["map_ifd_public"])
        #expect(h.bytes == v["shared_secret_h"])
        let p = BigNumber(group.p)
        let mapped = BigNumber.modMul(BigNumber.modExp(BigNumber(group.g), BigNumber(s), p), BigNumber(h.bytes), p)
            .bytes(width: 128)
        #expect(mapped == v["mapped_generator"])
        let mappedGroup = try group.withGenerator(mapped)
        let ephIFD = try mappedGroup.publicKey(for: SecretBytes(v["eph_ifd_private"]))
        #expect([0] + ephIFD == v["eph_ifd_public_as_stored"])
        #expect(try mappedGroup.publicKey(for: SecretBytes(v["eph_ic_private"])) == v["eph_ic_public"])
        let k = try mappedGroup.sharedSecret(
            privateKey: SecretBytes(v["eph_ic_private"]), peerPublicKey: v["eph_ifd_public_as_stored"])
        #expect(k.bytes == v["shared_secret_k"])
        #expect(
            try mappedGroup.sharedSecret(
                privateKey: SecretBytes(v["eph_ifd_private"]), peerPublicKey: v["eph_ic_public"]) == k)
        #expect(KDF.derive(k.bytes, counter: 1, cipher: .aes128).bytes == v["ks_enc"])
        #expect(KDF.derive(k.bytes, counter: 2, cipher: .aes128).bytes == v["ks_mac"])
        #expect(
            try mappedGroup.sharedSecret(
                privateKey: SecretBytes(flipBit(v["eph_ic_private"], at: 100)),
                peerPublicKey: v["eph_ifd_public_as_stored"]
            ).bytes != v["shared_secret_k"])
    }

    @Test(arguments: [8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18])
    func standardCurve(_ id: Int) throws {
        guard case .ec(let curve) = StandardDomainParameters.parameters(id: id) else {
            Issue.record("id \(id) missing")
            return
        }
        #expect(curve.namedCurve != nil)
        #expect(StandardDomainParameters.id(of: curve.namedCurve!) == id)
        #expect(curve.isOnCurve(curve.generator))
        #expect(curve.generator.count == 1 + 2 * curve.fieldSize)
        #expect(curve.a.count == curve.fieldSize && curve.b.count == curve.fieldSize)
        let a = try curve.generateKeyPair(random: SystemRandom())
        let b = try curve.generateKeyPair(random: SystemRandom())
        #expect(curve.isOnCurve(a.publicKey))
        let ab = try curve.sharedSecret(privateKey: a.privateKey, peerPublicKey: b.publicKey)
        let ba = try curve.sharedSecret(privateKey: b.privateKey, peerPublicKey: a.publicKey)
        #expect(ab == ba && ab.count == curve.fieldSize)
        let c = try curve.generateKeyPair(random: SystemRandom())
        #expect(try curve.sharedSecret(privateKey: c.privateKey, peerPublicKey: b.publicKey) != ab)

        // explicit parameters equal to the named curve are recognised as it
        let explicit = try ECCurve(
            p: curve.p, a: curve.a, b: curve.b, generator: curve.generator, order: curve.order, cofactor: curve.cofactor
        )
        #expect(explicit == curve && explicit.namedCurve == curve.namedCurve)
        // a different b does not match (and G is then off the curve)
        #expect(throws: CryptoError.self) {
            try ECCurve(
                p: curve.p, a: curve.a, b: flipBit(curve.b, at: curve.b.count - 1, bit: 1), generator: curve.generator,
                order: curve.order, cofactor: curve.cofactor)
        }
        // ... also with a compressed generator (decoded, then matched)
        let gx = Array(curve.generator[1...curve.fieldSize])
        let compressedG = [UInt8(2 | (curve.generator.last! & 1))] + gx
        let explicitCompressed = try ECCurve(
            p: curve.p, a: curve.a, b: curve.b, generator: compressedG, order: curve.order, cofactor: curve.cofactor)
        #expect(explicitCompressed == curve && explicitCompressed.namedCurve == curve.namedCurve)
        // parameters that are not a standard curve's are refused (CryptoLimits.explicitCurves): another generator
        // of the same group, a wrong order
        let otherG = try curve.multiplyGenerator(by: [2])
        #expect(throws: CryptoError.self) {
            try ECCurve(
                p: curve.p, a: curve.a, b: curve.b, generator: otherG, order: curve.order, cofactor: curve.cofactor)
        }
        var wrongOrder = curve.order
        wrongOrder[wrongOrder.count - 1] ^= 0x02
        #expect(throws: CryptoError.self) {
            try ECCurve(
                p: curve.p, a: curve.a, b: curve.b, generator: curve.generator, order: wrongOrder,
                cofactor: curve.cofactor)
        }
        // compressed encoding decodes to the same point
        let x = Array(a.publicKey[1...curve.fieldSize])
        let compressed = [UInt8(2 | (a.publicKey.last! & 1))] + x
        #expect(try curve.decodePoint(compressed) == a.publicKey)
        #expect(throws: CryptoError.self) { try curve.decodePoint([0x00]) }
        // the uncompressed encoding comes back as given; one whose X is not reduced (X + p, where that still
        // fits the field width) is never returned as given: refused, or re-encoded canonically
        #expect(try curve.decodePoint(a.publicKey) == a.publicKey)
        let xPlusP = (BigNumber(x) + BigNumber(curve.p)).bytes
        if xPlusP.count == curve.fieldSize {
            let unreduced = [0x04] + xPlusP + Array(a.publicKey[(1 + curve.fieldSize)...])
            if let decoded = try? curve.decodePoint(unreduced) { #expect(decoded == a.publicKey) }
        }
        // n·G is the point at infinity: multiply refuses to return it
        #expect(throws: CryptoError.self) { try curve.multiplyGenerator(by: curve.order) }
    }

    @Test(arguments: [0, 1, 2])
    func standardDHGroup(_ id: Int) throws {
        guard case .dh(let group) = StandardDomainParameters.parameters(id: id) else {
            Issue.record("id \(id) missing")
            return
        }
        let p = BigNumber(group.p)
        let q = BigNumber(group.q!)
        #expect(BigNumber.modExp(BigNumber(group.g), q, p) == BigNumber(1))
        #expect(q.bitCount == [160, 224, 256][id])
        #expect(p.bitCount == [1024, 2048, 2048][id])
        let a = try group.generateKeyPair(random: SystemRandom())
        let b = try group.generateKeyPair(random: SystemRandom())
        #expect(a.publicKey.count == group.primeSize)
        let ab = try group.sharedSecret(privateKey: a.privateKey, peerPublicKey: b.publicKey)
        #expect(try group.sharedSecret(privateKey: b.privateKey, peerPublicKey: a.publicKey) == ab)
        #expect(ab.count == group.primeSize)
        #expect(try DHGroup(p: group.p, g: group.g, q: group.q) == group)
    }

    @Test(arguments: [3, 4, 5, 6, 7, 19, 31, -1])
    func reservedIDs(_ id: Int) {
        #expect(StandardDomainParameters.parameters(id: id) == nil)
    }
}
