public import MRTDReader

// The step-up result speaks the verdict of `VerdictRule` (MRTDReader) in its own Codable types; these
// exhaustive switches are the only bridge (a new case on either side does not compile until mapped).

extension StepUpStatus {
    public init(_ status: VerificationOutcome.Status) {
        switch status {
        case .accepted: self = .accepted
        case .inconclusive: self = .inconclusive
        case .rejected: self = .rejected
        }
    }
}

extension ChipVerification {
    public init(_ v: VerificationOutcome.ChipVerification) {
        switch v {
        case .succeeded: self = .succeeded
        case .failed: self = .failed
        case .notChecked: self = .notChecked
        }
    }

    var outcome: VerificationOutcome.ChipVerification {
        switch self {
        case .succeeded: .succeeded
        case .failed: .failed
        case .notChecked: .notChecked
        }
    }
}

extension ChipCloneDetection {
    public init(_ c: VerificationOutcome.CloneDetection) {
        switch c {
        case .succeeded: self = .succeeded
        case .failed: self = .failed
        case .notAvailable: self = .notAvailable
        }
    }

    var outcome: VerificationOutcome.CloneDetection {
        switch self {
        case .succeeded: .succeeded
        case .failed: .failed
        case .notAvailable: .notAvailable
        }
    }
}

extension ReadIDChipResult {
    /// The chip result of a verification: the verdict exactly as `VerdictRule` decided it.
    public init(_ outcome: VerificationOutcome, document: ReadIDDocumentFields, evidence: EvidenceReference) {
        self.init(
            status: StepUpStatus(outcome.status), chipVerification: ChipVerification(outcome.chipVerification),
            chipCloneDetection: ChipCloneDetection(outcome.chipCloneDetection), document: document, evidence: evidence,
            activeAuthenticationPassed: outcome.check(.activeAuthentication)?.status == .passed)
    }
}

extension ReadIDDocumentFields {
    /// The fields that say who the holder is, all non-empty: the document number, issuing country, dates
    /// of birth and expiry, and a name (surname or given names: a mononym may leave one empty).
    public var hasIdentity: Bool {
        func some(_ s: String?) -> Bool { s?.contains { !$0.isWhitespace } ?? false }
        return some(documentNumber) && some(issuingCountry) && some(dateOfBirth) && some(dateOfExpiry)
            && (some(lastName) || some(firstName))
    }
}
