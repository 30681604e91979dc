import ASN1TLV
import ISO7816
import MRTDAccessControl
import MRTDCrypto
import MRTDDocument
import MRTDSecureMessaging
import MRTDTestSupport
import Testing

/// Chip Authentication — version 1 from DG14 (ICAO 9303-11 §6.2, §9.7.4) replayed from a real trace,
/// and the key agreement / key derivation values of the BSI EAC worked example (CA version 2).
@Suite struct ChipAuthenticationTests {
    static let at = "ca/gmrtd-ca-v1-at-passport.json"

    @Test func parametersFromDG14() throws {
        let v = try Vector(Self.at)
        let p = try ChipAuthentication.parameters(from: SecurityInfos.parseDG14(v.bytes("dg14")))
        #expect(p.protocolName == "id-CA-ECDH-AES-CBC-CMAC-128")
        #expect(p.cipher == .aes128 && p.keyAgreement == .ecdh && p.keyId == nil)
        #expect(p.chipPublicKey == v.bytes("ic_static_public"))
        guard case .ec(let curve) = p.group else {
            Issue.record("expected EC")
            return
        }
        #expect(curve.namedCurve == .brainpoolP256r1)
        #expect(try p.group.publicKey(for: SecretBytes(v.bytes("ifd_eph_private"))) == v.bytes("ifd_eph_public"))
        let k = try p.group.sharedSecret(
            privateKey: SecretBytes(v.bytes("ifd_eph_private")), peerPublicKey: p.chipPublicKey)
        #expect(k.bytes == hex((v.values["computed"] as! [String: String])["shared_secret_k"]!))
        let keys = ChipAuthentication.sessionKeys(sharedSecret: k.bytes, cipher: p.cipher)
        #expect(keys.encryption.bytes == v.bytes("post_ca_ks_enc"))
        #expect(keys.mac.bytes == v.bytes("post_ca_ks_mac"))
        #expect(
            ChipAuthentication.mseSetAT(protocol: p.protocol, keyId: nil).bytes
                == hex("002241A40C800A04007F00070202030202"))
        #expect(
            ChipAuthentication.generalAuthenticate(ephemeralPublicKey: v.bytes("ifd_eph_public")).bytes
                == hex("00860000457C438041") + v.bytes("ifd_eph_public") + [0x00])
    }

    func channel(_ v: Vector, _ script: [(String, String)]) -> (SecureChannel, ScriptedTransport) {
        let transport = ScriptedTransport(hexPairs: script)
        let keys = SessionKeys(
            cipher: .aes128, encryption: SecretBytes(v.bytes("pre_ca_ks_enc")),
            mac: SecretBytes(v.bytes("pre_ca_ks_mac")))
        return (
            SecureChannel(
                transport: transport, session: SecureMessagingSession(keys: keys, ssc: v.bytes("pre_ca_ssc"))),
            transport
        )
    }

    /// The real CA v1 exchange through secure messaging, then the first read under the new keys (SSC 0).
    @Test func realTraceReplay() async throws {
        let v = try Vector(Self.at)
        let pre = v.apdus("apdus_pre_ca_sm")
        let post = v.apdus("apdus_post_ca_sm")
        let (ch, transport) = channel(v, pre.map { ($0.command, $0.response) } + post.map { ($0.command, $0.response) })
        let p = try ChipAuthentication.parameters(from: SecurityInfos.parseDG14(v.bytes("dg14")))
        let r = try await ChipAuthentication.performAndInstall(
            channel: ch, parameters: p, random: FixedRandom([v.bytes("ifd_eph_private")]))
        #expect(r.terminalEphemeralPublicKey == v.bytes("ifd_eph_public"))
        #expect(r.sessionKeys.encryption.bytes == v.bytes("post_ca_ks_enc"))
        let sel = try await ch.transmit(.selectFile(0x010E))
        #expect(sel.statusWord == .success)
        #expect(transport.isFinished)
    }

    /// Negative twin: a flipped bit in the chip's static key → another K; the first protected read under
    /// the new keys is not the recorded one.
    @Test func flippedEphemeralKeyChangesSession() async throws {
        let v = try Vector(Self.at)
        let p = try ChipAuthentication.parameters(from: SecurityInfos.parseDG14(v.bytes("dg14")))
        let k = try p.group.sharedSecret(
            privateKey: SecretBytes(flipBit(v.bytes("ifd_eph_private"), at: 31)), peerPublicKey: p.chipPublicKey)
        #expect(
            ChipAuthentication.sessionKeys(sharedSecret: k.bytes, cipher: .aes128).encryption.bytes
                != v.bytes("post_ca_ks_enc"))
        // And a chip that refuses MSE:Set AT stops CA at that step.
        let pre = v.apdus("apdus_pre_ca_sm")
        var keys = SessionKeys(
            cipher: .aes128, encryption: SecretBytes(v.bytes("pre_ca_ks_enc")),
            mac: SecretBytes(v.bytes("pre_ca_ks_mac")))
        var chip = SecureMessagingSession(keys: keys, ssc: v.bytes("pre_ca_ssc"))
        _ = try chip.unprotectCommand(CommandAPDU(bytes: hex(pre[0].command)))
        let refused = try chip.protectResponse(ResponseAPDU(sw: 0x6A80))
        keys = SessionKeys(
            cipher: .aes128, encryption: SecretBytes(v.bytes("pre_ca_ks_enc")),
            mac: SecretBytes(v.bytes("pre_ca_ks_mac")))
        let transport = ScriptedTransport(hexPairs: [(pre[0].command, hexString(refused.bytes))])
        let ch = SecureChannel(
            transport: transport, session: SecureMessagingSession(keys: keys, ssc: v.bytes("pre_ca_ssc")))
        let e = await #expect(throws: AccessControlError.self) {
            _ = try await ChipAuthentication.perform(
                channel: ch, parameters: p, random: FixedRandom([v.bytes("ifd_eph_private")]))
        }
        #expect(e?.step == "MSE:Set AT")
        #expect(e?.statusWord == StatusWord(rawValue: 0x6A80))
    }

    /// 3DES variant: MSE:Set KAT with DO'91' (and DO'84' when a key id is given).
    @Test func mseSetKAT() {
        #expect(
            ChipAuthentication.mseSetKAT(ephemeralPublicKey: [0x04, 0x01, 0x02], keyId: nil).bytes
                == hex("002241A605910304010 2".filter { $0 != " " }))
        #expect(
            ChipAuthentication.mseSetKAT(ephemeralPublicKey: [0x04], keyId: 1).bytes == hex("002241A606910104840101"))
        #expect(
            ChipAuthentication.mseSetAT(protocol: "0.4.0.127.0.7.2.2.3.1.2", keyId: 2).bytes
                == hex("002241A40F800A04007F00070202030102840102"))
    }

    /// DG14 specimens with only 3DES CA: the implied protocol and the explicit curve.
    @Test(.sharedFixtures) func specimenDG14() throws {
        let file = try AccessControlFixtures.bytes("specimens/bsi2008/Datagroup14.bin")
        let p = try ChipAuthentication.parameters(from: SecurityInfos.parseDG14(file))
        #expect(p.protocolName == "id-CA-ECDH-3DES-CBC-CBC")
        #expect(p.cipher == .tripleDES)
        #expect(p.chipPublicKey.count == 57)
    }

    /// BSI EAC worked example (CA version 2, which adds a nonce r_IC and a token): the key agreement and the
    /// TR-03110 v2 derivation KDF(K || r_IC) reproduce the published keys and token.
    @Test(arguments: ["ca/bsi-eac-worked-example-v101-ca-ecdh.json", "ca/bsi-eac-worked-example-v101-ca-dh.json"])
    func bsiCAv2(file: String) throws {
        let v = try Vector(file)
        let dh = file.contains("-dh")
        let group = KeyAgreementGroup.standardized(dh ? 0 : 13)!
        let skIFD = Array(v.bytes("ifd_eph_private").drop { $0 == 0 })
        #expect(try group.publicKey(for: SecretBytes(skIFD)) == v.bytes("ifd_eph_public"))
        #expect(
            try group.publicKey(for: SecretBytes(Array(v.bytes("ic_static_private").drop { $0 == 0 })))
                == v.bytes("ic_static_public"))
        let k = try group.sharedSecret(privateKey: SecretBytes(skIFD), peerPublicKey: v.bytes("ic_static_public"))
        #expect(k.bytes == v.bytes("shared_secret_k"))
        let keys = SessionKeys.derive(sharedSecret: k.bytes + v.bytes("nonce_r_ic"), cipher: .aes128)
        #expect(keys.encryption.bytes == v.bytes("ks_enc"))
        #expect(keys.mac.bytes == v.bytes("ks_mac"))
        let oid = try ASN1ObjectIdentifier(contents: v.bytes("ca_oid")[...])
        #expect(
            try PACE.authenticationToken(
                macKey: keys.mac, cipher: .aes128, protocol: oid,
                publicKey: v.bytes("ifd_eph_public"), group: group) == v.bytes("token_t_ic"))
        // Negative twin: version 1 derivation (no nonce) gives other keys.
        #expect(
            ChipAuthentication.sessionKeys(sharedSecret: k.bytes, cipher: .aes128).encryption.bytes != v.bytes("ks_enc")
        )
    }

    @Test func dhPublicKeyWithStandardizedParameters() throws {
        // id-PK-DH with standardized parameters 0 and y wrapped in an INTEGER (TR-03110-3 A.1.1.2).
        let v = try Vector("ca/bsi-eac-worked-example-v101-ca-dh.json")
        let spki = DER.sequence(
            DER.sequence(DER.objectIdentifier("0.4.0.127.0.7.1.2"), DER.integer(0)),
            DER.bitString(DER.integer(unsigned: v.bytes("ic_static_public"))))
        let dg14 = TLVWriter.encode(
            0x6E,
            DER.set([
                DER.sequence(DER.objectIdentifier("0.4.0.127.0.7.2.2.1.1"), spki, DER.integer(1)),
                DER.sequence(DER.objectIdentifier("0.4.0.127.0.7.2.2.3.1.2"), DER.integer(1), DER.integer(1)),
            ]))
        let p = try ChipAuthentication.parameters(from: SecurityInfos.parseDG14(dg14))
        #expect(p.keyAgreement == .dh && p.cipher == .aes128 && p.keyId == 1)
        #expect(p.chipPublicKey == v.bytes("ic_static_public"))
    }
}
