/// Forged variants of a generated document, each breaking exactly one thing so that a verifier
/// test can check that exactly the right check fails.
public enum Forgery: String, Sendable, Hashable, CaseIterable, Codable {
    /// DG1 (the holder's name) is changed after the SOD was signed: its hash no longer matches.
    case dataGroupModified = "dg-modified"
    /// DG11 is on the chip (and in EF.COM) but the SOD does not list it.
    case dataGroupMissingFromSOD = "dg-missing-from-sod"
    /// The SOD is signed by a document signer of another CSCA (same name, different key) than the trusted one.
    case signerOfOtherCSCA = "foreign-signer"
    /// The trusted CSCA (and its signer) belong to another country ("DE") than the MRZ issuing state.
    case cscaOfOtherCountry = "foreign-country-csca"
    /// The document signer certificate has expired, but the SOD was signed while it was valid. ICAO 9303-12 §7
    /// (shell model with the DS validity covering signing only): the document must still verify.
    case expiredSignerSignedInValidity = "expired-signer"
    /// The SOD's signingTime lies after the document signer's notAfter: the signature was made with an expired key.
    case signedOutsideSignerValidity = "signed-outside-signer-validity"
    /// The document signer is listed in the CSCA's CRL.
    case revokedSigner = "revoked-signer"
    /// DG15 holds an Active Authentication key that is not the chip's (a clone with a copied DG15).
    case activeAuthenticationKeyMismatch = "aa-key-mismatch"
    /// DG14 holds a Chip Authentication key that is not the chip's.
    case chipAuthenticationKeyMismatch = "ca-key-mismatch"
    /// Not a forgery: a genuine document whose date of expiry (30 April 2021) has passed — signed while valid,
    /// every signature and hash verifies, and the verdict must still not be `accepted` (not valid for use).
    case expiredDocument = "expired-document"
    /// EF.CardAccess is withheld (6A82): a reader that trusts it alone runs BAC, although DG14 (signed) lists PACE.
    case cardAccessWithheld = "card-access-withheld"
    /// EF.CardAccess holds garbage (not SecurityInfos): the same downgrade to BAC.
    case cardAccessGarbled = "card-access-garbled"
    /// EF.CardAccess offers the profile's PACE with 3DES only, while DG14 (signed) lists it with the profile's
    /// AES cipher: a reader that trusts EF.CardAccess alone runs PACE-3DES.
    case cardAccessTripleDESOnly = "card-access-3des-only"

    /// The docs/architecture.md §4.2 check that must fail (nil: none must fail) and the expected verdict status.
    public var expectedOutcome: (failingCheck: String?, status: String) {
        switch self {
        case .dataGroupModified: return ("dataGroupHashes", "rejected")
        case .dataGroupMissingFromSOD: return ("unlistedDataGroups", "rejected")
        case .signerOfOtherCSCA: return ("cscaChain", "rejected")
        case .cscaOfOtherCountry: return ("cscaCountryMatchesIssuingState", "rejected")
        case .expiredSignerSignedInValidity: return (nil, "accepted")
        case .signedOutsideSignerValidity: return ("documentSignerCertificate", "rejected")
        case .revokedSigner: return ("revocation", "rejected")
        case .activeAuthenticationKeyMismatch: return ("activeAuthentication", "inconclusive")
        case .chipAuthenticationKeyMismatch: return ("chipAuthentication", "inconclusive")
        case .expiredDocument: return ("documentValidity", "inconclusive")
        case .cardAccessWithheld, .cardAccessGarbled, .cardAccessTripleDESOnly: return ("downgrade", "inconclusive")
        }
    }
}
