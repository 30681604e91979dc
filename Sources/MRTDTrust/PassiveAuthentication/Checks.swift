import ASN1TLV
import MRTDCrypto
import MRTDDocument

/// The checks of ICAO 9303-11 §5.1 passive authentication, one value each (docs/architecture.md §4.2 names).
///
/// **Validity rule** (the ICAO "chain model", 9303-12 §5 and §7.1.1): a document signer's
/// certificate lives as long as the documents it signed (DS validity = private key usage period +
/// document validity) and a CSCA's as long as the document signers it issued. So:
/// - when the SOD carries a signingTime T (not later than the validation time V), the document
///   signer must have been valid at T — inside notBefore…notAfter and, when present, inside its
///   privateKeyUsagePeriod — and V must not precede its notBefore; an expired (notAfter < V) or
///   retired signer does not invalidate a document signed while it was valid;
/// - without a signingTime the moment of signing is unknown, so the document signer must be
///   valid at V (its notAfter covers the documents it signed, 9303-12 §7.1.1);
/// - each CSCA (and link certificate) must have been valid when it issued the certificate below
///   it (that certificate's notBefore); its later expiry does not invalidate the chain.
extension PassiveAuthenticationCheck {
    // MARK: Data groups

    /// Every data group read is hashed (bytes as read) with the SOD's algorithm and compared with the
    /// LDSSecurityObject (9303-11 §5.1.1 step 3).
    public static let dataGroupHashes = PassiveAuthenticationCheck(name: .dataGroupHashes) { e in
        guard !e.input.dataGroups.isEmpty else { return .notPresent(.dataGroupHashes, "no data group was read") }
        guard let lso = e.input.sod?.ldsSecurityObject else {
            return .failed(.dataGroupHashes, "no hash to compare with: \(e.input.sodUnavailableReason ?? "no EF.SOD")")
        }
        guard let hash = AlgorithmIdentifier.hashes[lso.hashAlgorithm] else {
            return .failed(.dataGroupHashes, "the SOD's hash algorithm \(lso.hashAlgorithm.dotted) is not supported")
        }
        var matched: [Int] = []
        var mismatched: [Int] = []
        for (dg, bytes) in e.input.dataGroups.sorted(by: { $0.key < $1.key }) {
            guard let expected = lso.dataGroupHashes[dg] else { continue }  // unlistedDataGroups reports it
            if hash.hash(bytes) == expected { matched.append(dg) } else { mismatched.append(dg) }
        }
        let alg = hash.rawValue.uppercased()
        if !mismatched.isEmpty {
            return .failed(
                .dataGroupHashes,
                "\(dgList(mismatched)) do\(mismatched.count == 1 ? "es" : "") not match the SOD (\(alg)); matching: \(matched.isEmpty ? "none" : dgList(matched))"
            )
        }
        if matched.isEmpty { return .notPresent(.dataGroupHashes, "none of the data groups read is listed in the SOD") }
        return .passed(.dataGroupHashes, "\(dgList(matched)) match the SOD (\(alg))")
    }

    /// A data group read from the chip but absent from the SOD fails (it cannot be authenticated).
    public static let unlistedDataGroups = PassiveAuthenticationCheck(name: .unlistedDataGroups) { e in
        guard !e.input.dataGroups.isEmpty else { return .notPresent(.unlistedDataGroups, "no data group was read") }
        guard let listed = e.input.sod?.ldsSecurityObject.dataGroupHashes else {
            return .failed(
                .unlistedDataGroups,
                "\(dgList(e.input.dataGroups.keys.sorted())) read but no SOD lists them: \(e.input.sodUnavailableReason ?? "no EF.SOD")"
            )
        }
        let unlisted = e.input.dataGroups.keys.filter { listed[$0] == nil }.sorted()
        if !unlisted.isEmpty {
            return .failed(
                .unlistedDataGroups,
                "\(dgList(unlisted)) read from the chip but not listed in the SOD (which lists \(dgList(listed.keys.sorted())))"
            )
        }
        return .passed(
            .unlistedDataGroups, "every data group read is listed in the SOD (\(dgList(listed.keys.sorted())))")
    }

    // MARK: SOD signature and document signer

    /// The SOD's CMS signature (RFC 5652, 9303-11 §5.1.1 step 1): signed attributes, messageDigest,
    /// signature with the document signer's key.
    public static let sodSignature = PassiveAuthenticationCheck(name: .sodSignature) { e in
        switch e.sodSigner {
        case .success(let s):
            let type = e.input.sod?.eContentType
            guard type == TrustOID.ldsSecurityObject else {
                return .failed(
                    .sodSignature, "eContentType \(type?.dotted ?? "?") is not id-icao-mrtd-security-ldsSecurityObject")
            }
            let time =
                s.hasSignedAttributes
                ? (s.signingTime.map { ", signingTime \($0)" } ?? ", no signingTime")
                : ", no signed attributes (signature over eContent)"
            return .passed(
                .sodSignature,
                "\(s.signatureAlgorithm.reportName) signature verified with the \(s.certificateSource == .embedded ? "embedded" : "trust store's") document signer \(s.certificate.subject) (serial \(s.certificate.serialHex))\(time)"
            )
        case .failure(let err):
            if err.code == .signerNotFound { return .notChecked(.sodSignature, err.reason) }
            return .failed(.sodSignature, err.reason)
        }
    }

    /// The document signer certificate is usable and valid under the rule above.
    public static let documentSignerCertificate = PassiveAuthenticationCheck(name: .documentSignerCertificate) { e in
        guard let ds = e.documentSigner else {
            return .notPresent(
                .documentSignerCertificate, "no document signer certificate in the SOD or the trust store")
        }
        var signingTime: ASN1Time? = nil
        if case .success(let s) = e.sodSigner { signingTime = s.signingTime }
        if let problem = signerProblem(ds, signingTime: signingTime, validationTime: e.validationTime) {
            return .failed(.documentSignerCertificate, problem)
        }
        var typeNote = ""
        if let types = ds.decoded.documentTypes, let code = e.input.documentCode {
            // ICAO 9303-12 §7.1.1.3: DocumentType is the first one or two characters of the MRZ document code.
            let c = code.uppercased().filter { $0 != "<" && !$0.isWhitespace }
            guard types.contains(where: { !$0.isEmpty && c.hasPrefix($0.uppercased()) }) else {
                return .failed(
                    .documentSignerCertificate,
                    "document code \(code) is not in the document signer's documentTypeList (\(types.joined(separator: ", ")))"
                )
            }
            typeNote = "; document code \(c) allowed by documentTypeList"
        }
        return .passed(
            .documentSignerCertificate,
            signerValidityDetail(ds, signingTime: signingTime, validationTime: e.validationTime) + typeNote)
    }

    // MARK: CSCA

    /// The document signer chains to a CSCA of the trust store (link certificates followed), each
    /// CSCA valid when it issued the certificate below it.
    public static let cscaChain = PassiveAuthenticationCheck(name: .cscaChain) { e in
        guard let ds = e.documentSigner, let outcome = e.chain else {
            return .notChecked(.cscaChain, "no document signer certificate to chain")
        }
        return chainCheck(.cscaChain, ds, outcome, missingAnchor: e.missingTrustAnchor)
    }

    /// The CSCA's country is the MRZ issuing state (9303-11 §5.1.1; codes per `CountryCodes`).
    public static let cscaCountryMatchesIssuingState = PassiveAuthenticationCheck(name: .cscaCountryMatchesIssuingState)
    { e in
        guard let state = e.input.issuingState, !state.filter({ $0 != "<" }).isEmpty else {
            return .notChecked(.cscaCountryMatchesIssuingState, "no MRZ issuing state given")
        }
        guard let ds = e.documentSigner else {
            return .notChecked(.cscaCountryMatchesIssuingState, "no document signer certificate, so no CSCA country")
        }
        let country: String?
        let from: String
        if case .anchored(let chain)? = e.chain {
            country = chain.anchor.subject.country
            from = "CSCA \(chain.anchor.subject)"
        } else {
            country = ds.issuer.country
            from = "the document signer's issuer name (no CSCA found in the trust store)"
        }
        guard let country else {
            if case .anchored? = e.chain {
                return .failed(.cscaCountryMatchesIssuingState, "\(from) has no countryName")
            }
            return .notChecked(
                .cscaCountryMatchesIssuingState,
                "no CSCA found and the document signer's issuer name \(ds.issuer) has no countryName")
        }
        if let dsCountry = ds.subject.country, dsCountry != country {
            return .failed(
                .cscaCountryMatchesIssuingState,
                "document signer country \(dsCountry) differs from CSCA country \(country)")
        }
        let mapped = CountryCodes.certificateCountries(forIssuingState: state)
        let mrz = state.filter { $0 != "<" }
        if CountryCodes.matches(certificateCountry: country, issuingState: state) {
            let via =
                mapped.isEmpty
                ? " (no ISO alpha-2 for \(mrz): compared literally)"
                : (mapped == [mrz] ? "" : " (ICAO \(mrz) ↔ \(mapped.joined(separator: "/")))")
            return .passed(
                .cscaCountryMatchesIssuingState, "issuing state \(mrz) matches C=\(country) of \(from)\(via)")
        }
        let expected = mapped.isEmpty ? "no ISO alpha-2 equivalent" : "expected \(mapped.joined(separator: " or "))"
        return .failed(
            .cscaCountryMatchesIssuingState, "issuing state \(mrz) does not match C=\(country) of \(from) (\(expected))"
        )
    }

    // MARK: Revocation

    /// The document signer (and any link certificate crossed) is not on a verified CRL of its issuer
    /// (RFC 5280 §6.3). `notChecked` when the store has no verified CRL for that issuer.
    public static let revocation = PassiveAuthenticationCheck(name: .revocation) { e in
        guard let ds = e.documentSigner else { return .notChecked(.revocation, "no document signer certificate") }
        var toCheck = [ds]
        if case .anchored(let chain)? = e.chain {
            toCheck += chain.certificates.dropFirst().filter(\.isLinkCertificate)
        }
        var checked: [String] = []
        var stale: [String] = []
        for cert in toCheck {
            let crls = e.trustStore.crls(issuer: cert.issuer).filter { entry in
                guard let aki = cert.authorityKeyIdentifier, let crlAKI = entry.crl.authorityKeyIdentifier else {
                    return true
                }
                return aki == crlAKI
            }
            guard !crls.isEmpty else {
                if cert == ds {
                    let unverified = e.trustStore.allCRLs(issuer: cert.issuer).count
                    let extra =
                        unverified > 0
                        ? " (\(unverified) CRL(s) of that issuer held but not verified against its CSCA)" : ""
                    return .notChecked(.revocation, "the trust store has no CRL for issuer \(cert.issuer)\(extra)")
                }
                continue
            }
            for entry in crls {
                if let r = entry.crl.revocation(of: cert) {
                    return .failed(
                        .revocation,
                        "\(cert == ds ? "document signer" : "link certificate") serial \(cert.serialHex) revoked on \(r.revocationDate) by the CRL of \(entry.crl.issuer) (thisUpdate \(entry.crl.thisUpdate))"
                    )
                }
                if let next = entry.crl.nextUpdate, next < e.validationTime {
                    stale.append("\(entry.crl.issuer) nextUpdate \(next)")
                }
            }
            checked.append(
                cert == ds ? "document signer serial \(cert.serialHex)" : "link certificate serial \(cert.serialHex)")
        }
        let staleNote = stale.isEmpty ? "" : "; CRL out of date: \(stale.joined(separator: ", "))"
        return .passed(.revocation, "not revoked: \(checked.joined(separator: ", "))\(staleNote)")
    }

    // MARK: EF.CardSecurity

    /// EF.CardSecurity's CMS signature verified and its signer chained to a CSCA likewise
    /// (9303-11 §9.2.2, BSI TR-03110-3 §A.1.2).
    public static let cardSecuritySignature = PassiveAuthenticationCheck(name: .cardSecuritySignature) { e in
        guard let result = e.cardSecuritySigner else {
            return .notPresent(.cardSecuritySignature, "EF.CardSecurity was not read")
        }
        switch result {
        case .failure(let err):
            if err.code == .signerNotFound { return .notChecked(.cardSecuritySignature, err.reason) }
            return .failed(.cardSecuritySignature, "EF.CardSecurity: \(err.reason)")
        case .success(let s):
            if let problem = signerProblem(s.certificate, signingTime: s.signingTime, validationTime: e.validationTime)
            {
                return .failed(.cardSecuritySignature, "EF.CardSecurity signer: \(problem)")
            }
            let outcome = e.cardSecurityChain ?? .emptyStore
            var missing: String? = nil
            if case .noIssuer = outcome {
                missing = PassiveAuthenticationEvidence.missingTrustAnchor(
                    for: s.certificate, input: e.input, sodSigner: e.sodSigner, trustStore: e.trustStore)
            }
            let chain = chainCheck(.cardSecuritySignature, s.certificate, outcome, missingAnchor: missing)
            let attrs = s.hasSignedAttributes ? "" : " (no signed attributes: signature over eContent)"
            let sig =
                "\(s.signatureAlgorithm.reportName) signature verified with \(s.certificate.subject) (serial \(s.certificate.serialHex))\(attrs)"
            return VerificationCheck(.cardSecuritySignature, chain.status, "\(sig); \(chain.detail)")
        }
    }
}

// MARK: - Shared rules

func dgList(_ dgs: [Int]) -> String { dgs.map { "DG\($0)" }.joined(separator: ", ") }

/// Why a signer certificate (document signer, EF.CardSecurity signer) is not acceptable, or nil.
func signerProblem(_ cert: Certificate, signingTime: ASN1Time?, validationTime v: ASN1Time) -> String? {
    let name = "\(cert.subject) (serial \(cert.serialHex))"
    if !cert.unhandledCriticalExtensions.isEmpty {
        return
            "\(name) has critical extensions this verifier cannot process: \(cert.unhandledCriticalExtensions.joined(separator: ", "))"
    }
    if let ku = cert.decoded.keyUsage, !ku.contains(.digitalSignature) {
        return "\(name) key usage (\(ku.names.joined(separator: ", "))) lacks digitalSignature"
    }
    if cert.isCA { return "\(name) is a CA certificate, not a signer" }
    if v < cert.notBefore { return "\(name) is not valid before \(cert.notBefore), after the validation time \(v)" }
    if let t = signingTime {
        if v < t { return "signingTime \(t) is after the validation time \(v)" }
        if !cert.isValid(at: t) {
            return "\(name) was not valid at signingTime \(t) (validity \(cert.notBefore) … \(cert.notAfter))"
        }
        if let pkup = cert.decoded.privateKeyUsagePeriod, !pkup.contains(t) {
            return
                "signingTime \(t) is outside the private key usage period \(pkup.notBefore?.description ?? "…") … \(pkup.notAfter?.description ?? "…") of \(name)"
        }
        return nil
    }
    if !cert.isValid(at: v) {
        return
            "\(name) is not valid at the validation time \(v) (validity \(cert.notBefore) … \(cert.notAfter)) and the SOD has no signingTime to show it signed while valid"
    }
    return nil
}

func signerValidityDetail(_ cert: Certificate, signingTime: ASN1Time?, validationTime v: ASN1Time) -> String {
    let base = "\(cert.subject) (serial \(cert.serialHex)), validity \(cert.notBefore) … \(cert.notAfter)"
    if let t = signingTime {
        let expired =
            cert.notAfter < v
            ? "; expired at the validation time, which does not invalidate a document signed while it was valid" : ""
        return "\(base); valid at signingTime \(t)\(expired)"
    }
    return "\(base); valid at the validation time \(v) (no signingTime in the SOD)"
}

/// Turns a chain outcome into a check, applying the CSCA rules (CA, keyCertSign, no unknown
/// critical extension, valid when it issued the certificate below it). `missingAnchor`: the issuing state the
/// trust store holds no CSCA of (`PassiveAuthenticationEvidence.missingTrustAnchor`) — then not chaining is
/// `notChecked` (cannot tell), while a certificate that does not chain to the state's CSCAs that are held fails.
func chainCheck(_ name: CheckName, _ leaf: Certificate, _ outcome: ChainOutcome, missingAnchor: String?)
    -> VerificationCheck
{
    switch outcome {
    case .emptyStore:
        return .notChecked(
            name,
            "no trust anchor for \(missingAnchor ?? "the issuing state"): the trust store holds no CSCA, so \(leaf.subject) (issuer \(leaf.issuer)) cannot be chained"
        )
    case .noIssuer(let reason):
        if let state = missingAnchor {
            return .notChecked(
                name,
                "no trust anchor for \(state): the trust store holds no CSCA of \(state), so \(leaf.subject) (issuer \(leaf.issuer)) cannot be chained"
            )
        }
        return .failed(name, "no trust anchor: \(reason)")
    case .signatureFailed(let reason):
        return .failed(name, "certificate signature does not verify: \(reason)")
    case .anchored(let chain):
        for (child, issuer) in zip(chain.certificates, chain.certificates.dropFirst()) {
            let iname = "CSCA \(issuer.subject) (serial \(issuer.serialHex))"
            if !issuer.unhandledCriticalExtensions.isEmpty {
                return .failed(
                    name,
                    "\(iname) has critical extensions this verifier cannot process: \(issuer.unhandledCriticalExtensions.joined(separator: ", "))"
                )
            }
            if let ku = issuer.decoded.keyUsage, !ku.contains(.keyCertSign) {
                return .failed(name, "\(iname) key usage lacks keyCertSign")
            }
            if !issuer.isValid(at: child.notBefore) {
                return .failed(
                    name,
                    "\(iname) (validity \(issuer.notBefore) … \(issuer.notAfter)) was not valid when it issued \(child.subject) on \(child.notBefore)"
                )
            }
        }
        let path = chain.certificates.dropFirst().map { c in
            "\(c.isLinkCertificate ? "link " : "")CSCA \(c.subject) (serial \(c.serialHex))"
        }.joined(separator: " → ")
        return .passed(name, "\(leaf.subject) → \(path)")
    }
}
