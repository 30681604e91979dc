import ASN1TLV
import ISO7816
import MRTDAccessControl
import MRTDCrypto
import MRTDDocument
import MRTDSecureMessaging
import MRTDTestSupport
import Synchronization
import Testing

/// A minimal PACE chip for tests, written with the same spec steps from the chip's side
/// (9303-11 §4.4): it lets the driver run every mapping × key agreement × cipher combination.
final class PACEChip: CardTransport, @unchecked Sendable {
    let name = "pace-chip"
    private let lock = Mutex(())
    let password: AccessKey
    let group: KeyAgreementGroup
    let camKey: SecretBytes?
    var proto: PACEProtocol?
    var s: SecretBytes?
    var mapSK: SecretBytes?
    var mapped: KeyAgreementGroup?
    var ephSK: SecretBytes?, ephPK: [UInt8] = [], terminalEph: [UInt8] = []
    var keys: SessionKeys?
    var chipMapPK: [UInt8] = []
    let random = SystemRandom()

    init(password: AccessKey, group: KeyAgreementGroup, camKey: SecretBytes? = nil) {
        self.password = password
        self.group = group
        self.camKey = camKey
    }

    var capabilities: TransportCapabilities { .extended }
    var atr: [UInt8] { [0x3B, 0x00] }
    func reconnect(reset: Bool, timeout: Double) async throws {}

    func transmit(_ c: CommandAPDU) async throws -> ResponseAPDU {
        try lock.withLock { _ in try process(c) }
    }

    private func ok(_ objects: [(UInt8, [UInt8])]) -> ResponseAPDU {
        ResponseAPDU(data: DynamicAuthenticationData.encode(objects.map { (tag: $0.0, value: $0.1) }), sw: 0x9000)
    }

    private func process(_ c: CommandAPDU) throws -> ResponseAPDU {
        if c.ins == 0x22 {
            let dos = try TLVParser.parseAll(c.data)
            let oid = try ASN1ObjectIdentifier(contents: dos.first { $0.tag == 0x80 }!.value)
            guard let p = PACEProtocol(oid: oid),
                dos.first(where: { $0.tag == 0x83 })?.valueBytes == [password.passwordType.rawValue]
            else {
                return ResponseAPDU(sw: 0x6A80)
            }
            proto = p
            return ResponseAPDU(sw: 0x9000)
        }
        guard c.ins == 0x86, let p = proto else { return ResponseAPDU(sw: 0x6985) }
        let dos = try DynamicAuthenticationData.decode(c.data, step: "chip")
        let cipher = p.cipher
        if dos.isEmpty {
            // IM with AES-192/256 uses l = 256-bit blocks in R(s,t) (9303-11 §4.4.3.3.2): a 32-byte nonce.
            let nonce = random.randomBytes(count: p.mapping == .integratedMapping && cipher.keyLength > 16 ? 32 : 16)
            s = SecretBytes(nonce)
            let kPi = password.paceKey(cipher: cipher)
            let z =
                cipher == .tripleDES
                ? try TripleDES.encryptCBC(key: kPi, nonce)
                : try AES.encryptCBC(key: kPi, iv: [UInt8](repeating: 0, count: 16), nonce)
            return ok([(0x80, z)])
        }
        if let pkMapIFD = dos[0x81], mapped == nil {
            if p.mapping == .integratedMapping {
                mapped = try PACE.integratedMapping(group: group, nonce: s!, terminalNonce: pkMapIFD, cipher: cipher)
                return ok([])
            }
            let (sk, pk) = try group.generateKeyPair(random: random, step: "chip")
            mapSK = sk
            chipMapPK = pk
            mapped = try PACE.genericMapping(
                group: group, nonce: s!, terminalMappingKey: sk, chipMappingPublicKey: pkMapIFD
            ).mapped
            return ok([(0x82, pk)])
        }
        if let pkIFD = dos[0x83] {
            let (sk, pk) = try mapped!.generateKeyPair(random: random, step: "chip")
            ephSK = sk
            ephPK = pk
            terminalEph = pkIFD
            let k = try mapped!.sharedSecret(privateKey: sk, peerPublicKey: pkIFD)
            keys = SessionKeys.derive(sharedSecret: k.bytes, cipher: cipher)
            return ok([(0x84, pk)])
        }
        if let tIFD = dos[0x85] {
            let expected = try PACE.authenticationToken(
                macKey: keys!.mac, cipher: cipher, protocol: p.oid, publicKey: ephPK, group: mapped!)
            guard tIFD == expected else { return ResponseAPDU(sw: 0x6300) }
            let tIC = try PACE.authenticationToken(
                macKey: keys!.mac, cipher: cipher, protocol: p.oid, publicKey: terminalEph, group: mapped!)
            if p.mapping == .chipAuthenticationMapping, let ca = camKey, case .ec(let curve) = group {
                // CA_IC = SK_map,IC · SK_IC^-1 mod n (9303-11 §4.4.3.5.1), encrypted with IV = E(KSenc, FF…FF).
                let n = BigNumber(curve.order)
                let caIC = BigNumber.modMul(BigNumber(mapSK!.bytes), BigNumber.modInverse(BigNumber(ca.bytes), n)!, n)
                    .bytes(width: curve.order.count)
                let aIC = try SecureMessagingSession(keys: keys!).encryptCAMData(caIC)
                return ok([(0x86, tIC), (0x8A, aIC)])
            }
            return ok([(0x86, tIC)])
        }
        return ResponseAPDU(sw: 0x6A80)
    }
}

/// PACE round trips over the simulated chip for every supported combination.
@Suite struct PACESimulationTests {
    static let mrz = AccessKey.mrz(
        try! MRZKey(documentNumber: "L898902C", dateOfBirth: "690806", dateOfExpiry: "940623"))

    @Test(arguments: [
        (PACEMapping.genericMapping, CipherAlgorithm.aes256, 12),  // NIST P-256
        (.genericMapping, .aes128, 13),  // brainpoolP256r1
        (.genericMapping, .tripleDES, 13),
        (.genericMapping, .aes192, 15),  // NIST P-384
        (.genericMapping, .aes256, 18),  // NIST P-521
        (.genericMapping, .tripleDES, 0),  // RFC 5114 1024/160
        (.genericMapping, .aes128, 2),  // RFC 5114 2048/256
        (.integratedMapping, .aes128, 13),
        (.integratedMapping, .aes256, 16),  // brainpoolP384r1
        (.integratedMapping, .aes192, 0),
        (.integratedMapping, .tripleDES, 13),
        (.integratedMapping, .tripleDES, 1),  // RFC 5114 2048/224
        (.chipAuthenticationMapping, .aes128, 12),
    ])
    func roundTrip(mapping: PACEMapping, cipher: CipherAlgorithm, parameterId: Int) async throws {
        let group = KeyAgreementGroup.standardized(parameterId)!
        let ka: KeyAgreementAlgorithm = group.isEC ? .ecdh : .dh
        let proto = PACEProtocol(mapping: mapping, keyAgreement: ka, cipher: cipher)
        var camSK: SecretBytes? = nil
        var camPK: [UInt8] = []
        if mapping == .chipAuthenticationMapping {
            let kp = try group.generateKeyPair(random: SystemRandom(), step: "test")
            camSK = kp.privateKey
            camPK = kp.publicKey
        }
        for key in [Self.mrz, AccessKey.can("123456")] {
            let chip = PACEChip(password: key, group: group, camKey: camSK)
            let info = PACEInfo(protocol: proto.oid, version: 2, parameterId: parameterId)
            let r = try await PACE.perform(transport: chip, key: key, info: info)
            #expect(r.sessionKeys == chip.keys)
            #expect(r.protocol == proto)
            #expect(r.sessionKeys.encryption.count == cipher.keyLength)
            if mapping == .chipAuthenticationMapping {
                let cam = try #require(r.chipAuthenticationMapping)
                #expect(try cam.verify(chipStaticPublicKey: camPK))
                let other = try group.generateKeyPair(random: SystemRandom(), step: "test").publicKey
                #expect(try !cam.verify(chipStaticPublicKey: other))
            }
            // Wrong password against the same chip: 6300 at mutual authentication.
            let chip2 = PACEChip(password: key, group: group, camKey: camSK)
            let wrong: AccessKey =
                key.passwordType == .can
                ? .can("123457")
                : .mrz(try MRZKey(documentNumber: "L898902C", dateOfBirth: "690806", dateOfExpiry: "940624"))
            let e = await #expect(throws: AccessControlError.self) {
                _ = try await PACE.perform(transport: chip2, key: wrong, info: info)
            }
            #expect(e?.code == .wrongPassword && e?.step == "GA mutual authentication")
        }
    }
}
