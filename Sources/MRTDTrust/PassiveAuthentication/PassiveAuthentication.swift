public import ASN1TLV
import MRTDCrypto
public import MRTDDocument

/// What passive authentication looks at (ICAO 9303-11 §5.1): the SOD, the data groups as read,
/// the MRZ issuing state and, when read, EF.CardSecurity.
public struct PassiveAuthenticationInput: Sendable {
    /// The SOD; nil when it was not read or could not be parsed (`sodUnavailableReason` says which).
    public var sod: SODFile?
    public var sodUnavailableReason: String?
    /// Data group number → the file's bytes exactly as read from the chip.
    public var dataGroups: [Int: [UInt8]]
    /// The MRZ issuing state (ICAO 9303-3 code, e.g. "D", "NLD", "UTO"); nil when unknown.
    public var issuingState: String?
    /// EF.CardSecurity as read (ContentInfo), when the document has one and it was read.
    public var cardSecurity: [UInt8]?
    /// The MRZ document code ("P<", "PP", "ID", "I<", …), checked against the document signer's
    /// documentTypeList extension (ICAO 9303-12 §7.1.1.3) when both are present.
    public var documentCode: String?

    public init(
        sod: SODFile, dataGroups: [Int: [UInt8]], issuingState: String?, cardSecurity: [UInt8]? = nil,
        documentCode: String? = nil
    ) {
        self.sod = sod
        self.dataGroups = dataGroups
        self.issuingState = issuingState
        self.cardSecurity = cardSecurity
        self.documentCode = documentCode
    }

    /// From EF.SOD's bytes as read (nil when it was not read): an unreadable or missing SOD makes
    /// the SOD-based checks fail with the reason instead of preventing a report.
    public init(
        sodBytes: [UInt8]?, dataGroups: [Int: [UInt8]], issuingState: String?, cardSecurity: [UInt8]? = nil,
        documentCode: String? = nil
    ) {
        if let sodBytes {
            do {
                sod = try SODFile(bytes: sodBytes)
            } catch {
                sodUnavailableReason = "EF.SOD is unreadable: \(error.description)"
            }
        } else {
            sodUnavailableReason = "EF.SOD was not read"
        }
        self.dataGroups = dataGroups
        self.issuingState = issuingState
        self.cardSecurity = cardSecurity
        self.documentCode = documentCode
    }
}

/// Everything the checks need, computed once per evaluation (the CMS verifications and chains are
/// the expensive part); each `PassiveAuthenticationCheck` reads it.
public struct PassiveAuthenticationEvidence: Sendable {
    public let input: PassiveAuthenticationInput
    public let trustStore: TrustStore
    /// The explicit validation time (docs/architecture.md §3.6): never the machine clock implicitly.
    public let validationTime: ASN1Time
    /// The SOD's SignedData as read by this module.
    public let sodSignedData: Result<CMSSignedData, TrustError>
    /// The SOD signer verification.
    public let sodSigner: Result<CMSVerifiedSigner, TrustError>
    /// The document signer certificate: the verified signer, else the certificate the SignerInfo names.
    public let documentSigner: Certificate?
    /// The document signer's path to a CSCA (nil when there is no document signer certificate).
    public let chain: ChainOutcome?
    /// EF.CardSecurity's signer verification and chain (nil when EF.CardSecurity was not read).
    public let cardSecuritySigner: Result<CMSVerifiedSigner, TrustError>?
    public let cardSecurityChain: ChainOutcome?
    /// When the document signer does not chain because the trust store holds no CSCA at all of the document's
    /// issuing state: that state (`missingTrustAnchor(for:)`); nil when it chains, or when CSCAs of the state are
    /// held and did not issue it (a failure, not a gap in the trust material).
    public let missingTrustAnchor: String?

    public init(input: PassiveAuthenticationInput, trustStore: TrustStore, validationTime: ASN1Time) {
        self.input = input
        self.trustStore = trustStore
        self.validationTime = validationTime
        let sd = Result { () throws(TrustError) in
            guard let sod = input.sod else {
                throw TrustError(.malformed, .passiveAuthentication, input.sodUnavailableReason ?? "no EF.SOD")
            }
            return try CMSSignedData(signedData: sod.signedData)
        }
        sodSignedData = sd
        let lookup: (SignerIdentifier) -> [Certificate] = { trustStore.certificates(matching: $0) }
        switch sd {
        case .success(let signedData):
            let signer = Result { () throws(TrustError) in try signedData.verifySigner(externalCertificates: lookup) }
            sodSigner = signer
            if case .success(let s) = signer {
                documentSigner = s.certificate
            } else if let si = signedData.signerInfos.first {
                documentSigner = signedData.certificates.first(where: { si.sid.matches($0) }) ?? lookup(si.sid).first
            } else {
                documentSigner = nil
            }
        case .failure(let e):
            sodSigner = .failure(e)
            documentSigner = nil
        }
        let chain = documentSigner.map { trustStore.chain(for: $0) }
        self.chain = chain
        switch (chain, documentSigner) {
        case (.emptyStore?, let ds?), (.noIssuer?, let ds?):
            missingTrustAnchor = Self.missingTrustAnchor(
                for: ds, input: input, sodSigner: sodSigner, trustStore: trustStore)
        default: missingTrustAnchor = nil
        }
        if let cs = input.cardSecurity {
            let signer = Result { () throws(TrustError) -> CMSVerifiedSigner in
                let sd = try CMSSignedData(contentInfo: cs)
                guard sd.eContentType == TrustOID.bsiSecurityObject else {
                    throw TrustError(
                        .malformed, .cms,
                        "EF.CardSecurity eContentType \(sd.eContentType.dotted) is not id-SecurityObject")
                }
                return try sd.verifySigner(externalCertificates: lookup)
            }
            cardSecuritySigner = signer
            if case .success(let s) = signer {
                cardSecurityChain = trustStore.chain(for: s.certificate)
            } else {
                cardSecurityChain = nil
            }
        } else {
            cardSecuritySigner = nil
            cardSecurityChain = nil
        }
    }
}

extension PassiveAuthenticationEvidence {
    /// The document's issuing state as signed data give it: DG1's MRZ issuing state when the SOD signature verified
    /// and DG1 matches its hash there, and the country of `signer`'s issuer name (the certificate whose key verified
    /// the signature). Never an unsigned input: `input.issuingState` is not used.
    static func signedIssuingStates(
        signer: Certificate, input: PassiveAuthenticationInput, sodSigner: Result<CMSVerifiedSigner, TrustError>
    ) -> [String] {
        var states: [String] = []
        if case .success = sodSigner, let lso = input.sod?.ldsSecurityObject,
            let hash = AlgorithmIdentifier.hashes[lso.hashAlgorithm], let dg1 = input.dataGroups[1],
            let expected = lso.dataGroupHashes[1], hash.hash(dg1) == expected,
            let state = try? DG1File(bytes: dg1).mrz.issuingState.filter({ $0 != "<" }), !state.isEmpty
        {
            states.append(state)
        }
        if let c = signer.issuer.country, !c.isEmpty, !states.contains(c) { states.append(c) }
        return states
    }

    /// Why `signer` may not chain although nothing is wrong with it: the trust store holds no CSCA of the
    /// document's issuing state (`signedIssuingStates`). Returns that state (the first one), or nil when the store
    /// holds a CSCA of any of them — or holds CSCAs and the state is unknown — so that not chaining is a failure.
    static func missingTrustAnchor(
        for signer: Certificate, input: PassiveAuthenticationInput,
        sodSigner: Result<CMSVerifiedSigner, TrustError>, trustStore: TrustStore
    ) -> String? {
        let states = signedIssuingStates(signer: signer, input: input, sodSigner: sodSigner)
        guard let first = states.first else { return trustStore.hasCSCAs ? nil : "the issuing state" }
        return states.contains(where: trustStore.holdsCSCA(ofCountry:)) ? nil : first
    }
}

/// One check of a passive-authentication policy: a name and a pure function of the evidence
/// (docs/architecture.md §3.6: each check a value, policies compose).
public struct PassiveAuthenticationCheck: Sendable {
    public let name: CheckName
    public let evaluate: @Sendable (PassiveAuthenticationEvidence) -> VerificationCheck

    public init(name: CheckName, evaluate: @escaping @Sendable (PassiveAuthenticationEvidence) -> VerificationCheck) {
        self.name = name
        self.evaluate = evaluate
    }
}

/// An ordered list of checks. `icao9303` is ICAO 9303-11 §5.1 passive authentication with the
/// checks of docs/architecture.md §4.2; callers may remove, replace or add checks.
public struct PassiveAuthenticationPolicy: Sendable {
    public var checks: [PassiveAuthenticationCheck]

    public init(checks: [PassiveAuthenticationCheck]) { self.checks = checks }

    public static let icao9303 = PassiveAuthenticationPolicy(checks: [
        .dataGroupHashes, .unlistedDataGroups, .sodSignature, .documentSignerCertificate, .cscaChain,
        .cscaCountryMatchesIssuingState, .revocation, .cardSecuritySignature,
    ])

    /// This policy with the check of the same name replaced (or appended).
    public func replacing(_ check: PassiveAuthenticationCheck) -> Self {
        var p = self
        if let i = p.checks.firstIndex(where: { $0.name == check.name }) {
            p.checks[i] = check
        } else {
            p.checks.append(check)
        }
        return p
    }

    public func removing(_ name: CheckName) -> Self {
        var p = self
        p.checks.removeAll { $0.name == name }
        return p
    }

    public func evaluate(_ input: PassiveAuthenticationInput, trustStore: TrustStore, validationTime: ASN1Time)
        -> PassiveAuthenticationReport
    {
        let evidence = PassiveAuthenticationEvidence(
            input: input, trustStore: trustStore, validationTime: validationTime)
        return evaluate(evidence)
    }

    public func evaluate(_ evidence: PassiveAuthenticationEvidence) -> PassiveAuthenticationReport {
        var chain: [Certificate] = []
        if case .anchored(let c)? = evidence.chain { chain = c.certificates }
        var signingTime: ASN1Time? = nil
        if case .success(let s) = evidence.sodSigner { signingTime = s.signingTime }
        return PassiveAuthenticationReport(
            checks: checks.map { $0.evaluate(evidence) }, validationTime: evidence.validationTime,
            documentSigner: evidence.documentSigner, chain: chain, signingTime: signingTime,
            missingTrustAnchor: evidence.missingTrustAnchor)
    }
}

/// The result of passive authentication: a value, one check per policy entry.
public struct PassiveAuthenticationReport: Sendable, Hashable {
    public let checks: [VerificationCheck]
    public let validationTime: ASN1Time
    public let documentSigner: Certificate?
    /// Document signer first, CSCA last; empty when no chain was found.
    public let chain: [Certificate]
    /// The SOD's signingTime, when the SOD signature verified and carries one.
    public let signingTime: ASN1Time?
    /// The issuing state the trust store holds no CSCA of, when that is why the document signer does not chain
    /// (`PassiveAuthenticationEvidence.missingTrustAnchor`).
    public let missingTrustAnchor: String?

    public init(
        checks: [VerificationCheck], validationTime: ASN1Time, documentSigner: Certificate?, chain: [Certificate],
        signingTime: ASN1Time?, missingTrustAnchor: String? = nil
    ) {
        self.checks = checks
        self.validationTime = validationTime
        self.documentSigner = documentSigner
        self.chain = chain
        self.signingTime = signingTime
        self.missingTrustAnchor = missingTrustAnchor
    }

    public subscript(name: CheckName) -> VerificationCheck? { checks.first { $0.name == name } }

    /// Some check failed.
    public var hasFailure: Bool { checks.contains { $0.status == .failed } }
}

/// ICAO 9303-11 §5.1 passive authentication with the default policy.
public enum PassiveAuthentication {
    public static func verify(
        sod: SODFile, dataGroups: [Int: [UInt8]], issuingState: String?, cardSecurity: [UInt8]? = nil,
        documentCode: String? = nil, trustStore: TrustStore, validationTime: ASN1Time,
        policy: PassiveAuthenticationPolicy = .icao9303
    ) -> PassiveAuthenticationReport {
        policy.evaluate(
            PassiveAuthenticationInput(
                sod: sod, dataGroups: dataGroups, issuingState: issuingState, cardSecurity: cardSecurity,
                documentCode: documentCode),
            trustStore: trustStore, validationTime: validationTime)
    }

    /// The same from EF.SOD's bytes as read (nil when EF.SOD was not read).
    public static func verify(
        sodBytes: [UInt8]?, dataGroups: [Int: [UInt8]], issuingState: String?, cardSecurity: [UInt8]? = nil,
        documentCode: String? = nil, trustStore: TrustStore, validationTime: ASN1Time,
        policy: PassiveAuthenticationPolicy = .icao9303
    ) -> PassiveAuthenticationReport {
        policy.evaluate(
            PassiveAuthenticationInput(
                sodBytes: sodBytes, dataGroups: dataGroups, issuingState: issuingState,
                cardSecurity: cardSecurity, documentCode: documentCode),
            trustStore: trustStore, validationTime: validationTime)
    }
}
