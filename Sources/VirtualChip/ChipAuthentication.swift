import ASN1TLV
import ISO7816
import MRTDCrypto
import MRTDSecureMessaging

/// What MSE:Set AT selected for Chip Authentication (AES path).
struct CASelection {
    var ecdh: Bool
    var cipher: CipherAlgorithm
}

/// MANAGE SECURITY ENVIRONMENT and GENERAL AUTHENTICATE routing, Chip Authentication v1
/// (ICAO 9303-11 §6.2) and Active Authentication (ICAO 9303-11 §6.1), chip side.
extension ChipEngine {
    /// MSE (ISO/IEC 7816-4 §11.5.11): C1A4 Set AT for PACE, 41A4 Set AT for Chip Authentication,
    /// 41A6 Set KAT for Chip Authentication with 3DES. Terminal Authentication (81B6) is not offered.
    mutating func manageSecurityEnvironment(_ command: CommandAPDU, protected: Bool) throws(ChipFailure) -> ResponseAPDU
    {
        switch (command.p1, command.p2) {
        case (0xC1, 0xA4):
            guard !protected else { throw .conditionsOfUse }
            return try msePACE(command)
        case (0x41, 0xA4):
            guard protected else { throw .securityStatus }
            return try mseChipAuthenticationAT(command)
        case (0x41, 0xA6):
            guard protected else { throw .securityStatus }
            return try mseChipAuthenticationKAT(command)
        case (0x81, 0xB6), (0x41, 0xB6):
            throw .functionNotSupported
        default:
            throw .incorrectP1P2
        }
    }

    /// GENERAL AUTHENTICATE (ISO/IEC 7816-4 §11.5.5): the PACE chain when plain, Chip Authentication
    /// (after MSE:Set AT with a CA OID) when protected.
    mutating func generalAuthenticate(_ command: CommandAPDU, protected: Bool) throws(ChipFailure) -> ResponseAPDU {
        guard command.p1 == 0, command.p2 == 0 else {
            pace = .idle
            throw .incorrectP1P2
        }
        if protected { return try generalAuthenticateCA(command) }
        return try generalAuthenticatePACE(command)
    }

    // MARK: Chip Authentication

    /// MSE:Set KAT (ICAO 9303-11 §6.2.4.1): DO'91' ephemeral public key PK_IFD, DO'84' key id (optional).
    /// Key agreement with the static CA key, 3DES session keys; the answer is still protected with
    /// the old keys, then secure messaging restarts with the new keys and SSC = 0.
    mutating func mseChipAuthenticationKAT(_ command: CommandAPDU) throws(ChipFailure) -> ResponseAPDU {
        let objects = try DataObjects.parse(command.data)
        guard let terminalPublic = objects[0x91] else { throw .wrongData }
        try checkKeyId(objects[0x84])
        let shared = try chipAuthenticationSharedSecret(terminalPublic)
        startChipAuthenticatedSession(shared, cipher: .tripleDES)
        return ResponseAPDU(statusWord: .success)
    }

    /// MSE:Set AT for Chip Authentication (ICAO 9303-11 §6.2.4.2): DO'80' id-CA-… OID, DO'84' key id.
    mutating func mseChipAuthenticationAT(_ command: CommandAPDU) throws(ChipFailure) -> ResponseAPDU {
        chipAuthentication = nil
        let objects = try DataObjects.parse(command.data)
        guard let oidBytes = objects[0x80],
            let oid = try? ASN1ObjectIdentifier(contents: oidBytes[...]),
            let (ecdh, cipher) = ChipSecurityInfos.chipAuthenticationProtocol(oid)
        else { throw .wrongData }
        guard let key = profile.keys.chipAuthentication else { throw .referencedDataNotFound }
        switch key.agreement {
        case .ecdh: guard ecdh else { throw .wrongData }
        case .dh: guard !ecdh else { throw .wrongData }
        }
        try checkKeyId(objects[0x84])
        chipAuthentication = CASelection(ecdh: ecdh, cipher: cipher)
        return ResponseAPDU(statusWord: .success)
    }

    /// GENERAL AUTHENTICATE for Chip Authentication (ICAO 9303-11 §6.2.4.2): DO'7C' { DO'80' PK_IFD },
    /// answer DO'7C' empty; then secure messaging restarts with KDF(K, 1/2) of the selected cipher.
    mutating func generalAuthenticateCA(_ command: CommandAPDU) throws(ChipFailure) -> ResponseAPDU {
        guard let selection = chipAuthentication else { throw .conditionsOfUse }
        chipAuthentication = nil
        guard !command.isChained else { throw .chainingNotSupported }
        let objects = try DataObjects.dynamicAuthenticationData(command.data)
        guard let terminalPublic = objects[0x80] else { throw .wrongData }
        let shared = try chipAuthenticationSharedSecret(terminalPublic)
        startChipAuthenticatedSession(shared, cipher: selection.cipher)
        return ResponseAPDU(data: DataObjects.dynamicAuthenticationResponse([]), statusWord: .success)
    }

    private func checkKeyId(_ bytes: [UInt8]?) throws(ChipFailure) {
        guard let bytes else { return }
        guard let id = DataObjects.unsigned(bytes) else { throw .wrongData }
        guard let key = profile.keys.chipAuthentication, key.keyId == nil || key.keyId == id else {
            throw .referencedDataNotFound
        }
    }

    /// K = x-coordinate of SK_IC · PK_IFD (ECDH) or PK_IFD^SK_IC mod p (DH), fixed width.
    private func chipAuthenticationSharedSecret(_ terminalPublic: [UInt8]) throws(ChipFailure) -> [UInt8] {
        guard let key = profile.keys.chipAuthentication else { throw .referencedDataNotFound }
        do {
            switch key.agreement {
            case .ecdh(let curve, let privateKey, _):
                let point = try curve.decodePoint(terminalPublic)
                return try curve.sharedSecret(privateKey: privateKey, peerPublicKey: point).bytes
            case .dh(let group, let privateKey, _):
                let y = DHValue.fixedWidth(terminalPublic, group.primeSize)
                return try group.sharedSecret(privateKey: privateKey, peerPublicKey: y).bytes
            }
        } catch {
            throw .wrongData
        }
    }

    private mutating func startChipAuthenticatedSession(_ shared: [UInt8], cipher: CipherAlgorithm) {
        pendingSession = SecureMessagingSession(keys: SessionKeys.derive(sharedSecret: shared, cipher: cipher))
        chipAuthenticated = true
    }

    // MARK: Active Authentication

    /// INTERNAL AUTHENTICATE (ICAO 9303-11 §6.1): signs the terminal's challenge with the AA key.
    /// RSA: ISO/IEC 9796-2 digital signature scheme 1 with partial message recovery,
    /// F = '6A' || M1 || H(M1 || challenge) || trailer ('BC' for SHA-1, hash id || 'CC' otherwise),
    /// signature F^d mod n. ECDSA: plain r || s (BSI TR-03111) over the challenge with the hash of
    /// DG14's ActiveAuthenticationInfo (SHA-256 when absent).
    mutating func internalAuthenticate(_ command: CommandAPDU, protected: Bool) throws(ChipFailure) -> ResponseAPDU {
        guard command.p1 == 0, command.p2 == 0 else { throw .incorrectP1P2 }
        guard let key = profile.keys.activeAuthentication else { throw .insNotSupported }
        guard accessGranted else { throw .securityStatus }
        guard !command.data.isEmpty, command.ne != nil else { throw .wrongLength }
        let challenge = command.data
        do {
            switch key.publicKey.kind {
            case .rsa(let bits):
                let signature = try rsaSignature(key, modulusBits: bits, challenge: challenge)
                return ResponseAPDU(data: signature, statusWord: .success)
            case .ec:
                let hash = securityInfos.activeAuthenticationHash ?? .sha256
                let signature = try key.sign(challenge, algorithm: .ecdsaPlain(hash))
                return ResponseAPDU(data: signature, statusWord: .success)
            }
        } catch let failure as ChipFailure {
            throw failure
        } catch {
            throw .noPreciseDiagnosis
        }
    }

    private func rsaSignature(_ key: PrivateKey, modulusBits: Int, challenge: [UInt8]) throws -> [UInt8] {
        let hash = options.rsaActiveAuthenticationHash
        let trailer = ISO9796Trailer.trailer(for: hash)
        let modulusLength = (modulusBits + 7) / 8
        let m1Length = modulusLength - hash.outputLength - trailer.count - 1
        guard m1Length > 0, modulusBits % 8 == 0 else { throw ChipFailure.noPreciseDiagnosis }
        let m1 = randomBytes(m1Length)
        return try key.rsaPrivateOperation(
            ISO9796Trailer.messageRepresentative(m1: m1, challenge: challenge, hash: hash))
    }
}

/// ISO/IEC 9796-2 digital signature scheme 1 (partial message recovery), as used by ICAO 9303-11
/// Active Authentication (§6.1, Appendix F).
enum ISO9796Trailer {
    /// F = '6A' || M1 || H(M1 || M2) || trailer, with M2 the terminal's challenge.
    static func messageRepresentative(m1: [UInt8], challenge: [UInt8], hash: HashAlgorithm) -> [UInt8] {
        [0x6A] + m1 + hash.hash(m1 + challenge) + trailer(for: hash)
    }

    /// Trailer field: 'BC' (implicit SHA-1) or hash identifier (ISO/IEC 10118-3) || 'CC'.
    static func trailer(for hash: HashAlgorithm) -> [UInt8] {
        switch hash {
        case .sha1: return [0xBC]
        case .sha256: return [0x34, 0xCC]
        case .sha512: return [0x35, 0xCC]
        case .sha384: return [0x36, 0xCC]
        case .sha224: return [0x38, 0xCC]
        }
    }
}
