import ASN1TLV
import FaceImaging
import Foundation
import MRTDCrypto
import MRTDDocument
import MRTDTestSupport
import MRTDTrust
import Testing

@testable import DocumentGenerator

/// Reads a generated document back the way a verifier would (ASN1TLV only).
struct DocumentView {
    var doc: GeneratedDocument
    var files: [LDSFile: [UInt8]] { doc.profile.files }

    var sod: ParsedSignedData {
        get throws { try ParsedSignedData(contentInfo: try TLVParser.parse(files[.sod]!, rules: .der).valueBytes) }
    }

    /// Data group number → hash listed in the SOD.
    var sodHashes: [Int: [UInt8]] {
        get throws {
            let lso = try TLVParser.parse(try sod.eContent, rules: .der)
            var out: [Int: [UInt8]] = [:]
            for e in try lso.child(at: 2).children {
                out[try e.child(at: 0).integerValue()] = try e.child(at: 1).octetStringValue()
            }
            return out
        }
    }

    /// SecurityInfos of DG14 by protocol OID prefix.
    func dg14Info(_ prefix: ASN1ObjectIdentifier) throws -> TLVNode? {
        guard let dg14 = files[.dg14] else { return nil }
        let set = try TLVParser.parse(dg14, rules: .der).child(at: 0)
        return try set.children.first { try $0.child(at: 0).objectIdentifierValue().hasPrefix(prefix) }
    }

    /// The EC point or DH value of DG14's ChipAuthenticationPublicKeyInfo.
    func dg14ChipAuthenticationPublicValue() throws -> [UInt8]? {
        guard let info = try dg14Info("0.4.0.127.0.7.2.2.1") else { return nil }
        let bits = try info.child(at: 1).child(at: 1).bitStringValue()
        if try info.child(at: 0).objectIdentifierValue() == "0.4.0.127.0.7.2.2.1.1" {
            return try TLVParser.parse(bits, rules: .der).unsignedIntegerBytes()
        }
        return bits
    }

    /// The chip's CA public value.
    var chipCAPublicValue: [UInt8]? {
        switch doc.profile.keys.chipAuthentication?.agreement {
        case .ecdh(_, _, let p)?: return p
        case .dh(_, _, let y)?: return Array(y.drop { $0 == 0 })
        case nil: return nil
        }
    }
}

@Suite("Generator: named profiles, forged variants and saved profiles")
struct ProfileTests {
    // No timing expectation here: speed is measured by `emrtd bench`, never by a timed test.
    @Test func defaultProfileGenerates() throws {
        let doc = try SpecimenGenerator.generate(named: SpecimenGenerator.defaultProfileName)
        #expect(doc.profile.name == "pace-gm-brainpool-aes128")
        #expect(SpecimenGenerator.profileNames.first == SpecimenGenerator.defaultProfileName)
    }

    @Test(arguments: SpecimenGenerator.profileNames)
    func profileIsConsistent(_ name: String) throws {
        let doc = try SpecimenGenerator.generate(named: name)
        let view = DocumentView(doc: doc)
        let spec = try #require(ProfileSpec.named(name))
        let p = doc.profile
        // EF.COM lists exactly the data groups on the chip.
        let dataGroups = p.files.keys.filter { $0.dataGroupNumber != nil }.sorted()
        let com = try TLVParser.parse(p.files[.com]!, rules: .der)
        #expect(try com.requireChild(0x5C).valueBytes == dataGroups.map { UInt8($0.tag!) })
        // Every data group is hashed correctly in the SOD, and the SOD lists nothing else.
        let hashes = try view.sodHashes
        #expect(Set(hashes.keys) == Set(dataGroups.compactMap(\.dataGroupNumber)))
        for dg in dataGroups {
            #expect(hashes[dg.dataGroupNumber!] == HashAlgorithm.sha256.hash(p.files[dg]!), "\(dg)")
        }
        // The SOD verifies to the CSCA.
        if let (r, content) = try OpenSSL.cmsVerify(
            try TLVParser.parse(p.files[.sod]!, rules: .der).valueBytes, ca: doc.cscaCertificate)
        {
            #expect(r.status == 0, "\(r.stderr)")
            #expect(content == (try view.sod.eContent))
        }
        // MRZ data.
        #expect(p.mrz == spec.specimen.mrz)
        #expect(try TLVParser.parse(p.files[.dg1]!, rules: .der).requireChild(0x5F1F).valueBytes == Array(p.mrz.utf8))
        #expect(p.documentNumber == spec.specimen.documentNumber && p.dateOfExpiry == "310415")
        #expect(p.supportsBAC == spec.supportsBAC && p.link == spec.link)
        // PACE → EF.CardAccess with the PACEInfo; no PACE → no EF.CardAccess.
        if let pace = spec.pace {
            let ca = try TLVParser.parse(try #require(p.files[.cardAccess]), rules: .der)
            let oid = SecurityInfoEncoder.paceOID(
                mapping: pace.mapping, keyAgreement: pace.keyAgreement, cipher: pace.cipher)
            let info = try #require(try ca.children.first { try $0.child(at: 0).objectIdentifierValue() == oid })
            #expect(try info.child(at: 1).integerValue() == 2)
            #expect(try info.child(at: 2).integerValue() == pace.parameterId)
            #expect(try view.dg14Info(oid) != nil)
        } else {
            #expect(p.files[.cardAccess] == nil)
        }
        // DG14 carries the chip's CA key; DG15 the chip's AA key.
        if spec.chipAuthentication != nil {
            #expect(try view.dg14ChipAuthenticationPublicValue() == view.chipCAPublicValue)
        }
        if let aa = p.keys.activeAuthentication {
            let dg15 = try TLVParser.parse(try #require(p.files[.dg15]), rules: .der)
            #expect(dg15.tag == 0x6F && dg15.children.first?.encodedBytes == aa.publicKey.subjectPublicKeyInfo)
            if case .ecdsa = spec.activeAuthentication { #expect(try view.dg14Info("2.23.136.1.1.5") != nil) }
        } else {
            #expect(p.files[.dg15] == nil)
        }
        // EF.CardSecurity (PACE-CAM): signed SecurityInfos with the chip's CA key.
        if spec.cardSecurity {
            let cs = try #require(p.files[.cardSecurity])
            let parsed = try ParsedSignedData(contentInfo: cs)
            #expect(parsed.eContentType == "0.4.0.127.0.7.3.2.1")
            let infos = try TLVParser.parse(parsed.eContent, rules: .der)
            let pk = try #require(
                try infos.children.first { try $0.child(at: 0).objectIdentifierValue() == "0.4.0.127.0.7.2.2.1.2" })
            #expect(try pk.child(at: 1).child(at: 1).bitStringValue() == view.chipCAPublicValue)
            if let (r, _) = try OpenSSL.cmsVerify(cs, ca: doc.cscaCertificate) { #expect(r.status == 0, "\(r.stderr)") }
        }
        // DG2's face is in the profile's format (19794-5 image data type 0 JPEG, 1 JPEG 2000) and decodes.
        let record = try LDSEncoderTests.faceRecord(of: p.files[.dg2]!).record
        let image = Array(record[46...])
        #expect(record[35] == (spec.faceFormat == .jpeg2000 ? 1 : 0))
        #expect(ImageFormat.detect(image) == spec.faceFormat)
        let face = try DisplayImage.decode(image)
        #expect(face.width == 240 && face.height == 320)
        if spec.faceFormat == .jpeg, let r = try GeneratedFaceTests.decodeWithDJPEG(image) {
            #expect(r.status == 0 && r.stderr.isEmpty)
        }
    }

    @Test func dg2SizeOptionApplies() throws {
        let doc = try SpecimenGenerator.generate(named: "pace-cam", options: GeneratorOptions(dg2Size: 20_000))
        #expect((20_000...20_008).contains(doc.profile.files[.dg2]!.count))
        #expect(try DocumentView(doc: doc).sodHashes[2] == HashAlgorithm.sha256.hash(doc.profile.files[.dg2]!))
    }

    @Test func unknownNamesAreRejectedWithAStableCode() {
        let profile = #expect(throws: GeneratorError.self) { try SpecimenGenerator.generate(named: "no-such-profile") }
        #expect(profile?.code == .unknownProfile)
        let forgery = #expect(throws: GeneratorError.self) {
            try SpecimenGenerator.generate(named: "bac+no-such-forgery")
        }
        #expect(forgery?.code == .unknownProfile)
    }

    // MARK: Forgeries

    static let base = "pace-gm-brainpool-aes128"

    @Test(arguments: Forgery.allCases)
    func forgeryChangesExactlyTheIntendedThing(_ forgery: Forgery) throws {
        let genuine = try SpecimenGenerator.generate(named: Self.base)
        let forged = try SpecimenGenerator.generate(named: "\(Self.base)+\(forgery.rawValue)")
        let g = DocumentView(doc: genuine)
        let f = DocumentView(doc: forged)
        #expect(forged.forgery == forgery && forged.profile.name == "\(Self.base)+\(forgery.rawValue)")
        // EF.SOD always differs (ECDSA signatures are randomized): compare its signed content instead.
        let changedFiles = Set(
            genuine.profile.files.keys.filter { $0 != .sod && genuine.profile.files[$0] != forged.profile.files[$0] })
        let sodContentChanged = try g.sod.eContent != f.sod.eContent
        let fHashes = try f.sodHashes
        func hashesMatchFiles(_ v: DocumentView) throws -> [Int] {
            try v.sodHashes.compactMap { n, h in
                v.files[LDSFile(dataGroup: n)!].map { HashAlgorithm.sha256.hash($0) == h ? nil : n } ?? n
            }.sorted()
        }
        func dsVerifies() throws -> Bool? {
            try OpenSSL.verify(ca: forged.cscaCertificate, leaf: forged.documentSignerCertificate).map {
                $0.status == 0
            }
        }
        let ds = try Certificate(der: forged.documentSignerCertificate)
        switch forgery {
        case .dataGroupModified:
            #expect(try hashesMatchFiles(f) == [1])
            #expect(changedFiles == [.dg1] && !sodContentChanged)
            #expect(fHashes[1] == HashAlgorithm.sha256.hash(genuine.profile.files[.dg1]!))
            #expect(forged.profile.mrz == genuine.profile.mrz)  // the printed MRZ is unchanged
        case .dataGroupMissingFromSOD:
            #expect(fHashes[11] == nil && forged.profile.files[.dg11] != nil)
            #expect(try hashesMatchFiles(f) == [])
            #expect(changedFiles == [] && sodContentChanged)
        case .signerOfOtherCSCA:
            #expect(forged.cscaCertificate == genuine.cscaCertificate)
            #expect(ds.issuer.encoded == (try Certificate(der: forged.cscaCertificate)).subject.encoded)
            if let ok = try dsVerifies() { #expect(!ok) }
            #expect(try hashesMatchFiles(f) == [])
        case .cscaOfOtherCountry:
            let text = try OpenSSL.text(forged.cscaCertificate).map { String(decoding: $0.stdout, as: UTF8.self) }
            if let t = text { #expect(t.contains("C = DE")) }
            if let ok = try dsVerifies() { #expect(ok) }
            #expect(forged.profile.mrz.dropFirst(2).prefix(3) == "UTO")
        case .expiredSignerSignedInValidity, .signedOutsideSignerValidity:
            #expect(ds.notAfter < ASN1Time(year: 2026, month: 1, day: 1))
            let t = try #require(try f.sod.signingTime)
            let inside = ds.notBefore <= t && t <= ds.notAfter
            #expect(inside == (forgery == .expiredSignerSignedInValidity))
            #expect(try hashesMatchFiles(f) == [])
        case .revokedSigner:
            let revoked = try TLVParser.parse(forged.crl, rules: .der).child(at: 0).child(at: 5)
            #expect(try revoked.child(at: 0).child(at: 0).unsignedIntegerBytes() == ds.serialNumber)
            #expect(try TLVParser.parse(genuine.crl, rules: .der).child(at: 0).child(at: 5).tag == 0xA0)  // no entries
            #expect(changedFiles == [] && !sodContentChanged)
        case .activeAuthenticationKeyMismatch:
            #expect(changedFiles == [.dg15] && sodContentChanged)
            let chipKey = try #require(forged.profile.keys.activeAuthentication).publicKey.subjectPublicKeyInfo
            #expect(try TLVParser.parse(forged.profile.files[.dg15]!, rules: .der).children[0].encodedBytes != chipKey)
            #expect(
                try TLVParser.parse(genuine.profile.files[.dg15]!, rules: .der).children[0].encodedBytes
                    == genuine.profile.keys.activeAuthentication!.publicKey.subjectPublicKeyInfo)
            #expect(try hashesMatchFiles(f) == [])
        case .chipAuthenticationKeyMismatch:
            #expect(changedFiles == [.dg14] && sodContentChanged)
            #expect(try f.dg14ChipAuthenticationPublicValue() != f.chipCAPublicValue)
            #expect(try g.dg14ChipAuthenticationPublicValue() == g.chipCAPublicValue)
            #expect(try hashesMatchFiles(f) == [])
        case .expiredDocument:
            // a genuine document signed while valid: only the MRZ's date of expiry (DG1) differs, and the SOD vouches for it
            #expect(changedFiles == [.dg1] && sodContentChanged)
            #expect(try hashesMatchFiles(f) == [])
            let mrz = try DG1File(bytes: forged.profile.files[.dg1]!).mrz
            #expect(mrz.dateOfExpiry.raw == "210430" && forged.profile.dateOfExpiry == "210430")
            #expect(forged.profile.mrz != genuine.profile.mrz)
        case .cardAccessWithheld, .cardAccessGarbled, .cardAccessTripleDESOnly:
            // only the unsigned EF.CardAccess changes; DG14 still lists the genuine PACE
            #expect(changedFiles == [.cardAccess] && !sodContentChanged)
            #expect(try hashesMatchFiles(f) == [])
            let genuinePACE = try SecurityInfos.parseDG14(forged.profile.files[.dg14]!).paceInfos.map(\.protocol)
            #expect(genuinePACE == [SecurityInfoOID.pace(family: 2, cipher: 2)])
            let cardAccess = forged.profile.files[.cardAccess]
            switch forgery {
            case .cardAccessWithheld: #expect(cardAccess == nil)
            case .cardAccessGarbled:
                #expect(throws: (any Error).self) { try SecurityInfos.parseCardAccess(cardAccess!) }
            default:
                #expect(
                    try SecurityInfos.parseCardAccess(cardAccess!).paceInfos.map(\.protocol) == [
                        SecurityInfoOID.pace(family: 2, cipher: 1)
                    ])
            }
        }
        if [.signerOfOtherCSCA, .cscaOfOtherCountry, .expiredSignerSignedInValidity, .signedOutsideSignerValidity]
            .contains(forgery)
        {
            #expect(changedFiles == [] && !sodContentChanged)
        }
        // Only the signer-related forgeries change the trust material's signer.
        let signerChanged = [
            .signerOfOtherCSCA, .cscaOfOtherCountry, .expiredSignerSignedInValidity,
            .signedOutsideSignerValidity,
        ].contains(forgery)
        #expect((forged.documentSignerCertificate != genuine.documentSignerCertificate) == signerChanged)
        #expect(
            forgery.expectedOutcome.status
                == (forgery == .expiredSignerSignedInValidity
                    ? "accepted"
                    : [
                        .activeAuthenticationKeyMismatch, .chipAuthenticationKeyMismatch, .expiredDocument,
                        .cardAccessWithheld, .cardAccessGarbled, .cardAccessTripleDESOnly,
                    ].contains(forgery)
                        ? "inconclusive" : "rejected"))
    }

    // MARK: Save / load

    /// A DH private key whose first octet is zero (1 key in 256) keeps its width through save and load.
    @Test func dhKeyWithLeadingZeroLoadsBackIdentically() throws {
        var doc = try SpecimenGenerator.generate(named: "pace-gm-dh-3des")
        guard case .dh(let group, let original, _)? = doc.profile.keys.chipAuthentication?.agreement else {
            Issue.record("pace-gm-dh-3des has no DH CA key")
            return
        }
        let x = SecretBytes([0x00] + Array(original.bytes.dropFirst()))
        doc.profile.keys.chipAuthentication?.agreement = .dh(
            group: group, privateKey: x, publicKey: try group.publicKey(for: x))
        let dir = try ExternalTool.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try ProfileStore.save(doc, to: dir)
        let loaded = try ProfileStore.load(from: dir)
        guard case .dh(_, let x2, _)? = loaded.keys.chipAuthentication?.agreement else {
            Issue.record("DH key lost")
            return
        }
        #expect(x2 == x && x2.count == original.count)
    }

    @Test(arguments: ["pace-gm-brainpool-aes128", "pace-gm-dh-3des", "bac", "pace-cam"])
    func savedProfilesLoadBackIdentically(_ name: String) throws {
        let doc = try SpecimenGenerator.generate(named: name)
        let dir = try ExternalTool.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try ProfileStore.save(doc, to: dir)
        #expect(ProfileStore.isProfileDirectory(dir))
        let loaded = try ProfileStore.load(from: dir)
        let p = doc.profile
        #expect(loaded.name == p.name && loaded.files == p.files && loaded.mrz == p.mrz && loaded.can == p.can)
        #expect(
            loaded.documentNumber == p.documentNumber && loaded.dateOfBirth == p.dateOfBirth
                && loaded.dateOfExpiry == p.dateOfExpiry && loaded.supportsBAC == p.supportsBAC && loaded.link == p.link
        )
        #expect(loaded.keys.activeAuthentication?.publicKey == p.keys.activeAuthentication?.publicKey)
        switch (loaded.keys.chipAuthentication?.agreement, p.keys.chipAuthentication?.agreement) {
        case (.ecdh(let c1, let s1, let p1)?, .ecdh(let c2, let s2, let p2)?):
            #expect(c1 == c2 && s1 == s2 && p1 == p2)
        case (.dh(let g1, let x1, let y1)?, .dh(let g2, let x2, let y2)?):
            #expect(g1 == g2 && x1 == x2 && y1 == y2)
        case (nil, nil): break
        default: Issue.record("CA key kind changed")
        }
        #expect(loaded.keys.chipAuthentication?.parameterId == p.keys.chipAuthentication?.parameterId)
        let trust = try ProfileStore.trustFiles(in: dir)
        #expect(try Data(contentsOf: try #require(trust.csca)) == Data(doc.cscaCertificate))
        let keyAttributes = try FileManager.default.attributesOfItem(
            atPath: dir.appendingPathComponent("ca-key.p8").path)
        #expect((keyAttributes[.posixPermissions] as? Int) == 0o600)
    }

    @Test func malformedManifestsAreRefused() throws {
        let doc = try SpecimenGenerator.generate(named: "bac")
        let dir = try ExternalTool.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try ProfileStore.save(doc.profile, to: dir)
        let manifestURL = dir.appendingPathComponent(ProfileStore.manifestName)
        let original = try String(contentsOf: manifestURL, encoding: .utf8)
        for (from, to) in [("\"DG1.bin\"", "\"..\\/DG1.bin\""), ("emrtd.profile/1", "emrtd.profile/9")] {
            try original.replacingOccurrences(of: from, with: to).write(
                to: manifestURL, atomically: true, encoding: .utf8)
            #expect(original.contains(from), "fixture text \(from) not found")
            #expect(throws: GeneratorError.self) { try ProfileStore.load(from: dir) }
        }
    }
}

@Suite("Generator: options")
struct GeneratorOptionTests {
    @Test func securityObjectOptionsApply() throws {
        var options = GeneratorOptions(
            dataGroupHash: .sha512, ldsVersionInfo: .init(), signerIdentification: .subjectKeyIdentifier)
        options.pki = TestPKIOptions(cscaAlgorithm: .rsaPSS, documentSignerAlgorithm: .rsaPSS, keyTag: "options-test")
        let doc = try SpecimenGenerator.generate(named: "bac", options: options)
        let view = DocumentView(doc: doc)
        let sod = try view.sod
        let lso = try TLVParser.parse(sod.eContent, rules: .der)
        #expect(try lso.child(at: 0).integerValue() == 1)
        #expect(try lso.child(at: 1).child(at: 0).objectIdentifierValue() == "2.16.840.1.101.3.4.2.3")
        #expect(try lso.child(at: 3).child(at: 1).stringValue() == "040000")
        #expect(try view.sodHashes[1] == HashAlgorithm.sha512.hash(doc.profile.files[.dg1]!))
        #expect(sod.signerInfo.children[1].tag == 0x80)  // [0] subjectKeyIdentifier
        #expect(try sod.signerInfo.child(at: 4).child(at: 0).objectIdentifierValue() == "1.2.840.113549.1.1.10")
        if let (r, _) = try OpenSSL.cmsVerify(
            try TLVParser.parse(doc.profile.files[.sod]!, rules: .der).valueBytes,
            ca: doc.cscaCertificate)
        {
            #expect(r.status == 0, "\(r.stderr)")
        }
        #expect(!String(describing: doc).contains(doc.profile.can) || doc.profile.can.isEmpty)
        #expect(!String(describing: Specimen.utopiaPassport).contains("L898902C3"))
    }

    @Test func bulkCSCAsAreDistinct() throws {
        let cscas = try TestPKI.makeCSCAs(count: 50)
        #expect(Set(cscas.map(\.der)).count == 50)
        #expect(Set(cscas.compactMap(\.info.subjectKeyIdentifier)).count == 50)
    }
}
