import ASN1TLV
import DocumentGenerator
import ISO7816
import MRTDAccessControl
import MRTDDocument
import MRTDReader
import MRTDTrust
import Testing

/// Clone-detection evidence counts only when it rests on data passive authentication
/// checked, a withheld mechanism or identity data group never reads as accepted, offline verification
/// cannot be talked into more than a transcript proves (docs/report.md "Verdict").
@Suite struct VerdictBindingTests {
    static let at = ASN1Time(year: 2026, month: 11, day: 29)

    func check(_ v: VerificationOutcome, _ name: String) -> VerificationCheck? {
        v.checks.first { $0.name.rawValue == name }
    }

    func offline(_ doc: VirtualDocument, files: [LDSFile: [UInt8]], evidence: CloneDetectionEvidence)
        -> VerificationOutcome
    {
        DocumentVerifier.verify(files: files, evidence: evidence, trustStore: doc.store, validationTime: Self.at)
    }

    /// The evidence of a live read as `emrtd verify` rebuilds it from a bundle (live: false).
    func bundleEvidence(_ r: ReadResult) -> CloneDetectionEvidence {
        var e = CloneDetectionEvidence(r)
        e.live = false
        return e
    }

    /// A generated document whose chip answers 6A82 to `withheld` although its SOD lists them.
    func withholding(_ profile: String, _ withheld: [LDSFile]) throws -> VirtualDocument {
        var g = try SpecimenGenerator.generate(named: profile)
        for f in withheld { g.profile.files[f] = nil }
        return try VirtualDocument(generated: g)
    }

    // MARK: W1 — offline AA verifies only with DG15's own key

    @Test func activeAuthenticationWithAnotherKeyThanDG15Fails() async throws {
        let doc = try VirtualDocument("pace-gm-p256-aes256")
        let r = try await doc.read()
        // Another chip's genuine transcript (an ECDSA key of one's own): its signature verifies, but with a key
        // that is not this DG15's (an RSA key).
        let other = try VirtualDocument("pace-gm-brainpool-aes128")
        let o = try await other.read()
        guard case .performed(let foreign, _) = o.activeAuthentication else {
            Issue.record("no AA")
            return
        }
        #expect(try ActiveAuthentication.verify(foreign).verified)
        #expect(foreign.publicKeyInfo != (try ActiveAuthentication.publicKeyInfo(dg15: r.files[.dg15] ?? [])))
        var e = bundleEvidence(r)
        e.activeAuthentication = foreign
        let v = offline(doc, files: r.files, evidence: e)
        #expect(
            check(v, "activeAuthentication")?.status == .failed,
            "\(String(describing: check(v, "activeAuthentication")))")
        #expect(v.chipCloneDetection == .failed)
        #expect(v.status == .inconclusive)
        // the same on the live path: a transcript whose key is not DG15's does not count
        var live = CloneDetectionEvidence(r)
        live.activeAuthentication = foreign
        let lv = DocumentVerifier.verify(files: r.files, evidence: live, trustStore: doc.store, validationTime: Self.at)
        #expect(check(lv, "activeAuthentication")?.status == .failed)
        #expect(lv.status == .inconclusive)
    }

    @Test func bundleWithoutDG15WhileTheSODListsItFailsCloneDetection() async throws {
        let doc = try VirtualDocument("pace-gm-p256-aes256")
        let r = try await doc.read()
        var files = r.files
        files[.dg15] = nil
        let v = offline(doc, files: files, evidence: bundleEvidence(r))
        #expect(check(v, "activeAuthentication")?.status == .failed)
        #expect(v.chipCloneDetection == .failed)
        #expect(v.status == .inconclusive)
    }

    @Test func offlineActiveAuthenticationSaysItProvesNoFreshness() async throws {
        let doc = try VirtualDocument("pace-gm-p256-aes256")
        let r = try await doc.read()
        let v = offline(doc, files: r.files, evidence: bundleEvidence(r))
        let aa = try #require(check(v, "activeAuthentication"))
        #expect(aa.status == .passed)
        #expect(aa.detail.contains("not freshness"), "\(aa.detail)")
        #expect(aa.detail.contains("bound"), "\(aa.detail)")
        #expect(v.status == .accepted)
    }

    @Test func transcriptSignatureAlgorithmDisagreeingWithDG14Fails() async throws {
        let doc = try VirtualDocument("pace-gm-brainpool-aes128")  // ECDSA AA, algorithm from DG14
        let r = try await doc.read()
        var e = bundleEvidence(r)
        e.activeAuthentication?.signatureAlgorithm = "1.2.840.10045.4.1"  // ecdsa-with-SHA1, not DG14's
        let v = offline(doc, files: r.files, evidence: e)
        #expect(check(v, "activeAuthentication")?.status == .failed)
    }

    // MARK: W2 — offline CA and PACE-CAM are not re-proven from a transcript

    @Test func offlinePACECAMIsNotCheckedEvenWhenForged() async throws {
        let doc = try VirtualDocument("pace-cam")
        let r = try await doc.read(doc.canKey)
        let liveOutcome = doc.verify(r)
        #expect(check(liveOutcome, "paceChipAuthenticationMapping")?.status == .passed)
        #expect(liveOutcome.status == .accepted)

        let genuine = offline(doc, files: r.files, evidence: bundleEvidence(r))
        #expect(check(genuine, "paceChipAuthenticationMapping")?.status == .notChecked)
        #expect(check(genuine, "chipAuthentication")?.status == .notChecked)
        // nothing offline proves the chip key: a document offering it is not accepted offline
        #expect(genuine.chipCloneDetection == .failed)
        #expect(genuine.status == .inconclusive)

        // An attacker's chip: CA_IC = 1 and PK_map,IC = EF.CardSecurity's key satisfy the equation.
        let cs = try #require(r.files[.cardSecurity])
        let key = try ChipAuthentication.parameters(from: SecurityInfos.parseCardSecurity(cs)).chipPublicKey
        var e = bundleEvidence(r)
        e.chipAuthenticationMapping?.chipAuthenticationData = [0x01]
        e.chipAuthenticationMapping?.chipMappingPublicKey = key
        let forged = offline(doc, files: r.files, evidence: e)
        #expect(check(forged, "paceChipAuthenticationMapping")?.status != .passed)
        #expect(forged.status != .accepted)
    }

    @Test func livePACECAMDataThatDisagreeWithCardSecurityFail() async throws {
        let doc = try VirtualDocument("pace-cam")
        let r = try await doc.read(doc.canKey)
        var e = CloneDetectionEvidence(r)
        e.chipAuthenticationMapping?.chipAuthenticationData = [0x02]
        let v = DocumentVerifier.verify(files: r.files, evidence: e, trustStore: doc.store, validationTime: Self.at)
        #expect(check(v, "paceChipAuthenticationMapping")?.status == .failed)
        #expect(v.status == .inconclusive)
    }

    @Test func offlineChipAuthenticationQuotesTheLiveRecord() async throws {
        let doc = try VirtualDocument("id-card-td1")  // CA only, no AA
        let r = try await doc.read(doc.canKey)
        #expect(doc.verify(r).status == .accepted)
        let v = offline(doc, files: r.files, evidence: bundleEvidence(r))
        let ca = try #require(check(v, "chipAuthentication"))
        #expect(ca.status == .notChecked)
        #expect(ca.detail.contains("live"), "\(ca.detail)")
        #expect(v.status != .accepted)
    }

    // MARK: W3 — clone detection cannot be stripped

    @Test func chipRefusingDG14AndDG15IsNotAccepted() async throws {
        let doc = try withholding("pace-gm-p256-aes256", [.dg14, .dg15])
        let r = try await doc.read()
        #expect(r.files[.dg14] == nil && r.files[.dg15] == nil)
        let v = doc.verify(r)
        #expect(v.chipVerification == .succeeded)
        #expect(v.chipCloneDetection == .failed, "\(v.checks)")
        #expect(v.status == .inconclusive)
        #expect(check(v, "chipAuthentication")?.status == .failed)
        #expect(check(v, "activeAuthentication")?.status == .failed)
    }

    @Test func chipRefusingOnlyDG15FailsCloneDetection() async throws {
        let doc = try withholding("pace-gm-p256-aes256", [.dg15])
        let r = try await doc.read()
        let v = doc.verify(r)
        #expect(check(v, "chipAuthentication")?.status == .passed)
        #expect(check(v, "activeAuthentication")?.status == .failed)
        #expect(v.status == .inconclusive)
    }

    @Test func bundleWithoutDG14AndDG15IsNotAccepted() async throws {
        let doc = try VirtualDocument("pace-gm-p256-aes256")
        let r = try await doc.read()
        var files = r.files
        files[.dg14] = nil
        files[.dg15] = nil
        let e = CloneDetectionEvidence(
            chipAuthentication: .notAvailable, activeAuthentication: nil,
            chipAuthenticationMapping: nil, live: false)
        let v = offline(doc, files: files, evidence: e)
        #expect(v.chipCloneDetection == .failed)
        #expect(v.status == .inconclusive)
    }

    @Test func documentOfferingNoMechanismIsNotAvailableAndAccepted() async throws {
        var spec = try #require(ProfileSpec.named("pace-gm-p256-aes256"))
        spec.chipAuthentication = nil
        spec.activeAuthentication = nil
        let doc = try VirtualDocument(generated: SpecimenGenerator.generate(spec))
        let r = try await doc.read()
        let v = doc.verify(r)
        #expect(v.chipCloneDetection == .notAvailable, "\(v.checks)")
        #expect(v.status == .accepted)
        let off = offline(doc, files: r.files, evidence: bundleEvidence(r))
        #expect(off.chipCloneDetection == .notAvailable)
        #expect(off.status == .accepted)
    }

    @Test func readRestrictedAwayFromDG15FailsCloneDetectionAndSaysSo() async throws {
        let doc = try VirtualDocument("pace-gm-p256-aes256")
        let r = try await doc.read { $0.files = [.dg1, .dg2, .dg14] }
        let v = doc.verify(r)
        #expect(check(v, "activeAuthentication")?.status == .failed)
        #expect(v.status == .inconclusive)
        let scope = try #require(check(v, "readScope"))
        #expect(scope.detail.contains("--files"), "\(scope.detail)")
        #expect(scope.detail.contains("DG15"), "\(scope.detail)")
    }

    @Test func disabledActiveAuthenticationIsNotAPass() async throws {
        let doc = try VirtualDocument("pace-gm-p256-aes256")
        let r = try await doc.read { $0.performActiveAuthentication = false }
        let v = doc.verify(r)
        #expect(check(v, "activeAuthentication")?.status == .failed)
        #expect(v.status == .inconclusive)
    }

    // MARK: W4 — no identity, no acceptance

    @Test(arguments: [[LDSFile.dg1], [.dg2], [.dg1, .dg2]])
    func chipWithholdingIdentityDataGroupsIsNotAccepted(withheld: [LDSFile]) async throws {
        let doc = try withholding("pace-gm-p256-aes256", withheld)
        let r = try await doc.read()
        let v = doc.verify(r)
        #expect(v.status != .accepted)
        #expect(v.chipVerification != .succeeded)
        let id = try #require(check(v, "identityDataGroups"))
        #expect(id.status == .failed)
        for f in withheld { #expect(id.detail.contains(f.rawValue), "\(id.detail)") }
    }

    @Test func bundleWithoutDG1IsNotAccepted() async throws {
        let doc = try VirtualDocument("pace-gm-p256-aes256")
        let r = try await doc.read()
        var files = r.files
        files[.dg1] = nil
        let v = offline(doc, files: files, evidence: bundleEvidence(r))
        #expect(v.status == .rejected)
        #expect(check(v, "identityDataGroups")?.status == .failed)
    }

    @Test func readRestrictedAwayFromDG1SaysSoAndIsNotAccepted() async throws {
        let doc = try VirtualDocument("pace-gm-p256-aes256")
        let r = try await doc.read { $0.files = [.dg2, .dg14, .dg15] }
        let v = doc.verify(r)
        #expect(v.status != .accepted)
        let id = try #require(check(v, "identityDataGroups"))
        #expect(id.status == .failed)
        #expect(id.detail.contains("--files"), "\(id.detail)")
        #expect(check(v, "readScope")?.detail.contains("--files") == true)
    }

    @Test func aCompleteReadHasIdentityAndScopeChecksPassed() async throws {
        let doc = try VirtualDocument("pace-gm-p256-aes256")
        let r = try await doc.read()
        let v = doc.verify(r)
        #expect(check(v, "identityDataGroups")?.status == .passed)
        #expect(check(v, "readScope")?.status == .passed)
        #expect(v.status == .accepted)
    }
}
