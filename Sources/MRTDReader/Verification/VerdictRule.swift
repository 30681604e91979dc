public import MRTDTrust

/// The verdict rule, written once (docs/report.md "Verdict" is the same rule as a table): how the checks fold
/// into `chipVerification`, `chipCloneDetection` and `status`. Every caller — `emrtd read`, `emrtd verify`,
/// the step-up result — decides through this type and nothing else.
///
/// - `chipVerification`: `FAILED` when a chip-verification check failed; else `SUCCEEDED` when every required
///   one passed (`dataGroupHashes`, `sodSignature`, `cscaChain`, `identityDataGroups`); else `NOT_CHECKED` when
///   the only one missing is `cscaChain`, `notChecked` because the trust store holds no CSCA of the document's
///   issuing state (cannot tell); else `FAILED`.
/// - `chipCloneDetection` (over `chipAuthentication`, `paceChipAuthenticationMapping`, `activeAuthentication`):
///   `FAILED` when one failed; else `SUCCEEDED` when one passed; else `NOT_AVAILABLE` when every one is
///   `notPresent` (the document offers no mechanism); else `FAILED` (a mechanism is offered but nothing proved it).
/// - `status`: `rejected` when chip verification failed; `inconclusive` when it was not checked (no trust
///   anchor), when `documentValidity` did not pass (expired — unless the caller allows expired documents — or
///   not checked, or missing), when clone detection failed, or when an access-control check (`downgrade`) failed;
///   else `accepted`.
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
        /// Whether the document may be used at the validation time (not expired); a genuine expired document
        /// is `inconclusive`, never `accepted` unless the caller allows expired documents.
        case documentValidity
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
        case .documentValidity: .documentValidity
        case .downgrade: .accessControl
        }
    }

    public static func chipVerification(_ checks: [VerificationCheck]) -> VerificationOutcome.ChipVerification {
        var required = Set<CheckName>()
        for name in CheckName.allCases {
            if case .chipVerification(required: true) = role(of: name) { required.insert(name) }
        }
        var anchorMissing = false
        for c in checks {
            guard case .chipVerification = role(of: c.name) else { continue }
            if c.status == .failed { return .failed }
            if c.status == .passed { required.remove(c.name) }
            if c.name == .cscaChain && c.status == .notChecked { anchorMissing = true }
        }
        if required.isEmpty { return .succeeded }
        // cscaChain is notChecked only when the store holds no CSCA of the issuing state, or when there is no
        // document signer (then sodSignature is missing too, and the result is FAILED).
        return required == [.cscaChain] && anchorMissing ? .notChecked : .failed
    }

    public static func cloneDetection(_ checks: [VerificationCheck]) -> VerificationOutcome.CloneDetection {
        let clone = checks.filter { role(of: $0.name) == .cloneDetection }
        if clone.contains(where: { $0.status == .failed }) { return .failed }
        if clone.contains(where: { $0.status == .passed }) { return .succeeded }
        if clone.allSatisfy({ $0.status == .notPresent }) { return .notAvailable }
        return .failed
    }

    /// Whether `documentValidity` lets the document be accepted: it passed, or it failed (the document expired)
    /// and the caller allows expired documents. Missing or `notChecked` (DG1 not verified) never does.
    public static func documentUsable(_ checks: [VerificationCheck], allowExpired: Bool) -> Bool {
        guard let v = checks.first(where: { role(of: $0.name) == .documentValidity }) else { return false }
        return v.status == .passed || (v.status == .failed && allowExpired)
    }

    /// The status from chip verification and clone detection of a document usable at the validation time
    /// (`documentUsable`): the step-up result's form, which carries no checks.
    public static func status(
        chipVerification: VerificationOutcome.ChipVerification,
        cloneDetection: VerificationOutcome.CloneDetection
    ) -> VerificationOutcome.Status {
        status(chipVerification: chipVerification, cloneDetection: cloneDetection, documentUsable: true)
    }

    public static func status(
        chipVerification: VerificationOutcome.ChipVerification,
        cloneDetection: VerificationOutcome.CloneDetection, documentUsable: Bool
    ) -> VerificationOutcome.Status {
        switch chipVerification {
        case .failed: return .rejected
        case .notChecked: return .inconclusive
        case .succeeded:
            guard documentUsable else { return .inconclusive }
            switch cloneDetection {
            case .failed: return .inconclusive
            case .succeeded, .notAvailable: return .accepted
            }
        }
    }

    /// The whole verdict from the checks. `allowExpired`: the caller accepts a document past its date of expiry
    /// (`ReadOptions`/`emrtd --allow-expired`; the report records it).
    public static func decide(_ checks: [VerificationCheck], allowExpired: Bool = false)
        -> (
            chipVerification: VerificationOutcome.ChipVerification, cloneDetection: VerificationOutcome.CloneDetection,
            status: VerificationOutcome.Status
        )
    {
        let v = chipVerification(checks)
        let c = cloneDetection(checks)
        let usable = documentUsable(checks, allowExpired: allowExpired)
        var s = status(chipVerification: v, cloneDetection: c, documentUsable: usable)
        if s == .accepted, checks.contains(where: { role(of: $0.name) == .accessControl && $0.status == .failed }) {
            s = .inconclusive
        }
        return (v, c, s)
    }
}
