import ASN1TLV
import DocumentGenerator
import Foundation
import MRTDDocument
import MRTDReader
import MRTDTrust
import Testing

/// Verdicts that say why, over the virtual chip in process: the document's expiry, a missing trust anchor told
/// from a signer that does not chain, the one-sentence reason and the checks' titles (docs/report.md "Verdict").
@Suite struct VerdictReasonTests {
    static let at = ASN1Time(year: 2026, month: 11, day: 29)

    // MARK: documentValidity

    @Test func aValidDocumentPassesDocumentValidity() async throws {
        let doc = try VirtualDocument("pace-gm-brainpool-aes128")
        let v = doc.verify(try await doc.read())
        #expect(v.status == .accepted)
        let c = try #require(v.check(.documentValidity))
        #expect(c.status == .passed && c.detail.contains("2031-04-15"), "\(c)")
        #expect(!v.allowExpired)
    }

    @Test func anExpiredDocumentIsNotAcceptedByDefault() async throws {
        let doc = try VirtualDocument("pace-gm-brainpool-aes128+expired-document")
        let r = try await doc.read()
        let v = doc.verify(r)
        // genuine: every signature and hash verifies, so the chip data are not rejected ...
        #expect(v.chipVerification == .succeeded)
        // ... but the document is not valid for use
        #expect(v.status == .inconclusive)
        let c = try #require(v.check(.documentValidity))
        #expect(c.status == .failed && c.detail.contains("expired on 2021-04-30"), "\(c)")
        #expect(v.reason.contains("expired on 2021-04-30"), "\(v.reason)")
        let report = ReportBuilder.report(for: r, verification: v)
        #expect(report.verification?.allowExpired == false)
        #expect(report.verification?.status == "inconclusive")
        #expect(report.document?.dateOfExpiry == "2021-04-30")
    }

    @Test func anExpiredDocumentIsAcceptedWhenAllowedAndTheReportRecordsIt() async throws {
        let doc = try VirtualDocument("pace-gm-brainpool-aes128+expired-document")
        let r = try await doc.read()
        let v = DocumentVerifier.verify(r, trustStore: doc.store, validationTime: Self.at, allowExpired: true)
        #expect(v.status == .accepted)
        #expect(v.allowExpired)
        let c = try #require(v.check(.documentValidity))
        // the fact stays a failed check; the caller's choice is what lets the verdict through
        #expect(c.status == .failed && c.detail.contains("allowExpired"), "\(c)")
        #expect(v.reason.contains("expired on 2021-04-30, allowed by the caller"), "\(v.reason)")
        let report = ReportBuilder.report(for: r, verification: v)
        #expect(report.verification?.allowExpired == true)
        let json = try JSONEncoder().encode(report)
        let obj = try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any])
        let verification = try #require(obj["verification"] as? [String: Any])
        #expect(verification["allowExpired"] as? Bool == true)
        #expect(verification["status"] as? String == "accepted")
    }

    @Test func theValidationTimeDecidesExpiry() async throws {
        // the same expired document checked at a time before its expiry (emrtd verify --at) is valid
        let doc = try VirtualDocument("pace-gm-brainpool-aes128+expired-document")
        let r = try await doc.read()
        let before = DocumentVerifier.verify(
            r, trustStore: doc.store, validationTime: ASN1Time(year: 2021, month: 4, day: 30, hour: 23))
        #expect(before.check(.documentValidity)?.status == .passed)
        let after = DocumentVerifier.verify(
            r, trustStore: doc.store, validationTime: ASN1Time(year: 2021, month: 5, day: 1))
        #expect(after.check(.documentValidity)?.status == .failed)
    }

    @Test func withoutAVerifiedDG1TheVerdictIsNeverAccepted() async throws {
        // DG1 changed after signing: its expiry is not believed, even with expired documents allowed
        let doc = try VirtualDocument("pace-gm-brainpool-aes128+dg-modified")
        let r = try await doc.read()
        let v = DocumentVerifier.verify(r, trustStore: doc.store, validationTime: Self.at, allowExpired: true)
        #expect(v.status == .rejected)
        #expect(v.check(.documentValidity)?.status == .notChecked)
        #expect(v.reason == "the data group 1 hash does not match the signed one")
        // DG1 not read at all: not accepted either
        let noDG1 = try await doc.fresh().read { $0.files = [.dg2] }
        let w = DocumentVerifier.verify(noDG1, trustStore: doc.store, validationTime: Self.at, allowExpired: true)
        #expect(w.status != .accepted)
        #expect(w.check(.documentValidity)?.status == .notChecked)
    }

    // MARK: trust anchors

    @Test func noCSCAAtAllIsInconclusiveWithItsOwnReason() async throws {
        let doc = try VirtualDocument("pace-gm-brainpool-aes128")
        let v = DocumentVerifier.verify(try await doc.read(), trustStore: TrustStore(), validationTime: Self.at)
        #expect(v.status == .inconclusive)
        #expect(v.chipVerification == .notChecked)
        #expect(v.check(.cscaChain)?.status == .notChecked)
        #expect(v.check(.cscaChain)?.detail.hasPrefix("no trust anchor for UTO") == true)
        #expect(v.passiveAuthentication?.missingTrustAnchor == "UTO")
        #expect(v.reason == "no trust anchor (CSCA) for UTO was given, so the document signer cannot be checked")
    }

    @Test func onlyOtherStatesCSCAsIsInconclusive() async throws {
        // a store holding a CSCA of another state (C=DE) but none of UTO: cannot tell
        let other = try SpecimenGenerator.generate(named: "bac+foreign-country-csca")
        var store = TrustStore()
        _ = try store.addCertificate(der: other.cscaCertificate, source: "DE CSCA")
        let doc = try VirtualDocument("pace-cam")
        let v = DocumentVerifier.verify(try await doc.read(), trustStore: store, validationTime: Self.at)
        #expect(v.status == .inconclusive, "\(v.checks.filter { $0.status == .failed })")
        #expect(v.check(.cscaChain)?.status == .notChecked)
        // EF.CardSecurity's signer is judged alike: not chaining for lack of an anchor is not a failure
        #expect(v.check(.cardSecuritySignature)?.status == .notChecked)
        #expect(v.reason.contains("no trust anchor (CSCA) for UTO"))
    }

    @Test func aSignerNotChainingToTheStatesCSCAsIsRejected() async throws {
        // the UTO CSCA is there; the SOD is signed by a signer of another key under the same name
        let doc = try VirtualDocument("pace-gm-brainpool-aes128+foreign-signer")
        let v = doc.verify(try await doc.read())
        #expect(v.status == .rejected && v.chipVerification == .failed)
        #expect(v.check(.cscaChain)?.status == .failed)
        #expect(v.passiveAuthentication?.missingTrustAnchor == nil)
        #expect(v.reason == "the document signer does not chain to the CSCAs of the issuing state that were given")
    }

    @Test func theIssuingStateComesFromSignedDataOnly() async throws {
        // An unsigned issuing state given to passive authentication (here "XXX", of which the store holds no
        // CSCA) must not turn a signer that does not chain to UTO's CSCA into "no trust anchor".
        let doc = try VirtualDocument("pace-gm-brainpool-aes128+foreign-signer")
        let r = try await doc.read()
        var dgs: [Int: [UInt8]] = [:]
        for (f, b) in r.files { if let n = f.dataGroupNumber { dgs[n] = b } }
        let pa = PassiveAuthentication.verify(
            sodBytes: r.files[.sod], dataGroups: dgs, issuingState: "XXX", trustStore: doc.store,
            validationTime: Self.at)
        #expect(pa[.cscaChain]?.status == .failed)
        #expect(pa.missingTrustAnchor == nil)
        // and a DG1 that does not match the SOD gives no state: with no CSCA at all the verdict is rejected anyway
        let forged = try VirtualDocument("pace-gm-brainpool-aes128+dg-modified")
        let v = DocumentVerifier.verify(try await forged.read(), trustStore: TrustStore(), validationTime: Self.at)
        #expect(v.status == .rejected)
    }

    // MARK: reasons and titles in the outputs

    @Test func theHTMLBannerSaysWhyAndChecksHaveTitles() async throws {
        let doc = try VirtualDocument("pace-gm-brainpool-aes128+dg-modified")
        let r = try await doc.read()
        let report = ReportBuilder.report(for: r, verification: doc.verify(r))
        let html = HTMLReport.render(report, face: nil)
        #expect(html.contains("Rejected: the data group 1 hash does not match the signed one."))
        #expect(html.contains("Document signer chains to a CSCA of the issuing state"))
        // the code stays in the JSON report (and as the row's tooltip)
        #expect(report.verification?.checks.contains { $0.name == "cscaChain" } == true)
        #expect(html.contains("title=\"cscaChain\""))

        let untrusted = ReportBuilder.report(
            for: r, verification: DocumentVerifier.verify(r, trustStore: TrustStore(), validationTime: Self.at))
        // a forged document stays rejected without trust material
        #expect(untrusted.verification?.status == "rejected")

        let fresh = try VirtualDocument("pace-gm-brainpool-aes128")
        let r2 = try await fresh.read()
        let noAnchor = ReportBuilder.report(
            for: r2, verification: DocumentVerifier.verify(r2, trustStore: TrustStore(), validationTime: Self.at))
        #expect(
            HTMLReport.render(noAnchor, face: nil).contains(
                "Inconclusive: no trust anchor (CSCA) for UTO was given, so the document signer cannot be checked."))
    }

    @Test func everyCheckHasATitle() {
        var seen = Set<String>()
        for name in CheckName.allCases {
            #expect(!name.title.isEmpty && name.title != name.rawValue, "\(name)")
            #expect(seen.insert(name.title).inserted, "\(name): title used twice")
        }
    }
}
