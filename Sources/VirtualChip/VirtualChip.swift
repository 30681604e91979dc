public import DocumentGenerator
public import ISO7816
public import MRTDCrypto
internal import MRTDDocument
internal import MRTDSecureMessaging
import Synchronization

/// A software eMRTD chip (ICAO 9303-10 file structure, ICAO 9303-11 access control and chip
/// authentication, ISO/IEC 7816-4 commands) serving one `DocumentProfile`.
///
/// It answers encoded command APDUs as a contactless chip would: SELECT, READ BINARY (even and odd
/// INS, short file identifiers), GET CHALLENGE + EXTERNAL AUTHENTICATE (BAC), MSE:Set AT + GENERAL
/// AUTHENTICATE (PACE GM/IM/CAM, Chip Authentication), MSE:Set KAT (Chip Authentication 3DES) and
/// INTERNAL AUTHENTICATE (Active Authentication). After access control every command must be
/// protected with secure messaging (`SecureMessagingSession`, the same implementation the reader
/// uses); a wrongly protected command (6988) or a plain one drops the session.
///
/// Thread-safe: all state is behind one `Mutex`; `process` may be called from any thread.
/// Randomness (challenges, nonces, ephemeral keys) comes from an injectable `RandomSource`, so
/// tests can replay the published ICAO worked examples byte for byte.
public final class VirtualChip: CardEmulator {
    /// Options that are not part of the document profile.
    public struct Options: Sendable {
        /// Hash for RSA Active Authentication signatures (ISO/IEC 9796-2 scheme 1): SHA-1 gives the
        /// implicit trailer 'BC', any other hash the explicit trailer ('34CC' for SHA-256, …).
        public var rsaActiveAuthenticationHash: HashAlgorithm
        /// Field behaviour to reproduce (`ChipFaults`); none by default.
        public var faults: ChipFaults
        public init(rsaActiveAuthenticationHash: HashAlgorithm = .sha1, faults: ChipFaults = .none) {
            self.rsaActiveAuthenticationHash = rsaActiveAuthenticationHash
            self.faults = faults
        }
    }

    /// The access-control state the chip is in, for tests, demos and traces (no secrets).
    public struct Snapshot: Sendable, Hashable {
        public enum Access: Sendable, Hashable {
            case bac
            case pace(mapping: PACEVariant, password: PACEPassword, cipher: CipherAlgorithm)
        }
        /// Access control that established the current secure-messaging session; nil without session.
        public var access: Access?
        /// A secure-messaging session is active.
        public var secureMessagingActive: Bool
        /// Chip Authentication replaced the session keys.
        public var chipAuthenticated: Bool
        /// The LDS1 application is selected.
        public var applicationSelected: Bool
        /// Number of sessions dropped because of a secure-messaging error or a plain command.
        public var droppedSessions: Int
    }

    public let profile: DocumentProfile
    private let engine: Mutex<ChipEngine>
    let profileFaults: ChipFaults

    /// - Parameters:
    ///   - profile: files, access secrets, keys and link behaviour of the document.
    ///   - random: where challenges, nonces and ephemeral keys come from (`SystemRandom` by default).
    ///   - options: choices a real chip makes differently (e.g. the hash of RSA Active Authentication).
    public init(profile: DocumentProfile, random: any RandomSource = SystemRandom(), options: Options = Options()) {
        self.profile = profile
        self.profileFaults = options.faults
        self.engine = Mutex(ChipEngine(profile: profile, random: random, options: options))
    }

    public var atr: [UInt8] { profile.link.atr }

    public func powerOn() { engine.withLock { $0.resetState() } }
    public func powerOff() { engine.withLock { $0.resetState() } }
    public func reset() { engine.withLock { $0.resetState() } }

    public func process(_ command: [UInt8]) -> [UInt8] {
        delayAnswer()
        return engine.withLock { $0.processWithFaults(command) }.bytes
    }

    /// The current access-control state.
    public var snapshot: Snapshot { engine.withLock { $0.snapshot } }
}

extension VirtualChip {
    /// A PACE variant: mapping × key agreement (ICAO 9303-11 §4.4.3.3, the id-PACE-{DH,ECDH}-{GM,IM,CAM} families
    /// of §9.2.1), as the chip reports it. The mapping alone is MRTDAccessControl's `PACEMapping`.
    public enum PACEVariant: String, Sendable, Hashable {
        case genericECDH = "GM-ECDH", genericDH = "GM-DH", integratedECDH = "IM-ECDH", integratedDH = "IM-DH"
        case chipAuthenticationECDH = "CAM-ECDH"
    }

    /// PACE password reference (ICAO 9303-11 §4.4.4.1, DO'83' of MSE:Set AT).
    public enum PACEPassword: UInt8, Sendable, Hashable {
        case mrz = 1, can = 2
    }
}

typealias PACEVariant = VirtualChip.PACEVariant
typealias PACEPassword = VirtualChip.PACEPassword

/// A status word to answer with, raised anywhere inside command processing.
struct ChipFailure: Error {
    var statusWord: StatusWord
    init(_ sw: StatusWord) { statusWord = sw }
    init(_ raw: UInt16) { statusWord = StatusWord(rawValue: raw) }

    static let wrongLength = ChipFailure(.wrongLength)
    static let securityStatus = ChipFailure(.securityStatusNotSatisfied)
    static let wrongData = ChipFailure(.wrongData)
    static let conditionsOfUse = ChipFailure(.conditionsOfUseNotSatisfied)
    static let incorrectP1P2 = ChipFailure(.incorrectP1P2)
    static let fileNotFound = ChipFailure(.fileNotFound)
    static let insNotSupported = ChipFailure(.insNotSupported)
    static let referencedDataNotFound = ChipFailure(.referencedDataNotFound)
    static let authenticationFailed = ChipFailure(0x6300)
    static let noPreciseDiagnosis = ChipFailure(.noPreciseDiagnosis)
    static let functionNotSupported = ChipFailure(.functionNotSupported)
    static let chainingNotSupported = ChipFailure(0x6884)
}

/// The chip's mutable state and its command processing (held inside `VirtualChip`'s mutex). Not copyable: it
/// owns the chip side of the secure-messaging session, whose SSC one owner advances.
struct ChipEngine: ~Copyable {
    enum DF { case masterFile, lds1 }

    let profile: DocumentProfile
    let random: any RandomSource
    let options: VirtualChip.Options
    let securityInfos: ChipSecurityInfos

    var df: DF = .masterFile
    var currentEF: LDSFile? = nil
    var session: SecureMessagingSession? = nil
    var access: VirtualChip.Snapshot.Access? = nil
    /// Session that replaces `session` after the current response has been protected (Chip Authentication).
    var pendingSession: SecureMessagingSession? = nil
    var chipAuthenticated = false
    var droppedSessions = 0

    /// RND.IC of the last GET CHALLENGE (BAC).
    var challenge: [UInt8]? = nil
    var pace: PACEState = .idle
    var chipAuthentication: CASelection? = nil
    /// The rest of a response chained with '61xx' (`ChipFaults.chainResponsesLongerThan`).
    var pendingChain: PendingChain? = nil

    init(profile: DocumentProfile, random: any RandomSource, options: VirtualChip.Options) {
        self.profile = profile
        self.random = random
        self.options = options
        self.securityInfos = ChipSecurityInfos(profile: profile)
    }

    var snapshot: VirtualChip.Snapshot {
        VirtualChip.Snapshot(
            access: session == nil ? nil : access, secureMessagingActive: session != nil,
            chipAuthenticated: session != nil && chipAuthenticated,
            applicationSelected: df == .lds1, droppedSessions: droppedSessions)
    }

    mutating func resetState() {
        df = .masterFile
        currentEF = nil
        session = nil
        access = nil
        pendingSession = nil
        chipAuthenticated = false
        challenge = nil
        pace = .idle
        chipAuthentication = nil
        pendingChain = nil
    }

    /// Ends secure messaging and the access rights it carried (ICAO 9303-11 §9.8.6: the chip aborts
    /// secure messaging on an SM error or a plain command).
    mutating func dropSession() {
        if session != nil { droppedSessions += 1 }
        session = nil
        access = nil
        pendingSession = nil
        chipAuthenticated = false
        chipAuthentication = nil
    }

    /// Whether access control has been performed (LDS files become readable).
    var accessGranted: Bool { session != nil }

    // MARK: - Command processing

    mutating func process(_ bytes: [UInt8]) -> ResponseAPDU {
        let command: CommandAPDU
        // A body of exactly two bytes starting with 00 is neither short nor extended (ISO/IEC 7816-3
        // §12.1.3); rejected here because CommandAPDU(bytes:) indexes past it.
        if bytes.count == 6 && bytes[4] == 0 { return ResponseAPDU(statusWord: .wrongLength) }
        do {
            command = try CommandAPDU(bytes: bytes)
        } catch {
            return ResponseAPDU(statusWord: .wrongLength)
        }
        // ISO/IEC 7816-4 §5.4.1: only the interindustry class with no logical channel is supported.
        // CLA bits 8-6 other than chaining, and logical channels (bits 2-1), are refused.
        guard command.cla & 0xE0 == 0 else { return ResponseAPDU(statusWord: .claNotSupported) }
        guard command.cla & 0x03 == 0 else { return ResponseAPDU(statusWord: StatusWord(rawValue: 0x6881)) }
        let extendedRefused = command.isExtended && !profile.link.extendedLength

        if command.isSecureMessaging {
            guard var sm = session.take() else {
                return ResponseAPDU(statusWord: .smDataObjectsIncorrect)
            }
            let plain: CommandAPDU
            do {
                plain = try sm.unprotectCommand(command)
                session = consume sm
            } catch {
                session = consume sm
                dropSession()
                return ResponseAPDU(statusWord: .smDataObjectsIncorrect)
            }
            var inner = plain
            inner.cla = command.cla & ~0x0C
            let response: ResponseAPDU
            if extendedRefused || ((inner.ne ?? 0) > 256 && !profile.link.extendedLength) {
                response = ResponseAPDU(statusWord: .wrongLength)
            } else {
                response = dispatch(inner, protected: true, outerExtended: command.isExtended)
            }
            // The handler may have ended the session (e.g. a failed authentication).
            guard var current = session.take() else { return response }
            do {
                let protected = try current.protectResponse(response)
                session = consume current
                if pendingSession != nil { session = pendingSession.take() }
                return protected
            } catch {
                session = consume current
                dropSession()
                return ResponseAPDU(statusWord: .smDataObjectsIncorrect)
            }
        }

        // A plain command while secure messaging is active ends the session; the command is then
        // processed as on a chip without access control.
        if session != nil { dropSession() }
        if extendedRefused { return ResponseAPDU(statusWord: .wrongLength) }
        return dispatch(command, protected: false, outerExtended: command.isExtended)
    }

    mutating func dispatch(_ command: CommandAPDU, protected: Bool, outerExtended: Bool) -> ResponseAPDU {
        do throws(ChipFailure) {
            if command.isChained && command.ins != 0x86 { throw .chainingNotSupported }
            switch command.ins {
            case 0xA4: return try select(command)
            case 0xB0, 0xB1: return try readBinary(command, protected: protected, outerExtended: outerExtended)
            case 0x84: return try getChallenge(command)
            case 0x82: return try externalAuthenticate(command, protected: protected)
            case 0x22: return try manageSecurityEnvironment(command, protected: protected)
            case 0x86: return try generalAuthenticate(command, protected: protected)
            case 0x88: return try internalAuthenticate(command, protected: protected)
            default: throw .insNotSupported
            }
        } catch {
            return ResponseAPDU(statusWord: error.statusWord)
        }
    }

    // MARK: - Helpers shared by the protocol files

    func randomBytes(_ count: Int) -> [UInt8] { random.randomBytes(count: count) }

    /// A scalar in [1, bound-1] drawn from the random source: bytes of the bound's width, the excess
    /// high bits cleared (P-521), rejection sampling — so a fixed source that supplies a published
    /// private key reproduces it exactly.
    func randomScalar(below bound: [UInt8]) throws(ChipFailure) -> SecretBytes {
        let n = BigNumber(bound)
        let width = n.bytes.count
        let topBits = n.bitCount % 8
        for _ in 0..<128 {
            var bytes = randomBytes(width)
            if topBits != 0 { bytes[0] &= UInt8((1 << topBits) - 1) }
            let candidate = BigNumber(bytes)
            if !candidate.isZero && candidate < n { return SecretBytes(candidate.bytes(width: width)) }
        }
        throw .noPreciseDiagnosis
    }
}
