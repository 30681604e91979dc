import MRTDCrypto
import MRTDTestSupport
import Testing

/// Hashes, 3DES, retail MAC, AES, CMAC, padding and the ICAO KDF against published vectors.
@Suite struct SymmetricTests {
    @Test(arguments: HashAlgorithm.allCases)
    func shaOfABC(_ algorithm: HashAlgorithm) throws {
        let v = try Vector("crypto/fips180-2-sha-abc.json")
        let digest = algorithm.hash(ascii(v.string("message_ascii")))
        #expect(digest == v[algorithm.rawValue])
        #expect(digest.count == algorithm.outputLength)
        // negative twin: one changed input bit changes the digest
        #expect(algorithm.hash(flipBit(ascii("abc"), at: 2)) != v[algorithm.rawValue])
        #expect(HashAlgorithm(oid: algorithm.oid) == algorithm)
    }

    @Test func hashOIDs() {
        #expect(HashAlgorithm.sha256.oid == "2.16.840.1.101.3.4.2.1")
        #expect(HashAlgorithm(oid: "1.2.3") == nil)
    }

    @Test func padding() throws {
        #expect(Padding.pad([], blockSize: 8) == hex("8000000000000000"))
        #expect(Padding.pad(hex("0102030405060708"), blockSize: 8) == hex("01020304050607088000000000000000"))
        #expect(Padding.pad(hex("01"), blockSize: 16).count == 16)
        #expect(try Padding.unpad(hex("0102800000000000"), blockSize: 8) == hex("0102"))
        #expect(try Padding.unpad(hex("01020304050607088000000000000000"), blockSize: 8) == hex("0102030405060708"))
        #expect(throws: CryptoError.self) { try Padding.unpad(hex("0102000000000000"), blockSize: 8) }
        #expect(throws: CryptoError.self) { try Padding.unpad(hex("01028000000000"), blockSize: 8) }
        #expect(throws: CryptoError.self) { try Padding.unpad(hex("80000000000000000000000000000000"), blockSize: 8) }
    }

    /// ICAO 9303-11 App. D.1–D.3: KDF with SHA-1 and parity adjustment, 3DES and retail MAC.
    @Test func bacKeyDerivationAndAuthentication() throws {
        let v = try Vector("crypto/icao-9303-11-appD1-D3-bac-keys.json")
        // D.2: Kseed = first 16 bytes of SHA-1(MRZ information)
        let sha = HashAlgorithm.sha1.hash(ascii(v.string("mrz_information_ascii")))
        #expect(sha == v["sha1_mrz_information"])
        let kseed = Array(sha.prefix(16))
        #expect(kseed == v["kseed"])
        // D.2: Kenc / Kmac via the KDF, and the intermediate hashes before parity adjustment
        #expect(HashAlgorithm.sha1.hash(kseed + [0, 0, 0, 1]) == v["sha1_kseed_00000001"])
        #expect(HashAlgorithm.sha1.hash(kseed + [0, 0, 0, 2]) == v["sha1_kseed_00000002"])
        #expect(TripleDES.adjustParity(v["kenc_ka_before_parity"] + v["kenc_kb_before_parity"]) == v["kenc"])
        #expect(TripleDES.adjustParity(v["kmac_ka_before_parity"] + v["kmac_kb_before_parity"]) == v["kmac"])
        let kenc = KDF.derive(kseed, counter: KDF.encryptionCounter, cipher: .tripleDES)
        let kmac = KDF.derive(kseed, counter: KDF.macCounter, cipher: .tripleDES)
        #expect(kenc.bytes == v["kenc"])
        #expect(kmac.bytes == v["kmac"])
        #expect(KDF.derive(flipBit(kseed, at: 0, bit: 1), counter: 1, cipher: .tripleDES).bytes != v["kenc"])

        // D.3: E.IFD = 3DES(Kenc, S), M.IFD = MAC(Kmac, E.IFD)
        #expect(v["rnd_ifd"] + v["rnd_ic"] + v["k_ifd"] == v["s"])
        let eIFD = try TripleDES.encryptCBC(key: kenc, v["s"])
        #expect(eIFD == v["e_ifd"])
        #expect(try TripleDES.decryptCBC(key: kenc, eIFD) == v["s"])
        let mIFD = try RetailMAC.mac(key: kmac, eIFD)
        #expect(mIFD == v["m_ifd"])
        #expect(try RetailMAC.mac(key: kmac, Padding.pad(eIFD, blockSize: 8), padded: true) == v["m_ifd"])
        #expect(try RetailMAC.mac(key: kmac, flipBit(eIFD, at: 31)) != v["m_ifd"])
        #expect(eIFD + mIFD == v["external_authenticate_cmd_data"])

        // D.3: the chip's answer: verify M.IC over E.IC, then decrypt R
        #expect(try RetailMAC.mac(key: kmac, v["e_ic"]) == v["m_ic"])
        #expect(try RetailMAC.mac(key: kmac, flipBit(v["e_ic"], at: 0)) != v["m_ic"])
        let r = try TripleDES.decryptCBC(key: kenc, v["e_ic"])
        #expect(r == v["r"])
        #expect(Array(r[16...]) == v["k_ic"])
        // D.3: KSseed = K.IFD xor K.IC, KSenc / KSmac, SSC
        let ksSeed = zip(v["k_ifd"], v["k_ic"]).map { $0 ^ $1 }
        #expect(ksSeed == v["ks_seed"])
        #expect(KDF.derive(ksSeed, counter: 1, cipher: .tripleDES).bytes == v["ks_enc"])
        #expect(KDF.derive(ksSeed, counter: 2, cipher: .tripleDES).bytes == v["ks_mac"])
        #expect(Array(HashAlgorithm.sha1.hash(ksSeed + [0, 0, 0, 1]).prefix(16)) == v["ks_enc_before_parity"])
        #expect(Array(v["rnd_ic"].suffix(4) + v["rnd_ifd"].suffix(4)) == v["ssc"])
    }

    @Test func tripleDESKeyForms() throws {
        let k16 = hex("979EC13B1CBFE9DCD01AB0FED307EAE5")
        let k24 = SecretBytes(k16 + Array(k16.prefix(8)))
        let data = hex("00112233445566778899AABBCCDDEEFF")
        let iv = hex("0102030405060708")
        let a = try TripleDES.encryptCBC(key: SecretBytes(k16), iv: iv, data)
        #expect(try TripleDES.encryptCBC(key: k24, iv: iv, data) == a)
        #expect(try TripleDES.decryptCBC(key: SecretBytes(k16), iv: iv, a) == data)
        #expect(throws: CryptoError.self) { try TripleDES.encryptCBC(key: SecretBytes(k16), hex("0011")) }
        #expect(throws: CryptoError.self) { try TripleDES.encryptCBC(key: SecretBytes(hex("0011")), data) }
        #expect(TripleDES.adjustParity([0x00, 0x01, 0xFE, 0xFF]) == [0x01, 0x01, 0xFE, 0xFE])
    }

    @Test(arguments: [
        ("msg_len0_mac", ""), ("msg_len16_mac", "msg_16"), ("msg_len40_mac", "msg_40"), ("msg_len64_mac", "msg_64"),
    ])
    func rfc4493CMAC(_ macKey: String, _ messageKey: String) throws {
        let v = try Vector("crypto/rfc4493-aes-cmac.json")
        let key = SecretBytes(v["key"])
        let message = messageKey.isEmpty ? [] : v[messageKey]
        #expect(try AESCMAC.mac(key: key, message) == v[macKey])
        // negative twin
        let changed = message.isEmpty ? [0x00] : flipBit(message, at: message.count - 1)
        #expect(try AESCMAC.mac(key: key, changed) != v[macKey])
    }

    /// FIPS 197 Appendix C.1–C.3 (AES-128/192/256 single block), plus CBC round trips.
    @Test(arguments: [
        ("000102030405060708090A0B0C0D0E0F", "69C4E0D86A7B0430D8CDB78070B4C55A"),
        ("000102030405060708090A0B0C0D0E0F1011121314151617", "DDA97CA4864CDFE06EAF70A0EC0D7191"),
        ("000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F", "8EA2B7CA516745BFEAFC49904B496089"),
    ])
    func aesFIPS197(_ keyHex: String, _ cipherHex: String) throws {
        let key = SecretBytes(hex(keyHex))
        let plain = hex("00112233445566778899AABBCCDDEEFF")
        #expect(try AES.encryptECB(key: key, plain) == hex(cipherHex))
        #expect(try AES.decryptECB(key: key, hex(cipherHex)) == plain)
        #expect(try AES.encryptECB(key: key, flipBit(plain, at: 0)) != hex(cipherHex))
        let iv = [UInt8](repeating: 0x5A, count: 16)
        let data = plain + plain
        let c = try AES.encryptCBC(key: key, iv: iv, data)
        #expect(Array(c.prefix(16)) != Array(c.suffix(16)))
        #expect(try AES.decryptCBC(key: key, iv: iv, c) == data)
    }

    @Test func secretBytes() {
        let a = SecretBytes([1, 2, 3])
        #expect(a.description == "SecretBytes(3 bytes, redacted)")
        #expect(!"\(a)".contains("1, 2"))
        #expect(a == SecretBytes([1, 2, 3]))
        #expect(a != SecretBytes([1, 2, 4]))
        #expect(a != SecretBytes([1, 2]))
        #expect(a.bytes == [1, 2, 3])
        #expect(a.withUnsafeBytes { Array($0) } == [1, 2, 3])
        #expect(ConstantTime.equals([1, 2], [1, 2]))
        #expect(!ConstantTime.equals([1, 2], [1, 3]))
        #expect(!ConstantTime.equals([1, 2], [1, 2, 3]))
    }

    @Test func randomSources() {
        let fixed = FixedRandom([[1, 2, 3], [4, 5]])
        #expect(fixed.randomBytes(count: 2) == [1, 2])
        #expect(fixed.randomBytes(count: 3) == [3, 4, 5])
        let system = SystemRandom()
        let r1 = system.randomBytes(count: 32)
        let r2 = system.randomBytes(count: 32)
        #expect(r1.count == 32 && r1 != r2)
    }
}
