import MRTDDocument
import MRTDTrust

extension DocumentVerifier {
    /// Why the verdict is what it is, in one sentence without the leading verdict word (`VerificationOutcome.reason`;
    /// the HTML banner shows "Rejected: " + it). It follows `VerdictRule`: the first failed chip-verification check
    /// for `rejected`; the missing trust anchor, the expiry, a downgrade or the clone detection for `inconclusive`.
    static func reason(_ o: VerificationOutcome, facts f: Facts, validity: DocumentValidity) -> String {
        let failed = { (name: CheckName) in o.check(name)?.status == .failed }
        switch o.status {
        case .rejected:
            let order: [CheckName] = [
                .dataGroupHashes, .sodSignature, .cscaChain, .documentSignerCertificate, .revocation,
                .cscaCountryMatchesIssuingState, .unlistedDataGroups, .cardSecuritySignature, .identityDataGroups,
            ]
            if let name = order.first(where: failed) { return failureSentence(name, facts: f) }
            if o.check(.sodSignature)?.status != .passed {
                return "the document signer certificate needed to verify the security object (EF.SOD) was not found"
            }
            if o.check(.identityDataGroups)?.status != .passed {
                return "the identity data groups (DG1, DG2) could not be checked against the signed hashes"
            }
            return "the signed data could not be verified"
        case .inconclusive:
            if o.chipVerification == .notChecked {
                let state = o.passiveAuthentication?.missingTrustAnchor ?? "the issuing state"
                return "no trust anchor (CSCA) for \(state) was given, so the document signer cannot be checked"
            }
            if !VerdictRule.documentUsable(o.checks, allowExpired: o.allowExpired) {
                switch validity.state {
                case .expired(let d):
                    return "the document expired on \(d) (its chip data verify, but it is not valid for use)"
                case .notChecked, .valid: return "the document's date of expiry could not be checked"
                }
            }
            if failed(.downgrade) {
                return "the session was protected more weakly than the signed data say the chip supports"
                    + " (\(o.check(.downgrade)?.detail ?? "a downgrade"))"
            }
            let clone: [CheckName] = [.chipAuthentication, .paceChipAuthenticationMapping, .activeAuthentication]
            if let name = clone.first(where: failed) {
                return "the data are authentic but the chip could not be shown genuine (\(name.title): failed)"
            }
            return "the data are authentic but the chip could not be shown genuine"
        case .accepted:
            var s = "the data are signed by a trusted issuer"
            s +=
                o.chipCloneDetection == .notAvailable
                ? " (the document offers no clone detection)" : " and the chip is genuine"
            if case .expired(let d) = validity.state { s += "; the document expired on \(d), allowed by the caller" }
            return s
        }
    }

    static func failureSentence(_ name: CheckName, facts f: Facts) -> String {
        switch name {
        case .dataGroupHashes:
            switch f.mismatched.count {
            case 0: return "the data group hashes cannot be compared with signed ones (no usable security object)"
            case 1: return "the data group \(f.mismatched[0]) hash does not match the signed one"
            default:
                let list = f.mismatched.map(String.init)
                return
                    "the hashes of data groups \(list.dropLast().joined(separator: ", ")) and \(list.last!) do not match the signed ones"
            }
        case .sodSignature: return "the signature of the security object (EF.SOD) does not verify"
        case .cscaChain: return "the document signer does not chain to the CSCAs of the issuing state that were given"
        case .documentSignerCertificate: return "the document signer certificate is not valid for this document"
        case .revocation: return "the document signer certificate is revoked"
        case .cscaCountryMatchesIssuingState: return "the CSCA's country is not the document's issuing state"
        case .unlistedDataGroups: return "a data group was read that the security object does not list"
        case .cardSecuritySignature:
            return "the signature of EF.CardSecurity does not verify or does not chain to a CSCA"
        case .identityDataGroups: return "the identity data groups (DG1, DG2) were not all read"
        default: return "\(name.title): failed"
        }
    }
}
