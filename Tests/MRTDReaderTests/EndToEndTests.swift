import ASN1TLV
import DocumentGenerator
import ISO7816
import MRTDAccessControl
import MRTDDocument
import MRTDReader
import MRTDTrust
import Testing

/// Reader ↔ virtual chip, in process, through the real protocol stack, with no reader needed.
@Suite struct EndToEndTests {
    @Test(arguments: [
        ("bac", "BAC", nil as String?, "3DES"),
        ("pace-gm-brainpool-aes128", "PACE", "GM", "AES-128"),
        ("pace-gm-p256-aes256", "PACE", "GM", "AES-256"),
        ("pace-gm-dh-3des", "PACE", "GM", "3DES"),
        ("pace-im-ecdh", "PACE", "IM", "AES-128"),
        ("pace-cam", "PACE", "CAM", "AES-128"),
        ("short-only", "PACE", "GM", "AES-128"),
        ("id-card-td1", "PACE", "GM", "AES-128"),
    ])
    func genuineDocumentIsAccepted(profile: String, proto: String, mapping: String?, cipher: String) async throws {
        let doc = try VirtualDocument(profile)
        let r = try await doc.read()
        #expect(r.accessControl.protocol.rawValue == proto)
        #expect(r.accessControl.mapping?.rawValue == mapping)
        #expect(r.accessControl.cipher.rawValue == cipher)
        #expect(!r.accessControl.fellBackToBAC)
        // every file the chip holds (except the EAC-protected ones) came back byte for byte
        for (f, bytes) in doc.generated.profile.files where f != .dg3 && f != .dg4 && f != .atrInfo {
            if f == .cardSecurity && r.accessControl.protocol == .bac { continue }
            #expect(r.files[f] == bytes, "\(f.rawValue) differs")
        }
        let v = doc.verify(r)
        #expect(v.status == .accepted, "\(v.checks.filter { $0.status == .failed })")
        #expect(v.chipVerification == .succeeded)
        #expect(v.chipCloneDetection == .succeeded)
    }

    @Test func paceWithCAN() async throws {
        let doc = try VirtualDocument("pace-gm-brainpool-aes128")
        let r = try await doc.read(doc.canKey)
        #expect(r.accessControl.passwordType == .can)
        #expect(doc.verify(r).status == .accepted)
    }

    @Test(arguments: ["bac", "pace-gm-brainpool-aes128", "pace-im-ecdh", "pace-cam"])
    func wrongMRZFailsAtAuthentication(profile: String) async throws {
        let doc = try VirtualDocument(profile)
        let wrong = AccessKey.mrz(
            try MRZKey(documentNumber: "X12345678", dateOfBirth: "740812", dateOfExpiry: "310415"))
        do {
            _ = try await doc.read(wrong)
            Issue.record("a wrong MRZ was accepted")
        } catch {
            guard case .accessControl(let e) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            let expectedStep =
                profile == "bac" ? AccessControlStep.externalAuthenticate : AccessControlStep.gaMutualAuthentication
            #expect(e.step == expectedStep, "\(e)")
            #expect(!e.description.contains("X12345678"))
        }
    }

    @Test func wrongCANFails() async throws {
        let doc = try VirtualDocument("pace-gm-p256-aes256")
        do {
            _ = try await doc.read(.can("000000"))
            Issue.record("a wrong CAN was accepted")
        } catch {
            guard case .accessControl(let e) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(e.step == AccessControlStep.gaMutualAuthentication)
        }
    }

    @Test func pacePreferredAndBACFallbackIsRecordedOnlyWhenUsed() async throws {
        // A chip offering PACE: PACE runs even though BAC would work.
        let doc = try VirtualDocument("pace-gm-brainpool-aes128")
        let r = try await doc.read { $0.allowBACFallback = true }
        #expect(r.accessControl.protocol == .pace && !r.accessControl.fellBackToBAC)
    }

    @Test(arguments: Forgery.allCases)
    func forgeriesGetTheirVerdict(forgery: Forgery) async throws {
        let doc = try VirtualDocument("pace-gm-brainpool-aes128+\(forgery.rawValue)")
        let r = try await doc.read()
        let v = doc.verify(r)
        let expected = forgery.expectedOutcome
        #expect(v.status.rawValue == expected.status, "\(forgery): \(v.checks.filter { $0.status == .failed })")
        if let failing = expected.failingCheck {
            #expect(v.checks.first { $0.name.rawValue == failing }?.status == .failed, "\(forgery)")
            // and only that check fails
            #expect(v.checks.filter { $0.status == .failed }.map(\.name.rawValue) == [failing], "\(forgery)")
        } else {
            #expect(!v.checks.contains { $0.status == .failed })
        }
    }

    @Test(arguments: ["bac", "pace-im-ecdh", "pace-cam"])
    func forgedDataGroupIsRejectedOnEveryProtocol(profile: String) async throws {
        let doc = try VirtualDocument("\(profile)+dg-modified")
        let v = doc.verify(try await doc.read())
        #expect(v.status == .rejected && v.chipVerification == .failed)
    }

    /// No trust anchor for the issuing state: the signer cannot be checked, so the verdict cannot be accepted —
    /// and it is not evidence of forgery either (inconclusive, docs/report.md "Verdict").
    @Test func noTrustAnchorIsInconclusiveNeverAccepted() async throws {
        let doc = try VirtualDocument("pace-gm-brainpool-aes128")
        let r = try await doc.read()
        let v = DocumentVerifier.verify(
            r, trustStore: TrustStore(), validationTime: ASN1Time(year: 2026, month: 11, day: 29))
        #expect(v.status == .inconclusive)
        #expect(v.chipVerification == .notChecked)
        #expect(v.check(.cscaChain)?.status == .notChecked)
    }

    @Test func activeAuthenticationChallengeFromTheCaller() async throws {
        let doc = try VirtualDocument("pace-gm-p256-aes256")
        let challenge: [UInt8] = [1, 2, 3, 4, 5, 6, 7, 8]
        let r = try await doc.read { $0.activeAuthenticationChallenge = challenge }
        guard case .performed(let t, let v) = r.activeAuthentication else {
            Issue.record("AA did not run")
            return
        }
        #expect(t.challenge == challenge && v.verified)
    }
}
