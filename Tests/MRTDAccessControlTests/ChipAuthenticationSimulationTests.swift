import ASN1TLV
import ISO7816
import MRTDAccessControl
import MRTDCrypto
import MRTDDocument
import MRTDSecureMessaging
import MRTDTestSupport
import Synchronization
import Testing

/// A minimal chip for Chip Authentication v1 (test only): answers MSE:Set KAT / MSE:Set AT + GA under
/// secure messaging, then switches to KDF(K) keys with SSC 0 and answers SELECT.
final class CAChip: CardTransport, @unchecked Sendable {
    let name = "ca-chip"
    private let lock = Mutex(())
    private var session: SecureMessagingSession
    private let group: KeyAgreementGroup
    private let privateKey: SecretBytes
    private let cipher: CipherAlgorithm
    private var pending: SecureMessagingSession?
    var sawCommands: [UInt8] = []

    init(
        session: consuming SecureMessagingSession, group: KeyAgreementGroup, privateKey: SecretBytes,
        cipher: CipherAlgorithm
    ) {
        self.session = session
        self.group = group
        self.privateKey = privateKey
        self.cipher = cipher
    }

    var capabilities: TransportCapabilities { .extended }
    var atr: [UInt8] { [0x3B, 0x00] }
    func reconnect(reset: Bool, timeout: Double) async throws {}

    func transmit(_ command: CommandAPDU) async throws -> ResponseAPDU {
        try lock.withLock { _ in
            let plain = try session.unprotectCommand(command)
            sawCommands.append(plain.ins)
            var answer = ResponseAPDU(sw: 0x9000)
            var switchAfter = false
            switch (plain.ins, plain.p2) {
            case (0x22, 0xA6):
                let dos = try TLVParser.parseAll(plain.data)
                let pk = dos.first { $0.tag == 0x91 }!.valueBytes
                let k = try group.sharedSecret(privateKey: privateKey, peerPublicKey: pk)
                pending = SecureMessagingSession(keys: SessionKeys.derive(sharedSecret: k.bytes, cipher: cipher))
                switchAfter = true
            case (0x22, 0xA4):
                break
            case (0x86, _):
                let t = try TLVParser.parse(plain.data)
                let pk = t.children.first { $0.tag == 0x80 }!.valueBytes
                let k = try group.sharedSecret(privateKey: privateKey, peerPublicKey: pk)
                pending = SecureMessagingSession(keys: SessionKeys.derive(sharedSecret: k.bytes, cipher: cipher))
                answer = ResponseAPDU(data: [0x7C, 0x00], sw: 0x9000)
                switchAfter = true
            case (0xA4, _):
                break
            default:
                answer = ResponseAPDU(sw: 0x6D00)
            }
            let protected = try session.protectResponse(answer)
            if switchAfter, let p = pending.take() { session = p }
            return protected
        }
    }
}

/// CA v1 end to end against the simulated chip: DH with 3DES (MSE:Set KAT) and ECDH with AES (MSE:Set AT + GA),
/// keys from the BSI EAC worked example; the next protected SELECT proves the new session.
@Suite struct ChipAuthenticationSimulationTests {
    static func dg14(_ pkInfo: [UInt8], _ caOID: String) -> [UInt8] {
        TLVWriter.encode(0x6E, DER.set([pkInfo, DER.sequence(DER.objectIdentifier(caOID), DER.integer(1))]))
    }

    func run(file: String, caOID: String, cipher: CipherAlgorithm, wrongChipKey: Bool = false) async throws -> (
        Bool, [UInt8]
    ) {
        let v = try Vector(file)
        let dh = file.contains("-dh")
        let group = KeyAgreementGroup.standardized(dh ? 0 : 13)!
        let keyValue: [UInt8] = dh ? DER.integer(unsigned: v.bytes("ic_static_public")) : v.bytes("ic_static_public")
        let spki = DER.sequence(
            DER.sequence(DER.objectIdentifier("0.4.0.127.0.7.1.2"), DER.integer(dh ? 0 : 13)), DER.bitString(keyValue))
        let pk = DER.sequence(DER.objectIdentifier(dh ? "0.4.0.127.0.7.2.2.1.1" : "0.4.0.127.0.7.2.2.1.2"), spki)
        let params = try ChipAuthentication.parameters(from: SecurityInfos.parseDG14(Self.dg14(pk, caOID)))
        #expect(params.cipher == cipher)
        let pre = SessionKeys.derive(sharedSecret: [1, 2, 3], cipher: .tripleDES)
        var chipKey = Array(v.bytes("ic_static_private").drop { $0 == 0 })
        if wrongChipKey { chipKey = flipBit(chipKey, at: chipKey.count - 1) }
        let chip = CAChip(
            session: SecureMessagingSession(keys: pre, ssc: [UInt8](repeating: 0, count: 8)), group: group,
            privateKey: SecretBytes(chipKey), cipher: cipher)
        let channel = SecureChannel(
            transport: chip, session: SecureMessagingSession(keys: pre, ssc: [UInt8](repeating: 0, count: 8)))
        let eph = Array(v.bytes("ifd_eph_private").drop { $0 == 0 })
        let width = (BigNumber(dh ? KeyAgreementGroupBound.q(group) : KeyAgreementGroupBound.n(group)).bitCount + 7) / 8
        let ephReduced = BigNumber(eph).mod(
            BigNumber(dh ? KeyAgreementGroupBound.q(group) : KeyAgreementGroupBound.n(group))
        ).bytes(width: width)
        let r = try await ChipAuthentication.performAndInstall(
            channel: channel, parameters: params, random: FixedRandom([ephReduced]))
        let ok: Bool
        do { ok = try await channel.transmit(.selectFile(0x010E)).statusWord == .success } catch { ok = false }
        return (ok, r.terminalEphemeralPublicKey + chip.sawCommands)
    }

    @Test func dh3DESWithSetKAT() async throws {
        let (ok, trace) = try await run(
            file: "ca/bsi-eac-worked-example-v101-ca-dh.json", caOID: "0.4.0.127.0.7.2.2.3.1.1", cipher: .tripleDES)
        #expect(ok)
        #expect(Array(trace.suffix(2)) == [0x22, 0xA4])
    }

    @Test func ecdhAESWithSetATAndGA() async throws {
        let (ok, trace) = try await run(
            file: "ca/bsi-eac-worked-example-v101-ca-ecdh.json", caOID: "0.4.0.127.0.7.2.2.3.2.2", cipher: .aes128)
        #expect(ok)
        #expect(Array(trace.suffix(3)) == [0x22, 0x86, 0xA4])
        #expect(
            Array(trace.prefix(65))
                == (try Vector("ca/bsi-eac-worked-example-v101-ca-ecdh.json")).bytes("ifd_eph_public"))
    }

    /// Negative twin: the chip holds another key than DG14 says (a clone) → the first protected read fails.
    @Test(arguments: [
        ("ca/bsi-eac-worked-example-v101-ca-dh.json", "0.4.0.127.0.7.2.2.3.1.1", CipherAlgorithm.tripleDES),
        ("ca/bsi-eac-worked-example-v101-ca-ecdh.json", "0.4.0.127.0.7.2.2.3.2.2", CipherAlgorithm.aes128),
    ])
    func cloneFailsTheNextRead(file: String, oid: String, cipher: CipherAlgorithm) async throws {
        let (ok, _) = try await run(file: file, caOID: oid, cipher: cipher, wrongChipKey: true)
        #expect(!ok)
    }
}

enum KeyAgreementGroupBound {
    static func q(_ g: KeyAgreementGroup) -> [UInt8] { if case .dh(let d) = g { return d.q! } else { return [] } }
    static func n(_ g: KeyAgreementGroup) -> [UInt8] { if case .ec(let c) = g { return c.order } else { return [] } }
}
