import ASN1TLV
import ISO7816
import MRTDCrypto
import MRTDSecureMessaging

/// PACE domain parameters: an elliptic curve or a finite-field group (ICAO 9303-11 §9.5.1).
enum PACEDomain: Sendable, Hashable {
    case ec(ECCurve)
    case dh(DHGroup)
}

/// What MSE:Set AT selected for PACE.
struct PACEContext {
    var info: ChipSecurityInfos.PACEOffer
    var password: PACEPassword
    var domain: PACEDomain
    /// K_π = KDF_π(π) (ICAO 9303-11 §9.7.3).
    var passwordKey: SecretBytes
}

/// Progress of the PACE GENERAL AUTHENTICATE chain on the chip.
enum PACEState {
    case idle
    /// MSE:Set AT accepted.
    case selected(PACEContext)
    /// Step 1 answered: the nonce s was sent encrypted.
    case nonceSent(PACEContext, nonce: SecretBytes)
    /// Step 2 answered: the ephemeral domain parameters are mapped (`mapPrivate` kept for CAM).
    case mapped(PACEContext, PACEDomain, mapPrivate: SecretBytes?)
    /// Step 3 answered: key agreement done.
    case agreed(PACEContext, keys: SessionKeys, chipPublic: [UInt8], terminalPublic: [UInt8], mapPrivate: SecretBytes?)
}

/// Password Authenticated Connection Establishment, chip side (ICAO 9303-11 §4.4).
extension ChipEngine {
    // MARK: MSE:Set AT

    /// MSE:Set AT for PACE (ICAO 9303-11 §4.4.4.1): DO'80' protocol OID, DO'83' password reference
    /// (01 MRZ, 02 CAN), DO'84' domain parameter id (required when the link says so and EF.CardAccess
    /// lists one). The parameters are standardized (§9.5.1) or given by a PACEDomainParameterInfo.
    /// Unknown protocol or parameters: 6A80; PIN/PUK: 6A88.
    mutating func msePACE(_ command: CommandAPDU) throws(ChipFailure) -> ResponseAPDU {
        pace = .idle
        let objects = try DataObjects.parse(command.data)
        guard let oidBytes = objects[0x80], let passwordRef = objects[0x83], passwordRef.count == 1 else {
            throw .wrongData
        }
        guard let oid = try? ASN1ObjectIdentifier(contents: oidBytes[...]) else { throw .wrongData }
        guard let password = PACEPassword(rawValue: passwordRef[0]) else {
            throw (3...4).contains(passwordRef[0]) ? .referencedDataNotFound : .wrongData
        }
        var candidates = securityInfos.paceInfos.filter { $0.oid == oid }
        guard !candidates.isEmpty else { throw .wrongData }
        if let idBytes = objects[0x84] {
            guard let id = DataObjects.unsigned(idBytes) else { throw .wrongData }
            candidates = candidates.filter { $0.parameterId == id }
            guard !candidates.isEmpty else { throw .wrongData }
        } else if profile.link.requiresParameterIdInMSE, candidates.contains(where: { $0.parameterId != nil }) {
            throw .wrongData
        }
        let info = candidates[0]
        guard let parameters = info.domain else { throw .wrongData }
        let domain: PACEDomain
        switch (parameters, info.mapping) {
        case (.ec(let curve), .genericECDH), (.ec(let curve), .integratedECDH),
            (.ec(let curve), .chipAuthenticationECDH):
            domain = .ec(curve)
        case (.dh(let group), .genericDH), (.dh(let group), .integratedDH):
            domain = .dh(group)
        default:
            throw .wrongData
        }
        if info.mapping == .chipAuthenticationECDH {
            // CAM needs the static CA key on the PACE curve and AES (§4.4.3.5.4).
            guard case .ec(let curve) = domain,
                case .ecdh(let caCurve, _, _)? = profile.keys.chipAuthentication?.agreement,
                caCurve.p == curve.p, caCurve.order == curve.order, caCurve.generator == curve.generator,
                info.cipher != .tripleDES
            else {
                throw .wrongData
            }
        }
        let pi = ChipPasswords.pacePassword(profile, password)
        let kPi = KDF.derive(pi, counter: KDF.passwordCounter, cipher: info.cipher)
        pace = .selected(PACEContext(info: info, password: password, domain: domain, passwordKey: kPi))
        return ResponseAPDU(statusWord: .success)
    }

    // MARK: GENERAL AUTHENTICATE

    /// One step of the PACE GENERAL AUTHENTICATE chain (ICAO 9303-11 §4.4.4.2). Any failure resets
    /// PACE; a wrong terminal token answers 6300.
    mutating func generalAuthenticatePACE(_ command: CommandAPDU) throws(ChipFailure) -> ResponseAPDU {
        let state = pace
        pace = .idle
        let objects = try DataObjects.dynamicAuthenticationData(command.data)
        switch state {
        case .idle:
            throw .conditionsOfUse
        case .selected(let context):
            guard objects.isEmpty, command.isChained else { throw .wrongData }
            return try paceEncryptedNonce(context)
        case .nonceSent(let context, let nonce):
            guard command.isChained, let mappingData = objects[0x81] else { throw .wrongData }
            return try paceMapNonce(context, nonce: nonce, mappingData: mappingData)
        case .mapped(let context, let domain, let mapPrivate):
            guard command.isChained, let terminalPublic = objects[0x83] else { throw .wrongData }
            return try paceKeyAgreement(context, domain: domain, mapPrivate: mapPrivate, terminalPublic: terminalPublic)
        case .agreed(let context, let keys, let chipPublic, let terminalPublic, let mapPrivate):
            guard !command.isChained, let token = objects[0x85] else { throw .wrongData }
            return try paceMutualAuthentication(
                context, keys: keys, chipPublic: chipPublic,
                terminalPublic: terminalPublic, mapPrivate: mapPrivate,
                terminalToken: token)
        }
    }

    /// Step 1: z = E(K_π, s) (CBC, IV = 0), sent in DO'80'. s has the length l of the Integrated
    /// Mapping's pseudo-random function (§4.4.3.3.2): 16 bytes for 3DES and AES-128, 32 for AES-192/256.
    private mutating func paceEncryptedNonce(_ context: PACEContext) throws(ChipFailure) -> ResponseAPDU {
        let s = randomBytes(PACEIntegratedMapping.nonceLength(context.info.cipher))
        let z: [UInt8]
        do {
            z = try CipherBlock.encryptCBC(context.info.cipher, key: context.passwordKey, s)
        } catch {
            throw .noPreciseDiagnosis
        }
        pace = .nonceSent(context, nonce: SecretBytes(s))
        return ResponseAPDU(data: DataObjects.dynamicAuthenticationResponse([(0x80, z)]), statusWord: .success)
    }

    /// Step 2: the mapping. GM/CAM: the chip sends PK_map,IC in DO'82' and maps G̃ = s·G + H with
    /// H = SK_map,IC · PK_map,IFD (ECDH) or g̃ = g^s · h mod p (DH) (§4.4.3.3.1). IM: the terminal
    /// sends the nonce t in DO'81', G̃ = f_G(R_p(s, t)) (§4.4.3.3.2, Appendix B); DO'82' is absent.
    private mutating func paceMapNonce(_ context: PACEContext, nonce: SecretBytes, mappingData: [UInt8])
        throws(ChipFailure) -> ResponseAPDU
    {
        do {
            switch (context.info.mapping, context.domain) {
            case (.genericECDH, .ec(let curve)), (.chipAuthenticationECDH, .ec(let curve)):
                let terminalMap = try curve.decodePoint(mappingData)
                let mapPrivate = try randomScalar(below: curve.order)
                let mapPublic = try curve.multiplyGenerator(by: mapPrivate.bytes)
                if ConstantTime.equals(mapPublic, terminalMap) { throw ChipFailure.wrongData }
                let h = try curve.multiply(terminalMap, by: mapPrivate.bytes)
                let sG = try curve.multiplyGenerator(by: nonce.bytes)
                let generator = try curve.add(sG, h)
                let mapped = try curve.withGenerator(generator)
                pace = .mapped(
                    context, .ec(mapped), mapPrivate: context.info.mapping == .chipAuthenticationECDH ? mapPrivate : nil
                )
                return ResponseAPDU(
                    data: DataObjects.dynamicAuthenticationResponse([(0x82, mapPublic)]), statusWord: .success)
            case (.genericDH, .dh(let group)):
                let mapPrivate = try dhPrivateKey(group)
                let mapPublic = try group.publicKey(for: mapPrivate)
                let terminalMap = DHValue.fixedWidth(mappingData, group.primeSize)
                if ConstantTime.equals(mapPublic, terminalMap) { throw ChipFailure.wrongData }
                let h = try group.sharedSecret(privateKey: mapPrivate, peerPublicKey: terminalMap)
                let p = BigNumber(group.p)
                let gs = BigNumber.modExp(BigNumber(group.g), BigNumber(nonce.bytes), p)
                let generator = BigNumber.modMul(gs, BigNumber(h.bytes), p).bytes(width: group.primeSize)
                let mapped = try group.withGenerator(generator)
                pace = .mapped(context, .dh(mapped), mapPrivate: nil)
                return ResponseAPDU(
                    data: DataObjects.dynamicAuthenticationResponse([(0x82, mapPublic)]), statusWord: .success)
            case (.integratedECDH, .ec(let curve)):
                let generator = try PACEIntegratedMapping.mapECDH(
                    s: nonce.bytes, t: mappingData, cipher: context.info.cipher, curve: curve)
                pace = .mapped(context, .ec(try curve.withGenerator(generator)), mapPrivate: nil)
                return ResponseAPDU(data: DataObjects.dynamicAuthenticationResponse([]), statusWord: .success)
            case (.integratedDH, .dh(let group)):
                let generator = try PACEIntegratedMapping.mapDH(
                    s: nonce.bytes, t: mappingData, cipher: context.info.cipher, group: group)
                pace = .mapped(context, .dh(try group.withGenerator(generator)), mapPrivate: nil)
                return ResponseAPDU(data: DataObjects.dynamicAuthenticationResponse([]), statusWord: .success)
            default:
                throw ChipFailure.wrongData
            }
        } catch let failure as ChipFailure {
            throw failure
        } catch {
            throw .wrongData
        }
    }

    /// Step 3: ephemeral key agreement on the mapped parameters; the chip checks PK_IFD ≠ PK_IC and
    /// answers PK_IC in DO'84'. K = x-coordinate of SK_IC · PK_IFD (ECDH) or PK_IFD^SK_IC mod p (DH).
    private mutating func paceKeyAgreement(
        _ context: PACEContext, domain: PACEDomain, mapPrivate: SecretBytes?,
        terminalPublic received: [UInt8]
    ) throws(ChipFailure) -> ResponseAPDU {
        do {
            let chipPublic: [UInt8]
            let terminalPublic: [UInt8]
            let shared: SecretBytes
            switch domain {
            case .ec(let curve):
                terminalPublic = try curve.decodePoint(received)
                let priv = try randomScalar(below: curve.order)
                chipPublic = try curve.multiplyGenerator(by: priv.bytes)
                if ConstantTime.equals(chipPublic, terminalPublic) { throw ChipFailure.wrongData }
                shared = try curve.sharedSecret(privateKey: priv, peerPublicKey: terminalPublic)
            case .dh(let group):
                terminalPublic = DHValue.fixedWidth(received, group.primeSize)
                let priv = try dhPrivateKey(group)
                chipPublic = try group.publicKey(for: priv)
                if ConstantTime.equals(chipPublic, terminalPublic) { throw ChipFailure.wrongData }
                shared = try group.sharedSecret(privateKey: priv, peerPublicKey: terminalPublic)
            }
            let keys = SessionKeys.derive(sharedSecret: shared.bytes, cipher: context.info.cipher)
            pace = .agreed(
                context, keys: keys, chipPublic: chipPublic, terminalPublic: terminalPublic, mapPrivate: mapPrivate)
            let sent: [UInt8]
            if case .dh = domain { sent = DHValue.minimal(chipPublic) } else { sent = chipPublic }
            return ResponseAPDU(data: DataObjects.dynamicAuthenticationResponse([(0x84, sent)]), statusWord: .success)
        } catch let failure as ChipFailure {
            throw failure
        } catch {
            throw .wrongData
        }
    }

    /// Step 4: mutual authentication. T_IFD = MAC(KS_MAC, PK_IC data) must verify (else 6300);
    /// the chip answers T_IC = MAC(KS_MAC, PK_IFD data) in DO'86' and, for CAM, the encrypted chip
    /// authentication data A_IC in DO'8A' (§4.4.3.5.1). Secure messaging starts with SSC = 0.
    private mutating func paceMutualAuthentication(
        _ context: PACEContext, keys: SessionKeys, chipPublic: [UInt8],
        terminalPublic: [UInt8], mapPrivate: SecretBytes?,
        terminalToken: [UInt8]
    ) throws(ChipFailure) -> ResponseAPDU {
        do {
            let expected = try PACEToken.token(
                keys: keys, oid: context.info.oid, publicKey: chipPublic, domain: context.domain)
            guard ConstantTime.equals(expected, terminalToken) else { throw ChipFailure.authenticationFailed }
            let chipToken = try PACEToken.token(
                keys: keys, oid: context.info.oid, publicKey: terminalPublic, domain: context.domain)
            var objects: [(UInt32, [UInt8])] = [(0x86, chipToken)]
            if context.info.mapping == .chipAuthenticationECDH {
                guard let mapPrivate, case .ec(let curve) = context.domain,
                    case .ecdh(_, let caPrivate, _)? = profile.keys.chipAuthentication?.agreement
                else {
                    throw ChipFailure.noPreciseDiagnosis
                }
                let caData = try ChipAuthenticationMapping.chipAuthenticationData(
                    mapPrivate: mapPrivate, staticPrivate: caPrivate, order: curve.order)
                objects.append((0x8A, try ChipAuthenticationMapping.encrypt(caData, keys: keys)))
            }
            session = SecureMessagingSession(keys: keys)
            access = .pace(mapping: context.info.mapping, password: context.password, cipher: context.info.cipher)
            chipAuthenticated = false
            return ResponseAPDU(data: DataObjects.dynamicAuthenticationResponse(objects), statusWord: .success)
        } catch let failure as ChipFailure {
            throw failure
        } catch {
            throw .noPreciseDiagnosis
        }
    }

    /// A DH private exponent in [1, q-1] (or [1, p-2] without q) from the random source.
    func dhPrivateKey(_ group: DHGroup) throws(ChipFailure) -> SecretBytes {
        if let q = group.q { return try randomScalar(below: q) }
        let pMinus1 = BigNumber(group.p) - BigNumber(1)
        return try randomScalar(below: pMinus1.bytes)
    }
}

enum DHValue {
    /// A DH public value as an unsigned integer without leading zero octets.
    static func minimal(_ v: [UInt8]) -> [UInt8] {
        let b = Array(v.drop { $0 == 0 })
        return b.isEmpty ? [0] : b
    }

    /// A DH public value left-padded (or stripped of leading zeros) to the prime's width.
    static func fixedWidth(_ v: [UInt8], _ width: Int) -> [UInt8] {
        var b = Array(v.drop { $0 == 0 })
        if b.count < width { b = [UInt8](repeating: 0, count: width - b.count) + b }
        return b
    }
}

/// Authentication tokens (ICAO 9303-11 §4.4.3.4): T = MAC(KS_MAC, '7F49' { '06' OID, '86' point | '84' y }),
/// AES-CMAC truncated to 8 bytes or the 3DES retail MAC.
enum PACEToken {
    static func inputData(oid: ASN1ObjectIdentifier, publicKey: [UInt8], domain: PACEDomain) -> [UInt8] {
        let keyTag: UInt32
        var key = publicKey
        switch domain {
        case .ec: keyTag = 0x86
        case .dh:
            keyTag = 0x84
            // ICAO 9303-11 §9.4.1 / TR-03110-3 D.3.4: the DH public value y is an unsigned integer, encoded
            // without leading zero octets (as terminals send and MAC it); fixed width would differ in 1 of 256 keys.
            key = DHValue.minimal(publicKey)
        }
        return TLVWriter.encode(0x7F49, oid.derEncoded + TLVWriter.encode(keyTag, key))
    }

    static func token(keys: SessionKeys, oid: ASN1ObjectIdentifier, publicKey: [UInt8], domain: PACEDomain)
        throws(CryptoError) -> [UInt8]
    {
        try mac(keys: keys, inputData(oid: oid, publicKey: publicKey, domain: domain))
    }

    static func mac(keys: SessionKeys, _ data: [UInt8]) throws(CryptoError) -> [UInt8] {
        switch keys.cipher {
        case .tripleDES: return try RetailMAC.mac(key: keys.mac, data)
        default: return Array(try AESCMAC.mac(key: keys.mac, data).prefix(8))
        }
    }
}

/// The block cipher of a PACE/CA protocol, CBC with a zero IV and no padding.
enum CipherBlock {
    static func encryptCBC(_ cipher: CipherAlgorithm, key: SecretBytes, _ data: [UInt8]) throws(CryptoError) -> [UInt8]
    {
        switch cipher {
        case .tripleDES: return try TripleDES.encryptCBC(key: key, data)
        default: return try AES.encryptCBC(key: key, iv: [UInt8](repeating: 0, count: 16), data)
        }
    }
}
