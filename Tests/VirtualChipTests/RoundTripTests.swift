import ASN1TLV
import DocumentGenerator
import ISO7816
import MRTDCrypto
import MRTDDocument
import MRTDSecureMessaging
import MRTDTestSupport
import Testing

@testable import VirtualChip

/// PACE configurations run with random keys on both sides (chip: SystemRandom; terminal: the
/// test terminal), then a protected read.
struct PACEConfiguration: Sendable, CustomTestStringConvertible {
    var mapping: Int  // 1 DH-GM, 2 ECDH-GM, 3 DH-IM, 4 ECDH-IM, 6 ECDH-CAM
    var cipher: Int  // 1 3DES, 2 AES-128, 3 AES-192, 4 AES-256
    var parameterId: Int
    var password: VirtualChip.PACEPassword
    var testDescription: String { "mapping \(mapping) cipher \(cipher) params \(parameterId) \(password)" }

    var oid: String { TestProfiles.paceOID(mapping: mapping, cipher: cipher) }

    static let all: [PACEConfiguration] = [
        .init(mapping: 2, cipher: 2, parameterId: 13, password: .mrz),  // GM-ECDH brainpoolP256r1 AES-128, MRZ
        .init(mapping: 2, cipher: 2, parameterId: 13, password: .can),  // … with CAN
        .init(mapping: 2, cipher: 4, parameterId: 12, password: .mrz),  // GM-ECDH NIST P-256 AES-256
        .init(mapping: 2, cipher: 3, parameterId: 15, password: .can),  // GM-ECDH P-384 AES-192
        .init(mapping: 2, cipher: 4, parameterId: 18, password: .mrz),  // GM-ECDH P-521 AES-256 (order of 521 bits)
        .init(mapping: 2, cipher: 4, parameterId: 17, password: .can),  // GM-ECDH brainpoolP512r1 AES-256
        .init(mapping: 6, cipher: 4, parameterId: 18, password: .can),  // CAM P-521 AES-256
        .init(mapping: 1, cipher: 1, parameterId: 0, password: .mrz),  // GM-DH 1024 3DES
        .init(mapping: 1, cipher: 2, parameterId: 2, password: .can),  // GM-DH 2048/256 AES-128
        .init(mapping: 4, cipher: 2, parameterId: 13, password: .mrz),  // IM-ECDH
        .init(mapping: 4, cipher: 4, parameterId: 12, password: .can),  // IM-ECDH P-256 AES-256 (l = 256)
        .init(mapping: 4, cipher: 1, parameterId: 13, password: .mrz),  // IM-ECDH 3DES (k = l = 128)
        .init(mapping: 3, cipher: 2, parameterId: 0, password: .can),  // IM-DH
        .init(mapping: 3, cipher: 3, parameterId: 1, password: .mrz),  // IM-DH 2048/224 AES-192 (k_i truncated)
        .init(mapping: 2, cipher: 1, parameterId: 8, password: .mrz),  // GM-ECDH P-192 3DES
        .init(mapping: 6, cipher: 2, parameterId: 12, password: .mrz),  // CAM P-256 AES-128
    ]
}

@Suite struct RoundTripTests {
    static let mrzInformation = "L898902C<369080619406236"

    static func camKey(parameterId: Int) throws -> (ChipAuthenticationKey, [UInt8]) {
        guard case .ec(let curve)? = StandardDomainParameters.parameters(id: parameterId) else {
            throw TerminalError(step: "curve")
        }
        let (priv, pub) = try curve.generateKeyPair(random: SystemRandom())
        return (
            ChipAuthenticationKey(
                agreement: .ecdh(curve: curve, privateKey: priv, publicKey: pub), parameterId: parameterId), pub
        )
    }

    @Test(arguments: PACEConfiguration.all)
    func pace(_ config: PACEConfiguration) throws {
        var keys = ChipKeys()
        var staticPublic: [UInt8] = []
        if config.mapping == 6 {
            let (key, pub) = try Self.camKey(parameterId: config.parameterId)
            keys.chipAuthentication = key
            staticPublic = pub
        }
        let profile = TestProfiles.profile(
            cardAccess: TestProfiles.cardAccess([(config.oid, config.parameterId)]),
            supportsBAC: false, keys: keys)
        let chip = VirtualChip(profile: profile)
        var terminal = TestTerminal(chip: chip)
        let password =
            config.password == .mrz ? HashAlgorithm.sha1.hash(Array(Self.mrzInformation.utf8)) : Array("123456".utf8)
        let outcome = try terminal.pace(
            oid: config.oid, parameterId: config.parameterId, password: password,
            reference: config.password.rawValue)
        #expect(chip.snapshot.secureMessagingActive)
        guard case .pace(_, let ref, _)? = chip.snapshot.access else {
            Issue.record("no PACE access")
            return
        }
        #expect(ref == config.password)
        #expect(try terminal.secure(.selectApplication(MRTDApplication.lds1AID)).isSuccess)
        #expect(try terminal.secure(.readBinary(sfi: 0x01, offset: 0, ne: 256)).data == TestProfiles.dg1)

        if config.mapping == 6 {
            // CAM: decrypt A_IC and check CA_IC · PK_IC = PK_map,IC (ICAO 9303-11 §4.4.3.5.2).
            guard case .ec(let curve)? = StandardDomainParameters.parameters(id: config.parameterId),
                let aIC = outcome.encryptedChipAuthenticationData, let mapIC = outcome.mapPublicIC
            else {
                Issue.record("no CAM data")
                return
            }
            let iv = try AES.encryptECB(key: outcome.keys.encryption, [UInt8](repeating: 0xFF, count: 16))
            let caIC = try Padding.unpad(AES.decryptCBC(key: outcome.keys.encryption, iv: iv, aIC), blockSize: 16)
            #expect(try curve.multiply(staticPublic, by: caIC) == mapIC)
        } else {
            #expect(outcome.encryptedChipAuthenticationData == nil)
        }
    }

    /// Wrong MRZ / CAN: mutual authentication fails (the terminal sees 6300 at GA4).
    @Test(arguments: [VirtualChip.PACEPassword.mrz, .can])
    func wrongPassword(_ reference: VirtualChip.PACEPassword) throws {
        let oid = TestProfiles.paceOID(mapping: 2, cipher: 2)
        let chip = VirtualChip(profile: TestProfiles.profile(cardAccess: TestProfiles.cardAccess([(oid, 13)])))
        var terminal = TestTerminal(chip: chip)
        let password =
            reference == .mrz ? HashAlgorithm.sha1.hash(Array("L898902C<369080619406237".utf8)) : Array("654321".utf8)
        do {
            _ = try terminal.pace(oid: oid, parameterId: 13, password: password, reference: reference.rawValue)
            Issue.record("PACE succeeded with a wrong password")
        } catch let error as TerminalError {
            #expect(error.step == "GA4")
            #expect(error.statusWord == StatusWord(rawValue: 0x6300))
        }
        #expect(!chip.snapshot.secureMessagingActive)
    }

    /// MSE:Set AT checks (ICAO 9303-11 §4.4.4.1): unknown OID, PIN reference, parameter id rules.
    @Test func mseSetAT() {
        let gm = TestProfiles.paceOID(mapping: 2, cipher: 2)
        let oid = ASN1ObjectIdentifier(gm)!.encodedValue
        func mse(_ chip: VirtualChip, _ data: [UInt8]) -> StatusWord {
            chip.send(.manageSecurityEnvironment(p1: 0xC1, p2: 0xA4, data: data)).statusWord
        }
        let base = TLVWriter.encode(0x80, oid) + TLVWriter.encode(0x83, [0x01])
        let lenient = VirtualChip(profile: TestProfiles.profile(cardAccess: TestProfiles.cardAccess([(gm, 13)])))
        #expect(mse(lenient, base) == .success)
        #expect(mse(lenient, base + TLVWriter.encode(0x84, [13])) == .success)
        #expect(mse(lenient, base + TLVWriter.encode(0x84, [12])) == .wrongData)
        #expect(mse(lenient, TLVWriter.encode(0x80, oid) + TLVWriter.encode(0x83, [0x03])) == .referencedDataNotFound)
        let aes256 = ASN1ObjectIdentifier(TestProfiles.paceOID(mapping: 2, cipher: 4))!.encodedValue
        #expect(mse(lenient, TLVWriter.encode(0x80, aes256) + TLVWriter.encode(0x83, [0x01])) == .wrongData)
        // GENERAL AUTHENTICATE without MSE
        #expect(lenient.send(hex: "10860000027C0000") == "6985")

        let strict = VirtualChip(
            profile: TestProfiles.profile(
                cardAccess: TestProfiles.cardAccess([(gm, 13)]),
                link: LinkBehaviour(requiresParameterIdInMSE: true)))
        #expect(mse(strict, base) == .wrongData)
        #expect(mse(strict, base + TLVWriter.encode(0x84, [13])) == .success)
    }

    /// PACE-CAM needs the chip's static CA key on the PACE curve: otherwise MSE:Set AT is refused (6A80).
    @Test func camNeedsMatchingKey() throws {
        let cam = TestProfiles.paceOID(mapping: 6, cipher: 2)
        let data = TLVWriter.encode(0x80, ASN1ObjectIdentifier(cam)!.encodedValue) + TLVWriter.encode(0x83, [0x01])
        let (p256Key, _) = try Self.camKey(parameterId: 12)
        for (parameterId, expected) in [(12, StatusWord.success), (13, .wrongData)] {
            let chip = VirtualChip(
                profile: TestProfiles.profile(
                    cardAccess: TestProfiles.cardAccess([(cam, parameterId)]),
                    keys: ChipKeys(chipAuthentication: p256Key)))
            #expect(chip.send(.manageSecurityEnvironment(p1: 0xC1, p2: 0xA4, data: data)).statusWord == expected)
        }
        let noKey = VirtualChip(profile: TestProfiles.profile(cardAccess: TestProfiles.cardAccess([(cam, 12)])))
        #expect(noKey.send(.manageSecurityEnvironment(p1: 0xC1, p2: 0xA4, data: data)).statusWord == .wrongData)
    }

    /// After PACE, a second PACE (plain MSE) ends the first session and works.
    @Test func paceTwice() throws {
        let oid = TestProfiles.paceOID(mapping: 2, cipher: 2)
        let chip = VirtualChip(profile: TestProfiles.profile(cardAccess: TestProfiles.cardAccess([(oid, 13)])))
        var terminal = TestTerminal(chip: chip)
        let pi = HashAlgorithm.sha1.hash(Array(Self.mrzInformation.utf8))
        _ = try terminal.pace(oid: oid, parameterId: 13, password: pi, reference: 1)
        _ = try terminal.pace(oid: oid, parameterId: 13, password: pi, reference: 1)
        #expect(chip.snapshot.droppedSessions == 1)
        #expect(try terminal.secure(.selectApplication(MRTDApplication.lds1AID)).isSuccess)
    }

    /// Concurrent use from many tasks keeps the chip consistent (the mutex serialises commands).
    @Test func concurrentPlainReads() async {
        let chip = VirtualChip(
            profile: TestProfiles.profile(
                cardAccess: TestProfiles.cardAccess([(TestProfiles.paceOID(mapping: 2, cipher: 2), 13)])))
        let results = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<32 {
                group.addTask {
                    let r = chip.send(.readBinary(sfi: 0x1C, offset: 0, ne: 256))
                    return r.statusWord == .endOfFileReached && r.data.count > 0
                }
            }
            var all: [Bool] = []
            for await r in group { all.append(r) }
            return all
        }
        #expect(results.allSatisfy { $0 })
    }
}
