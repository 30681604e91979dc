import Foundation
import MRTDReader
import MRTDTrust
import Testing

/// The verdict rule (VerdictRule) on synthetic checks, and its table in docs/report.md.
@Suite struct VerdictRuleTests {
    static let paOK: [VerificationCheck] = [
        .passed(.dataGroupHashes, ""), .passed(.unlistedDataGroups, ""), .passed(.sodSignature, ""),
        .passed(.documentSignerCertificate, ""), .passed(.cscaChain, ""), .passed(.cscaCountryMatchesIssuingState, ""),
        .notChecked(.revocation, ""), .notPresent(.cardSecuritySignature, ""), .passed(.identityDataGroups, ""),
        .notChecked(.readScope, ""), .passed(.documentValidity, ""),
    ]

    func clone(_ ca: CheckStatus, _ cam: CheckStatus, _ aa: CheckStatus) -> [VerificationCheck] {
        [
            VerificationCheck(.chipAuthentication, ca, ""), VerificationCheck(.paceChipAuthenticationMapping, cam, ""),
            VerificationCheck(.activeAuthentication, aa, ""),
        ]
    }

    @Test(arguments: [
        (
            CheckStatus.passed, CheckStatus.notPresent, CheckStatus.notPresent,
            VerificationOutcome.CloneDetection.succeeded
        ),
        (.notChecked, .passed, .notPresent, .succeeded),
        (.passed, .notPresent, .failed, .failed),
        (.notPresent, .notPresent, .notPresent, .notAvailable),
        // offered, nothing proved it (offline CA/PACE-CAM): not NOT_AVAILABLE
        (.notChecked, .notChecked, .notPresent, .failed),
        (.notChecked, .notPresent, .notPresent, .failed),
        (.notChecked, .notChecked, .passed, .succeeded),
    ])
    func cloneDetectionFold(
        ca: CheckStatus, cam: CheckStatus, aa: CheckStatus, want: VerificationOutcome.CloneDetection
    ) {
        let d = VerdictRule.decide(Self.paOK + clone(ca, cam, aa))
        #expect(d.cloneDetection == want)
        #expect(d.chipVerification == .succeeded)
        #expect(d.status == (want == .failed ? .inconclusive : .accepted))
    }

    @Test(arguments: [CheckName.dataGroupHashes, .sodSignature, .cscaChain, .identityDataGroups])
    func aRequiredCheckThatDidNotPassRejects(name: CheckName) {
        for status in [CheckStatus.failed, .notChecked, .notPresent] {
            var checks = Self.paOK.filter { $0.name != name }
            checks.append(VerificationCheck(name, status, ""))
            let d = VerdictRule.decide(checks + clone(.passed, .notPresent, .passed))
            if name == .cscaChain && status == .notChecked {
                // no trust anchor for the issuing state: cannot tell
                #expect(d.chipVerification == .notChecked && d.status == .inconclusive)
                continue
            }
            #expect(d.chipVerification == .failed, "\(name) \(status)")
            #expect(d.status == .rejected)
        }
        // and a missing one too
        #expect(
            VerdictRule.decide(Self.paOK.filter { $0.name != name } + clone(.passed, .notPresent, .passed)).status
                == .rejected)
    }

    @Test(arguments: [
        CheckName.unlistedDataGroups, .documentSignerCertificate, .cscaCountryMatchesIssuingState, .revocation,
        .cardSecuritySignature,
    ])
    func anOptionalChipVerificationCheckRejectsOnlyWhenFailed(name: CheckName) {
        var checks = Self.paOK.filter { $0.name != name }
        checks.append(.notChecked(name, ""))
        #expect(VerdictRule.decide(checks + clone(.passed, .notPresent, .passed)).status == .accepted)
        checks.removeLast()
        checks.append(.failed(name, ""))
        #expect(VerdictRule.decide(checks + clone(.passed, .notPresent, .passed)).status == .rejected)
    }

    @Test func readScopeNeverChangesTheVerdict() {
        for status in CheckStatus.allCases {
            let checks = Self.paOK.filter { $0.name != .readScope } + [VerificationCheck(.readScope, status, "")]
            #expect(VerdictRule.decide(checks + clone(.passed, .notPresent, .notPresent)).status == .accepted)
        }
    }

    @Test func statusTable() {
        for v in VerificationOutcome.ChipVerification.allCases {
            for c in VerificationOutcome.CloneDetection.allCases {
                let s = VerdictRule.status(chipVerification: v, cloneDetection: c)
                let want: VerificationOutcome.Status =
                    v == .failed
                    ? .rejected : v == .notChecked ? .inconclusive : (c == .failed ? .inconclusive : .accepted)
                #expect(s == want, "\(v) \(c)")
                let unusable = VerdictRule.status(chipVerification: v, cloneDetection: c, documentUsable: false)
                #expect(unusable == (v == .failed ? .rejected : .inconclusive), "\(v) \(c) unusable")
            }
        }
    }

    /// A missing trust anchor is NOT_CHECKED only when it is all that is missing: with another required check not
    /// passed (e.g. no document signer, so no SOD signature), chip verification fails.
    @Test func aMissingAnchorIsInconclusiveOnlyWhenNothingElseIsMissing() {
        let base = Self.paOK.filter { $0.name != .cscaChain } + [.notChecked(.cscaChain, "no trust anchor for UTO")]
        #expect(VerdictRule.decide(base + clone(.passed, .notPresent, .notPresent)).status == .inconclusive)
        for (name, status) in [
            (CheckName.sodSignature, CheckStatus.notChecked), (.dataGroupHashes, .failed), (.revocation, .failed),
        ] {
            let checks = base.filter { $0.name != name } + [VerificationCheck(name, status, "")]
            let d = VerdictRule.decide(checks + clone(.passed, .notPresent, .notPresent))
            #expect(d.chipVerification == .failed && d.status == .rejected, "\(name) \(status)")
        }
    }

    /// documentValidity: an expired document is inconclusive unless the caller allows it; a validity that was not
    /// checked (DG1 not vouched for) or is missing never lets the document be accepted.
    @Test(arguments: [
        (CheckStatus?.some(.passed), false, VerificationOutcome.Status.accepted),
        (.passed, true, .accepted),
        (.failed, false, .inconclusive),
        (.failed, true, .accepted),
        (.notChecked, false, .inconclusive),
        (.notChecked, true, .inconclusive),
        (.notPresent, true, .inconclusive),
        (nil, true, .inconclusive),
    ])
    func documentValidityFold(validity: CheckStatus?, allowExpired: Bool, want: VerificationOutcome.Status) {
        var checks = Self.paOK.filter { $0.name != .documentValidity } + clone(.passed, .notPresent, .notPresent)
        if let validity { checks.append(VerificationCheck(.documentValidity, validity, "")) }
        let d = VerdictRule.decide(checks, allowExpired: allowExpired)
        #expect(d.status == want)
        #expect(d.chipVerification == .succeeded)
        // a forged document that also expired is still rejected
        let forged = checks.filter { $0.name != .dataGroupHashes } + [.failed(.dataGroupHashes, "")]
        #expect(VerdictRule.decide(forged, allowExpired: allowExpired).status == .rejected)
    }

    /// docs/report.md's verdict table names every check, with the role the code gives it.
    @Test func theDocumentedTableNamesEveryCheckWithItsRole() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let doc = try String(contentsOf: root.appendingPathComponent("docs/report.md"), encoding: .utf8)
        for name in CheckName.allCases {
            let row = try #require(
                doc.split(separator: "\n").first { $0.hasPrefix("| `\(name.rawValue)` |") }, "\(name) has no row")
            let role = row.split(separator: "|")[1].trimmingCharacters(in: .whitespaces)
            switch VerdictRule.role(of: name) {
            case .chipVerification(required: true): #expect(role == "chip verification, required", "\(name)")
            case .chipVerification(required: false): #expect(role == "chip verification", "\(name)")
            case .cloneDetection: #expect(role == "clone detection", "\(name)")
            case .informational: #expect(role == "informational", "\(name)")
            case .documentValidity: #expect(role == "document validity", "\(name)")
            case .accessControl: #expect(role == "access control", "\(name)")
            }
        }
    }
}
