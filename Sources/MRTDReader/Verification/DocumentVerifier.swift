public import MRTDTrust
public import MRTDDocument
public import MRTDAccessControl
public import ASN1TLV

/// The clone-detection evidence a verification needs: what happened live (CA), and the transcripts
/// that can be re-checked at any time (AA, PACE-CAM). `emrtd verify` rebuilds it from a bundle.
public struct CloneDetectionEvidence: Sendable {
    public var chipAuthentication: ChipAuthenticationOutcome
    public var activeAuthentication: ActiveAuthenticationTranscript?
    /// When Active Authentication was attempted but the chip refused or answered garbage.
    public var activeAuthenticationFailure: String?
    public var activeAuthenticationNotPerformed: String?
    public var chipAuthenticationMapping: PACEChipAuthenticationMappingData?
    /// Whether the evidence comes from a live read (CA can only be observed live).
    public var live: Bool

    public init(chipAuthentication: ChipAuthenticationOutcome, activeAuthentication: ActiveAuthenticationTranscript?,
                activeAuthenticationFailure: String? = nil, activeAuthenticationNotPerformed: String? = nil,
                chipAuthenticationMapping: PACEChipAuthenticationMappingData?, live: Bool) {
        self.chipAuthentication = chipAuthentication
        self.activeAuthentication = activeAuthentication
        self.activeAuthenticationFailure = activeAuthenticationFailure
        self.activeAuthenticationNotPerformed = activeAuthenticationNotPerformed
        self.chipAuthenticationMapping = chipAuthenticationMapping
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
        self.init(chipAuthentication: result.chipAuthentication, activeAuthentication: transcript,
                  activeAuthenticationFailure: failure, activeAuthenticationNotPerformed: notPerformed,
                  chipAuthenticationMapping: result.chipAuthenticationMapping, live: true)
    }
}

/// The verdict of DESIGN.md §4.2 with every check.
public struct VerificationOutcome: Sendable, Hashable {
    public enum ChipVerification: String, Sendable, Hashable { case succeeded = "SUCCEEDED", failed = "FAILED", notChecked = "NOT_CHECKED" }
    public enum CloneDetection: String, Sendable, Hashable { case succeeded = "SUCCEEDED", failed = "FAILED", notAvailable = "NOT_AVAILABLE" }
    public enum Status: String, Sendable, Hashable { case accepted, inconclusive, rejected }

    public var checks: [VerificationCheck]
    public var chipVerification: ChipVerification
    public var chipCloneDetection: CloneDetection
    public var status: Status
    public var validationTime: ASN1Time
    public var passiveAuthentication: PassiveAuthenticationReport?

    public func check(_ name: CheckName) -> VerificationCheck? { checks.first { $0.name == name } }
}

/// Folds passive authentication and clone detection into the verdict (DESIGN.md §4.2, Signicat's ReadID
/// semantics): **accepted** = chip verification succeeded and clone detection succeeded or was not
/// available; **inconclusive** = chip verification succeeded but clone detection failed; **rejected** =
/// chip verification failed (any passive-authentication check failed, or no trust anchor for the document).
///
/// Clone detection counts only when passive authentication vouched for the data it rests on (DG14 for CA,
/// DG15 for AA, EF.CardSecurity for PACE-CAM): a chip that fails passive authentication is rejected whatever
/// its clone detection says.
public enum DocumentVerifier {
    public static func verify(files: [LDSFile: [UInt8]], evidence: CloneDetectionEvidence, trustStore: TrustStore,
                              validationTime: ASN1Time, policy: PassiveAuthenticationPolicy = .icao9303) -> VerificationOutcome {
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
            let report = policy.evaluate(PassiveAuthenticationInput(sod: sod, dataGroups: dgs, issuingState: issuingState,
                                                                    cardSecurity: files[.cardSecurity]),
                                         trustStore: trustStore, validationTime: validationTime)
            pa = report
            checks += report.checks
        } else {
            let why = sodError.map { "EF.SOD does not parse: \($0)" } ?? "EF.SOD was not read"
            for name in [CheckName.dataGroupHashes, .unlistedDataGroups, .sodSignature, .documentSignerCertificate, .cscaChain,
                         .cscaCountryMatchesIssuingState, .revocation, .cardSecuritySignature] {
                checks.append(.failed(name, why))
            }
        }
        let paFailed = checks.contains { $0.status == .failed }
        let anchored = checks.first { $0.name == .cscaChain }?.status == .passed
            && checks.first { $0.name == .sodSignature }?.status == .passed
            && checks.first { $0.name == .dataGroupHashes }?.status == .passed
        let chipVerification: VerificationOutcome.ChipVerification = (!paFailed && anchored) ? .succeeded : .failed

        // Clone detection
        checks.append(chipAuthenticationCheck(evidence))
        checks.append(camCheck(evidence, files: files, checks: checks))
        checks.append(activeAuthenticationCheck(evidence))

        let clone = checks.filter { [.chipAuthentication, .paceChipAuthenticationMapping, .activeAuthentication].contains($0.name) }
        let cloneDetection: VerificationOutcome.CloneDetection
        if clone.contains(where: { $0.status == .failed }) {
            cloneDetection = .failed
        } else if clone.contains(where: { $0.status == .passed }) {
            cloneDetection = .succeeded
        } else {
            cloneDetection = .notAvailable
        }
        let status: VerificationOutcome.Status
        if chipVerification != .succeeded { status = .rejected } else if cloneDetection == .failed { status = .inconclusive } else { status = .accepted }
        return VerificationOutcome(checks: checks, chipVerification: chipVerification, chipCloneDetection: cloneDetection,
                                   status: status, validationTime: validationTime, passiveAuthentication: pa)
    }

    /// Verifies a live read.
    public static func verify(_ result: ReadResult, trustStore: TrustStore, validationTime: ASN1Time,
                              policy: PassiveAuthenticationPolicy = .icao9303) -> VerificationOutcome {
        verify(files: result.files, evidence: CloneDetectionEvidence(result), trustStore: trustStore,
               validationTime: validationTime, policy: policy)
    }

    static func chipAuthenticationCheck(_ e: CloneDetectionEvidence) -> VerificationCheck {
        switch e.chipAuthentication {
        case .succeeded(let name, let keyId):
            return .passed(.chipAuthentication, "\(name)\(keyId.map { " key \($0)" } ?? ""): the chip continued secure messaging under the keys agreed with the DG14 public key")
        case .failed(let why):
            return .failed(.chipAuthentication, why)
        case .notAvailable:
            return .notPresent(.chipAuthentication, "the chip offers no Chip Authentication (no ChipAuthenticationPublicKeyInfo in DG14)")
        case .notPerformed(let why):
            if !e.live { return .notChecked(.chipAuthentication, why) }
            return .notChecked(.chipAuthentication, "not performed: \(why)")
        }
    }

    static func camCheck(_ e: CloneDetectionEvidence, files: [LDSFile: [UInt8]], checks: [VerificationCheck]) -> VerificationCheck {
        guard let cam = e.chipAuthenticationMapping else {
            return .notPresent(.paceChipAuthenticationMapping, "PACE-CAM did not run")
        }
        guard let cs = files[.cardSecurity] else {
            return .failed(.paceChipAuthenticationMapping, "PACE-CAM ran but EF.CardSecurity (the chip's CA public key) was not read")
        }
        guard checks.first(where: { $0.name == .cardSecuritySignature })?.status == .passed else {
            return .failed(.paceChipAuthenticationMapping, "EF.CardSecurity is not vouched for by a passed signature check")
        }
        guard let infos = try? SecurityInfos.parseCardSecurity(cs), let params = try? ChipAuthentication.parameters(from: infos) else {
            return .failed(.paceChipAuthenticationMapping, "EF.CardSecurity holds no usable Chip Authentication public key")
        }
        do {
            if try cam.verify(chipStaticPublicKey: params.chipPublicKey) {
                return .passed(.paceChipAuthenticationMapping, "PK_map,IC = CA_IC · PK_IC with the EF.CardSecurity key")
            }
            return .failed(.paceChipAuthenticationMapping, "the chip's CAM data do not match the EF.CardSecurity public key")
        } catch {
            return .failed(.paceChipAuthenticationMapping, "\(error.reason)")
        }
    }

    static func activeAuthenticationCheck(_ e: CloneDetectionEvidence) -> VerificationCheck {
        if let t = e.activeAuthentication {
            do {
                let v = try ActiveAuthentication.verify(t)
                if v.verified {
                    return .passed(.activeAuthentication, "\(v.scheme.rawValue) with \(v.hash.rawValue.uppercased()) over an 8-byte challenge verified with the DG15 key")
                }
                return .failed(.activeAuthentication, "the chip's signature does not verify with the DG15 public key (\(v.scheme.rawValue))")
            } catch {
                return .failed(.activeAuthentication, error.reason)
            }
        }
        if let f = e.activeAuthenticationFailure { return .failed(.activeAuthentication, f) }
        if let n = e.activeAuthenticationNotPerformed { return .notChecked(.activeAuthentication, "not performed: \(n)") }
        return .notPresent(.activeAuthentication, e.live ? "the document has no DG15 (no Active Authentication)" : "no Active Authentication transcript in the bundle")
    }
}
