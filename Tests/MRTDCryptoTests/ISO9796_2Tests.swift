import MRTDCrypto
import MRTDTestSupport
import Testing

/// The SubjectPublicKeyInfo inside DG15 ('6F' L SPKI).
private func spki(fromDG15 dg15: [UInt8]) -> [UInt8] {
    precondition(dg15[0] == 0x6F)
    let lengthBytes = dg15[1] & 0x80 != 0 ? Int(dg15[1] & 0x7F) : 0
    return Array(dg15[(2 + lengthBytes)...])
}

@Suite struct ISO9796_2Tests {
    /// ICAO 9303-11 App. F: F = 6A || M1 || SHA-1(M1 || RND.IFD) || BC.
    @Test func appendixFRepresentative() throws {
        let v = try Vector("crypto/icao-9303-11-appF-aa.json")
        #expect(v["m1"] + v["rnd_ifd"] == v["m"])
        #expect(HashAlgorithm.sha1.hash(v["m"]) == v["h_sha1_m"])
        #expect(ISO9796_2.representative(m1: v["m1"], m2: v["rnd_ifd"], hash: .sha1) == v["f"])
        #expect(ISO9796_2.representative(m1: v["m1"], m2: flipBit(v["rnd_ifd"], at: 7), hash: .sha1) != v["f"])
        #expect(v["f"].count == 128)
    }

    /// Real RSA-1792 / SHA-256 (trailer 34CC) Active Authentication signature.
    @Test func rsa1792SHA256() throws {
        let v = try Vector("crypto/gmrtd-aa-rsa1792-sha256.json")
        let key = try PublicKey(subjectPublicKeyInfo: spki(fromDG15: v["dg15"]))
        #expect(key.kind == .rsa(modulusBits: 1792))
        let recovered = try ISO9796_2.recover(signature: v["signature"], publicKey: key)
        #expect(recovered.hash == .sha256 && recovered.partialRecovery)
        #expect(recovered.m1.count == 189)
        #expect(try ISO9796_2.verify(signature: v["signature"], nonRecoverable: v["rnd_ifd"], publicKey: key))
        #expect(
            try !ISO9796_2.verify(
                signature: v["signature"], nonRecoverable: flipBit(v["rnd_ifd"], at: 0), publicKey: key))
        #expect(
            try !ISO9796_2.verify(
                signature: flipBit(v["signature"], at: 50), nonRecoverable: v["rnd_ifd"], publicKey: key))
    }

    /// Four real RSA-1024 / SHA-1 signatures: the recovered M1 matches, the challenge verifies.
    @Test(arguments: 0..<4)
    func rsa1024SHA1(_ index: Int) throws {
        let file = try Vector("crypto/pymrtd-aa-rsa1024-sha1.json")
        let v = file.list("vectors")[index]
        let key = try PublicKey(subjectPublicKeyInfo: spki(fromDG15: file["dg15"]))
        let recovered = try ISO9796_2.recover(signature: v["signature"], publicKey: key)
        #expect(recovered.m1 == v["m1"] && recovered.hash == .sha1)
        #expect(try ISO9796_2.verify(signature: v["signature"], nonRecoverable: v["rnd_ifd"], publicKey: key))
        #expect(
            try !ISO9796_2.verify(
                signature: v["signature"], nonRecoverable: flipBit(v["rnd_ifd"], at: 3), publicKey: key))
    }

    @Test(arguments: [HashAlgorithm.sha1, .sha256, .sha512])
    func signRoundTrip(_ hash: HashAlgorithm) throws {
        let key = TestKeys.rsa2048
        let challenge = hex("0102030405060708")
        let signature = try ISO9796_2.sign(nonRecoverable: challenge, privateKey: key, hash: hash)
        #expect(try ISO9796_2.verify(signature: signature, nonRecoverable: challenge, publicKey: key.publicKey))
        #expect(
            try !ISO9796_2.verify(
                signature: signature, nonRecoverable: hex("0102030405060709"), publicKey: key.publicKey))
        #expect(try ISO9796_2.recover(signature: signature, publicKey: key.publicKey).hash == hash)
    }
}
