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
    /// True when BAC ran although the chip lists PACE (docs/report.md, "Downgrade"). Here that is known only from
    /// EF.CardAccess (a usable PACEInfo that the chip then refused at MSE:Set AT); the reader adds what DG14 lists.
    /// BAC on a chip whose EF.CardAccess is absent or offers nothing usable is not a fallback at this layer.
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

/// The access-control chooser (ICAO 9303-11 §4.2): PACE when EF.CardAccess offers it, preferring CAM, then ECDH
/// over DH, then the stronger cipher, then GM over IM; BAC only when the caller allows it.
public enum AccessControl {
    /// The PACEInfos of `infos` this implementation can run (known protocol, resolvable group of the right kind),
    /// with their domain parameter info. Used for EF.CardAccess (to choose) and for DG14 / EF.CardSecurity (to
    /// see what the signed data offer).
    public static func usablePACE(_ infos: SecurityInfos) -> [(
        info: PACEInfo, domainParameters: PACEDomainParameterInfo?, protocol: PACEProtocol
    )] {
        var usable: [(PACEInfo, PACEDomainParameterInfo?, PACEProtocol)] = []
        for info in infos.paceInfos {
            guard let proto = PACEProtocol(oid: info.protocol) else { continue }
            let dp = infos.domainParameters(for: info)
            guard let group = try? PACE.group(for: info, domainParameters: dp) else { continue }
            guard group.isEC == (proto.keyAgreement == .ecdh) else { continue }
            usable.append((info, dp, proto))
        }
        return usable
    }

    /// The chooser's order (higher is preferred): CAM, then ECDH over DH, then the cipher's strength, then GM over
    /// IM. It extends `isWeaker(_:than:)`: the chosen protocol is never weaker than another one offered beside it.
    static func preference(_ p: PACEProtocol) -> Int {
        (p.mapping == .chipAuthenticationMapping ? 1000 : 0) + (p.keyAgreement == .ecdh ? 100 : 0)
            + cipherStrength(p.cipher) * 10 + (p.mapping == .genericMapping ? 1 : 0)
    }

    static func cipherStrength(_ c: CipherAlgorithm) -> Int {
        switch c {
        case .tripleDES: 0
        case .aes128: 1
        case .aes192: 2
        case .aes256: 3
        }
    }

    /// Whether `used` is a downgrade from `offered`: no stronger in any respect and weaker in one — the cipher
    /// (3DES < AES-128 < AES-192 < AES-256), the key agreement (DH < ECDH) or the mapping's chip authentication
    /// (CAM authenticates the chip, GM and IM do not). GM and IM count as equal.
    public static func isWeaker(_ used: PACEProtocol, than offered: PACEProtocol) -> Bool {
        let u = [
            cipherStrength(used.cipher), used.keyAgreement == .ecdh ? 1 : 0,
            used.mapping == .chipAuthenticationMapping ? 1 : 0,
        ]
        let o = [
            cipherStrength(offered.cipher), offered.keyAgreement == .ecdh ? 1 : 0,
            offered.mapping == .chipAuthenticationMapping ? 1 : 0,
        ]
        return zip(u, o).allSatisfy { $0 <= $1 } && u != o
    }

    /// The PACEInfo to use and its domain parameter info, by preference; nil when none is usable.
    public static func choosePACE(_ cardAccess: SecurityInfos) -> (
        info: PACEInfo, domainParameters: PACEDomainParameterInfo?
    )? {
        var best: (PACEInfo, PACEDomainParameterInfo?, Int)? = nil
        for (info, dp, proto) in usablePACE(cardAccess) {
            let rank = preference(proto)
            if best == nil || rank > best!.2 { best = (info, dp, rank) }
        }
        return best.map { ($0.0, $0.1) }
    }

    /// Establishes secure messaging: PACE when `cardAccess` (parsed EF.CardAccess, nil when the chip has
    /// none) offers a usable PACEInfo, otherwise BAC when `allowBACFallback` (MRZ key only): BAC may run at all.
    /// Whether a BAC or weaker PACE session is acceptable is judged after passive authentication, against DG14
    /// (`DocumentVerifier`'s `downgrade` check), not here.
    /// A wrong password never triggers the fallback (it would fail the same way and count a try).
    /// Before BAC the eMRTD application is selected (9303-11 §4.2 step 4) unless `selectApplicationBeforeBAC`
    /// is false (the caller selected it already); after PACE the current DF stays the Master File.
    public static func establish(
        transport: any CardTransport, key: AccessKey, cardAccess: SecurityInfos?,
        allowBACFallback: Bool, options: PACEOptions = PACEOptions(),
        selectApplicationBeforeBAC: Bool = true,
        random: any RandomSource = SystemRandom()
    ) async throws -> AccessControlResult {
        let offered = cardAccess.flatMap { choosePACE($0) }
        if let (info, dp) = offered {
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
                    ? "the chip offers no EF.CardAccess (BAC only) and BAC is not allowed"
                    : "EF.CardAccess offers no supported PACE protocol, or the chip refused it, and BAC is not allowed")
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
            parameterId: nil, protocolOID: nil, fellBackToBAC: offered != nil, sessionKeys: r.sessionKeys,
            initialSSC: r.ssc,
            pace: nil)
    }
}
