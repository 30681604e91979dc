import ASN1TLV
import MRTDCrypto
import MRTDDocument
import MRTDTestSupport
import MRTDTrust
import Testing

@testable import DocumentGenerator

@Suite("Generator: specimen MRZ and LDS file encoders (ICAO 9303-3/-4/-5/-10/-11)")
struct LDSEncoderTests {
    // MARK: MRZ

    /// ICAO 9303-4 Appendix A (TD3) and 9303-5 Appendix A (TD1) print these specimen MRZs (expiry 12-04-15).
    @Test func specimenReproducesThePublishedICAOExamples() {
        var td3 = Specimen.utopiaPassport
        td3.dateOfExpiry = "120415"
        #expect(
            td3.mrzLines == [
                "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<",
                "L898902C36UTO7408122F1204159ZE184226B<<<<<10",
            ])
        var td1 = Specimen.utopiaIDCard
        td1.dateOfExpiry = "120415"
        #expect(
            td1.mrzLines == [
                "I<UTOD231458907<<<<<<<<<<<<<<<", "7408122F1204159UTO<<<<<<<<<<<6",
                "ERIKSSON<<ANNA<MARIA<<<<<<<<<<",
            ])
        // Negative twin: one character of the document number changed → its check digit and the composite change.
        td3.documentNumber = "L898902C4"
        #expect(td3.mrzLines[1] != "L898902C36UTO7408122F1204159ZE184226B<<<<<10")
        #expect(td3.mrzLines[1].prefix(9) == "L898902C4")
    }

    @Test(arguments: [Specimen.utopiaPassport, Specimen.utopiaIDCard])
    func specimenCheckDigitsAreValidAndExpiryIsInTheFuture(_ s: Specimen) throws {
        let lines = s.mrzLines
        #expect(lines.map(\.count) == (s.format == .td3 ? [44, 44] : [30, 30, 30]))
        #expect(s.dateOfExpiry == "310415")
        let c = lines.map { Array($0) }
        func digit(_ l: Int, _ i: Int) -> Int { Int(String(c[l][i]))! }
        func cd(_ l: Int, _ r: Range<Int>) -> Int { MRZCheckDigit.compute(String(c[l][r]))! }
        if s.format == .td3 {
            #expect(cd(1, 0..<9) == digit(1, 9))
            #expect(cd(1, 13..<19) == digit(1, 19))
            #expect(cd(1, 21..<27) == digit(1, 27))
            #expect(cd(1, 28..<42) == digit(1, 42))
            #expect(MRZCheckDigit.compute(String(c[1][0..<10] + c[1][13..<20] + c[1][21..<43]))! == digit(1, 43))
        } else {
            #expect(cd(0, 5..<14) == digit(0, 14))
            #expect(cd(1, 0..<6) == digit(1, 6))
            #expect(cd(1, 8..<14) == digit(1, 14))
            #expect(
                MRZCheckDigit.compute(String(c[0][5..<30] + c[1][0..<7] + c[1][8..<15] + c[1][18..<29]))!
                    == digit(1, 29))
        }
    }

    // MARK: EF.COM, DG1

    @Test func efCOMListsTheDataGroupTags() throws {
        let com = LDSEncoders.com(dataGroups: [.dg15, .dg1, .dg2, .dg11, .dg12, .dg14])
        let node = try TLVParser.parse(com, rules: .der)
        #expect(node.tag == 0x60)
        #expect(try node.requireChild(0x5F01).valueBytes == Array("0107".utf8))
        #expect(try node.requireChild(0x5F36).valueBytes == Array("040000".utf8))
        #expect(try node.requireChild(0x5C).valueBytes == [0x61, 0x75, 0x6B, 0x6C, 0x6E, 0x6F])
    }

    @Test func dg1WrapsTheMRZ() throws {
        let mrz = Specimen.utopiaPassport.mrz
        let node = try TLVParser.parse(LDSEncoders.dg1(mrz: mrz), rules: .der)
        #expect(node.tag == 0x61)
        #expect(try node.requireChild(0x5F1F).valueBytes == Array(mrz.utf8))
        #expect(mrz.count == 88)
    }

    // MARK: DG2

    static func faceRecord(of dg2: [UInt8]) throws -> (bht: TLVNode, record: [UInt8], count: Int) {
        let node = try TLVParser.parse(dg2, rules: .der)
        try #require(node.tag == 0x75)
        let group = try node.requireChild(0x7F61)
        let count = try group.requireChild(0x02).integerValue()
        let bit = try group.requireChild(0x7F60)
        return (try bit.requireChild(0xA1), try bit.requireChild(0x5F2E).valueBytes, count)
    }

    @Test func dg2CarriesAnISO19794_5FaceRecordWithAJPEG() throws {
        let dg2 = LDSEncoders.dg2(face: 120, height: 160)
        let (bht, record, count) = try Self.faceRecord(of: dg2)
        #expect(count == 1)
        #expect(try bht.requireChild(0x87).valueBytes == [0x01, 0x01])
        #expect(try bht.requireChild(0x88).valueBytes == [0x00, 0x08])
        #expect(try bht.requireChild(0x81).valueBytes == [0x02])
        #expect(Array(record[0..<8]) == Array("FAC\u{0}010\u{0}".utf8))
        let recordLength = record[8..<12].reduce(0) { $0 << 8 | Int($1) }
        #expect(recordLength == record.count)
        #expect(Int(record[12]) << 8 | Int(record[13]) == 1)
        let facialDataLength = record[14..<18].reduce(0) { $0 << 8 | Int($1) }
        #expect(facialDataLength == record.count - 14)
        let image = 14 + 20
        #expect(record[image] == 1 && record[image + 1] == 0)  // full frontal, JPEG
        #expect(Int(record[image + 2]) << 8 | Int(record[image + 3]) == 120)
        #expect(Int(record[image + 4]) << 8 | Int(record[image + 5]) == 160)
        let jpeg = Array(record[(image + 12)...])
        #expect(Array(jpeg.prefix(2)) == [0xFF, 0xD8] && Array(jpeg.suffix(2)) == [0xFF, 0xD9])
        if let r = try GeneratedFaceTests.decodeWithDJPEG(jpeg) {
            #expect(r.status == 0 && r.stderr.isEmpty, "djpeg: \(r.stderr)")
            #expect(Array(r.stdout.prefix(11)) == Array("P5\n120 160\n".utf8))
        }
    }

    @Test(arguments: [15_000, 20_000, 60_000, 131_072])
    func dg2PadsToTheTargetSize(_ target: Int) throws {
        let dg2 = LDSEncoders.dg2(targetSize: target)
        #expect(dg2.count >= target && dg2.count <= target + 8, "DG2 is \(dg2.count) bytes for target \(target)")
        let (_, record, _) = try Self.faceRecord(of: dg2)
        let jpeg = Array(record[46...])
        if let r = try GeneratedFaceTests.decodeWithDJPEG(jpeg) {
            #expect(r.status == 0 && r.stderr.isEmpty, "djpeg: \(r.stderr)")
        }
        // Negative twin: without a target the file is much smaller.
        #expect(LDSEncoders.dg2().count < target)
    }

    // MARK: DG11, DG12

    static func tagList(_ node: TLVNode) throws -> [UInt32] {
        let raw = try node.requireChild(0x5C).valueBytes
        var tags: [UInt32] = []
        var i = 0
        while i < raw.count {
            if raw[i] & 0x1F == 0x1F {
                tags.append(UInt32(raw[i]) << 8 | UInt32(raw[i + 1]))
                i += 2
            } else {
                tags.append(UInt32(raw[i]))
                i += 1
            }
        }
        return tags
    }

    @Test func dg11HasEveryFieldAndAConsistentTagList() throws {
        let s = Specimen.utopiaPassport
        let node = try TLVParser.parse(
            LDSEncoders.dg11(s, proofOfCitizenship: LDSEncoders.documentImage()), rules: .der)
        #expect(node.tag == 0x6B)
        let listed = try Self.tagList(node)
        #expect(
            listed == [
                0x5F0E, 0x5F0F, 0x5F10, 0x5F2B, 0x5F11, 0x5F42, 0x5F12, 0x5F13, 0x5F14, 0x5F15, 0x5F16, 0x5F17, 0x5F18,
            ])
        let present = node.children.map(\.tag).filter { $0 != 0x5C }
        #expect(present.map { $0 == 0xA0 ? 0x5F0F : $0 } == listed)
        #expect(try node.requireChild(0x5F0E).valueBytes == Array("ERIKSSON<<ANNA<MARIA".utf8))
        #expect(try node.requireChild(0x5F2B).valueBytes == Array("19740812".utf8))
        let others = try node.requireChild(0xA0)
        #expect(try others.requireChild(0x02).integerValue() == s.otherNames.count)
        #expect(others.children.filter { $0.tag == 0x5F0F }.count == s.otherNames.count)
        #expect(Array(try node.requireChild(0x5F16).valueBytes.prefix(2)) == [0xFF, 0xD8])
    }

    @Test func dg12HasEveryFieldAndAConsistentTagList() throws {
        let s = Specimen.utopiaPassport
        let node = try TLVParser.parse(
            LDSEncoders.dg12(
                s, frontImage: LDSEncoders.documentImage(seed: 2),
                rearImage: LDSEncoders.documentImage(seed: 3)), rules: .der)
        #expect(node.tag == 0x6C)
        let listed = try Self.tagList(node)
        #expect(listed == [0x5F19, 0x5F26, 0x5F1A, 0x5F1B, 0x5F1C, 0x5F1D, 0x5F1E, 0x5F55, 0x5F56])
        let present = node.children.map(\.tag).filter { $0 != 0x5C }
        #expect(present.map { $0 == 0xA0 ? 0x5F1A : $0 } == listed)
        #expect(try node.requireChild(0x5F26).valueBytes == Array("20210416".utf8))
        #expect(try node.requireChild(0x5F55).valueBytes.count == 14)
        #expect(try node.requireChild(0xA0).requireChild(0x02).integerValue() == 1)
    }

    // MARK: SecurityInfos

    struct InfoCase: Sendable, CustomStringConvertible {
        var name: String
        var encoded: [UInt8]
        var published: String
        var description: String { name }
    }

    /// Published encodings: ICAO 9303-11 G.1 EF.CardAccess (PACEInfo ECDH-GM AES-128, id 13) and the BSI
    /// TR-03110 worked example's EF.CardAccess entries (PACEInfo DH-GM AES-128 id 0, ChipAuthenticationInfo
    /// ECDH AES-128 v2 keyId 1).
    static let infoCases: [InfoCase] = [
        InfoCase(
            name: "PACEInfo ECDH-GM AES-128 id 13 (G.1)",
            encoded: SecurityInfoEncoder.paceInfo(
                mapping: .generic, keyAgreement: .ecdh, cipher: .aes128, parameterId: 13),
            published: "3012060A04007F0007020204020202010202010D"),
        InfoCase(
            name: "PACEInfo DH-GM AES-128 id 0 (BSI DH)",
            encoded: SecurityInfoEncoder.paceInfo(
                mapping: .generic, keyAgreement: .dh, cipher: .aes128, parameterId: 0),
            published: "3012060A04007F00070202040102020102020100"),
        InfoCase(
            name: "ChipAuthenticationInfo ECDH AES-128 v2 keyId 1 (BSI ECDH)",
            encoded: SecurityInfoEncoder.chipAuthenticationInfo(
                keyAgreement: .ecdh, cipher: .aes128, version: 2, keyId: 1),
            published: "3012060A04007F00070202030202020102020101"),
        InfoCase(
            name: "EF.CardAccess of G.1",
            encoded: SecurityInfoEncoder.securityInfos([
                SecurityInfoEncoder.paceInfo(
                    mapping: .generic, keyAgreement: .ecdh, cipher: .aes128, parameterId: 13)
            ]),
            published: "31143012060A04007F0007020204020202010202010D"),
    ]

    @Test(arguments: infoCases)
    func securityInfosMatchPublishedEncodings(_ c: InfoCase) {
        #expect(hexString(c.encoded) == c.published)
        // Negative twin: a flipped bit no longer matches.
        #expect(hexString(flipBit(c.encoded, at: c.encoded.count - 1)) != c.published)
    }

    @Test func protocolOIDsFollowICAO9303_11() {
        #expect(
            SecurityInfoEncoder.paceOID(mapping: .chipAuthentication, keyAgreement: .ecdh, cipher: .aes128)
                == "0.4.0.127.0.7.2.2.4.6.2")
        #expect(
            SecurityInfoEncoder.paceOID(mapping: .integrated, keyAgreement: .ecdh, cipher: .aes256)
                == "0.4.0.127.0.7.2.2.4.4.4")
        #expect(
            SecurityInfoEncoder.paceOID(mapping: .generic, keyAgreement: .dh, cipher: .tripleDES)
                == "0.4.0.127.0.7.2.2.4.1.1")
        #expect(
            SecurityInfoEncoder.chipAuthenticationOID(keyAgreement: .dh, cipher: .tripleDES)
                == "0.4.0.127.0.7.2.2.3.1.1")
        #expect(SecurityInfoEncoder.chipAuthenticationPublicKeyOID(.ecdh) == "0.4.0.127.0.7.2.2.1.2")
        let aa = SecurityInfoEncoder.activeAuthenticationInfo(hash: .sha256)
        // 2.23.136.1.1.5 = 06 06 67 81 08 01 01 05; ecdsa-plain-SHA256 = 0.4.0.127.0.7.1.1.4.1.3.
        #expect(hexString(aa) == "3017" + "0606678108010105" + "020101" + "060A04007F00070101040103")
    }

    // MARK: LDS security object

    @Test func ldsSecurityObjectListsHashesInOrder() throws {
        let files: [LDSFile: [UInt8]] = [.dg2: [1, 2, 3], .dg1: Array("abc".utf8), .com: [9]]
        let hashes = LDSSecurityObjectEncoder.hashes(of: files, hashAlgorithm: .sha256)
        #expect(hashes.keys.sorted() == [1, 2])
        // FIPS 180-2 example: SHA-256("abc").
        #expect(hexString(hashes[1]!) == "BA7816BF8F01CFEA414140DE5DAE2223B00361A396177A9CB410FF61F20015AD")
        let v0 = try TLVParser.parse(
            LDSSecurityObjectEncoder.encode(hashes: hashes, hashAlgorithm: .sha256), rules: .der)
        #expect(try v0.child(at: 0).integerValue() == 0)
        #expect(try v0.child(at: 1).child(at: 0).objectIdentifierValue() == "2.16.840.1.101.3.4.2.1")
        #expect(v0.children[1].children.count == 1)  // parameters absent (RFC 5754)
        let entries = try v0.child(at: 2).children
        #expect(try entries.map { try $0.child(at: 0).integerValue() } == [1, 2])
        #expect(try entries[1].child(at: 1).octetStringValue() == HashAlgorithm.sha256.hash([1, 2, 3]))
        let v1 = try TLVParser.parse(
            LDSSecurityObjectEncoder.encode(
                hashes: hashes, hashAlgorithm: .sha256,
                versionInfo: .init()), rules: .der)
        #expect(try v1.child(at: 0).integerValue() == 1)
        #expect(try v1.child(at: 3).child(at: 0).stringValue() == "0108")
    }

    // MARK: Extensions

    @Test func keyUsageBitsAreMinimalDER() {
        // keyCertSign (5) + cRLSign (6): 0x06 with one unused bit; digitalSignature (0): 0x80 with seven.
        #expect(hexString(CertificateExtension.keyUsage([.keyCertSign, .cRLSign]).value) == "03020106")
        #expect(hexString(CertificateExtension.keyUsage([.digitalSignature]).value) == "03020780")
        // Extension { 2.5.29.19, critical TRUE, OCTET STRING { SEQUENCE { cA TRUE, pathLen 0 } } }.
        #expect(
            hexString(CertificateExtension.basicConstraints(ca: true, pathLength: 0).der)
                == "30120603551D130101FF040830060101FF020100")
        // cA FALSE is the DEFAULT: DER leaves it out.
        #expect(hexString(CertificateExtension.basicConstraints(ca: false).value) == "3000")
    }
}
