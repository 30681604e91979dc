public import MRTDTrust

extension CheckName {
    /// The check as a person reads it, for the text and HTML outputs (the JSON report keeps the code, `rawValue`).
    /// Exhaustive: a new check gets its title here.
    public var title: String {
        switch self {
        case .dataGroupHashes: "Data groups match their signed hashes"
        case .unlistedDataGroups: "Every data group read is listed in the signed security object"
        case .sodSignature: "Security object (EF.SOD) signature verifies"
        case .documentSignerCertificate: "Document signer certificate is valid"
        case .cscaChain: "Document signer chains to a CSCA of the issuing state"
        case .cscaCountryMatchesIssuingState: "CSCA country is the issuing state"
        case .revocation: "Document signer is not revoked"
        case .cardSecuritySignature: "EF.CardSecurity signature verifies"
        case .chipAuthentication: "Chip Authentication (chip is genuine)"
        case .paceChipAuthenticationMapping: "PACE Chip Authentication Mapping (chip is genuine)"
        case .activeAuthentication: "Active Authentication (chip is genuine)"
        case .identityDataGroups: "Identity data groups (DG1, DG2) read and signed"
        case .readScope: "Every data group listed was read"
        case .documentValidity: "Document has not expired"
        case .downgrade: "Access control is as strong as the signed data offer (no downgrade)"
        }
    }
}

extension ReadReport.Check {
    /// `CheckName.title` for this check's code (the code itself for a name this version does not know).
    public var title: String { CheckName(rawValue: name)?.title ?? name }
}
