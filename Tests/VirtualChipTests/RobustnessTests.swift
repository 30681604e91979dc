import DocumentGenerator
import ISO7816
import MRTDCrypto
import MRTDDocument
import MRTDSecureMessaging
import MRTDTestSupport
import Testing

@testable import VirtualChip

/// Garbage in any state gives a status word, never a crash, and the chip stays usable afterwards.
@Suite struct RobustnessTests {
    static let instructions: [UInt8] = [0xA4, 0xB0, 0xB1, 0x84, 0x82, 0x22, 0x86, 0x88, 0xC0, 0xCA, 0x2A]
    static let classes: [UInt8] = [0x00, 0x0C, 0x10, 0x1C, 0x80, 0x01]

    static func randomCommand(_ g: inout SplitMix64) -> [UInt8] {
        let header = [
            classes.randomElement(using: &g)!, instructions.randomElement(using: &g)!,
            UInt8.random(in: 0...255, using: &g), UInt8.random(in: 0...255, using: &g),
        ]
        switch Int.random(in: 0..<6, using: &g) {
        case 0: return header
        case 1: return header + [UInt8.random(in: 0...255, using: &g)]
        case 2:
            // a well-formed body with random TLV-ish data
            let n = Int.random(in: 1...80, using: &g)
            var data = (0..<n).map { _ in UInt8.random(in: 0...255, using: &g) }
            if Bool.random(using: &g) { data[0] = [0x7C, 0x80, 0x54, 0x87, 0x91].randomElement(using: &g)! }
            return header + [UInt8(n)] + data + (Bool.random(using: &g) ? [0x00] : [])
        case 3:
            let n = Int.random(in: 1...300, using: &g)
            return header + [0x00, UInt8(n >> 8), UInt8(n & 0xFF)]
                + (0..<n).map { _ in UInt8.random(in: 0...255, using: &g) } + [0x00, 0x00]
        case 4: return header + [0x00, UInt8.random(in: 0...255, using: &g), UInt8.random(in: 0...255, using: &g)]
        default:
            return header + (0..<Int.random(in: 0...12, using: &g)).map { _ in UInt8.random(in: 0...255, using: &g) }
        }
    }

    @Test(arguments: [UInt64(1), 2, 3])
    func garbageNeverCrashes(seed: UInt64) throws {
        var g = SplitMix64(seed: seed)
        let oid = TestProfiles.paceOID(mapping: 2, cipher: 2)
        let key = try PrivateKey.generateEC(curve: ECCurve(named: .secp256r1))
        let curve = ECCurve(named: .secp256r1)
        let (caPriv, caPub) = try curve.generateKeyPair(random: SystemRandom())
        let profile = TestProfiles.profile(
            cardAccess: TestProfiles.cardAccess([(oid, 12), (TestProfiles.paceOID(mapping: 6, cipher: 2), 12)]),
            extraFiles: [.dg2: TestProfiles.bigFile(size: 40_000)],
            keys: ChipKeys(
                chipAuthentication: ChipAuthenticationKey(
                    agreement: .ecdh(curve: curve, privateKey: caPriv, publicKey: caPub)),
                activeAuthentication: key))
        let chip = VirtualChip(profile: profile)
        var terminal = TestTerminal(chip: chip)
        for round in 0..<1000 {
            if round % 50 == 0 {
                // Re-establish access so that garbage also meets the authenticated states.
                _ = try terminal.pace(oid: oid, parameterId: 12, password: Array("123456".utf8), reference: 2)
            }
            let answer = chip.process(Self.randomCommand(&g))
            #expect(answer.count >= 2)
        }
        // Still a working chip.
        _ = try terminal.pace(oid: oid, parameterId: 12, password: Array("123456".utf8), reference: 2)
        #expect(try terminal.secure(.selectApplication(MRTDApplication.lds1AID)).isSuccess)
        #expect(try terminal.secure(.readBinary(sfi: 0x01, offset: 0, ne: 4)).data == Array(TestProfiles.dg1.prefix(4)))
    }

    /// Every PACE step fed with mutated data objects fails with a status word and resets PACE.
    /// '00 B0 00 00 00 12': a two-byte body starting with 00 is malformed (6700), not a crash.
    @Test func twoByteExtendedBody() {
        let chip = VirtualChip(profile: TestProfiles.profile())
        #expect(chip.send(hex: "00B000000012") == "6700")
    }

    @Test func mutatedPACESteps() throws {
        var g = SplitMix64(seed: 42)
        let oid = TestProfiles.paceOID(mapping: 2, cipher: 2)
        let chip = VirtualChip(profile: TestProfiles.profile(cardAccess: TestProfiles.cardAccess([(oid, 13)])))
        for _ in 0..<200 {
            _ = chip.send(hex: "0022C1A40F800A04007F00070202040202830101")
            _ = chip.send(hex: "10860000027C0000")
            let n = Int.random(in: 0...70, using: &g)
            var body = (0..<n).map { _ in UInt8.random(in: 0...255, using: &g) }
            if Bool.random(using: &g) { body = [0x7C, UInt8(n + 2), 0x81, UInt8(n)] + body }
            let command = CommandAPDU(
                cla: 0x10, ins: 0x86, p1: 0, p2: 0, data: body.isEmpty ? [0x7C, 0x00] : body, ne: 256)
            let r = chip.send(command)
            #expect(r.statusWord != .success || r.data.first == 0x7C)
        }
    }
}
