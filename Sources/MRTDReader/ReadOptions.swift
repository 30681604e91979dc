public import MRTDAccessControl
public import MRTDCrypto
public import MRTDDocument

/// What a read does and how hard it tries.
public struct ReadOptions: Sendable {
    /// MRZ key or CAN (MRTDAccessControl.AccessKey); never logged.
    public var accessKey: AccessKey
    /// Files to read; nil = the default plan: EF.CardAccess, EF.CardSecurity (PACE-CAM only), EF.COM, EF.SOD and every
    /// data group EF.COM or the SOD lists except DG3/DG4 (they need EAC terminal authentication).
    public var files: Set<LDSFile>?
    /// Accept a downgrade (docs/report.md, "Downgrade"): BAC although the chip lists PACE, or a weaker PACE than
    /// its signed DG14 / EF.CardSecurity lists. The read is the same either way; with it the verifier's `downgrade`
    /// check records the downgrade (`notChecked`, "accepted by the caller") instead of failing it, which keeps
    /// the verdict from `accepted`. `emrtd read --allow-bac-fallback`.
    public var allowBACFallback: Bool
    /// Never run BAC (PACE-only kiosks, `emrtd read --no-bac-fallback`): a chip whose EF.CardAccess is absent,
    /// garbled or offers no usable PACE, or that refuses PACE, is not read (an access-control error). Without it,
    /// BAC runs whenever PACE cannot, and the `downgrade` check judges it against the signed data.
    public var forbidBAC: Bool = false
    /// The Active Authentication challenge (8 bytes); nil = random. A backend can bind the read to its nonce.
    public var activeAuthenticationChallenge: [UInt8]?
    /// Run Chip Authentication (DG14) when the chip offers it and PACE-CAM did not already authenticate the chip.
    public var performChipAuthentication: Bool
    /// Run Active Authentication (DG15) when the chip offers it.
    public var performActiveAuthentication: Bool
    /// How many times a read may resume after the card was pulled or the session was lost.
    public var maxResumptions: Int
    /// How long to wait for the card to be presented again, per resumption (seconds).
    public var representTimeout: Double
    /// Use extended-length APDUs when both reader and chip take them.
    public var allowExtendedLength: Bool
    /// Force a fixed READ BINARY size (a reader-profile quirk); nil = the largest the path allows.
    public var fixedChunkSize: Int?
    /// Randomness for access control and challenges.
    public var random: any RandomSource
    /// Called once for each file read whole, as soon as its last byte arrived, with the bytes as the chip sent
    /// them — not yet checked by passive authentication: use it to start work early (the kiosk service decodes the
    /// face while the rest of the document is read), never to trust the content. Runs on the read's task: return
    /// at once.
    public var fileCompleted: (@Sendable (LDSFile, [UInt8]) -> Void)? = nil

    public init(
        accessKey: AccessKey, files: Set<LDSFile>? = nil, allowBACFallback: Bool = false,
        activeAuthenticationChallenge: [UInt8]? = nil, performChipAuthentication: Bool = true,
        performActiveAuthentication: Bool = true, maxResumptions: Int = 3, representTimeout: Double = 30,
        allowExtendedLength: Bool = true, fixedChunkSize: Int? = nil, random: any RandomSource = SystemRandom()
    ) {
        self.accessKey = accessKey
        self.files = files
        self.allowBACFallback = allowBACFallback
        self.activeAuthenticationChallenge = activeAuthenticationChallenge
        self.performChipAuthentication = performChipAuthentication
        self.performActiveAuthentication = performActiveAuthentication
        self.maxResumptions = maxResumptions
        self.representTimeout = representTimeout
        self.allowExtendedLength = allowExtendedLength
        self.fixedChunkSize = fixedChunkSize
        self.random = random
    }
}

/// Phases of a read, for progress reporting and per-phase statistics.
public enum ReadPhase: String, Sendable, Codable, CaseIterable {
    case connecting, accessControl, reading, chipAuthentication, activeAuthentication, resuming, verifying, done
}

/// A progress event: which phase, which file, how far.
public struct ReadEvent: Sendable {
    public var phase: ReadPhase
    public var file: LDSFile?
    public var bytesDone: Int
    public var bytesTotal: Int?
    /// A short human line (no secrets).
    public var message: String

    public init(phase: ReadPhase, file: LDSFile? = nil, bytesDone: Int = 0, bytesTotal: Int? = nil, message: String) {
        self.phase = phase
        self.file = file
        self.bytesDone = bytesDone
        self.bytesTotal = bytesTotal
        self.message = message
    }
}
