import ASN1TLV
import DocumentGenerator
import Foundation
import MRTDCrypto
import MRTDDocument
import MRTDTestSupport
import Testing

@testable import MRTDTrust

/// Passive authentication and the trust store over PKIs generated in code (DocumentGenerator's builders):
/// every signature algorithm, explicit brainpool parameters, link certificates, expired and revoked
/// signers, a master list of several hundred CSCAs and its tampered twins.
struct GeneratedPKITests {
    static let validationTime = ASN1Time(year: 2026, month: 11, day: 29)
    /// Inside the generated document signers' private key usage period (2021-01-01 … 2022-01-02).
    static let signingTime = ASN1Time(year: 2021, month: 6, day: 1)

    /// Synthetic data groups (not a person: fixed filler).
    static let dataGroups: [Int: [UInt8]] = [
        1: TLVWriter.encode(
            0x61,
            TLVWriter.encode(
                0x5F1F,
                Array(
                    ("P<UTOSPECIMEN<<TEST<<<<<<<<<<<<<<<<<<<<<<<<<<" + "L898902C36UTO7408122F1204159ZE184226B<<<<<10")
                        .utf8))),
        2: TLVWriter.encode(0x75, [UInt8](repeating: 0xA5, count: 300)),
        14: TLVWriter.encode(0x6E, [0x31, 0x00]),
    ]

    static func sod(
        _ signer: IssuedCertificate, signingTime: ASN1Time?, hash: HashAlgorithm = .sha256,
        sid: SignedDataBuilder.SignerIdentification = .issuerAndSerialNumber,
        groups: [Int: [UInt8]] = dataGroups
    ) throws -> SODFile {
        let lso = LDSSecurityObjectEncoder.encode(hashes: groups.mapValues { hash.hash($0) }, hashAlgorithm: hash)
        let bytes = try LDSSecurityObjectEncoder.sod(
            securityObject: lso, hashAlgorithm: hash, signer: signer.signer,
            signingTime: signingTime, signerIdentification: sid)
        return try SODFile(bytes: bytes)
    }

    static func store(_ cscas: [[UInt8]]) throws -> TrustStore {
        var s = TrustStore()
        for c in cscas { try s.addCertificate(der: c, source: "generated") }
        return s
    }

    static func verify(
        _ sod: SODFile, _ store: TrustStore, state: String = "UTO", time: ASN1Time = validationTime,
        groups: [Int: [UInt8]] = dataGroups
    ) -> PassiveAuthenticationReport {
        PassiveAuthentication.verify(
            sod: sod, dataGroups: groups, issuingState: state, trustStore: store, validationTime: time)
    }

    // MARK: Algorithms

    struct AlgorithmCase: Sendable, CustomStringConvertible {
        let csca: PKIAlgorithm
        let ds: PKIAlgorithm
        let explicit: Bool
        let sid: SignedDataBuilder.SignerIdentification
        var description: String { "\(csca.rawValue)/\(ds.rawValue)\(explicit ? " explicit" : "")/\(sid)" }
    }

    static let algorithmCases = [
        AlgorithmCase(csca: .rsaPKCS1, ds: .rsaPKCS1, explicit: false, sid: .issuerAndSerialNumber),
        AlgorithmCase(csca: .rsaPKCS1, ds: .rsaPSS, explicit: false, sid: .subjectKeyIdentifier),
        AlgorithmCase(csca: .ecdsaP256, ds: .ecdsaP256, explicit: false, sid: .subjectKeyIdentifier),
        AlgorithmCase(csca: .ecdsaP384, ds: .ecdsaP384, explicit: false, sid: .issuerAndSerialNumber),
        AlgorithmCase(
            csca: .ecdsaBrainpoolP256r1, ds: .ecdsaBrainpoolP256r1, explicit: true, sid: .issuerAndSerialNumber),
        AlgorithmCase(csca: .ecdsaBrainpoolP256r1, ds: .rsaPSS, explicit: true, sid: .subjectKeyIdentifier),
    ]

    @Test(arguments: algorithmCases)
    func genuineDocumentPassesEveryCheck(_ c: AlgorithmCase) throws {
        let pki = try TestPKI.generate(
            TestPKIOptions(
                cscaAlgorithm: c.csca, documentSignerAlgorithm: c.ds,
                explicitECParameters: c.explicit, keyTag: "alg-\(c)"))
        let sod = try Self.sod(pki.documentSigner, signingTime: Self.signingTime, sid: c.sid)
        let r = Self.verify(sod, try Self.store([pki.csca.der]))
        for name in [
            CheckName.dataGroupHashes, .unlistedDataGroups, .sodSignature, .documentSignerCertificate, .cscaChain,
            .cscaCountryMatchesIssuingState,
        ] {
            #expect(r[name]?.status == .passed, "\(r[name]!)")
        }
        #expect(r[.revocation]?.status == .notChecked)
        #expect(r.chain.count == 2)
        if c.explicit, c.ds != .rsaPSS {
            let spki = try TLVParser.parse(try #require(r.documentSigner).subjectPublicKeyInfo)
            #expect(spki.children[0].children[1].tag == 0x30)  // explicit ECParameters
        }
        // Negative twins: a DG byte, the SOD signature.
        var groups = Self.dataGroups
        groups[2] = flipBit(groups[2]!, at: 100)
        #expect(Self.verify(sod, try Self.store([pki.csca.der]), groups: groups)[.dataGroupHashes]?.status == .failed)
        var raw = sod.raw
        raw[raw.count - 6] ^= 0x01
        #expect(Self.verify(try SODFile(bytes: raw), try Self.store([pki.csca.der]))[.sodSignature]?.status == .failed)
    }

    /// The SOD does not embed its document signer: it is looked up in the trust store (by
    /// issuerAndSerialNumber and by subjectKeyIdentifier); absent there, sodSignature is notChecked.
    @Test(arguments: [SignedDataBuilder.SignerIdentification.issuerAndSerialNumber, .subjectKeyIdentifier])
    func signerLookedUpInTheStore(_ sid: SignedDataBuilder.SignerIdentification) throws {
        let pki = try TestPKI.generate(TestPKIOptions(keyTag: "lookup"))
        let lso = LDSSecurityObjectEncoder.encode(
            hashes: Self.dataGroups.mapValues { HashAlgorithm.sha256.hash($0) }, hashAlgorithm: .sha256)
        let cms = try SignedDataBuilder(
            eContentType: CMSContentType.ldsSecurityObject, eContent: lso,
            signatureAlgorithm: pki.documentSigner.algorithm.signatureAlgorithm,
            signerCertificate: pki.documentSigner.info, embeddedCertificates: [],
            signerIdentification: sid, signingTime: Self.signingTime
        )
        .build(signerKey: pki.documentSigner.privateKey)
        let sod = try SODFile(bytes: TLVWriter.encode(0x77, cms))
        #expect(try CMSSignedData(signedData: sod.signedData).certificates.isEmpty)

        let without = Self.verify(sod, try Self.store([pki.csca.der]))
        #expect(without[.sodSignature]?.status == .notChecked)
        #expect(without[.documentSignerCertificate]?.status == .notPresent)

        let with = Self.verify(sod, try Self.store([pki.csca.der, pki.documentSigner.der]))
        #expect(with[.sodSignature]?.status == .passed, "\(with[.sodSignature]!)")
        #expect(with[.sodSignature]?.detail.contains("trust store") == true)
        #expect(with[.cscaChain]?.status == .passed)
    }

    /// Re-encodes a TLV tree with one node (found by offset) replaced, fixing every enclosing length.
    static func replacing(_ node: TLVNode, at offset: Int, with replacement: [UInt8]) -> [UInt8] {
        if node.offset == offset { return replacement }
        guard node.isConstructed, !node.children.isEmpty, node.offset < offset,
            offset < node.offset + node.encoded.count
        else {
            return node.encodedBytes
        }
        return TLVWriter.encode(node.tag, node.children.flatMap { replacing($0, at: offset, with: replacement) })
    }

    /// Real documents carry RSA signatures with a superfluous leading zero octet, and ECDSA
    /// signatures with non-minimal INTEGERs: both verify; a changed value still fails.
    @Test(arguments: [PKIAlgorithm.rsaPKCS1, .ecdsaP256])
    func superfluousLeadingZeroIsTolerated(_ algorithm: PKIAlgorithm) throws {
        let pki = try TestPKI.generate(
            TestPKIOptions(cscaAlgorithm: algorithm, documentSignerAlgorithm: algorithm, keyTag: "zero-\(algorithm)"))
        let sod = try Self.sod(pki.documentSigner, signingTime: Self.signingTime)
        let tree = try TLVParser.parse(sod.raw)
        let signerInfo = tree.children[0].children[1].children[0].children.last!.children[0]
        let sigNode = signerInfo.children.last!
        let sig = try sigNode.octetStringValue()
        let padded: [UInt8]
        if algorithm == .rsaPKCS1 {
            padded = [0x00] + sig
        } else {
            // ECDSA-Sig-Value with r re-encoded with an extra leading 00 octet.
            let seq = try TLVParser.parse(sig)
            let r = seq.children[0]
            let sRest = seq.children[1]
            padded = TLVWriter.encode(0x30, TLVWriter.encode(0x02, [0x00] + r.valueBytes) + sRest.encodedBytes)
        }
        let store = try Self.store([pki.csca.der])
        let zeroSOD = try SODFile(bytes: Self.replacing(tree, at: sigNode.offset, with: DER.octetString(padded)))
        #expect(try CMSSignedData(signedData: zeroSOD.signedData).signerInfos[0].signature == padded)
        #expect(padded.count == sig.count + 1)
        let r = Self.verify(zeroSOD, store)
        #expect(r[.sodSignature]?.status == .passed, "\(r[.sodSignature]!)")
        var broken = padded
        broken[broken.count - 1] ^= 0x01
        let brokenSOD = try SODFile(bytes: Self.replacing(tree, at: sigNode.offset, with: DER.octetString(broken)))
        #expect(Self.verify(brokenSOD, store)[.sodSignature]?.status == .failed)
    }

    // MARK: Chains

    @Test func signerOfAnotherCSCAHasNoTrustAnchor() throws {
        let genuine = try TestPKI.generate(TestPKIOptions(keyTag: "genuine"))
        let forger = try TestPKI.generate(TestPKIOptions(keyTag: "forger"))  // same names, other keys
        let sod = try Self.sod(forger.documentSigner, signingTime: Self.signingTime)
        let r = Self.verify(sod, try Self.store([genuine.csca.der]))
        #expect(r[.sodSignature]?.status == .passed)  // the SOD itself is consistent
        #expect(r[.cscaChain]?.status == .failed)
        #expect(r[.cscaChain]?.detail.contains("no trust anchor") == true)
    }

    @Test func cscaOfAnotherCountryFailsCountryCheck() throws {
        let pki = try TestPKI.generate(TestPKIOptions(country: "NL", organization: "Test NL", keyTag: "country-nl"))
        let sod = try Self.sod(pki.documentSigner, signingTime: Self.signingTime)
        let store = try Self.store([pki.csca.der])
        #expect(Self.verify(sod, store, state: "NLD")[.cscaCountryMatchesIssuingState]?.status == .passed)
        let wrong = Self.verify(sod, store, state: "UTO")
        #expect(wrong[.cscaCountryMatchesIssuingState]?.status == .failed)
        #expect(wrong[.cscaChain]?.status == .passed)
    }

    /// ICAO 9303-12 §5.3: a new CSCA key certified by the old one (link certificate); the store holds
    /// the old root and the link certificate, the document is signed under the new key.
    @Test func linkCertificateIsFollowed() throws {
        let old = try TestPKI.makeCSCA(options: TestPKIOptions(keyTag: "link-old"))
        let newOptions = TestPKIOptions(keyTag: "link-new")
        let new = try TestPKI.makeCSCA(options: newOptions)
        let ds = try TestPKI.issue(by: new, options: newOptions, role: .documentSigner)
        let link = try CertificateBuilder(
            serialNumber: [0x4C, 0x49, 0x4E, 0x4B], issuer: old.name, subject: new.name,
            notBefore: ASN1Time(year: 2020, month: 6, day: 1), notAfter: ASN1Time(year: 2036, month: 1, day: 1),
            subjectPublicKeyInfo: try Certificate(der: new.der).subjectPublicKeyInfo,
            extensions: [
                .basicConstraints(ca: true, pathLength: 0), .keyUsage([.keyCertSign, .cRLSign]),
                .subjectKeyIdentifier(new.info.subjectKeyIdentifier!),
                .authorityKeyIdentifier(old.info.subjectKeyIdentifier!),
            ]
        )
        .sign(with: old.privateKey, algorithm: old.algorithm.signatureAlgorithm)
        let linkCert = try Certificate(der: link)
        #expect(linkCert.isLinkCertificate)
        let sod = try Self.sod(ds, signingTime: Self.signingTime)

        let r = Self.verify(sod, try Self.store([old.der, link]))
        #expect(r[.cscaChain]?.status == .passed, "\(r[.cscaChain]!)")
        #expect(r.chain.count == 3)
        #expect(r.chain[1] == linkCert)
        #expect(r[.cscaChain]?.detail.contains("link CSCA") == true)
        // Without the link certificate the old root alone does not vouch for the new key.
        #expect(Self.verify(sod, try Self.store([old.der]))[.cscaChain]?.status == .failed)
        // A forged "link" signed by a foreign key is not followed.
        let foreign = try TestPKI.makeCSCA(options: TestPKIOptions(keyTag: "link-foreign"))
        let forgedLink = try CertificateBuilder(
            serialNumber: [0x4C, 0x49, 0x4E, 0x4C], issuer: old.name, subject: new.name,
            notBefore: ASN1Time(year: 2020, month: 6, day: 1), notAfter: ASN1Time(year: 2036, month: 1, day: 1),
            subjectPublicKeyInfo: try Certificate(der: new.der).subjectPublicKeyInfo,
            extensions: [
                .basicConstraints(ca: true, pathLength: 0), .keyUsage([.keyCertSign, .cRLSign]),
                .subjectKeyIdentifier(new.info.subjectKeyIdentifier!),
                .authorityKeyIdentifier(old.info.subjectKeyIdentifier!),
            ]
        )
        .sign(with: foreign.privateKey, algorithm: foreign.algorithm.signatureAlgorithm)
        let r2 = Self.verify(sod, try Self.store([old.der, forgedLink]))
        // The forged link is itself a store entry (an anchor), but its chain to the old root is not
        // verified, so the path ends at it: the report must not claim the old root.
        #expect(!r2.chain.contains(try Certificate(der: old.der)))
    }

    // MARK: Validity (chain model)

    @Test func expiredSignerDoesNotInvalidateADocumentSignedWhileValid() throws {
        let options = TestPKIOptions(keyTag: "expired")
        let csca = try TestPKI.makeCSCA(options: options)
        let ds = try TestPKI.issue(
            by: csca, options: options, role: .documentSigner,
            notBefore: ASN1Time(year: 2021, month: 1, day: 1), notAfter: ASN1Time(year: 2022, month: 1, day: 1))
        let store = try Self.store([csca.der])
        let signedWhileValid = Self.verify(try Self.sod(ds, signingTime: ASN1Time(year: 2021, month: 6, day: 1)), store)
        #expect(
            signedWhileValid[.documentSignerCertificate]?.status == .passed,
            "\(signedWhileValid[.documentSignerCertificate]!)")
        #expect(signedWhileValid[.documentSignerCertificate]?.detail.contains("expired") == true)
        #expect(signedWhileValid[.cscaChain]?.status == .passed)

        let noSigningTime = Self.verify(try Self.sod(ds, signingTime: nil), store)
        #expect(noSigningTime[.documentSignerCertificate]?.status == .failed)

        let signedAfterExpiry = Self.verify(
            try Self.sod(ds, signingTime: ASN1Time(year: 2023, month: 1, day: 1)), store)
        #expect(signedAfterExpiry[.documentSignerCertificate]?.status == .failed)

        let signedInTheFuture = Self.verify(
            try Self.sod(ds, signingTime: ASN1Time(year: 2021, month: 6, day: 1)), store,
            time: ASN1Time(year: 2021, month: 3, day: 1))
        #expect(signedInTheFuture[.documentSignerCertificate]?.status == .failed)
    }

    @Test func signingOutsideThePrivateKeyUsagePeriodFails() throws {
        let options = TestPKIOptions(keyTag: "pkup")
        let csca = try TestPKI.makeCSCA(options: options)
        // Validity 2021–2031, private key usage period 2021-01-01 … 2022-01-02 (the generator's 366 days).
        let ds = try TestPKI.issue(by: csca, options: options, role: .documentSigner)
        #expect(try Certificate(der: ds.der).decoded.privateKeyUsagePeriod != nil)
        let store = try Self.store([csca.der])
        #expect(
            Self.verify(try Self.sod(ds, signingTime: ASN1Time(year: 2021, month: 5, day: 1)), store)[
                .documentSignerCertificate]?.status == .passed)
        let late = Self.verify(try Self.sod(ds, signingTime: ASN1Time(year: 2024, month: 5, day: 1)), store)
        #expect(late[.documentSignerCertificate]?.status == .failed)
        #expect(late[.documentSignerCertificate]?.detail.contains("private key usage period") == true)
    }

    @Test func cscaMustHaveBeenValidWhenItIssuedTheSigner() throws {
        let options = TestPKIOptions(keyTag: "issued-early")  // CSCA valid from 2020-01-01
        let csca = try TestPKI.makeCSCA(options: options)
        let ds = try TestPKI.issue(
            by: csca, options: options, role: .documentSigner,
            notBefore: ASN1Time(year: 2019, month: 6, day: 1), notAfter: ASN1Time(year: 2030, month: 1, day: 1))
        let r = Self.verify(
            try Self.sod(ds, signingTime: ASN1Time(year: 2019, month: 7, day: 1)), try Self.store([csca.der]))
        #expect(r[.cscaChain]?.status == .failed)
        #expect(r[.cscaChain]?.detail.contains("was not valid when it issued") == true, "\(r[.cscaChain]!)")
    }

    @Test func signerWithUnknownCriticalExtensionIsRefused() throws {
        let options = TestPKIOptions(keyTag: "critical")
        let csca = try TestPKI.makeCSCA(options: options)
        let good = try TestPKI.issue(by: csca, options: options, role: .documentSigner)
        let goodCert = try Certificate(der: good.der)
        #expect(Set(goodCert.decoded.documentTypes ?? []) == ["P", "ID"])  // ICAO 9303-12 documentTypeList
        #expect(goodCert.unhandledCriticalExtensions.isEmpty)
        let der = try CertificateBuilder(
            serialNumber: [0x01, 0x23], issuer: csca.name, subject: good.name, notBefore: goodCert.notBefore,
            notAfter: goodCert.notAfter,
            subjectPublicKeyInfo: goodCert.subjectPublicKeyInfo,
            extensions: [
                .authorityKeyIdentifier(csca.info.subjectKeyIdentifier!), .keyUsage([.digitalSignature]),
                .init(oid: "1.3.6.1.4.1.99999.1", critical: true, value: DER.null()),
            ]
        )
        .sign(with: csca.privateKey, algorithm: csca.algorithm.signatureAlgorithm)
        let cert = try Certificate(der: der)
        #expect(cert.unhandledCriticalExtensions == ["1.3.6.1.4.1.99999.1"])
        var signer = good
        signer.info = try Certificate(der: der)
        let r = Self.verify(try Self.sod(signer, signingTime: Self.signingTime), try Self.store([csca.der]))
        #expect(r[.sodSignature]?.status == .passed)
        #expect(r[.documentSignerCertificate]?.status == .failed)
        #expect(r[.documentSignerCertificate]?.detail.contains("1.3.6.1.4.1.99999.1") == true)
    }

    /// ICAO 9303-12 §7.1.1.3: the generated document signer may sign "P" and "ID" documents.
    @Test func documentCodeIsCheckedAgainstTheDocumentTypeList() throws {
        let pki = try TestPKI.generate(TestPKIOptions(keyTag: "doctype"))
        let sod = try Self.sod(pki.documentSigner, signingTime: Self.signingTime)
        let store = try Self.store([pki.csca.der])
        func check(_ code: String?) -> VerificationCheck? {
            PassiveAuthentication.verify(
                sod: sod, dataGroups: Self.dataGroups, issuingState: "UTO", documentCode: code,
                trustStore: store, validationTime: Self.validationTime)[.documentSignerCertificate]
        }
        #expect(check("P<")?.status == .passed)
        #expect(check("P<")?.detail.contains("documentTypeList") == true)
        #expect(check("PP")?.status == .passed)
        #expect(check("ID")?.status == .passed)
        #expect(check("AC")?.status == .failed)
        #expect(check("I<")?.status == .failed)  // "I" alone is not "ID"
        #expect(check(nil)?.status == .passed)
    }

    // MARK: Revocation

    @Test func revokedSignerFailsRevocation() throws {
        let pki = try TestPKI.generate(TestPKIOptions(keyTag: "revocation"))
        let sod = try Self.sod(pki.documentSigner, signingTime: Self.signingTime)

        var revokedStore = try Self.store([pki.csca.der])
        let entry = try revokedStore.addCRL(
            der: try pki.crl(revoking: [pki.documentSigner.info]), source: "revoking.crl")
        #expect(entry.status == .verified)
        let r = Self.verify(sod, revokedStore)
        #expect(r[.revocation]?.status == .failed, "\(r[.revocation]!)")
        #expect(r[.revocation]?.detail.contains(pki.documentSigner.info.serialNumber.hexString) == true)

        var cleanStore = try Self.store([pki.csca.der])
        try cleanStore.addCRL(der: try pki.crl(revoking: []), source: "empty.crl")
        #expect(Self.verify(sod, cleanStore)[.revocation]?.status == .passed)

        // A CRL past its nextUpdate is still used, and the detail says it is out of date.
        var staleStore = try Self.store([pki.csca.der])
        try staleStore.addCRL(
            der: try pki.crl(
                revoking: [], thisUpdate: ASN1Time(year: 2022, month: 1, day: 1),
                nextUpdate: ASN1Time(year: 2023, month: 1, day: 1)), source: "stale.crl")
        let stale = Self.verify(sod, staleStore)
        #expect(stale[.revocation]?.status == .passed)
        #expect(stale[.revocation]?.detail.contains("out of date") == true)
        #expect(staleStore.summary(at: Self.validationTime).crls.first?.stale == true)

        // A CRL signed by another key under the CSCA's name is refused and never used.
        let forger = try TestPKI.generate(TestPKIOptions(keyTag: "revocation-forger"))
        var forgedStore = try Self.store([pki.csca.der])
        #expect(throws: TrustStore.Refusal.self) {
            try forgedStore.addCRL(der: try forger.crl(revoking: [pki.documentSigner.info]), source: "forged.crl")
        }
        #expect(Self.verify(sod, forgedStore)[.revocation]?.status == .notChecked)

        // A CRL loaded before its CSCA is verified once the CSCA arrives.
        var lateStore = TrustStore()
        let early = try lateStore.addCRL(der: try pki.crl(revoking: [pki.documentSigner.info]), source: "early.crl")
        #expect(early.status == .issuerNotFound)
        try lateStore.addCertificate(der: pki.csca.der, source: "csca")
        #expect(Self.verify(sod, lateStore)[.revocation]?.status == .failed)
    }

    // MARK: Master list of several hundred CSCAs

    @Test func masterListOfSeveralHundredCSCAsLoadsFastAndItsTwinsAreRefused() throws {
        let root = try TestPKI.generate(TestPKIOptions(keyTag: "ml-root"))
        let countries = ["DE", "NL", "FR", "IT", "ES", "BE", "AT", "CH", "SE", "NO", "FI", "DK", "PL", "CZ", "PT"]
        var cscas: [IssuedCertificate] = []
        for i in 0..<300 {
            let c = countries[i % countries.count]
            cscas.append(
                try TestPKI.makeCSCA(
                    options: TestPKIOptions(country: c, organization: "Test \(c)", keyTag: "ml-\(i)"),
                    commonName: "CSCA \(c) \(i)"))
        }
        let ml = try root.masterList(
            certificates: cscas.map(\.der), signingTime: ASN1Time(year: 2026, month: 1, day: 1))

        var store = TrustStore(masterListSignerRoots: [try Certificate(der: root.csca.der)])
        let (record, ms) = try threadCPUTime { try store.addMasterList(ml, source: "generated.ml") }
        print("300-CSCA master list read, verified and indexed in \(Int(ms)) ms of CPU")
        #expect(record.added == 300)
        #expect(store.cscas.count == 300)
        let summary = store.summary(at: Self.validationTime)
        #expect(summary.countries.count == countries.count)
        #expect(summary.countries.allSatisfy { $0.cscas.count == 20 })

        // The list is used: a document under CSCA number 17 chains.
        let options17 = TestPKIOptions(
            country: countries[17 % countries.count], organization: "Test \(countries[17 % countries.count])",
            keyTag: "ml-17")
        let ds = try TestPKI.issue(by: cscas[17], options: options17, role: .documentSigner)
        let r = Self.verify(try Self.sod(ds, signingTime: Self.signingTime), store, state: "FRA")
        #expect(r[.cscaChain]?.status == .passed, "\(r[.cscaChain]!)")
        #expect(r[.cscaCountryMatchesIssuingState]?.status == .passed)

        // Tampered twins: a byte of a certificate in the content; a byte of the signature.
        let cert = cscas[123].der
        let at = try #require(firstIndex(of: cert, in: ml)) + cert.count - 4
        let signature = try CMSSignedData(contentInfo: ml).signerInfos[0].signature
        #expect(Array(ml.suffix(signature.count)) == signature)
        for (twin, code) in [
            (flipBit(ml, at: at), TrustError.Code.attributeMismatch),
            (flipBit(ml, at: ml.count - 3), .signatureInvalid),
        ] {
            var s = TrustStore(masterListSignerRoots: [try Certificate(der: root.csca.der)])
            do {
                try s.addMasterList(twin, source: "twin.ml")
                Issue.record("tampered master list accepted")
            } catch {
                #expect(error.error.code == code)
            }
            #expect(s.cscas.isEmpty)
            #expect(s.summary(at: Self.validationTime).masterLists.first?.result == "refused")
        }
        // Pinned to another root: refused.
        var other = TrustStore(masterListSignerRoots: [try Certificate(der: cscas[0].der)])
        #expect(throws: TrustStore.Refusal.self) { try other.addMasterList(ml, source: "other-root.ml") }
    }
}
