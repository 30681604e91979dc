public import MRTDTrust

/// The verdict rule, written once (docs/report.md "Verdict" is the same rule as a table): how the checks fold
/// into `chipVerification`, `chipCloneDetection` and `status`. Every caller — `emrtd read`, `emrtd verify`,
/// the step-up result — decides through this type and nothing else.
///
/// - `chipVerification`: `SUCCEEDED` when no chip-verification check failed and every required one passed
///   (`dataGroupHashes`, `sodSignature`, `cscaChain`, `identityDataGroups`); else `FAILED`.
/// - `chipCloneDetection` (over `chipAuthentication`, `paceChipAuthenticationMapping`, `activeAuthentication`):
///   `FAILED` when one failed; else `SUCCEEDED` when one passed; else `NOT_AVAILABLE` when every one is
///   `notPresent` (the document offers no mechanism); else `FAILED` (a mechanism is offered but nothing proved it).
/// - `status`: `rejected` unless chip verification succeeded; else `inconclusive` when clone detection failed
///   or an access-control check (`downgrade`) failed; else `accepted`.
///
/// The checks carry the downgrade protection: a clone-detection check is `notPresent` only when the
/// document (its SOD, DG14, EF.CardAccess/EF.CardSecurity) offers no such mechanism, never because a file
/// was refused, withheld or left out of the read.
public enum VerdictRule {
    /// What a check counts for.
    public enum Role: Sendable, Hashable {
        /// Part of chip verification; `required` checks must pass (the others must not fail).
        case chipVerification(required: Bool)
        case cloneDetection
        /// Says something a person should know; never changes the verdict by itself.
        case informational
        /// How the session was protected (`downgrade`): failed keeps `status` from `accepted` (at most `inconclusive`).
        case accessControl
    }

    /// Every check name's role (exhaustive: a new check name must be placed here).
    public static func role(of name: CheckName) -> Role {
        switch name {
        case .dataGroupHashes, .sodSignature, .cscaChain, .identityDataGroups: .chipVerification(required: true)
        case .unlistedDataGroups, .documentSignerCertificate, .cscaCountryMatchesIssuingState, .revocation,
            .cardSecuritySignature:
            .chipVerification(required: false)
        case .chipAuthentication, .paceChipAuthenticationMapping, .activeAuthentication: .cloneDetection
        case .readScope: .informational
        case .downgrade: .accessControl
        }
    }

    public static func chipVerification(_ checks: [VerificationCheck]) -> VerificationOutcome.ChipVerification {
        var required = Set<CheckName>()
        for name in CheckName.allCases {
            if case .chipVerification(required: true) = role(of: name) { required.insert(name) }
        }
        for c in checks {
            guard case .chipVerification = role(of: c.name) else { continue }
            if c.status == .failed { return .failed }
            if c.status == .passed { required.remove(c.name) }
        }
        return required.isEmpty ? .succeeded : .failed
    }

    public static func cloneDetection(_ checks: [VerificationCheck]) -> VerificationOutcome.CloneDetection {
        let clone = checks.filter { role(of: $0.name) == .cloneDetection }
        if clone.contains(where: { $0.status == .failed }) { return .failed }
        if clone.contains(where: { $0.status == .passed }) { return .succeeded }
        if clone.allSatisfy({ $0.status == .notPresent }) { return .notAvailable }
        return .failed
    }

    public static func status(
        chipVerification: VerificationOutcome.ChipVerification,
        cloneDetection: VerificationOutcome.CloneDetection
    ) -> VerificationOutcome.Status {
        switch chipVerification {
        case .failed, .notChecked: return .rejected
        case .succeeded:
            switch cloneDetection {
            case .failed: return .inconclusive
            case .succeeded, .notAvailable: return .accepted
            }
        }
    }

    /// The whole verdict from the checks.
    public static func decide(_ checks: [VerificationCheck])
        -> (
            chipVerification: VerificationOutcome.ChipVerification, cloneDetection: VerificationOutcome.CloneDetection,
            status: VerificationOutcome.Status
        )
    {
        let v = chipVerification(checks)
        let c = cloneDetection(checks)
        var s = status(chipVerification: v, cloneDetection: c)
        if s == .accepted, checks.contains(where: { role(of: $0.name) == .accessControl && $0.status == .failed }) {
            s = .inconclusive
        }
        return (v, c, s)
    }
}
