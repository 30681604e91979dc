import ASN1TLV
import ISO7816
import MRTDCrypto
import MRTDSecureMessaging
import MRTDTestSupport

@testable import VirtualChip

struct TerminalError: Error, CustomStringConvertible {
    var step: String
    var statusWord: StatusWord?
    var description: String { "\(step) failed" + (statusWord.map { " with \($0)" } ?? "") }
}

/// A reader-side counterpart written in the tests from ICAO 9303-11 (BAC, PACE GM/IM/CAM, CA v1,
/// AA), so that chip round trips do not depend on MRTDAccessControl. It uses the same secure
/// messaging implementation as the chip. Not copyable: it owns the reader side of the session.
struct TestTerminal: ~Copyable {
    let chip: VirtualChip
    var session: SecureMessagingSession?
    let random: any RandomSource

    init(chip: VirtualChip, random: any RandomSource = SystemRandom()) {
        self.chip = chip
        self.random = random
    }

    func plain(_ command: CommandAPDU) -> ResponseAPDU { chip.send(command) }

    /// Sends a command protected with the current session and returns the plain answer.
    mutating func secure(_ command: CommandAPDU) throws -> ResponseAPDU {
        guard var s = session.take() else { throw TerminalError(step: "no session") }
        let protected = try s.protect(command)
        session = consume s
        let answer = chip.send(protected)
        do {
            return try session!.unprotect(answer)
        } catch {
            session = nil
            throw TerminalError(step: "unprotect", statusWord: answer.statusWord)
        }
    }

    /// Sends through SM when a session exists, else plain.
    mutating func transmit(_ command: CommandAPDU) throws -> ResponseAPDU {
        session == nil ? plain(command) : try secure(command)
    }

    // MARK: BAC (ICAO 9303-11 §4.3)

    mutating func bac(mrzInformation: String) throws {
        let seed = Array(HashAlgorithm.sha1.hash(Array(mrzInformation.utf8)).prefix(16))
        let kEnc = KDF.derive(seed, counter: 1, cipher: .tripleDES)
        let kMac = KDF.derive(seed, counter: 2, cipher: .tripleDES)
        let challenge = plain(.getChallenge())
        guard challenge.isSuccess, challenge.data.count == 8 else {
            throw TerminalError(step: "GET CHALLENGE", statusWord: challenge.statusWord)
        }
        let rndIFD = random.randomBytes(count: 8)
        let kIFD = random.randomBytes(count: 16)
        let eIFD = try TripleDES.encryptCBC(key: kEnc, rndIFD + challenge.data + kIFD)
        let mIFD = try RetailMAC.mac(key: kMac, eIFD)
        let answer = plain(.externalAuthenticate(eIFD + mIFD, ne: 40))
        guard answer.isSuccess, answer.data.count == 40 else {
            throw TerminalError(step: "EXTERNAL AUTHENTICATE", statusWord: answer.statusWord)
        }
        let eIC = Array(answer.data[0..<32])
        guard try RetailMAC.mac(key: kMac, eIC) == Array(answer.data[32...]) else { throw TerminalError(step: "M_IC") }
        let r = try TripleDES.decryptCBC(key: kEnc, eIC)
        guard Array(r[8..<16]) == rndIFD else { throw TerminalError(step: "RND.IFD") }
        let kIC = Array(r[16..<32])
        let keys = SessionKeys.derive(sharedSecret: zip(kIFD, kIC).map { $0 ^ $1 }, cipher: .tripleDES)
        session = SecureMessagingSession(keys: keys, ssc: Array(challenge.data[4..<8]) + Array(rndIFD[4..<8]))
    }

    // MARK: PACE (ICAO 9303-11 §4.4)

    struct PACEOutcome {
        var keys: SessionKeys
        var chipPublic: [UInt8]
        var mapPublicIC: [UInt8]?
        var encryptedChipAuthenticationData: [UInt8]?
    }

    /// Runs PACE with the protocol `oid` on standardized parameters `parameterId`; `password` is π
    /// (SHA-1 of MRZ_information or the CAN), `reference` 1 (MRZ) or 2 (CAN).
    mutating func pace(
        oid: String, parameterId: Int, password: [UInt8], reference: UInt8,
        sendParameterId: Bool = false
    ) throws -> PACEOutcome {
        let protocolOID = ASN1ObjectIdentifier(oid)!
        guard let (mapping, cipher) = ChipSecurityInfos.paceProtocol(protocolOID),
            let params = StandardDomainParameters.parameters(id: parameterId)
        else { throw TerminalError(step: "oid") }
        var mse = TLVWriter.encode(0x80, protocolOID.encodedValue) + TLVWriter.encode(0x83, [reference])
        if sendParameterId { mse += TLVWriter.encode(0x84, [UInt8(parameterId)]) }
        let mseAnswer = plain(.manageSecurityEnvironment(p1: 0xC1, p2: 0xA4, data: mse))
        guard mseAnswer.isSuccess else { throw TerminalError(step: "MSE:Set AT", statusWord: mseAnswer.statusWord) }

        let kPi = KDF.derive(password, counter: 3, cipher: cipher)
        let ga1 = plain(.generalAuthenticate([0x7C, 0x00], chained: true))
        guard ga1.isSuccess else { throw TerminalError(step: "GA1", statusWord: ga1.statusWord) }
        let z = try Self.inner(ga1.data, 0x80)
        let s: [UInt8]
        switch cipher {
        case .tripleDES: s = try TripleDES.decryptCBC(key: kPi, z)
        default: s = try AES.decryptCBC(key: kPi, iv: [UInt8](repeating: 0, count: 16), z)
        }

        var mapPublicIC: [UInt8]? = nil
        let ephemeralChipPublic: [UInt8]
        let terminalPublic: [UInt8]
        let shared: [UInt8]
        switch (mapping, params) {
        case (.genericECDH, .ec(let curve)), (.chipAuthenticationECDH, .ec(let curve)),
            (.integratedECDH, .ec(let curve)):
            let mapped: ECCurve
            if mapping == .integratedECDH {
                let t = random.randomBytes(count: cipher.keyLength)
                let ga2 = plain(.generalAuthenticate(TLVWriter.encode(0x7C, TLVWriter.encode(0x81, t)), chained: true))
                guard ga2.isSuccess else { throw TerminalError(step: "GA2", statusWord: ga2.statusWord) }
                mapped = try curve.withGenerator(
                    PACEIntegratedMapping.mapECDH(s: s, t: t, cipher: cipher, curve: curve))
            } else {
                let (mapPriv, mapPub) = try curve.generateKeyPair(random: random)
                let ga2 = plain(
                    .generalAuthenticate(TLVWriter.encode(0x7C, TLVWriter.encode(0x81, mapPub)), chained: true))
                guard ga2.isSuccess else { throw TerminalError(step: "GA2", statusWord: ga2.statusWord) }
                let chipMap = try Self.inner(ga2.data, 0x82)
                mapPublicIC = chipMap
                let h = try curve.multiply(chipMap, by: mapPriv.bytes)
                mapped = try curve.withGenerator(curve.add(curve.multiplyGenerator(by: s), h))
            }
            let (priv, pub) = try mapped.generateKeyPair(random: random)
            terminalPublic = pub
            let ga3 = plain(.generalAuthenticate(TLVWriter.encode(0x7C, TLVWriter.encode(0x83, pub)), chained: true))
            guard ga3.isSuccess else { throw TerminalError(step: "GA3", statusWord: ga3.statusWord) }
            ephemeralChipPublic = try Self.inner(ga3.data, 0x84)
            shared = try mapped.sharedSecret(privateKey: priv, peerPublicKey: ephemeralChipPublic).bytes
        case (.genericDH, .dh(let group)), (.integratedDH, .dh(let group)):
            let mapped: DHGroup
            if mapping == .integratedDH {
                let t = random.randomBytes(count: cipher.keyLength)
                let ga2 = plain(.generalAuthenticate(TLVWriter.encode(0x7C, TLVWriter.encode(0x81, t)), chained: true))
                guard ga2.isSuccess else { throw TerminalError(step: "GA2", statusWord: ga2.statusWord) }
                mapped = try group.withGenerator(PACEIntegratedMapping.mapDH(s: s, t: t, cipher: cipher, group: group))
            } else {
                let (mapPriv, mapPub) = try group.generateKeyPair(random: random)
                let ga2 = plain(
                    .generalAuthenticate(TLVWriter.encode(0x7C, TLVWriter.encode(0x81, mapPub)), chained: true))
                guard ga2.isSuccess else { throw TerminalError(step: "GA2", statusWord: ga2.statusWord) }
                let chipMap = try Self.inner(ga2.data, 0x82)
                let h = try group.sharedSecret(privateKey: mapPriv, peerPublicKey: chipMap)
                let p = BigNumber(group.p)
                let g = BigNumber.modMul(BigNumber.modExp(BigNumber(group.g), BigNumber(s), p), BigNumber(h.bytes), p)
                mapped = try group.withGenerator(g.bytes(width: group.primeSize))
            }
            let (priv, pub) = try mapped.generateKeyPair(random: random)
            terminalPublic = pub
            let ga3 = plain(.generalAuthenticate(TLVWriter.encode(0x7C, TLVWriter.encode(0x83, pub)), chained: true))
            guard ga3.isSuccess else { throw TerminalError(step: "GA3", statusWord: ga3.statusWord) }
            ephemeralChipPublic = try Self.inner(ga3.data, 0x84)
            shared = try mapped.sharedSecret(privateKey: priv, peerPublicKey: ephemeralChipPublic).bytes
        default:
            throw TerminalError(step: "mapping")
        }
        let domain: PACEDomain
        switch params {
        case .ec(let c): domain = .ec(c)
        case .dh(let g): domain = .dh(g)
        }
        let keys = SessionKeys.derive(sharedSecret: shared, cipher: cipher)
        let tIFD = try PACEToken.token(keys: keys, oid: protocolOID, publicKey: ephemeralChipPublic, domain: domain)
        let ga4 = plain(.generalAuthenticate(TLVWriter.encode(0x7C, TLVWriter.encode(0x85, tIFD)), chained: false))
        guard ga4.isSuccess else { throw TerminalError(step: "GA4", statusWord: ga4.statusWord) }
        let tIC = try Self.inner(ga4.data, 0x86)
        let expected = try PACEToken.token(keys: keys, oid: protocolOID, publicKey: terminalPublic, domain: domain)
        guard tIC == expected else { throw TerminalError(step: "T_IC") }
        session = SecureMessagingSession(keys: keys)
        let aIC = try? Self.inner(ga4.data, 0x8A)
        return PACEOutcome(
            keys: keys, chipPublic: ephemeralChipPublic, mapPublicIC: mapPublicIC,
            encryptedChipAuthenticationData: aIC)
    }

    /// An inner data object of a DO'7C' response.
    static func inner(_ data: [UInt8], _ tag: UInt32) throws -> [UInt8] {
        let node = try TLVParser.parse(data)
        guard node.tag == 0x7C, let child = node.child(tag) else { throw TerminalError(step: "DO \(tag)") }
        return child.valueBytes
    }

    // MARK: Chip Authentication v1 (ICAO 9303-11 §6.2)

    enum CAKey {
        case ecdh(ECCurve)
        case dh(DHGroup)
    }

    /// Runs CA with MSE:Set KAT (3DES) or MSE:Set AT + GA (`oid` given), then switches keys.
    mutating func chipAuthentication(key: CAKey, oid: String?, keyId: Int? = nil) throws {
        let terminalPrivate: SecretBytes
        let terminalPublic: [UInt8]
        let keyIdDO = keyId.map { TLVWriter.encode(0x84, [UInt8($0)]) } ?? []
        switch key {
        case .ecdh(let curve): (terminalPrivate, terminalPublic) = try curve.generateKeyPair(random: random)
        case .dh(let group): (terminalPrivate, terminalPublic) = try group.generateKeyPair(random: random)
        }
        let cipher: CipherAlgorithm
        if let oid {
            let o = ASN1ObjectIdentifier(oid)!
            cipher = ChipSecurityInfos.chipAuthenticationProtocol(o)!.cipher
            let mse = try secure(
                .manageSecurityEnvironment(p1: 0x41, p2: 0xA4, data: TLVWriter.encode(0x80, o.encodedValue) + keyIdDO))
            guard mse.isSuccess else { throw TerminalError(step: "MSE:Set AT", statusWord: mse.statusWord) }
            let ga = try secure(
                .generalAuthenticate(TLVWriter.encode(0x7C, TLVWriter.encode(0x80, terminalPublic)), chained: false))
            guard ga.isSuccess else { throw TerminalError(step: "GA", statusWord: ga.statusWord) }
        } else {
            cipher = .tripleDES
            let mse = try secure(
                .manageSecurityEnvironment(p1: 0x41, p2: 0xA6, data: TLVWriter.encode(0x91, terminalPublic) + keyIdDO))
            guard mse.isSuccess else { throw TerminalError(step: "MSE:Set KAT", statusWord: mse.statusWord) }
        }
        pendingCA = (terminalPrivate, cipher)
    }

    /// Completes CA with the chip's static public key (as DG14 would give it).
    mutating func finishChipAuthentication(key: CAKey, chipStaticPublic: [UInt8]) throws {
        guard let (priv, cipher) = pendingCA else { throw TerminalError(step: "no CA") }
        let shared: [UInt8]
        switch key {
        case .ecdh(let curve): shared = try curve.sharedSecret(privateKey: priv, peerPublicKey: chipStaticPublic).bytes
        case .dh(let group): shared = try group.sharedSecret(privateKey: priv, peerPublicKey: chipStaticPublic).bytes
        }
        session = SecureMessagingSession(keys: SessionKeys.derive(sharedSecret: shared, cipher: cipher))
        pendingCA = nil
    }

    var pendingCA: (SecretBytes, CipherAlgorithm)? = nil
}
