public import ISO7816
public import MRTDCrypto
public import MRTDDocument
public import MRTDSecureMessaging

/// Which access-control protocol ran.
public enum AccessControlProtocol: String, Sendable, Hashable {
    case pace = "PACE"
    case bac = "BAC"
}

/// The outcome of access control, as the report (docs/architecture.md §4.2 `accessControl`) records it, plus the
/// session to continue with.
public struct AccessControlResult: Sendable {
    public var `protocol`: AccessControlProtocol
    public var passwordType: PACEPasswordType
    /// nil for BAC.
    public var mapping: PACEMapping?
    /// nil for BAC.
    public var keyAgreement: KeyAgreementAlgorithm?
    public var cipher: CipherAlgorithm
    public var parameterId: Int?
    /// The PACE protocol OID (nil for BAC).
    public var protocolOID: String?
    /// True when BAC ran because PACE was not offered (no usable PACEInfo in EF.CardAccess) or the chip
    /// refused to start it, and the caller allowed the fallback.
    public var fellBackToBAC: Bool
    /// The keys of the secure-messaging session established.
    public var sessionKeys: SessionKeys
    /// Its initial send sequence counter (zero after PACE, from the challenges after BAC) — secret.
    public var initialSSC: SecretBytes
    /// A new secure-messaging session from the keys and the initial SSC. A session is not copyable (one owner
    /// advances its SSC): give this one to the `SecureChannel` that will use it.
    public var session: SecureMessagingSession { SecureMessagingSession(keys: sessionKeys, ssc: initialSSC.bytes) }
    /// Details of the PACE run (CAM data, public keys), nil for BAC.
    public var pace: PACEResult?
}

/// The access-control chooser (ICAO 9303-11 §4.2): PACE when EF.CardAccess offers it, preferring
/// CAM > GM-ECDH > IM-ECDH > GM-DH (> IM-DH); BAC only when the caller allows the fallback.
public enum AccessControl {
    /// The PACEInfo to use and its domain parameter info, by preference; nil when none is usable.
    public static func choosePACE(_ cardAccess: SecurityInfos) -> (
        info: PACEInfo, domainParameters: PACEDomainParameterInfo?
    )? {
        var best: (PACEInfo, PACEDomainParameterInfo?, Int)? = nil
        for info in cardAccess.paceInfos {
            guard let proto = PACEProtocol(oid: info.protocol) else { continue }
            let dp = cardAccess.domainParameters(for: info)
            guard let group = try? PACE.group(for: info, domainParameters: dp) else { continue }
            guard group.isEC == (proto.keyAgreement == .ecdh) else { continue }
            let rank = proto.preferenceRank * 10 + (proto.cipher == .tripleDES ? 1 : 0)
            if best == nil || rank < best!.2 { best = (info, dp, rank) }
        }
        return best.map { ($0.0, $0.1) }
    }

    /// Establishes secure messaging: PACE when `cardAccess` (parsed EF.CardAccess, nil when the chip has
    /// none) offers a usable PACEInfo, otherwise BAC when `allowBACFallback` (MRZ key only).
    /// A wrong password never triggers the fallback (it would fail the same way and count a try).
    /// Before BAC the eMRTD application is selected (9303-11 §4.2 step 4) unless `selectApplicationBeforeBAC`
    /// is false (the caller selected it already); after PACE the current DF stays the Master File.
    public static func establish(
        transport: any CardTransport, key: AccessKey, cardAccess: SecurityInfos?,
        allowBACFallback: Bool, options: PACEOptions = PACEOptions(),
        selectApplicationBeforeBAC: Bool = true,
        random: any RandomSource = SystemRandom()
    ) async throws -> AccessControlResult {
        if let ca = cardAccess, let (info, dp) = choosePACE(ca) {
            do {
                let r = try await PACE.perform(
                    transport: transport, key: key, info: info, domainParameters: dp,
                    options: options, random: random)
                return AccessControlResult(
                    protocol: .pace, passwordType: r.passwordType, mapping: r.protocol.mapping,
                    keyAgreement: r.protocol.keyAgreement, cipher: r.protocol.cipher,
                    parameterId: r.parameterId, protocolOID: r.protocol.oid.dotted,
                    fellBackToBAC: false, sessionKeys: r.sessionKeys,
                    initialSSC: SecretBytes([UInt8](repeating: 0, count: r.protocol.cipher.blockSize)), pace: r)
            } catch let e as AccessControlError
                where e.step == AccessControlStep.mseSetAT && e.code == .chipRejected && allowBACFallback
            {
                // The chip refused to start PACE: fall through to BAC.
            }
        }
        guard allowBACFallback else {
            throw AccessControlError(
                .noProtocolAvailable, step: AccessControlStep.choose,
                cardAccess == nil
                    ? "the chip offers no EF.CardAccess (BAC only) and BAC fallback is not allowed"
                    : "EF.CardAccess offers no supported PACE protocol and BAC fallback is not allowed")
        }
        guard case .mrz(let mrz) = key else {
            throw AccessControlError(
                .noProtocolAvailable, step: AccessControlStep.choose,
                "BAC needs the MRZ; a \(key.passwordType) works only with PACE")
        }
        if selectApplicationBeforeBAC {
            let sel = try await transport.transmit(.selectApplication(MRTDApplication.lds1AID))
            // 6982 is an allowed answer to a plain SELECT before the secure channel exists (§4.3.2).
            guard sel.statusWord.isSuccess || sel.statusWord == .securityStatusNotSatisfied else {
                throw AccessControlError(
                    .chipRejected, step: AccessControlStep.selectApplication,
                    "the chip answered \(sel.statusWord.meaning)", statusWord: sel.statusWord)
            }
        }
        let r = try await BAC.perform(transport: transport, key: mrz, random: random)
        return AccessControlResult(
            protocol: .bac, passwordType: .mrz, mapping: nil, keyAgreement: nil, cipher: .tripleDES,
            parameterId: nil, protocolOID: nil, fellBackToBAC: true, sessionKeys: r.sessionKeys, initialSSC: r.ssc,
            pace: nil)
    }
}
