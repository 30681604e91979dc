import ASN1TLV
import MRTDCrypto
import MRTDDocument
import MRTDTestSupport
import Testing

@testable import MRTDTrust

/// ICAO 9303-11 §5.1 passive authentication over the specimen documents: their SODs verify with the
/// embedded document signer at an explicit validation time; their CSCAs are not available.
struct PassiveAuthenticationTests {
    func report(
        _ s: Specimen, store: TrustStore = TrustStore(), dataGroups: [Int: [UInt8]]? = nil, sod: SODFile? = nil,
        time: ASN1Time? = nil, cardSecurity: [UInt8]? = nil
    ) throws -> PassiveAuthenticationReport {
        PassiveAuthentication.verify(
            sod: try sod ?? s.sod(), dataGroups: try dataGroups ?? s.dataGroups(), issuingState: try s.issuingState(),
            cardSecurity: cardSecurity, trustStore: store, validationTime: time ?? s.validationTime)
    }

    @Test(.sharedFixtures, arguments: Specimen.all)
    func specimenVerifiesWithEmbeddedSigner(_ s: Specimen) throws {
        let r = try report(s)
        #expect(r.checks.map(\.name) == PassiveAuthenticationPolicy.icao9303.checks.map(\.name))
        #expect(r[.dataGroupHashes]?.status == .passed, "\(r[.dataGroupHashes]!)")
        #expect(r[.unlistedDataGroups]?.status == .passed)
        #expect(r[.sodSignature]?.status == .passed, "\(r[.sodSignature]!)")
        #expect(r[.sodSignature]?.detail.contains(s.expectedSignature) == true)
        #expect(r[.documentSignerCertificate]?.status == .passed, "\(r[.documentSignerCertificate]!)")
        #expect(r.documentSigner?.serialHex == s.expectedDSSerial)
        #expect(r[.cscaChain]?.status == .notChecked)  // empty store: says so
        #expect(r[.revocation]?.status == .notChecked)
        #expect(r[.cardSecuritySignature]?.status == .notPresent)
        #expect(!r.hasFailure)
    }

    @Test(.sharedFixtures, arguments: Specimen.all)
    func specimenCSCAIsNotInTheRealMasterLists(_ s: Specimen) throws {
        let store = try TrustStoreTests.realStore()
        let r = try report(s, store: store)
        #expect(r[.sodSignature]?.status == .passed)
        #expect(r[.cscaChain]?.status == .failed, "\(r[.cscaChain]!)")
        #expect(r[.cscaChain]?.detail.contains("no trust anchor") == true)
        #expect(r[.revocation]?.status == .notChecked)
        #expect(r[.revocation]?.detail.contains("no CRL") == true)
    }

    @Test(.sharedFixtures, arguments: Specimen.all)
    func issuingStateIsComparedWithTheCSCACountry(_ s: Specimen) throws {
        let r = try report(s)
        let check = try #require(r[.cscaCountryMatchesIssuingState])
        if s.name == "bsi2008" {
            // Its document signer's issuer "CN=CSCA BDR TEST 19.09.07" names no country.
            #expect(check.status == .notChecked, "\(check)")
        } else {
            #expect(check.status == .passed, "\(check)")
        }
        // The same document presented with another issuing state fails.
        let other = PassiveAuthentication.verify(
            sod: try s.sod(), dataGroups: try s.dataGroups(), issuingState: "FRA",
            trustStore: TrustStore(), validationTime: s.validationTime)
        #expect(other[.cscaCountryMatchesIssuingState]?.status == (s.name == "bsi2008" ? .notChecked : .failed))
    }

    /// Negative twin of every data group: one flipped bit fails dataGroupHashes (and only that DG).
    @Test(.sharedFixtures, arguments: Specimen.all)
    func flippedDataGroupByteFailsHashes(_ s: Specimen) throws {
        let good = try s.dataGroups()
        for dg in good.keys.sorted() {
            var groups = good
            groups[dg] = flipBit(good[dg]!, at: good[dg]!.count / 2, bit: 5)
            let r = try report(s, dataGroups: groups)
            #expect(r[.dataGroupHashes]?.status == .failed)
            #expect(r[.dataGroupHashes]?.detail.hasPrefix("DG\(dg) ") == true, "\(r[.dataGroupHashes]!)")
            #expect(r[.sodSignature]?.status == .passed)
        }
    }

    /// The specimen files include data groups their SODs do not list (bsi2008: DG4, DG15;
    /// bsi-tr03105-5: DG15): read together, unlistedDataGroups must name exactly those.
    @Test(.sharedFixtures, arguments: Specimen.all)
    func specimenFilesNotListedInTheirSODAreFlagged(_ s: Specimen) throws {
        let r = try report(s, dataGroups: try s.dataGroups(includingUnlisted: true))
        #expect(r[.dataGroupHashes]?.status == .passed)
        if s.unlisted.isEmpty {
            #expect(r[.unlistedDataGroups]?.status == .passed)
        } else {
            #expect(r[.unlistedDataGroups]?.status == .failed)
            #expect(
                r[.unlistedDataGroups]?.detail.hasPrefix(dgList(s.unlisted) + " read") == true,
                "\(r[.unlistedDataGroups]!)")
        }
    }

    @Test(.sharedFixtures) func dataGroupNotListedInTheSODFails() throws {
        let s = Specimen.all[2]  // nl-2006 lists DG1, DG2, DG15 (and maybe more); DG11 is not listed
        var groups = try s.dataGroups()
        let sod = try s.sod()
        #expect(sod.ldsSecurityObject.dataGroupHashes[11] == nil)
        groups[11] = [0x6B, 0x03, 0x5C, 0x01, 0x00]
        let r = try report(s, dataGroups: groups)
        #expect(r[.unlistedDataGroups]?.status == .failed)
        #expect(r[.unlistedDataGroups]?.detail.hasPrefix("DG11 ") == true)
        #expect(r[.dataGroupHashes]?.status == .passed)
    }

    @Test(.sharedFixtures, arguments: Specimen.all)
    func tamperedSODFailsSignature(_ s: Specimen) throws {
        let bytes = try Fixtures.bytes(s.sodFile)
        let sod = try s.sod()
        // 1. A flipped bit in a data-group hash inside eContent: messageDigest no longer matches.
        let dg1Hash = try #require(sod.ldsSecurityObject.dataGroupHashes[1])
        let i = try #require(firstIndex(of: dg1Hash, in: bytes))
        let r1 = try report(s, sod: try SODFile(bytes: flipBit(bytes, at: i + 2)))
        #expect(r1[.sodSignature]?.status == .failed)
        #expect(r1[.sodSignature]?.detail.contains("messageDigest") == true)
        #expect(r1[.dataGroupHashes]?.status == .failed)  // DG1 no longer matches the altered SOD
        // 2. A flipped bit in the signature value (the last bytes of the SOD).
        let sig = try CMSSignedData(signedData: sod.signedData).signerInfos[0].signature
        #expect(Array(bytes.suffix(sig.count)) == sig)
        let r2 = try report(s, sod: try SODFile(bytes: flipBit(bytes, at: bytes.count - 4)))
        #expect(r2[.sodSignature]?.status == .failed, "\(r2[.sodSignature]!)")
        #expect(r2[.dataGroupHashes]?.status == .passed)
    }

    /// No signingTime in these SODs: the document signer must be valid at the validation time.
    @Test(.sharedFixtures, arguments: Specimen.all)
    func signerOutsideValidityWithoutSigningTimeFails(_ s: Specimen) throws {
        let r = try report(s, time: ASN1Time(year: 2026, month: 11, day: 29))
        #expect(r[.documentSignerCertificate]?.status == .failed)
        #expect(r[.documentSignerCertificate]?.detail.contains("no signingTime") == true)
        let early = try report(s, time: ASN1Time(year: 2000, month: 1, day: 1))
        #expect(early[.documentSignerCertificate]?.status == .failed)
    }

    @Test(.sharedFixtures) func cardSecuritySampleVerifiesWithItsEmbeddedSigner() throws {
        let s = Specimen.all[1]
        let cs = try Fixtures.bytes(Fixtures.cardSecurity)
        let r = try report(s, time: ASN1Time(year: 2016, month: 3, day: 20), cardSecurity: cs)
        let check = try #require(r[.cardSecuritySignature])
        #expect(check.status == .notChecked, "\(check)")  // signature verified, no CSCA to chain to
        #expect(check.detail.contains("signature verified"))
        #expect(check.detail.contains("no signed attributes"))  // this real sample signs eContent directly
        let bad = try report(
            s, time: ASN1Time(year: 2016, month: 3, day: 20), cardSecurity: flipBit(cs, at: cs.count - 3))
        #expect(bad[.cardSecuritySignature]?.status == .failed)
    }

    @Test(.sharedFixtures) func missingOrUnreadableSODFailsTheSODChecksButStillReports() throws {
        let s = Specimen.all[1]
        let cs = try Fixtures.bytes(Fixtures.cardSecurity)
        let time = ASN1Time(year: 2016, month: 3, day: 20)
        for sodBytes in [nil, Array(try Fixtures.bytes(s.sodFile).prefix(100))] {
            let r = PassiveAuthentication.verify(
                sodBytes: sodBytes, dataGroups: try s.dataGroups(), issuingState: "D",
                cardSecurity: cs, trustStore: TrustStore(), validationTime: time)
            #expect(r[.sodSignature]?.status == .failed)
            #expect(
                r[.sodSignature]?.detail.contains(sodBytes == nil ? "not read" : "unreadable") == true,
                "\(r[.sodSignature]!)")
            #expect(r[.dataGroupHashes]?.status == .failed)
            #expect(r[.unlistedDataGroups]?.status == .failed)
            #expect(r[.documentSignerCertificate]?.status == .notPresent)
            #expect(r[.cardSecuritySignature]?.detail.contains("signature verified") == true)  // independent of the SOD
        }
        let ok = PassiveAuthentication.verify(
            sodBytes: try Fixtures.bytes(s.sodFile), dataGroups: try s.dataGroups(), issuingState: "D",
            trustStore: TrustStore(), validationTime: s.validationTime)
        #expect(ok[.sodSignature]?.status == .passed)
    }

    @Test(.sharedFixtures) func policiesCompose() throws {
        let s = Specimen.all[0]
        let custom = PassiveAuthenticationPolicy.icao9303
            .removing(.revocation)
            .replacing(PassiveAuthenticationCheck(name: .cscaChain) { _ in .notChecked(.cscaChain, "custom") })
        let r = custom.evaluate(
            PassiveAuthenticationInput(sod: try s.sod(), dataGroups: try s.dataGroups(), issuingState: "D"),
            trustStore: TrustStore(), validationTime: s.validationTime)
        #expect(r[.revocation] == nil)
        #expect(r[.cscaChain]?.detail == "custom")
        #expect(r.checks.count == PassiveAuthenticationPolicy.icao9303.checks.count - 1)
    }
}
