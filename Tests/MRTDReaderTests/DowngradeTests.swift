import ASN1TLV
import DocumentGenerator
import Foundation
import MRTDAccessControl
import MRTDCrypto
import MRTDDocument
import MRTDReader
import MRTDTrust
import Testing

/// Downgrade protection (docs/report.md, "Downgrade"): a chip whose document passes passive authentication but
/// withholds, garbles or weakens the unsigned EF.CardAccess is read, and the `downgrade` check compares the access
/// control used with what the hash-checked DG14 lists.
@Suite struct DowngradeTests {
    static let hostile: [(Forgery, AccessControlProtocol, CipherAlgorithm)] = [
        (.cardAccessWithheld, .bac, .tripleDES),
        (.cardAccessGarbled, .bac, .tripleDES),
        (.cardAccessTripleDESOnly, .pace, .tripleDES),
    ]

    @Test(arguments: hostile)
    func aHostileChipIsNotAcceptedByDefault(forgery: Forgery, proto: AccessControlProtocol, cipher: CipherAlgorithm)
        async throws
    {
        let doc = try VirtualDocument("pace-gm-brainpool-aes128+\(forgery.rawValue)")
        let r = try await doc.read()
        #expect(r.accessControl.protocol == proto && r.accessControl.cipher == cipher)
        // one meaning: BAC although the chip (here DG14) lists PACE; a weaker PACE is not a BAC fallback
        #expect(r.accessControl.fellBackToBAC == (proto == .bac))
        let v = doc.verify(r)
        let check = try #require(v.check(.downgrade))
        #expect(check.status == .failed, "\(check)")
        #expect(check.detail.contains("DG14"), "\(check)")
        #expect(v.chipVerification == .succeeded && v.chipCloneDetection == .succeeded)
        #expect(v.status == .inconclusive)
        let report = ReportBuilder.report(for: r, verification: v)
        #expect(report.accessControl?.fellBackToBAC == (proto == .bac))
        #expect(report.accessControl?.downgradeAccepted == nil)
    }

    @Test(arguments: hostile)
    func theOptInAcceptsTheDowngradeAndRecordsIt(
        forgery: Forgery, proto: AccessControlProtocol, cipher: CipherAlgorithm
    ) async throws {
        let doc = try VirtualDocument("pace-gm-brainpool-aes128+\(forgery.rawValue)")
        let r = try await doc.read { $0.allowBACFallback = true }
        #expect(r.accessControl.protocol == proto && r.accessControl.cipher == cipher)
        let v = doc.verify(r)
        let check = try #require(v.check(.downgrade))
        #expect(check.status == .notChecked && check.detail.hasPrefix(DocumentVerifier.acceptedDowngradeDetail))
        #expect(v.status == .accepted)
        let report = ReportBuilder.report(for: r, verification: v)
        #expect(report.accessControl?.downgradeAccepted == true)
        #expect(report.warnings.contains { $0.hasPrefix(DocumentVerifier.acceptedDowngradeDetail) })
        #expect(report.accessControl?.summary.contains("downgrade accepted") == true)
    }

    /// `forbidBAC` (`--no-bac-fallback`) never runs BAC: the stripped chips and a genuine BAC-only one are not read.
    @Test(arguments: [
        "pace-gm-brainpool-aes128+card-access-withheld", "pace-gm-brainpool-aes128+card-access-garbled", "bac",
    ])
    func forbiddingBACRefusesEveryBACRead(name: String) async throws {
        let doc = try VirtualDocument(name)
        do {
            _ = try await doc.read { $0.forbidBAC = true }
            Issue.record("\(name) was read with BAC forbidden")
        } catch {
            guard case .accessControl(let e) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(e.code == .noProtocolAvailable)
        }
        // and a genuine PACE chip is read as usual
        let pace = try VirtualDocument("pace-gm-p256-aes256")
        #expect(doc.verify(try await doc.fresh().read()).status != .accepted || name == "bac")
        #expect(pace.verify(try await pace.read { $0.forbidBAC = true }).status == .accepted)
    }

    @Test(arguments: [
        ("bac", "BAC: neither EF.CardAccess nor the signed data"),
        ("pace-gm-brainpool-aes128", "no stronger protocol is listed in the signed data"),
        ("pace-gm-dh-3des", "no stronger protocol is listed in the signed data"),
        ("pace-cam", "no stronger protocol is listed in the signed data"),
    ])
    func genuineChipsAreUnchanged(profile: String, detail: String) async throws {
        let doc = try VirtualDocument(profile)
        let r = try await doc.read()
        #expect(!r.accessControl.fellBackToBAC)
        let v = doc.verify(r)
        let check = try #require(v.check(.downgrade))
        #expect(check.status == .passed && check.detail.contains(detail), "\(check)")
        #expect(v.status == .accepted)
        // the opt-in changes nothing when there is no downgrade
        let opted = try await doc.fresh().read { $0.allowBACFallback = true }
        let o = doc.verify(opted)
        #expect(o.check(.downgrade)?.status == .passed && o.status == .accepted)
        #expect(ReportBuilder.report(for: opted, verification: o).accessControl?.downgradeAccepted == nil)
    }

    /// DG14 left out of the read: nothing signed to compare with, so the check cannot pass (and clone detection,
    /// which DG14 is listed for, keeps the verdict from `accepted`).
    @Test func withoutDG14TheCheckIsNotPassed() async throws {
        let doc = try VirtualDocument("pace-gm-brainpool-aes128+card-access-withheld")
        let r = try await doc.read { $0.files = [.dg1, .dg2] }
        #expect(r.accessControl.protocol == .bac && r.files[.dg14] == nil)
        let v = doc.verify(r)
        let check = try #require(v.check(.downgrade))
        #expect(check.status == .notChecked && check.detail.contains("DG14"), "\(check)")
        #expect(v.status != .accepted)
    }

    /// Offline, the bundle's record of the access control is quoted: a recorded downgrade still fails, and an
    /// accepted one is not accepted again (the acceptance is the live caller's, never the bundle's).
    @Test func aBundleKeepsTheDowngrade() async throws {
        let doc = try VirtualDocument("pace-gm-brainpool-aes128+card-access-withheld")
        let r = try await doc.read { $0.allowBACFallback = true }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("emrtd-downgrade-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        try EvidenceBundle.write(r, to: dir)
        let loaded = try EvidenceBundle.load(from: dir)
        #expect(loaded.evidence.accessControl?.protocol == .bac && !loaded.evidence.downgradeAccepted)
        let v = DocumentVerifier.verify(
            files: loaded.files, evidence: loaded.evidence, trustStore: doc.store,
            validationTime: ASN1Time(year: 2026, month: 11, day: 29))
        let check = try #require(v.check(.downgrade))
        #expect(check.status == .failed && check.detail.hasPrefix("the live read recorded: BAC ran"), "\(check)")

        let genuine = try VirtualDocument("pace-gm-brainpool-aes128")
        let dir2 = dir.appendingPathExtension("genuine")
        defer { try? FileManager.default.removeItem(at: dir2) }
        try EvidenceBundle.write(try await genuine.read(), to: dir2)
        let g = try EvidenceBundle.load(from: dir2)
        let gv = DocumentVerifier.verify(
            files: g.files, evidence: g.evidence, trustStore: genuine.store,
            validationTime: ASN1Time(year: 2026, month: 11, day: 29))
        #expect(gv.check(.downgrade)?.status == .notChecked)
    }
}
