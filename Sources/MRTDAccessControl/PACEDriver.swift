import ASN1TLV
public import ISO7816
public import MRTDCrypto
public import MRTDDocument
public import MRTDSecureMessaging

/// Options for running PACE.
public struct PACEOptions: Sendable, Hashable {
    /// Send the parameter id as DO'84' in MSE:Set AT whenever EF.CardAccess lists one (default: true;
    /// several countries' chips refuse PACE without it). `false` reproduces the ICAO worked examples.
    public var sendParameterId: Bool
    public init(sendParameterId: Bool = true) { self.sendParameterId = sendParameterId }
}

/// What PACE-CAM leaves for the later check against EF.CardSecurity (9303-11 §4.4.3.5.2).
public struct PACEChipAuthenticationMappingData: Sendable, Hashable {
    /// A_IC as the chip sent it in DO'8A'.
    public var encryptedChipAuthenticationData: [UInt8]
    /// CA_IC, decrypted after mutual authentication.
    public var chipAuthenticationData: [UInt8]
    /// PK_map,IC, the chip's mapping public key (DO'82').
    public var chipMappingPublicKey: [UInt8]
    /// The domain parameters of the mapping (unmapped), for the check PK_map,IC = CA_IC · PK_IC.
    public var curve: ECCurve

    public init(
        encryptedChipAuthenticationData: [UInt8], chipAuthenticationData: [UInt8], chipMappingPublicKey: [UInt8],
        curve: ECCurve
    ) {
        self.encryptedChipAuthenticationData = encryptedChipAuthenticationData
        self.chipAuthenticationData = chipAuthenticationData
        self.chipMappingPublicKey = chipMappingPublicKey
        self.curve = curve
    }

    /// Verifies against the chip's static Chip Authentication public key (from EF.CardSecurity, whose
    /// signature the caller must have checked).
    public func verify(chipStaticPublicKey: [UInt8]) throws(AccessControlError) -> Bool {
        try PACE.verifyChipAuthenticationMapping(
            chipAuthenticationData: chipAuthenticationData,
            chipMappingPublicKey: chipMappingPublicKey,
            chipStaticPublicKey: chipStaticPublicKey, curve: curve)
    }

    /// Verifies against the ECDH ChipAuthenticationPublicKeyInfos of EF.CardSecurity (whose signature the
    /// caller must have checked): true when one of them, on the PACE curve, satisfies the relation.
    /// Throws when EF.CardSecurity holds no usable ECDH key.
    public func verify(cardSecurity: SecurityInfos) throws(AccessControlError) -> Bool {
        var candidates = 0
        for info in cardSecurity.chipAuthenticationPublicKeyInfos where info.isECDH {
            guard let dp = info.publicKey.algorithm.domainParameters,
                let group = try? KeyAgreementGroup(dp, step: AccessControlStep.cam),
                case .ec(let c) = group, c.p == curve.p, c.a == curve.a, c.b == curve.b,
                let pk = try? curve.decodePoint(info.publicKey.publicKey)
            else { continue }
            candidates += 1
            if try verify(chipStaticPublicKey: pk) { return true }
        }
        guard candidates > 0 else {
            throw AccessControlError(
                .invalidInput, step: AccessControlStep.cam,
                "EF.CardSecurity holds no Chip Authentication key on the PACE curve")
        }
        return false
    }
}

/// What a PACE-CAM run leaves for offline re-verification (the evidence bundle, docs/architecture.md §4.3): the
/// decrypted CA_IC, PK_map,IC and the curve; re-checked against EF.CardSecurity's key with `verify`.
public struct PACECAMTranscript: Sendable, Hashable, Codable {
    public var chipAuthenticationData: [UInt8]
    public var encryptedChipAuthenticationData: [UInt8]
    public var chipMappingPublicKey: [UInt8]
    public var p: [UInt8], a: [UInt8], b: [UInt8], generator: [UInt8], order: [UInt8], cofactor: [UInt8]

    public init(_ data: PACEChipAuthenticationMappingData) {
        chipAuthenticationData = data.chipAuthenticationData
        encryptedChipAuthenticationData = data.encryptedChipAuthenticationData
        chipMappingPublicKey = data.chipMappingPublicKey
        p = data.curve.p
        a = data.curve.a
        b = data.curve.b
        generator = data.curve.generator
        order = data.curve.order
        cofactor = data.curve.cofactor
    }

    /// Rebuilds the check data (the curve from its parameters).
    public func mappingData() throws(AccessControlError) -> PACEChipAuthenticationMappingData {
        do {
            let curve = try ECCurve(p: p, a: a, b: b, generator: generator, order: order, cofactor: cofactor)
            return PACEChipAuthenticationMappingData(
                encryptedChipAuthenticationData: encryptedChipAuthenticationData,
                chipAuthenticationData: chipAuthenticationData,
                chipMappingPublicKey: chipMappingPublicKey, curve: curve)
        } catch {
            throw AccessControlError(
                .invalidInput, step: AccessControlStep.cam, "transcript curve: \(error.description)")
        }
    }

    /// Offline CAM check against the keys of EF.CardSecurity (signature checked by the caller).
    public func verify(cardSecurity: SecurityInfos) throws(AccessControlError) -> Bool {
        try mappingData().verify(cardSecurity: cardSecurity)
    }
}

/// The outcome of PACE: which protocol ran, the session keys, and the public values of the run.
public struct PACEResult: Sendable {
    public var `protocol`: PACEProtocol
    public var parameterId: Int?
    public var passwordType: PACEPasswordType
    public var sessionKeys: SessionKeys
    /// The domain parameters before mapping.
    public var group: KeyAgreementGroup
    public var terminalEphemeralPublicKey: [UInt8]
    public var chipEphemeralPublicKey: [UInt8]
    /// PK_map,IC (GM and CAM); nil for IM.
    public var chipMappingPublicKey: [UInt8]?
    /// Present after PACE-CAM.
    public var chipAuthenticationMapping: PACEChipAuthenticationMappingData?
    /// The CAM data as a Codable transcript for the evidence bundle.
    public var chipAuthenticationMappingTranscript: PACECAMTranscript? {
        chipAuthenticationMapping.map(PACECAMTranscript.init)
    }
    /// Certification authority references the chip sent in GA mutual authentication (DO'87'/'88'), if any.
    public var certificationAuthorityReferences: [[UInt8]]

    /// A secure-messaging session with the new keys and SSC 0.
    public var session: SecureMessagingSession { SecureMessagingSession(keys: sessionKeys) }
}

extension PACE {
    /// The domain parameters of a PACEInfo: its standardized parameter id or the matching
    /// PACEDomainParameterInfo (9303-11 §9.2.1–§9.2.2).
    public static func group(for info: PACEInfo, domainParameters: PACEDomainParameterInfo?) throws(AccessControlError)
        -> KeyAgreementGroup
    {
        let step = AccessControlStep.mseSetAT
        if let dp = domainParameters {
            guard let params = dp.domainParameter.domainParameters else {
                throw AccessControlError(
                    .unsupported, step: step,
                    "PACE domain parameters of algorithm \(dp.domainParameter.algorithm) are not supported")
            }
            return try KeyAgreementGroup(params, step: step)
        }
        guard let id = info.parameterId else {
            throw AccessControlError(
                .invalidInput, step: step, "PACEInfo names no parameter id and no PACEDomainParameterInfo matches")
        }
        guard let g = KeyAgreementGroup.standardized(id) else {
            throw AccessControlError(.unsupported, step: step, "standardized domain parameters \(id) are unknown")
        }
        return g
    }

    /// Runs PACE over `transport` (9303-11 §4.4): MSE:Set AT, then the GENERAL AUTHENTICATE chain
    /// (encrypted nonce, map nonce, key agreement, mutual authentication).
    ///
    /// Random draws, in order: GM/CAM — the mapping private key, then the ephemeral private key (each the
    /// byte width of the group order, redrawn if out of range); IM — nonce t (key length), then the
    /// ephemeral private key. Throws `AccessControlError` naming the failing step, or the transport's error.
    public static func perform(
        transport: any CardTransport, key: AccessKey, info: PACEInfo,
        domainParameters: PACEDomainParameterInfo? = nil, options: PACEOptions = PACEOptions(),
        random: any RandomSource = SystemRandom()
    ) async throws -> PACEResult {
        let send: APDUSend = { try await transport.transmit($0) }
        guard let proto = PACEProtocol(oid: info.protocol) else {
            throw AccessControlError(
                .unsupported, step: AccessControlStep.mseSetAT, "PACE protocol \(info.protocol) is not supported")
        }
        let group = try PACE.group(for: info, domainParameters: domainParameters)
        switch (proto.keyAgreement, group) {
        case (.ecdh, .ec), (.dh, .dh): break
        default:
            throw AccessControlError(
                .invalidInput, step: AccessControlStep.mseSetAT, "domain parameters do not fit \(proto.name)")
        }
        let cipher = proto.cipher
        let parameterId = domainParameters?.parameterId ?? info.parameterId

        // MSE:Set AT
        let mse = mseSetAT(
            protocol: proto.oid, password: key.passwordType,
            parameterId: options.sendParameterId ? info.parameterId : nil)
        _ = try await Exchange.expectSuccess(send, mse, step: AccessControlStep.mseSetAT, acceptRetryWarning: true)

        // GA 1: encrypted nonce
        var step = AccessControlStep.gaEncryptedNonce
        let r1 = try await Exchange.expectSuccess(send, generalAuthenticate([], last: false), step: step)
        let z = try DynamicAuthenticationData.require(
            0x80, in: DynamicAuthenticationData.decode(r1.data, step: step),
            step: step, what: "encrypted nonce")
        let kPi = key.paceKey(cipher: cipher)
        let s = try decryptNonce(z, key: kPi, cipher: cipher)

        // GA 2: mapping
        step = AccessControlStep.gaMapNonce
        let mapped: KeyAgreementGroup
        var chipMappingKey: [UInt8]? = nil
        switch proto.mapping {
        case .genericMapping, .chipAuthenticationMapping:
            let (mapSK, mapPK) = try group.generateKeyPair(random: random, step: step)
            let r2 = try await Exchange.expectSuccess(
                send, generalAuthenticate([(0x81, group.encodePublicKey(mapPK))], last: false), step: step)
            let pkMapIC = try DynamicAuthenticationData.require(
                0x82, in: DynamicAuthenticationData.decode(r2.data, step: step),
                step: step, what: "chip mapping public key")
            if let canonical = try? group.validatePublicKey(pkMapIC), ConstantTime.equals(canonical, mapPK) {
                throw AccessControlError(
                    .authenticationFailed, step: step, "the chip returned the terminal's own mapping key")
            }
            mapped = try genericMapping(
                group: group, nonce: s, terminalMappingKey: mapSK, chipMappingPublicKey: pkMapIC
            ).mapped
            chipMappingKey = pkMapIC
        case .integratedMapping:
            let t = random.randomBytes(count: cipher.keyLength)
            let r2 = try await Exchange.expectSuccess(send, generalAuthenticate([(0x81, t)], last: false), step: step)
            if !r2.data.isEmpty { _ = try DynamicAuthenticationData.decode(r2.data, step: step) }
            mapped = try integratedMapping(group: group, nonce: s, terminalNonce: t, cipher: cipher)
        }

        // GA 3: key agreement
        step = AccessControlStep.gaKeyAgreement
        let (ephSK, ephPK) = try mapped.generateKeyPair(random: random, step: step)
        let r3 = try await Exchange.expectSuccess(
            send, generalAuthenticate([(0x83, mapped.encodePublicKey(ephPK))], last: false), step: step)
        let chipEph = try DynamicAuthenticationData.require(
            0x84, in: DynamicAuthenticationData.decode(r3.data, step: step),
            step: step, what: "chip ephemeral public key")
        let pkIC: [UInt8]
        let sharedK: SecretBytes
        do {
            pkIC = try mapped.validatePublicKey(chipEph)
            sharedK = try mapped.sharedSecret(privateKey: ephSK, peerPublicKey: pkIC)
        } catch {
            throw AccessControlError(.cryptoFailure, step: step, "key agreement: \(error.description)")
        }
        if ConstantTime.equals(pkIC, ephPK) {
            throw AccessControlError(
                .authenticationFailed, step: step, "the chip's ephemeral key equals the terminal's")
        }
        let keys = SessionKeys.derive(sharedSecret: sharedK.bytes, cipher: cipher)

        // GA 4: mutual authentication
        step = AccessControlStep.gaMutualAuthentication
        let tIFD: [UInt8]
        let expectedTIC: [UInt8]
        do {
            tIFD = try authenticationToken(
                macKey: keys.mac, cipher: cipher, protocol: proto.oid, publicKey: pkIC, group: mapped)
            expectedTIC = try authenticationToken(
                macKey: keys.mac, cipher: cipher, protocol: proto.oid, publicKey: ephPK, group: mapped)
        } catch {
            throw AccessControlError(.cryptoFailure, step: step, error.description)
        }
        let r4 = try await Exchange.expectSuccess(
            send, generalAuthenticate([(0x85, tIFD)], last: true), step: step,
            wrongPasswordOn63: true)
        let objects = try DynamicAuthenticationData.decode(r4.data, step: step)
        let tIC = try DynamicAuthenticationData.require(
            0x86, in: objects, step: step, what: "chip authentication token T_IC")
        guard ConstantTime.equals(tIC, expectedTIC) else {
            throw AccessControlError(
                .authenticationFailed, step: step, "the chip's authentication token T_IC does not verify")
        }
        var cam: PACEChipAuthenticationMappingData? = nil
        if proto.mapping == .chipAuthenticationMapping {
            let aIC = try DynamicAuthenticationData.require(
                0x8A, in: objects, step: AccessControlStep.cam,
                what: "encrypted chip authentication data")
            let caIC = try decryptChipAuthenticationData(aIC, keys: keys)
            guard case .ec(let curve) = group, let pkMap = chipMappingKey else {
                throw AccessControlError(
                    .invalidInput, step: AccessControlStep.cam, "PACE-CAM needs ECDH domain parameters")
            }
            cam = PACEChipAuthenticationMappingData(
                encryptedChipAuthenticationData: aIC, chipAuthenticationData: caIC,
                chipMappingPublicKey: pkMap, curve: curve)
        }
        let cars = [objects[0x87], objects[0x88]].compactMap { $0 }
        return PACEResult(
            protocol: proto, parameterId: parameterId, passwordType: key.passwordType, sessionKeys: keys,
            group: group, terminalEphemeralPublicKey: ephPK, chipEphemeralPublicKey: pkIC,
            chipMappingPublicKey: chipMappingKey, chipAuthenticationMapping: cam,
            certificationAuthorityReferences: cars)
    }
}
