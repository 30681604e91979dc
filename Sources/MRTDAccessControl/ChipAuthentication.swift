public import ASN1TLV
public import ISO7816
public import MRTDCrypto
public import MRTDDocument
public import MRTDSecureMessaging

/// Chip Authentication version 1 from DG14 (ICAO 9303-11 §6.2 protocol, §9.2.5–§9.2.7 SecurityInfos,
/// §9.7.4 key derivation, §9.8.2 SSC restart; BSI TR-03110-1 §3.4): an ephemeral-static key agreement with the chip's key from
/// DG14 that restarts secure messaging with new keys and SSC 0. Success is proven by the next protected
/// read, which is the reader's job: call `perform`, install `Result.session` with
/// `SecureChannel.replaceSession`, then read.
public enum ChipAuthentication {
    /// What DG14 says about Chip Authentication, resolved to one protocol and key.
    public struct Parameters: Sendable, Hashable {
        /// The ChipAuthenticationInfo (nil when DG14 has only the public key: 3DES is implied).
        public var info: ChipAuthenticationInfo?
        public var publicKeyInfo: ChipAuthenticationPublicKeyInfo
        /// The protocol OID used in MSE:Set AT (the info's, or id-CA-*-3DES-CBC-CBC when implied).
        public var `protocol`: ASN1ObjectIdentifier
        public var cipher: CipherAlgorithm
        public var keyAgreement: KeyAgreementAlgorithm
        public var keyId: Int?
        public var group: KeyAgreementGroup
        /// The chip's static public key (uncompressed point or fixed-width DH value).
        public var chipPublicKey: [UInt8]

        public var protocolName: String { SecurityInfoOID.name(of: `protocol`) ?? `protocol`.dotted }
    }

    /// The outcome: the new session (SSC 0) and the terminal's ephemeral public key.
    public struct Result: Sendable {
        public var parameters: Parameters
        public var terminalEphemeralPublicKey: [UInt8]
        public var sessionKeys: SessionKeys
        public var session: SecureMessagingSession { SecureMessagingSession(keys: sessionKeys) }
    }

    static func cipher(of oid: ASN1ObjectIdentifier) -> CipherAlgorithm? {
        switch oid.arcs.last {
        case 1: return .tripleDES
        case 2: return .aes128
        case 3: return .aes192
        case 4: return .aes256
        default: return nil
        }
    }

    /// Picks the Chip Authentication protocol and key from DG14's SecurityInfos (ECDH before DH, AES
    /// before 3DES; keys matched by keyId).
    public static func parameters(from dg14: SecurityInfos) throws(AccessControlError) -> Parameters {
        let step = AccessControlStep.chipAuthentication
        var candidates: [Parameters] = []
        let keys = dg14.chipAuthenticationPublicKeyInfos
        guard !keys.isEmpty else {
            throw AccessControlError(.invalidInput, step: step, "DG14 holds no ChipAuthenticationPublicKeyInfo")
        }
        func make(_ info: ChipAuthenticationInfo?, _ key: ChipAuthenticationPublicKeyInfo, _ oid: ASN1ObjectIdentifier)
            throws(AccessControlError) -> Parameters?
        {
            guard let c = cipher(of: oid) else { return nil }
            let ka: KeyAgreementAlgorithm = oid.arcs[oid.arcs.count - 2] == 2 ? .ecdh : .dh
            guard let dp = key.publicKey.algorithm.domainParameters else {
                throw AccessControlError(.unsupported, step: step, "the CA public key has no usable domain parameters")
            }
            let group = try KeyAgreementGroup(dp, step: step)
            guard group.isEC == (ka == .ecdh) else { return nil }
            let pk: [UInt8]
            do { pk = try group.validatePublicKey(key.publicKey.publicKey) } catch {
                throw AccessControlError(
                    .cryptoFailure, step: step, "the chip's CA public key is invalid: \(error.description)")
            }
            return Parameters(
                info: info, publicKeyInfo: key, protocol: oid, cipher: c, keyAgreement: ka,
                keyId: info?.keyId ?? key.keyId, group: group, chipPublicKey: pk)
        }
        for info in dg14.chipAuthenticationInfos {
            let key: ChipAuthenticationPublicKeyInfo?
            if let id = info.keyId {
                key = keys.first { $0.keyId == id }
            } else {
                key = keys.count == 1 ? keys[0] : keys.first
            }
            guard let k = key, let p = try make(info, k, info.protocol) else { continue }
            candidates.append(p)
        }
        if candidates.isEmpty {
            // No ChipAuthenticationInfo (older DG14s carry only the key): 3DES (MSE:Set KAT) is assumed.
            for k in keys {
                let family: UInt64 = k.isECDH ? 2 : 1
                if let p = try make(nil, k, SecurityInfoOID.chipAuthentication(family: family, cipher: 1)) {
                    candidates.append(p)
                }
            }
        }
        func rank(_ p: Parameters) -> Int { (p.keyAgreement == .ecdh ? 0 : 10) + (p.cipher == .tripleDES ? 5 : 0) }
        guard let best = candidates.min(by: { rank($0) < rank($1) }) else {
            throw AccessControlError(.unsupported, step: step, "DG14 offers no supported Chip Authentication protocol")
        }
        return best
    }

    /// MSE:Set KAT (3DES variant only, 9303-11 §6.2.4.1): `00 22 41 A6` with DO'91' the
    /// ephemeral public key and DO'84' the key id when several keys exist.
    public static func mseSetKAT(ephemeralPublicKey: [UInt8], keyId: Int?) -> CommandAPDU {
        var data = TLVWriter.encode(0x91, ephemeralPublicKey)
        if let id = keyId { data += TLVWriter.encode(0x84, PACE.minimalUnsigned(id)) }
        return .manageSecurityEnvironment(p1: 0x41, p2: 0xA6, data: data)
    }

    /// MSE:Set AT (AES variant, 9303-11 §6.2.4.2): `00 22 41 A4` with DO'80' the CA OID and DO'84' the key id.
    public static func mseSetAT(protocol oid: ASN1ObjectIdentifier, keyId: Int?) -> CommandAPDU {
        var data = TLVWriter.encode(0x80, oid.encodedValue)
        if let id = keyId { data += TLVWriter.encode(0x84, PACE.minimalUnsigned(id)) }
        return .manageSecurityEnvironment(p1: 0x41, p2: 0xA4, data: data)
    }

    /// GENERAL AUTHENTICATE with 7C{80 ephemeral public key} (AES variant, §6.2.4.2).
    public static func generalAuthenticate(ephemeralPublicKey: [UInt8]) -> CommandAPDU {
        .generalAuthenticate(DynamicAuthenticationData.encode([(0x80, ephemeralPublicKey)]), chained: false, ne: 256)
    }

    /// KSenc = KDF(K, 1), KSmac = KDF(K, 2) — no nonce in version 1 (9303-11 §9.7.4).
    public static func sessionKeys(sharedSecret: [UInt8], cipher: CipherAlgorithm) -> SessionKeys {
        SessionKeys.derive(sharedSecret: sharedSecret, cipher: cipher)
    }

    /// Runs Chip Authentication through an established secure channel. Random draw: the ephemeral private
    /// key (width of the group order). The caller installs `Result.session` and proves success by the
    /// next protected read. Throws `AccessControlError` (step "CA") or the channel's error.
    public static func perform(
        channel: SecureChannel, parameters p: Parameters,
        random: any RandomSource = SystemRandom()
    ) async throws -> Result {
        let step = AccessControlStep.chipAuthentication
        let send: APDUSend = { try await channel.transmit($0) }
        let (sk, pk) = try p.group.generateKeyPair(random: random, step: step)
        let shared: SecretBytes
        do { shared = try p.group.sharedSecret(privateKey: sk, peerPublicKey: p.chipPublicKey) } catch {
            throw AccessControlError(.cryptoFailure, step: step, "key agreement: \(error.description)")
        }
        if p.cipher == .tripleDES {
            _ = try await Exchange.expectSuccess(
                send, mseSetKAT(ephemeralPublicKey: p.group.encodePublicKey(pk), keyId: p.keyId),
                step: AccessControlStep.mseSetKAT)
        } else {
            _ = try await Exchange.expectSuccess(
                send, mseSetAT(protocol: p.protocol, keyId: p.keyId), step: AccessControlStep.mseSetAT)
            _ = try await Exchange.expectSuccess(
                send, generalAuthenticate(ephemeralPublicKey: p.group.encodePublicKey(pk)), step: step)
        }
        return Result(
            parameters: p, terminalEphemeralPublicKey: pk,
            sessionKeys: sessionKeys(sharedSecret: shared.bytes, cipher: p.cipher))
    }

    /// `perform`, then installs the new session in `channel` (SSC 0).
    public static func performAndInstall(
        channel: SecureChannel, parameters: Parameters,
        random: any RandomSource = SystemRandom()
    ) async throws -> Result {
        let r = try await perform(channel: channel, parameters: parameters, random: random)
        await channel.replaceSession(r.session)
        return r
    }
}
