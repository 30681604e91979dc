import ASN1TLV
import ISO7816
import MRTDAccessControl
import MRTDCrypto
import MRTDDocument
import MRTDSecureMessaging
import MRTDTestSupport
import Testing

/// Active Authentication — ICAO 9303-11 §6.1, Appendix F (ISO/IEC 9796-2 scheme 1), and real-document
/// challenge/signature pairs (RSA-1024 trailer BC, RSA-1792 trailer 34CC).
@Suite struct ActiveAuthenticationTests {
    /// F = s^e mod n computed here with BigNumber from DG15's modulus and exponent, so the 9796-2 logic is
    /// checked independently of the RSA primitive.
    static func recover(dg15: [UInt8], signature: [UInt8]) throws -> [UInt8] {
        let spki = try ActiveAuthentication.publicKeyInfo(dg15: dg15)
        let node = try TLVParser.parse(spki, rules: .ber)
        let rsa = try TLVParser.parse(node.children[1].bitStringValue(), rules: .ber)
        let n = try rsa.children[0].unsignedIntegerBytes()
        let e = try rsa.children[1].unsignedIntegerBytes()
        return BigNumber.modExp(BigNumber(signature), BigNumber(e), BigNumber(n)).bytes(width: n.count)
    }

    @Test func appendixF() throws {
        let v = try Vector("aa/icao-9303-11-appF-aa.json")
        let r = try ActiveAuthentication.parseMessageRepresentative(v.bytes("f"))
        #expect(r.partialRecovery)
        #expect(r.m1 == v.bytes("m1"))
        #expect(r.m1.count == 106)
        #expect(r.digest == v.bytes("h_sha1_m"))
        #expect(r.hash == .sha1 && r.trailer == [0xBC])
        #expect(r.m1 + v.bytes("rnd_ifd") == v.bytes("m"))
        #expect(ActiveAuthentication.verifyMessageRepresentative(v.bytes("f"), challenge: v.bytes("rnd_ifd")).verified)
        #expect(
            CommandAPDU.internalAuthenticate(v.bytes("rnd_ifd"), ne: 256).bytes
                == v.bytes("internal_authenticate_command"))
    }

    /// Negative twins of Appendix F: another challenge, a flipped bit in M1, a broken header or trailer.
    @Test func appendixFNegative() throws {
        let v = try Vector("aa/icao-9303-11-appF-aa.json")
        let f = v.bytes("f")
        #expect(
            !ActiveAuthentication.verifyMessageRepresentative(f, challenge: flipBit(v.bytes("rnd_ifd"), at: 7)).verified
        )
        #expect(
            !ActiveAuthentication.verifyMessageRepresentative(flipBit(f, at: 10), challenge: v.bytes("rnd_ifd"))
                .verified)
        #expect(
            !ActiveAuthentication.verifyMessageRepresentative(flipBit(f, at: 0, bit: 7), challenge: v.bytes("rnd_ifd"))
                .verified)
        #expect(throws: AccessControlError.self) {
            try ActiveAuthentication.parseMessageRepresentative(flipBit(f, at: f.count - 1))
        }
        #expect(throws: AccessControlError.self) {
            try ActiveAuthentication.parseMessageRepresentative(flipBit(f, at: 0, bit: 6))
        }
    }

    @Test func realPairsSHA1() throws {
        let v = try Vector("aa/pymrtd-aa-rsa1024-sha1.json")
        let pairs = v.nested("vectors")
        #expect(pairs.count == 4)
        for p in pairs {
            let f = try Self.recover(dg15: v.bytes("dg15"), signature: hex(p["signature"]!))
            let r = try ActiveAuthentication.parseMessageRepresentative(f)
            #expect(r.m1 == hex(p["m1"]!))
            #expect(r.hash == .sha1)
            #expect(ActiveAuthentication.verifyMessageRepresentative(f, challenge: hex(p["rnd_ifd"]!)).verified)
            #expect(
                !ActiveAuthentication.verifyMessageRepresentative(f, challenge: flipBit(hex(p["rnd_ifd"]!), at: 0))
                    .verified)
            let fBad = try Self.recover(dg15: v.bytes("dg15"), signature: flipBit(hex(p["signature"]!), at: 60))
            #expect(!ActiveAuthentication.verifyMessageRepresentative(fBad, challenge: hex(p["rnd_ifd"]!)).verified)
        }
    }

    @Test func realPairExplicitSHA256() throws {
        let v = try Vector("aa/gmrtd-aa-rsa1792-sha256.json")
        let f = try Self.recover(dg15: v.bytes("dg15"), signature: v.bytes("signature"))
        let r = try ActiveAuthentication.parseMessageRepresentative(f)
        #expect(r.hash == .sha256 && r.trailer == [0x34, 0xCC])
        #expect(r.m1.count == 189)
        #expect(ActiveAuthentication.verifyMessageRepresentative(f, challenge: v.bytes("rnd_ifd")).verified)
        #expect(
            !ActiveAuthentication.verifyMessageRepresentative(f, challenge: flipBit(v.bytes("rnd_ifd"), at: 3)).verified
        )
    }

    @Test func trailerTable() {
        #expect(ActiveAuthentication.hash(forTrailer: 0x33) == .sha1)
        #expect(ActiveAuthentication.hash(forTrailer: 0x38) == .sha224)
        #expect(ActiveAuthentication.hash(forTrailer: 0x34) == .sha256)
        #expect(ActiveAuthentication.hash(forTrailer: 0x36) == .sha384)
        #expect(ActiveAuthentication.hash(forTrailer: 0x35) == .sha512)
        #expect(ActiveAuthentication.hash(forTrailer: 0x31) == nil)
        #expect(ActiveAuthentication.hash(forSignatureAlgorithm: "1.2.840.10045.4.3.2") == .sha256)
        #expect(ActiveAuthentication.hash(forSignatureAlgorithm: "0.4.0.127.0.7.1.1.4.1.4") == .sha384)
        #expect(ActiveAuthentication.hash(forSignatureAlgorithm: "1.2.840.113549.1.1.11") == nil)
    }

    /// Total recovery form '4B BB … BA' is parsed too.
    @Test func totalRecoveryPadding() throws {
        let m1: [UInt8] = Array("short".utf8)
        let challenge: [UInt8] = [1, 2, 3, 4, 5, 6, 7, 8]
        let h = HashAlgorithm.sha1.hash(m1 + challenge)
        let f: [UInt8] = [0x4B, 0xBB, 0xBB, 0xBA] + m1 + h + [0xBC]
        let r = try ActiveAuthentication.parseMessageRepresentative(f + [])
        #expect(!r.partialRecovery && r.m1 == m1)
        #expect(ActiveAuthentication.verifyMessageRepresentative(f, challenge: challenge).verified)
    }

    @Test func dg15Malformed() {
        #expect(throws: AccessControlError.self) { try ActiveAuthentication.publicKeyInfo(dg15: hex("6E023000")) }
        #expect(throws: AccessControlError.self) { try ActiveAuthentication.publicKeyInfo(dg15: hex("6F0330")) }
    }
}

/// Active Authentication with the real RSA primitive, ECDSA keys, the offline transcript check and the
/// driver replayed through 3DES secure messaging.
@Suite struct ActiveAuthenticationDriverTests {
    @Test func rsaVerifyWithPublicKey() throws {
        let v = try Vector("aa/pymrtd-aa-rsa1024-sha1.json")
        let key = try ActiveAuthentication.publicKey(dg15: v.bytes("dg15"))
        #expect(ActiveAuthentication.expectedSignatureLength(key) == 128)
        for p in v.nested("vectors") {
            let ok = try ActiveAuthentication.verify(
                signature: hex(p["signature"]!), challenge: hex(p["rnd_ifd"]!), publicKey: key, signatureAlgorithm: nil)
            #expect(ok.verified && ok.scheme == .rsaISO9796_2 && ok.recoveredMessage == hex(p["m1"]!))
            let bad = try ActiveAuthentication.verify(
                signature: hex(p["signature"]!), challenge: flipBit(hex(p["rnd_ifd"]!), at: 5),
                publicKey: key, signatureAlgorithm: nil)
            #expect(!bad.verified)
        }
        #expect(
            ActiveAuthentication.internalAuthenticate(challenge: hex("47E4EE7F211F7326"), publicKey: key).bytes
                == hex("008800000847E4EE7F211F732680"))
    }

    /// gmrtd INTERNAL AUTHENTICATE under 3DES SM (RSA-1792, trailer 34CC), replayed byte for byte.
    /// The recorded reader sent Le '00', hence the explicit `ne: 256`.
    @Test func driverReplayUnder3DESSecureMessaging() async throws {
        let sm = try Vector("aa/gmrtd-aa-3des-sm.json")
        let aa = try Vector("aa/gmrtd-aa-rsa1792-sha256.json")
        let transport = ScriptedTransport(hexPairs: [(sm.string("protected_command"), sm.string("protected_response"))])
        let keys = SessionKeys(
            cipher: .tripleDES, encryption: SecretBytes(sm.bytes("ks_enc")), mac: SecretBytes(sm.bytes("ks_mac")))
        let channel = SecureChannel(
            transport: transport, session: SecureMessagingSession(keys: keys, ssc: sm.bytes("ssc_initial")))
        let (t, result) = try await ActiveAuthentication.perform(
            channel: channel, dg15: aa.bytes("dg15"), activeAuthenticationInfo: nil,
            challenge: aa.bytes("rnd_ifd"), ne: 256)
        #expect(transport.isFinished)
        #expect(t.signature == aa.bytes("signature"))
        #expect(result.verified && result.hash == .sha256)
        // The saved transcript re-verifies offline; its flipped twin does not.
        #expect(try ActiveAuthentication.verify(t).verified)
        var forged = t
        forged.signature = flipBit(t.signature, at: 100)
        #expect(try !ActiveAuthentication.verify(forged).verified)
        let key = try ActiveAuthentication.publicKey(dg15: aa.bytes("dg15"))
        #expect(ActiveAuthentication.internalAuthenticate(challenge: aa.bytes("rnd_ifd"), publicKey: key).ne == 224)
    }

    /// ECDSA (plain r||s) with the hash named by ActiveAuthenticationInfo; a generated P-256 key.
    @Test(arguments: [("1.2.840.10045.4.3.2", HashAlgorithm.sha256), ("0.4.0.127.0.7.1.1.4.1.4", HashAlgorithm.sha384)])
    func ecdsa(oid: String, hash: HashAlgorithm) throws {
        let curve = ECCurve(named: .secp256r1)
        let sk = try PrivateKey.generateEC(curve: curve)
        let dg15 = TLVWriter.encode(0x6F, sk.publicKey.subjectPublicKeyInfo)
        let challenge = hex("0102030405060708")
        let sig = try sk.sign(challenge, algorithm: .ecdsaPlain(hash))
        let key = try ActiveAuthentication.publicKey(dg15: dg15)
        #expect(ActiveAuthentication.expectedSignatureLength(key) == 64)
        let ok = try ActiveAuthentication.verify(
            signature: sig, challenge: challenge, publicKey: key, signatureAlgorithm: oid)
        #expect(ok.verified && ok.scheme == .ecdsa && ok.hash == hash)
        #expect(
            try !ActiveAuthentication.verify(
                signature: sig, challenge: flipBit(challenge, at: 0), publicKey: key, signatureAlgorithm: oid
            ).verified)
        #expect(
            try !ActiveAuthentication.verify(
                signature: flipBit(sig, at: 40), challenge: challenge, publicKey: key, signatureAlgorithm: oid
            ).verified)
        // DER-encoded signatures are tolerated.
        let der = try ECDSASignature.der(fromPlain: sig)
        #expect(
            try ActiveAuthentication.verify(
                signature: der, challenge: challenge, publicKey: key, signatureAlgorithm: oid
            ).verified)
        // Without ActiveAuthenticationInfo the hash is unknown.
        let e = #expect(throws: AccessControlError.self) {
            _ = try ActiveAuthentication.verify(
                signature: sig, challenge: challenge, publicKey: key, signatureAlgorithm: nil)
        }
        #expect(e?.step == "AA")
    }

    /// The driver over a chip that signs with another key than DG15's (a clone): verification fails.
    @Test func cloneSignature() async throws {
        let curve = ECCurve(named: .secp256r1)
        let genuine = try PrivateKey.generateEC(curve: curve)
        let clone = try PrivateKey.generateEC(curve: curve)
        let challenge = hex("A1A2A3A4A5A6A7A8")
        let sig = try clone.sign(challenge, algorithm: .ecdsaPlain(.sha256))
        let keys = SessionKeys.derive(sharedSecret: [9, 9, 9], cipher: .aes128)
        var chip = SecureMessagingSession(keys: keys)
        var reader = SecureMessagingSession(keys: keys)
        let expected = try reader.protect(.internalAuthenticate(challenge, ne: 64))
        _ = try chip.unprotectCommand(expected)
        let answer = try chip.protectResponse(ResponseAPDU(data: sig, sw: 0x9000))
        let transport = ScriptedTransport([ScriptedTransport.Step(command: expected.bytes, response: answer.bytes)])
        let channel = SecureChannel(transport: transport, session: SecureMessagingSession(keys: keys))
        let info = ActiveAuthenticationInfoBuilder.make("1.2.840.10045.4.3.2")
        let (_, result) = try await ActiveAuthentication.perform(
            channel: channel, dg15: TLVWriter.encode(0x6F, genuine.publicKey.subjectPublicKeyInfo),
            activeAuthenticationInfo: info, challenge: challenge)
        #expect(!result.verified)
        #expect(transport.isFinished)
    }
}

enum ActiveAuthenticationInfoBuilder {
    static func make(_ oid: String) -> ActiveAuthenticationInfo {
        let der = DER.set([
            DER.sequence(DER.objectIdentifier("2.23.136.1.1.5"), DER.integer(1), DER.objectIdentifier(oid))
        ])
        return try! SecurityInfos.parse(der).activeAuthenticationInfo!
    }
}
