import ASN1TLV
import MRTDDocument
import MRTDTestSupport
import Testing

/// SecurityInfos parsing (ICAO 9303-11 §9.2, BSI TR-03110-3 A.1) on published files and fixtures.
@Suite struct SecurityInfosTests {
    static let bsiECDHCardAccess =
        "3181C6300D060804007F00070202020201023012060A04007F000702020302020201020201013012060A04007F0007020204020202010202010D301C060904007F000702020302300C060704007F0007010202010D020101302F060804007F0007020206162368747470733A2F2F7777772E686A702D636F6E73756C74696E672E636F6D2F686F6D65303E060804007F000702020831323012060A04007F00070202030202020102020102301C060904007F000702020302300C060704007F0007010202010D020102"

    @Test func bsiWorkedExampleCardAccess() throws {
        let v = try SecurityInfosFixtures.vector("pace/bsi-eac-worked-example-v101-pace-ecdh.json")
        let bytes = hex(v["ef_cardaccess"] as! String)
        #expect(bytes == hex(Self.bsiECDHCardAccess))
        let infos = try SecurityInfos.parseCardAccess(bytes)
        #expect(infos.infos.count == 6)
        #expect(infos.encoded == bytes)
        let pace = try #require(infos.paceInfos.first)
        #expect(infos.paceInfos.count == 1)
        #expect(pace.protocol.dotted == "0.4.0.127.0.7.2.2.4.2.2")
        #expect(pace.protocolName == "id-PACE-ECDH-GM-AES-CBC-CMAC-128")
        #expect(pace.version == 2)
        #expect(pace.parameterId == 13)
        #expect(pace.encoded == hex("3012060A04007F0007020204020202010202010D"))
        #expect(infos.terminalAuthenticationInfos.first?.version == 2)
        let ca = try #require(infos.chipAuthenticationInfos.first)
        #expect(ca.protocolName == "id-CA-ECDH-AES-CBC-CMAC-128")
        #expect(ca.keyId == 1)
        let dp = try #require(infos.chipAuthenticationDomainParameterInfos.first)
        #expect(SecurityInfoOID.name(of: dp.protocol) == "id-CA-ECDH")
        #expect(dp.domainParameter.domainParameters == .standardized(id: 13))
        #expect(dp.keyId == 1)
        let pt = try #require(infos.privilegedTerminalInfo)
        #expect(pt.infos.chipAuthenticationInfos.first?.keyId == 2)
        #expect(pt.infos.chipAuthenticationDomainParameterInfos.first?.keyId == 2)
        let ci = try #require(infos.unknownInfos.first)
        #expect(SecurityInfoOID.name(of: ci.protocol) == "id-CI")
        #expect(ci.encoded.count == 0x31)
    }

    @Test func bsiWorkedExampleDHCardAccess() throws {
        let v = try SecurityInfosFixtures.vector("pace/bsi-eac-worked-example-v101-pace-dh.json")
        let infos = try SecurityInfos.parseCardAccess(hex(v["ef_cardaccess"] as! String))
        let pace = try #require(infos.paceInfos.first)
        #expect(pace.protocolName == "id-PACE-DH-GM-AES-CBC-CMAC-128")
        #expect(pace.parameterId == 0)
        #expect(
            infos.chipAuthenticationDomainParameterInfos.first?.domainParameter.domainParameters == .standardized(id: 0)
        )
    }

    @Test func icaoG1CardAccess() throws {
        let v = try SecurityInfosFixtures.vector("pace/icao-9303-11-appG1-pace-ecdh-gm.json")
        let infos = try SecurityInfos.parseCardAccess(hex(v["ef_cardaccess_as_used_in_tests"] as! String))
        #expect(
            infos.paceInfos == [
                PACEInfo(
                    protocol: ASN1ObjectIdentifier("0.4.0.127.0.7.2.2.4.2.2"), version: 2, parameterId: 13,
                    encoded: hex(v["pace_info"] as! String))
            ])
        #expect(infos.domainParameters(for: infos.paceInfos[0]) == nil)
    }

    /// DG14 of the BSI 2008 test passport and of the TR-03105-5 reference data set: explicit
    /// brainpoolP224r1-size parameters in a ChipAuthenticationPublicKeyInfo, CA 3DES, TA v1.
    @Test(.sharedFixtures, arguments: ["specimens/bsi2008/Datagroup14.bin", "specimens/bsi-tr03105-5/Datagroup14.bin"])
    func dg14Specimens(path: String) throws {
        let file = try SecurityInfosFixtures.bytes(path)
        let infos = try SecurityInfos.parseDG14(file)
        #expect(infos.infos.count == 3)
        let pk = try #require(infos.chipAuthenticationPublicKeyInfos.first)
        #expect(SecurityInfoOID.name(of: pk.protocol) == "id-PK-ECDH")
        #expect(pk.keyId == nil)
        #expect(pk.publicKey.isEC)
        guard case .ecExplicit(let ec)? = pk.publicKey.algorithm.domainParameters else {
            Issue.record("expected explicit EC parameters")
            return
        }
        #expect(ec.p == hex("D7C134AA264366862A18302575D1D787B09F075797DA89F57EC8C0FF"))
        #expect(ec.order == hex("D7C134AA264366862A18302575D0FB98D116BC4B6DDEBCA3A5A7939F"))
        #expect(ec.cofactor == [1])
        #expect(ec.base.count == 57 && ec.base.first == 0x04)
        #expect(ec.encoded.count == 203)
        #expect(pk.publicKey.publicKey.count == 57 && pk.publicKey.publicKey.first == 0x04)
        // The SubjectPublicKeyInfo is kept byte for byte.
        #expect(pk.publicKey.encoded == Array(file[23..<302]))
        let ca = try #require(infos.chipAuthenticationInfos.first)
        #expect(ca.protocolName == "id-CA-ECDH-3DES-CBC-CBC")
        #expect(ca.version == 1)
        #expect(infos.terminalAuthenticationInfos.first?.version == 1)
    }

    @Test func dg14RealPassportTrace() throws {
        let v = try SecurityInfosFixtures.vector("ca/gmrtd-ca-v1-at-passport.json")
        let infos = try SecurityInfos.parseDG14(hex(v["dg14"] as! String))
        #expect(infos.paceInfos.first?.protocolName == "id-PACE-ECDH-GM-AES-CBC-CMAC-128")
        #expect(infos.chipAuthenticationInfos.first?.protocolName == "id-CA-ECDH-AES-CBC-CMAC-128")
        let pk = try #require(infos.chipAuthenticationPublicKeyInfos.first)
        #expect(pk.publicKey.publicKey == hex(v["ic_static_public"] as! String))
        guard case .ecExplicit(let ec)? = pk.publicKey.algorithm.domainParameters else {
            Issue.record("expected explicit EC parameters")
            return
        }
        #expect(ec.p == hex("A9FB57DBA1EEA9BC3E660A909D838D726E3BF623D52620282013481D1F6E5377"))
        #expect(infos.publicKey(for: infos.chipAuthenticationInfos[0]) == pk)
    }

    /// EF.CardSecurity sample: the eContent is dug out of ContentInfo/SignedData without a signature check.
    @Test(.sharedFixtures) func cardSecuritySample() throws {
        let file = try SecurityInfosFixtures.bytes("lds-samples/EF_CardSecurity.bin")
        let (content, offset) = try CardSecurityContent.eContent(of: file)
        #expect(offset == 60)
        #expect(content.count == 157)
        #expect(Array(file[60..<217]) == content)
        let infos = try SecurityInfos.parseCardSecurity(file)
        #expect(infos.terminalAuthenticationInfos.count == 1)
        #expect(infos.chipAuthenticationInfos.first?.protocolName == "id-CA-ECDH-AES-CBC-CMAC-128")
        let pk = try #require(infos.chipAuthenticationPublicKeyInfos.first)
        #expect(pk.publicKey.algorithm.algorithm == SecurityInfoOID.standardizedDomainParameters)
        #expect(pk.publicKey.algorithm.domainParameters == .standardized(id: 13))
        #expect(pk.publicKey.publicKey.count == 65)
        // This sample carries the key flattened ({protocol, AlgorithmIdentifier, BIT STRING}); it is accepted and flagged.
        #expect(pk.isFlattened)
    }

    @Test func activeAuthenticationInfoAndUnknownKeptRaw() throws {
        // ActiveAuthenticationInfo (ecdsa-with-SHA256) and an unknown SecurityInfo, built here.
        let aa = DER.sequence(
            DER.objectIdentifier("2.23.136.1.1.5"), DER.integer(1), DER.objectIdentifier("1.2.840.10045.4.3.2"))
        let unknown = DER.sequence(DER.objectIdentifier("1.2.3.4"), DER.octetString([1, 2, 3]))
        let infos = try SecurityInfos.parse(DER.set([aa, unknown]))
        let info = try #require(infos.activeAuthenticationInfo)
        #expect(info.signatureAlgorithm.dotted == "1.2.840.10045.4.3.2")
        #expect(info.version == 1)
        #expect(
            infos.unknownInfos == [UnknownSecurityInfo(protocol: ASN1ObjectIdentifier("1.2.3.4"), encoded: unknown)]
        )
    }

    @Test func dhPublicKeyInfo() throws {
        // id-PK-DH with X9.42 parameters (p, g, q) and y as an INTEGER in the BIT STRING.
        let params = DER.sequence(DER.integer(unsigned: [0xFF, 0x01]), DER.integer(2), DER.integer(unsigned: [0x7F]))
        let spki = DER.sequence(
            DER.sequence(DER.objectIdentifier("1.2.840.10046.2.1"), params),
            DER.bitString(DER.integer(unsigned: [0x80, 0x11])))
        let info = DER.sequence(DER.objectIdentifier("0.4.0.127.0.7.2.2.1.1"), spki, DER.integer(7))
        let infos = try SecurityInfos.parse(DER.set([info]))
        let pk = try #require(infos.chipAuthenticationPublicKeyInfos.first)
        #expect(pk.keyId == 7)
        #expect(!pk.isECDH)
        #expect(pk.publicKey.isDH)
        #expect(pk.publicKey.publicKey == [0x80, 0x11])
        #expect(
            pk.publicKey.algorithm.domainParameters
                == .dh(DHParameters(encoded: params, p: [0xFF, 0x01], g: [2], q: [0x7F])))
    }

    @Test func oidNames() {
        let cases: [(String, String)] = [
            ("0.4.0.127.0.7.2.2.4.1.1", "id-PACE-DH-GM-3DES-CBC-CBC"),
            ("0.4.0.127.0.7.2.2.4.4.3", "id-PACE-ECDH-IM-AES-CBC-CMAC-192"),
            ("0.4.0.127.0.7.2.2.4.6.4", "id-PACE-ECDH-CAM-AES-CBC-CMAC-256"),
            ("0.4.0.127.0.7.2.2.3.1.1", "id-CA-DH-3DES-CBC-CBC"),
            ("0.4.0.127.0.7.2.2.1.2", "id-PK-ECDH"),
            ("2.23.136.1.1.5", "id-AA"),
            ("0.4.0.127.0.7.2.2.2", "id-TA"),
        ]
        for (oid, name) in cases { #expect(SecurityInfoOID.name(of: ASN1ObjectIdentifier(oid)!) == name) }
        #expect(SecurityInfoOID.name(of: ASN1ObjectIdentifier("0.4.0.127.0.7.2.2.4.5.1")) == nil)
    }

    // MARK: Malformed input → typed error with offset

    @Test func truncatedCardAccess() throws {
        let bytes = Array(hex(Self.bsiECDHCardAccess).dropLast(3))
        let e = #expect(throws: SecurityInfosError.self) { try SecurityInfos.parseCardAccess(bytes) }
        #expect(e?.code == .malformedEncoding)
    }

    @Test func trailingBytes() throws {
        let bytes = hex(Self.bsiECDHCardAccess) + [0x00]
        let e = #expect(throws: SecurityInfosError.self) { try SecurityInfos.parseCardAccess(bytes) }
        #expect(e?.code == .malformedEncoding)
        #expect(e?.offset == 0xC9)
    }

    @Test func notASet() throws {
        let e = #expect(throws: SecurityInfosError.self) {
            try SecurityInfos.parseCardAccess(hex("3012060A04007F0007020204020202010202010D"))
        }
        #expect(e?.code == .unexpectedStructure)
        #expect(e?.offset == 0)
    }

    @Test func dg14WrongTag() throws {
        let e = #expect(throws: SecurityInfosError.self) { try SecurityInfos.parseDG14(hex("6F02" + "3100")) }
        #expect(e?.code == .unexpectedStructure)
    }

    @Test func paceInfoWithoutVersion() throws {
        // SET { SEQUENCE { id-PACE-ECDH-GM-AES-128 } } — version missing: error at the SEQUENCE (offset 2).
        let e = #expect(throws: SecurityInfosError.self) {
            try SecurityInfos.parse(hex("310E300C060A04007F00070202040202"))
        }
        #expect(e?.code == .unexpectedStructure)
        #expect(e?.offset == 2)
    }

    @Test func negativeParameterId() throws {
        let e = #expect(throws: SecurityInfosError.self) {
            try SecurityInfos.parse(hex("31143012060A04007F000702020402020201020201F3"))
        }
        #expect(e?.code == .invalidValue)
        #expect(e?.offset == 19)
    }

    @Test func oidNotAnOID() throws {
        // protocol is an INTEGER instead of an OBJECT IDENTIFIER, at offset 4.
        let e = #expect(throws: SecurityInfosError.self) {
            try SecurityInfos.parse(hex("3108300602010102010 2".filter { $0 != " " }))
        }
        #expect(e?.code == .unexpectedStructure)
        #expect(e?.offset == 4)
    }

    @Test func cardSecurityNotSignedData() throws {
        let ci = DER.sequence(DER.objectIdentifier("1.2.840.113549.1.7.1"), DER.explicit(0, DER.octetString([])))
        let e = #expect(throws: SecurityInfosError.self) { try CardSecurityContent.eContent(of: ci) }
        #expect(e?.code == .notCardSecurity)
    }

    @Test(.sharedFixtures) func cardSecurityBitFlippedContentType() throws {
        let file = try SecurityInfosFixtures.bytes("lds-samples/EF_CardSecurity.bin")
        // Flip a bit in the eContentType OID (offset 44 + 2 + 7): no longer id-SecurityObject.
        let e = #expect(throws: SecurityInfosError.self) { try CardSecurityContent.eContent(of: flipBit(file, at: 53)) }
        #expect(e?.code == .notCardSecurity)
        #expect(e?.offset == 44)
    }
}
