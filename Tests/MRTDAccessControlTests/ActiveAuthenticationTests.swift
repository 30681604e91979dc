import Testing
import ASN1TLV
import ISO7816
import MRTDCrypto
import MRTDDocument
import MRTDAccessControl
import MRTDSecureMessaging
import MRTDTestSupport

/// Active Authentication — ICAO 9303-11 §6.1, Appendix F (ISO/IEC 9796-2 scheme 1), and real-document
/// challenge/signature pairs (RSA-1024 trailer BC, RSA-1792 trailer 34CC).
@Suite struct ActiveAuthenticationTests {
    /// F = s^e mod n computed here with BigNumber from DG15's modulus and exponent, so the 9796-2 logic is
    /// checked independently of the RSA primitive.
    static func recover(dg15: [UInt8], signature: [UInt8]) throws -> [UInt8] {
        let spki = try ActiveAuthentication.publicKeyInfo(dg15: dg15)
        let node = try TLVParser.parse(spki, rules: .ber)
        let rsa = try TLVParser.parse(node.children[1].bitStringValue(), rules: .ber)
        let n = try rsa.children[0].unsignedIntegerBytes(), e = try rsa.children[1].unsignedIntegerBytes()
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
        #expect(CommandAPDU.internalAuthenticate(v.bytes("rnd_ifd"), ne: 256).bytes == v.bytes("internal_authenticate_command"))
    }

    /// Negative twins of Appendix F: another challenge, a flipped bit in M1, a broken header or trailer.
    @Test func appendixFNegative() throws {
        let v = try Vector("aa/icao-9303-11-appF-aa.json")
        let f = v.bytes("f")
        #expect(!ActiveAuthentication.verifyMessageRepresentative(f, challenge: flipBit(v.bytes("rnd_ifd"), at: 7)).verified)
        #expect(!ActiveAuthentication.verifyMessageRepresentative(flipBit(f, at: 10), challenge: v.bytes("rnd_ifd")).verified)
        #expect(!ActiveAuthentication.verifyMessageRepresentative(flipBit(f, at: 0, bit: 7), challenge: v.bytes("rnd_ifd")).verified)
        #expect(throws: AccessControlError.self) { try ActiveAuthentication.parseMessageRepresentative(flipBit(f, at: f.count - 1)) }
        #expect(throws: AccessControlError.self) { try ActiveAuthentication.parseMessageRepresentative(flipBit(f, at: 0, bit: 6)) }
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
            #expect(!ActiveAuthentication.verifyMessageRepresentative(f, challenge: flipBit(hex(p["rnd_ifd"]!), at: 0)).verified)
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
        #expect(!ActiveAuthentication.verifyMessageRepresentative(f, challenge: flipBit(v.bytes("rnd_ifd"), at: 3)).verified)
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
