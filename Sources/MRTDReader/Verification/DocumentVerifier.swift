public import ASN1TLV
public import MRTDAccessControl
import MRTDCrypto
public import MRTDDocument
public import MRTDTrust

/// The clone-detection evidence a verification needs: what a live read did (CA, PACE-CAM, AA) or what a
/// bundle recorded of it. `emrtd verify` rebuilds it from a bundle (`live: false`); the verifier decides
/// what of it counts (offline only an Active Authentication transcript can be re-checked, with DG15's key).
public struct CloneDetectionEvidence: Sendable {
    public var chipAuthentication: ChipAuthenticationOutcome
    public var activeAuthentication: ActiveAuthenticationTranscript?
    /// When Active Authentication was attempted but the chip refused or answered garbage.
    public var activeAuthenticationFailure: String?
    public var activeAuthenticationNotPerformed: String?
    public var chipAuthenticationMapping: PACEChipAuthenticationMappingData?
    /// Offline: the bundle records PACE-CAM data (not rebuilt: offline they prove nothing).
    public var chipAuthenticationMappingRecorded: Bool
    /// Live: files the read asked for and did not get, and why (for the checks' details).
    public var unreadFiles: [LDSFile: FileReadOutcome]
    /// Whether the evidence comes from a live read (CA and PACE-CAM can only be observed live).
    public var live: Bool
    /// The access control used (live), or as the bundle records it (offline; nil when it records none): what the
    /// `downgrade` check compares with what DG14 / EF.CardSecurity list.
    public var accessControl: AccessControlFacts? = nil
    /// The caller accepts a downgrade (`ReadOptions.allowBACFallback`): the `downgrade` check records it instead of
    /// failing it. Never taken from a bundle.
    public var downgradeAccepted = false

    public init(
        chipAuthentication: ChipAuthenticationOutcome, activeAuthentication: ActiveAuthenticationTranscript?,
        activeAuthenticationFailure: String? = nil, activeAuthenticationNotPerformed: String? = nil,
        chipAuthenticationMapping: PACEChipAuthenticationMappingData?, chipAuthenticationMappingRecorded: Bool = false,
        unreadFiles: [LDSFile: FileReadOutcome] = [:], live: Bool
    ) {
        self.chipAuthentication = chipAuthentication
        self.activeAuthentication = activeAuthentication
        self.activeAuthenticationFailure = activeAuthenticationFailure
        self.activeAuthenticationNotPerformed = activeAuthenticationNotPerformed
        self.chipAuthenticationMapping = chipAuthenticationMapping
        self.chipAuthenticationMappingRecorded = chipAuthenticationMappingRecorded
        self.unreadFiles = unreadFiles
        self.live = live
    }

    public init(_ result: ReadResult) {
        var transcript: ActiveAuthenticationTranscript? = nil
        var failure: String? = nil
        var notPerformed: String? = nil
        switch result.activeAuthentication {
        case .performed(let t, _): transcript = t
        case .failed(let r): failure = r
        case .notPerformed(let r): notPerformed = r
        case .notAvailable: break
        }
        self.init(
            chipAuthentication: result.chipAuthentication, activeAuthentication: transcript,
            activeAuthenticationFailure: failure, activeAuthenticationNotPerformed: notPerformed,
            chipAuthenticationMapping: result.chipAuthenticationMapping, unreadFiles: result.unreadFiles, live: true)
        accessControl = result.accessControl
        downgradeAccepted = result.downgradeAccepted
    }
}

/// The verdict of docs/architecture.md §4.2 with every check.
public struct VerificationOutcome: Sendable, Hashable {
    public enum ChipVerification: String, Sendable, Hashable, CaseIterable {
        case succeeded = "SUCCEEDED", failed = "FAILED", notChecked = "NOT_CHECKED"
    }
    public enum CloneDetection: String, Sendable, Hashable, CaseIterable {
        case succeeded = "SUCCEEDED", failed = "FAILED", notAvailable = "NOT_AVAILABLE"
    }
    public enum Status: String, Sendable, Hashable, CaseIterable { case accepted, inconclusive, rejected }

    public var checks: [VerificationCheck]
    public var chipVerification: ChipVerification
    public var chipCloneDetection: CloneDetection
    public var status: Status
    public var validationTime: ASN1Time
    public var passiveAuthentication: PassiveAuthenticationReport?
    /// Whether the caller accepts a document past its date of expiry (`documentValidity` failed does not then
    /// prevent `accepted`); recorded in the report.
    public var allowExpired: Bool = false
    /// Why the verdict is what it is, in one sentence for people (no secrets, no personal data but the issuing
    /// state and the date of expiry): e.g. "the data group 2 hash does not match the signed one".
    public var reason: String = ""

    public func check(_ name: CheckName) -> VerificationCheck? { checks.first { $0.name == name } }
}

/// Runs the checks of a read or a bundle and folds them with `VerdictRule` (docs/report.md "Verdict").
///
/// Clone detection rests only on data passive authentication checked: Chip Authentication on DG14's key,
/// Active Authentication on DG15's key (a transcript naming another key fails), PACE-CAM on EF.CardSecurity's
/// key (vouched for by `cardSecuritySignature`). A mechanism the document offers — DG14 with a Chip
/// Authentication key or DG15 listed in the SOD, PACE-CAM in EF.CardAccess, EF.CardSecurity or DG14 — that
/// was not proven (refused, withheld, left out of the read, not performed) fails; only a document offering
/// none is `NOT_AVAILABLE`. Offline, CA and PACE-CAM are `notChecked` (nothing ties a transcript to a real
/// session). DG1, and DG2 when the SOD lists it, must be read and hash-checked (`identityDataGroups`). DG1's date
/// of expiry, hash-checked, is compared with the validation time (`documentValidity`, `DocumentValidity`).
public enum DocumentVerifier {
    /// `allowExpired`: accept a document past its date of expiry (`documentValidity` still fails and says so).
    public static func verify(
        files: [LDSFile: [UInt8]], evidence: CloneDetectionEvidence, trustStore: TrustStore,
        validationTime: ASN1Time, policy: PassiveAuthenticationPolicy = .icao9303, allowExpired: Bool = false
    ) -> VerificationOutcome {
        var checks: [VerificationCheck] = []
        var pa: PassiveAuthenticationReport? = nil

        // Passive authentication
        let sod: SODFile?
        var sodError: String? = nil
        if let bytes = files[.sod] {
            do { sod = try SODFile(bytes: bytes) } catch {
                sod = nil
                sodError = error.description
            }
        } else {
            sod = nil
        }
        if let sod {
            var dgs: [Int: [UInt8]] = [:]
            for (f, b) in files { if let n = f.dataGroupNumber { dgs[n] = b } }
            let issuingState = files[.dg1].flatMap { try? DG1File(bytes: $0) }?.mrz.issuingState
            let report = policy.evaluate(
                PassiveAuthenticationInput(
                    sod: sod, dataGroups: dgs, issuingState: issuingState,
                    cardSecurity: files[.cardSecurity]),
                trustStore: trustStore, validationTime: validationTime)
            pa = report
            checks += report.checks
        } else {
            let why = sodError.map { "EF.SOD does not parse: \($0)" } ?? "EF.SOD was not read"
            for name in [
                CheckName.dataGroupHashes, .unlistedDataGroups, .sodSignature, .documentSignerCertificate, .cscaChain,
                .cscaCountryMatchesIssuingState, .revocation, .cardSecuritySignature,
            ] {
                checks.append(.failed(name, why))
            }
        }

        let facts = Facts(files: files, sod: sod, checks: checks, evidence: evidence)
        let ca = chipAuthenticationCheck(facts)
        checks.append(ca)
        checks.append(camCheck(facts, chipAuthentication: ca))
        checks.append(activeAuthenticationCheck(facts))
        checks.append(identityCheck(facts))
        checks.append(readScopeCheck(facts))
        let validity = documentValidity(facts, validationTime: validationTime)
        checks.append(validity.check(allowExpired: allowExpired))
        checks.append(downgradeCheck(facts))

        let verdict = VerdictRule.decide(checks, allowExpired: allowExpired)
        var outcome = VerificationOutcome(
            checks: checks, chipVerification: verdict.chipVerification,
            chipCloneDetection: verdict.cloneDetection, status: verdict.status,
            validationTime: validationTime, passiveAuthentication: pa)
        outcome.allowExpired = allowExpired
        outcome.reason = reason(outcome, facts: facts, validity: validity)
        return outcome
    }

    /// Verifies a live read.
    public static func verify(
        _ result: ReadResult, trustStore: TrustStore, validationTime: ASN1Time,
        policy: PassiveAuthenticationPolicy = .icao9303, allowExpired: Bool = false
    ) -> VerificationOutcome {
        verify(
            files: result.files, evidence: CloneDetectionEvidence(result), trustStore: trustStore,
            validationTime: validationTime, policy: policy, allowExpired: allowExpired)
    }

    /// What the checks below share: the files, which data groups the SOD lists and which of those that the
    /// verdict rests on match their SOD hash, and why a file is missing.
    struct Facts {
        let files: [LDSFile: [UInt8]]
        let evidence: CloneDetectionEvidence
        /// Data group numbers the SOD lists (empty without a parsed SOD).
        let listed: Set<Int>
        /// Of DG1, DG2, DG14, DG15: those present, listed in the SOD and matching their hash there.
        let vouched: Set<LDSFile>
        /// Data groups present and listed in the SOD whose hash does not match (for the verdict's reason).
        let mismatched: [Int]
        let cardSecurityVouched: Bool
        /// DG14's SecurityInfos when DG14 is vouched for and parses.
        let dg14: SecurityInfos?
        let dg14Error: String?

        init(files: [LDSFile: [UInt8]], sod: SODFile?, checks: [VerificationCheck], evidence: CloneDetectionEvidence) {
            self.files = files
            self.evidence = evidence
            let lso = sod?.ldsSecurityObject
            listed = Set(lso?.dataGroupNumbers ?? [])
            var vouched = Set<LDSFile>()
            var mismatched: [Int] = []
            if let lso, let hash = HashAlgorithm(oid: lso.hashAlgorithm.dotted) {
                for (f, bytes) in files {
                    guard let n = f.dataGroupNumber, let expected = lso.hash(of: f) else { continue }
                    if ConstantTime.equals(hash.hash(bytes), expected) {
                        if [LDSFile.dg1, .dg2, .dg14, .dg15].contains(f) { vouched.insert(f) }
                    } else {
                        mismatched.append(n)
                    }
                }
            }
            self.vouched = vouched
            self.mismatched = mismatched.sorted()
            cardSecurityVouched = checks.first { $0.name == .cardSecuritySignature }?.status == .passed
            var infos: SecurityInfos? = nil
            var err: String? = nil
            if let b = files[.dg14], vouched.contains(.dg14) {
                do { infos = try SecurityInfos.parseDG14(b) } catch { err = error.description }
            }
            dg14 = infos
            dg14Error = err
        }

        /// Why a file is not there, for a detail.
        func absence(_ f: LDSFile) -> String {
            guard evidence.live else { return "not in the bundle (no \(f.bundleFileName))" }
            if let o = evidence.unreadFiles[f] { return "not read: \(ReportBuilder.describe(o))" }
            if f == .dg3 || f == .dg4 { return "not requested (needs EAC terminal authentication)" }
            return "not requested: the read was restricted (--files)"
        }

        /// Why a data group that is present does not count (the check that fails for it is named).
        func unvouched(_ f: LDSFile) -> String {
            guard let n = f.dataGroupNumber, listed.contains(n) else {
                return "\(f.rawValue) is not listed in the SOD (see unlistedDataGroups)"
            }
            return "\(f.rawValue) does not match its hash in the SOD (see dataGroupHashes)"
        }
    }

    // MARK: - Clone detection

    static func chipAuthenticationCheck(_ f: Facts) -> VerificationCheck {
        let e = f.evidence
        guard f.listed.contains(14) || f.files[.dg14] != nil else {
            return .notPresent(.chipAuthentication, "the SOD lists no DG14 (no Chip Authentication)")
        }
        guard f.files[.dg14] != nil else {
            return .failed(
                .chipAuthentication, "the SOD lists DG14 (Chip Authentication) but it was \(f.absence(.dg14))")
        }
        guard f.vouched.contains(.dg14) else { return .notChecked(.chipAuthentication, f.unvouched(.dg14)) }
        guard let infos = f.dg14 else {
            return .failed(.chipAuthentication, "DG14 does not parse: \(f.dg14Error ?? "unknown error")")
        }
        guard !infos.chipAuthenticationPublicKeyInfos.isEmpty else {
            return .notPresent(
                .chipAuthentication, "DG14 holds no ChipAuthenticationPublicKeyInfo (no Chip Authentication)")
        }
        guard e.live else {
            return .notChecked(
                .chipAuthentication,
                "Chip Authentication is proven only during a live read (nothing offline ties a transcript to a real session); the live read recorded: \(recorded(e.chipAuthentication))"
            )
        }
        switch e.chipAuthentication {
        case .succeeded(let name, let keyId):
            return .passed(
                .chipAuthentication,
                "\(name)\(keyId.map { " key \($0)" } ?? ""): the chip continued secure messaging under the keys agreed with the DG14 public key (hash-checked)"
            )
        case .failed(let why):
            return .failed(.chipAuthentication, why)
        case .notPerformed(let why):
            if e.chipAuthenticationMapping != nil {
                return .notChecked(
                    .chipAuthentication,
                    "not performed: PACE-CAM proved the chip's key instead (paceChipAuthenticationMapping)")
            }
            return .failed(.chipAuthentication, "DG14 offers Chip Authentication but it was not performed: \(why)")
        case .notAvailable:
            if e.chipAuthenticationMapping != nil {
                return .notChecked(
                    .chipAuthentication,
                    "not performed: PACE-CAM proved the chip's key instead (paceChipAuthenticationMapping)")
            }
            return .failed(
                .chipAuthentication,
                "DG14 offers Chip Authentication but it did not run (no usable protocol and key in DG14)")
        }
    }

    /// The live read's CA outcome as recorded, quoted (one short line).
    static func recorded(_ o: ChipAuthenticationOutcome) -> String {
        let text: String
        switch o {
        case .succeeded(let name, let keyId): text = "succeeded, \(name)\(keyId.map { " key \($0)" } ?? "")"
        case .failed(let why): text = "failed, \(why)"
        case .notPerformed(let why): text = "not performed, \(why)"
        case .notAvailable: text = "not available"
        }
        return text.count > 200 ? String(text.prefix(200)) + "…" : text
    }

    /// Whether the document offers PACE-CAM: EF.CardAccess, EF.CardSecurity (when vouched for) or DG14
    /// (when hash-checked) lists a PACEInfo with the chip-authentication mapping.
    static func camOffered(_ f: Facts) -> Bool {
        func lists(_ infos: SecurityInfos?) -> Bool {
            infos?.paceInfos.contains { PACEProtocol(oid: $0.protocol)?.mapping == .chipAuthenticationMapping } ?? false
        }
        if lists(f.files[.cardAccess].flatMap { try? SecurityInfos.parseCardAccess($0) }) { return true }
        if f.cardSecurityVouched, lists(f.files[.cardSecurity].flatMap { try? SecurityInfos.parseCardSecurity($0) }) {
            return true
        }
        return lists(f.dg14)
    }

    static func camCheck(_ f: Facts, chipAuthentication ca: VerificationCheck) -> VerificationCheck {
        let e = f.evidence
        let ran = e.chipAuthenticationMapping != nil || e.chipAuthenticationMappingRecorded
        guard ran || camOffered(f) else {
            return .notPresent(.paceChipAuthenticationMapping, "the document offers no PACE-CAM")
        }
        guard e.live else {
            return .notChecked(
                .paceChipAuthenticationMapping,
                "PACE-CAM is proven only during a live read: offline nothing ties the recorded PK_map,IC to a real PACE session (the live read recorded \(ran ? "PACE-CAM data" : "no PACE-CAM data"))"
            )
        }
        guard let cam = e.chipAuthenticationMapping else {
            if ca.status == .passed {
                return .notChecked(
                    .paceChipAuthenticationMapping,
                    "offered but not used; Chip Authentication proved the chip's key instead")
            }
            return .failed(
                .paceChipAuthenticationMapping,
                "the document offers PACE-CAM but it did not run, and no Chip Authentication proved the chip's key")
        }
        guard let cs = f.files[.cardSecurity] else {
            return .failed(
                .paceChipAuthenticationMapping,
                "PACE-CAM ran but EF.CardSecurity (the chip's CA public key) was \(f.absence(.cardSecurity))")
        }
        guard f.cardSecurityVouched else {
            return .failed(
                .paceChipAuthenticationMapping, "EF.CardSecurity is not vouched for by a passed signature check")
        }
        guard let infos = try? SecurityInfos.parseCardSecurity(cs) else {
            return .failed(.paceChipAuthenticationMapping, "EF.CardSecurity does not parse")
        }
        do {
            if try cam.verify(cardSecurity: infos) {
                return .passed(
                    .paceChipAuthenticationMapping,
                    "PK_map,IC = CA_IC · PK_IC with the EF.CardSecurity key (signature checked)")
            }
            return .failed(
                .paceChipAuthenticationMapping, "the chip's CAM data do not match the EF.CardSecurity public key")
        } catch {
            return .failed(.paceChipAuthenticationMapping, error.reason)
        }
    }

    static func activeAuthenticationCheck(_ f: Facts) -> VerificationCheck {
        let e = f.evidence
        guard f.listed.contains(15) || f.files[.dg15] != nil else {
            return .notPresent(.activeAuthentication, "the SOD lists no DG15 (no Active Authentication)")
        }
        guard let dg15 = f.files[.dg15] else {
            return .failed(
                .activeAuthentication, "the SOD lists DG15 (Active Authentication) but it was \(f.absence(.dg15))")
        }
        guard f.vouched.contains(.dg15) else { return .notChecked(.activeAuthentication, f.unvouched(.dg15)) }
        let spki: [UInt8]
        let key: PublicKey
        do {
            spki = try ActiveAuthentication.publicKeyInfo(dg15: dg15)
            key = try ActiveAuthentication.publicKey(dg15: dg15)
        } catch {
            return .failed(.activeAuthentication, error.reason)
        }
        guard let t = e.activeAuthentication else {
            if let r = e.activeAuthenticationFailure {
                return .failed(.activeAuthentication, e.live ? r : "the live read recorded: \(r)")
            }
            if let r = e.activeAuthenticationNotPerformed {
                return .failed(
                    .activeAuthentication, "DG15 offers Active Authentication but it was not performed: \(r)")
            }
            return .failed(
                .activeAuthentication,
                e.live
                    ? "DG15 offers Active Authentication but it did not run"
                    : "DG15 offers Active Authentication but the bundle holds no transcript")
        }
        // Only DG15's key counts: a transcript naming another key proves nothing about this chip.
        guard t.publicKeyInfo == spki else {
            return .failed(.activeAuthentication, "the transcript's public key is not the one in DG15")
        }
        guard t.challenge.count == 8 else {
            return .failed(
                .activeAuthentication, "the challenge is \(t.challenge.count) bytes, not 8 (ICAO 9303-11 §6.1)")
        }
        // The signature algorithm comes from DG14's ActiveAuthenticationInfo (hash-checked), never from the transcript alone.
        let dg14Algorithm = f.dg14?.activeAuthenticationInfo?.signatureAlgorithm.dotted
        if case .ec = key.kind, dg14Algorithm == nil {
            return .failed(
                .activeAuthentication,
                "an ECDSA DG15 key needs the signature algorithm of DG14's ActiveAuthenticationInfo, and no hash-checked DG14 gives one"
            )
        }
        if let named = t.signatureAlgorithm, let dg14Algorithm, named != dg14Algorithm {
            return .failed(
                .activeAuthentication, "the transcript names signature algorithm \(named), DG14 says \(dg14Algorithm)")
        }
        do {
            let v = try ActiveAuthentication.verify(
                signature: t.signature, challenge: t.challenge, publicKey: key,
                signatureAlgorithm: dg14Algorithm)
            guard v.verified else {
                return .failed(
                    .activeAuthentication,
                    "the chip's signature does not verify with the DG15 public key (\(v.scheme.rawValue))")
            }
            let what =
                "\(v.scheme.rawValue) with \(v.hash.rawValue.uppercased()) over an 8-byte challenge verified with the DG15 key (hash-checked)"
            if e.live { return .passed(.activeAuthentication, what + " during this read") }
            return .passed(
                .activeAuthentication,
                what
                    + "; offline this proves the chip signed this challenge once, not freshness, unless the challenge was bound (e.g. to the step-up process id)"
            )
        } catch {
            return .failed(.activeAuthentication, error.reason)
        }
    }

    // MARK: - Identity and read scope

    /// DG1, and DG2 when the SOD lists it, read and hash-checked.
    static func identityCheck(_ f: Facts) -> VerificationCheck {
        var required: [LDSFile] = [.dg1]
        if f.listed.contains(2) { required.append(.dg2) }
        var problems: [String] = []
        for file in required {
            if f.files[file] == nil { problems.append("\(file.rawValue) \(f.absence(file))") }
        }
        if !problems.isEmpty {
            return .failed(
                .identityDataGroups, "the identity data groups are not all here: " + problems.joined(separator: "; "))
        }
        // Present but not matching the SOD: dataGroupHashes or unlistedDataGroups fails for it (never passed here).
        let unvouched = required.filter { !f.vouched.contains($0) }
        if !unvouched.isEmpty {
            return .notChecked(.identityDataGroups, unvouched.map(f.unvouched).joined(separator: "; "))
        }
        return .passed(
            .identityDataGroups, "\(required.map(\.rawValue).joined(separator: " and ")) read and matching the SOD")
    }

    /// Which data groups the SOD lists that are not here, and why (informational).
    static func readScopeCheck(_ f: Facts) -> VerificationCheck {
        guard !f.listed.isEmpty else { return .notChecked(.readScope, "no SOD lists the data groups to compare with") }
        var byReason: [String: [String]] = [:]
        var eacOnly = true
        for n in f.listed.sorted() {
            guard let file = LDSFile(dataGroup: n), f.files[file] == nil else { continue }
            let reason = f.absence(file)
            if !(file == .dg3 || file == .dg4) { eacOnly = false }
            byReason[reason, default: []].append(file.rawValue)
        }
        let missing = byReason.sorted { $0.key < $1.key }.map { "\($0.value.joined(separator: ", ")) \($0.key)" }
        if missing.isEmpty { return .passed(.readScope, "every data group the SOD lists was read") }
        if eacOnly {
            return .passed(
                .readScope, "every data group the SOD lists was read except " + missing.joined(separator: "; "))
        }
        return .notChecked(.readScope, "not every data group the SOD lists is here: " + missing.joined(separator: "; "))
    }
}
