public import ISO7816
public import MRTDAccessControl
public import MRTDCrypto
public import MRTDDocument

/// The access-control facts of a read, without secrets (no session, no keys).
public struct AccessControlFacts: Sendable, Hashable {
    public var `protocol`: AccessControlProtocol
    public var passwordType: PACEPasswordType
    public var mapping: PACEMapping?
    public var keyAgreement: KeyAgreementAlgorithm?
    public var cipher: CipherAlgorithm
    public var parameterId: Int?
    public var protocolOID: String?
    /// BAC ran although the chip lists PACE: in EF.CardAccess (then refused), or in DG14 as read (EF.CardAccess
    /// withheld or garbled). One meaning everywhere (docs/report.md, "Downgrade"); whether it counts against the
    /// verdict is the `downgrade` check's call, on DG14 once hash-checked.
    public var fellBackToBAC: Bool
}

/// What happened with Chip Authentication (DG14) or PACE-CAM.
public enum ChipAuthenticationOutcome: Sendable, Hashable {
    /// The chip offers no Chip Authentication (no DG14 CA info, no PACE-CAM).
    case notAvailable
    /// Not run (disabled by the caller, or superseded by PACE-CAM).
    case notPerformed(String)
    /// CA ran and the next protected command under the new keys succeeded (the chip knows the private key).
    case succeeded(protocolName: String, keyId: Int?)
    /// CA ran but the chip could not continue under the new keys, or refused CA.
    case failed(String)
}

/// What happened with Active Authentication (DG15).
public enum ActiveAuthenticationOutcome: Sendable, Hashable {
    case notAvailable
    case notPerformed(String)
    /// The exchange ran; `verification.verified` says whether the signature matched DG15's key.
    case performed(ActiveAuthenticationTranscript, ActiveAuthenticationVerification)
    /// The chip refused INTERNAL AUTHENTICATE or answered malformed data.
    case failed(String)
}

/// Per-file facts of a read.
public struct FileFacts: Sendable, Hashable {
    public var file: LDSFile
    public var size: Int
    public var apdus: Int
    public var milliseconds: Double
    public var resumptions: Int
}

/// Everything a read produced: the files byte for byte as the chip sent them, their parsed values,
/// access-control and clone-detection facts, and transport statistics.
public struct ReadResult: Sendable {
    /// Raw files as read (hash these, never re-encodings).
    public var files: [LDSFile: [UInt8]]
    public var fileFacts: [LDSFile: FileFacts]
    /// Files that could not be read and why (DG3/DG4 usually `.accessDenied`).
    public var unreadFiles: [LDSFile: FileReadOutcome]
    public var accessControl: AccessControlFacts
    /// The caller accepted a downgrade (`ReadOptions.allowBACFallback`).
    public var downgradeAccepted: Bool = false
    /// PACE-CAM data to verify against EF.CardSecurity's CA key (nil unless CAM ran).
    public var chipAuthenticationMapping: PACEChipAuthenticationMappingData?
    public var chipAuthentication: ChipAuthenticationOutcome
    public var activeAuthentication: ActiveAuthenticationOutcome
    /// Files whose reading continued after an interruption.
    public var resumedFiles: [LDSFile]
    /// How many times the read re-established the session after the card was pulled or the session lost.
    public var resumptions: Int
    /// Whether extended-length APDUs were used, and the READ BINARY size.
    public var usedExtendedLength: Bool
    public var chunkSize: Int
    public var readerName: String
    public var capabilities: TransportCapabilities
    public var statistics: TransportStatistics
    /// Transport statistics per phase.
    public var phaseStatistics: [ReadPhase: TransportStatistics]
    public var elapsedMilliseconds: Double

    /// The files parsed (errors per file are in `document.errors`).
    public var document: LDSDocument { LDSDocument(files: files) }
}
