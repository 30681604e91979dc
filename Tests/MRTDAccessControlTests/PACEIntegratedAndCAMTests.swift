import ASN1TLV
import Foundation
import ISO7816
import MRTDAccessControl
import MRTDCrypto
import MRTDDocument
import MRTDSecureMessaging
import MRTDTestSupport
import Testing

/// PACE Integrated Mapping — ICAO 9303-11 Appendix H.1 (ECDH) and H.2 (DH); §4.4.3.3.2, Appendix B.
/// The examples' K_π is KDF_π("123456") (vectors README pitfall 3), so the password here is "123456".
@Suite struct PACEIntegratedMappingTests {
    static let h1 = "pace/icao-9303-11-appH1-pace-ecdh-im.json"
    static let h2 = "pace/icao-9303-11-appH2-pace-dh-im.json"
    static let password = AccessKey.can("123456")

    @Test func h1Intermediates() throws {
        let v = try Vector(Self.h1)
        let proto = try #require(PACEProtocol(oid: ASN1ObjectIdentifier(contents: v.bytes("oid")[...])))
        #expect(proto.name == "id-PACE-ECDH-IM-AES-CBC-CMAC-128")
        let kPi = Self.password.paceKey(cipher: proto.cipher)
        #expect(kPi.bytes == v.bytes("k_pi"))
        let s = try PACE.decryptNonce(v.bytes("encrypted_nonce"), key: kPi, cipher: proto.cipher)
        #expect(s.bytes == v.bytes("nonce_s"))
        guard case .ec(let curve)? = KeyAgreementGroup.standardized(13) else {
            Issue.record("no curve")
            return
        }
        let r = try PACE.pseudoRandom(s: s.bytes, t: v.bytes("nonce_t"), p: curve.p, cipher: .aes128)
        #expect(r == v.bytes("r_s_t"))
        let rp = BigNumber(r).mod(BigNumber(curve.p)).bytes(width: 32)
        #expect(rp == v.bytes("r_p"))
        #expect(try PACE.pointEncode(rp, curve: curve) == v.bytes("mapped_generator"))
        let mapped = try PACE.integratedMapping(
            group: .ec(curve), nonce: s, terminalNonce: v.bytes("nonce_t"), cipher: .aes128)
        #expect(mapped.generator == v.bytes("mapped_generator"))
        #expect(try mapped.publicKey(for: SecretBytes(v.bytes("eph_ifd_private"))) == v.bytes("eph_ifd_public"))
        #expect(try mapped.publicKey(for: SecretBytes(v.bytes("eph_ic_private"))) == v.bytes("eph_ic_public"))
        let k = try mapped.sharedSecret(
            privateKey: SecretBytes(v.bytes("eph_ifd_private")), peerPublicKey: v.bytes("eph_ic_public"))
        #expect(k.bytes == v.bytes("shared_secret_k"))
        let keys = SessionKeys.derive(sharedSecret: k.bytes, cipher: .aes128)
        #expect(keys.encryption.bytes == v.bytes("ks_enc") && keys.mac.bytes == v.bytes("ks_mac"))
        #expect(
            try PACE.authenticationToken(
                macKey: keys.mac, cipher: .aes128, protocol: proto.oid,
                publicKey: v.bytes("eph_ic_public"), group: mapped) == v.bytes("t_ifd"))
        #expect(
            try PACE.authenticationToken(
                macKey: keys.mac, cipher: .aes128, protocol: proto.oid,
                publicKey: v.bytes("eph_ifd_public"), group: mapped) == v.bytes("t_ic"))
    }

    /// Negative twin: one bit of t flipped → another generator.
    @Test func h1FlippedTerminalNonce() throws {
        let v = try Vector(Self.h1)
        let mapped = try PACE.integratedMapping(
            group: KeyAgreementGroup.standardized(13)!, nonce: SecretBytes(v.bytes("nonce_s")),
            terminalNonce: flipBit(v.bytes("nonce_t"), at: 15), cipher: .aes128)
        #expect(mapped.generator != v.bytes("mapped_generator"))
    }

    /// The driver against the H.1 exchange: GA1, GA3 and GA4 commands byte for byte; MSE:Set AT carries the
    /// CAN reference (02) because the password is "123456"; GA2's answer (unpublished) is the empty 7C00.
    @Test func h1Driver() async throws {
        let v = try Vector(Self.h1)
        let pairs = v.apdus(fallback: "7C009000")
        var script = pairs
        script[0].command = "0022C1A40F800A04007F00070202040402830102"
        let transport = ScriptedTransport(hexPairs: script)
        let info = PACEInfo(
            protocol: try ASN1ObjectIdentifier(contents: v.bytes("oid")[...]), version: 2, parameterId: 13)
        let r = try await PACE.perform(
            transport: transport, key: Self.password, info: info, options: PACEOptions(sendParameterId: false),
            random: FixedRandom([v.bytes("nonce_t"), v.bytes("eph_ifd_private")]))
        #expect(transport.isFinished)
        #expect(r.protocol.mapping == .integratedMapping)
        #expect(r.chipMappingPublicKey == nil)
        #expect(r.sessionKeys.mac.bytes == v.bytes("ks_mac"))
    }

    @Test func h2Intermediates() throws {
        let v = try Vector(Self.h2)
        let proto = try #require(PACEProtocol(oid: ASN1ObjectIdentifier(contents: v.bytes("oid")[...])))
        #expect(proto.name == "id-PACE-DH-IM-AES-CBC-CMAC-128")
        let s = try PACE.decryptNonce(
            v.bytes("encrypted_nonce"), key: Self.password.paceKey(cipher: .aes128), cipher: .aes128)
        #expect(s.bytes == v.bytes("nonce_s"))
        guard case .dh(let dh)? = KeyAgreementGroup.standardized(0) else {
            Issue.record("no group")
            return
        }
        let r = try PACE.pseudoRandom(s: s.bytes, t: v.bytes("nonce_t"), p: dh.p, cipher: .aes128)
        #expect(r == v.bytes("r_s_t"))
        #expect(BigNumber(r).mod(BigNumber(dh.p)).bytes(width: 128) == v.bytes("r_p"))
        let mapped = try PACE.integratedMapping(
            group: .dh(dh), nonce: s, terminalNonce: v.bytes("nonce_t"), cipher: .aes128)
        #expect(mapped.generator == v.bytes("mapped_generator"))
        #expect(try mapped.publicKey(for: SecretBytes(v.bytes("eph_ifd_private"))) == v.bytes("eph_ifd_public"))
        let k = try mapped.sharedSecret(
            privateKey: SecretBytes(v.bytes("eph_ifd_private")), peerPublicKey: v.bytes("eph_ic_public"))
        #expect(k.bytes == v.bytes("shared_secret_k"))
        let keys = SessionKeys.derive(sharedSecret: k.bytes, cipher: .aes128)
        #expect(keys.encryption.bytes == v.bytes("ks_enc") && keys.mac.bytes == v.bytes("ks_mac"))
        #expect(
            try PACE.authenticationToken(
                macKey: keys.mac, cipher: .aes128, protocol: proto.oid,
                publicKey: v.bytes("eph_ic_public"), group: mapped) == v.bytes("t_ifd"))
        #expect(
            try PACE.authenticationToken(
                macKey: keys.mac, cipher: .aes128, protocol: proto.oid,
                publicKey: v.bytes("eph_ifd_public"), group: mapped) == v.bytes("t_ic"))
    }

    /// H.2 negative twin: one bit of s flipped → another generator.
    @Test func h2FlippedNonce() throws {
        let v = try Vector(Self.h2)
        let mapped = try PACE.integratedMapping(
            group: KeyAgreementGroup.standardized(0)!, nonce: SecretBytes(flipBit(v.bytes("nonce_s"), at: 0)),
            terminalNonce: v.bytes("nonce_t"), cipher: .aes128)
        #expect(mapped.generator != v.bytes("mapped_generator"))
    }

    @Test func nonceTooShort() {
        let e = #expect(throws: AccessControlError.self) {
            _ = try PACE.pseudoRandom(
                s: [UInt8](repeating: 0, count: 16), t: [UInt8](repeating: 0, count: 32), p: [0xFF], cipher: .aes256)
        }
        #expect(e?.code == .invalidInput)
    }
}

/// PACE-CAM — ICAO 9303-11 Appendix I.1 (§4.4.3.3.3, §4.4.3.5).
@Suite struct PACECAMTests {
    static let i1 = "pace/icao-9303-11-appI1-pace-ecdh-cam.json"
    static let key = AccessKey.mrz(
        try! MRZKey(documentNumber: "C11T002JM", dateOfBirth: "960812", dateOfExpiry: "231031"))

    func run(_ pairs: [(command: String, response: String)], _ v: Vector) async throws -> PACEResult {
        let info = try #require(SecurityInfos.parse(DER.set([v.bytes("pace_info")])).paceInfos.first)
        let transport = ScriptedTransport(hexPairs: pairs)
        let r = try await PACE.perform(
            transport: transport, key: Self.key, info: info, options: PACEOptions(sendParameterId: false),
            random: FixedRandom([v.bytes("map_ifd_private"), v.bytes("eph_ifd_private")]))
        #expect(transport.isFinished)
        return r
    }

    /// All APDUs byte for byte, A_IC decrypted to CA_IC, and PK_map,IC = CA_IC · PK_IC.
    @Test func i1Replay() async throws {
        let v = try Vector(Self.i1)
        guard case .mrz(let mrz) = Self.key else { return }
        #expect(mrz.mrzInformation == v.string("mrz_information_ascii"))
        #expect(mrz.sha1.bytes == v.bytes("k_sha1_mrz"))
        #expect(Self.key.paceKey(cipher: .aes128).bytes == v.bytes("k_pi"))
        let r = try await run(v.apdus(), v)
        #expect(r.protocol.mapping == .chipAuthenticationMapping)
        #expect(r.sessionKeys.encryption.bytes == v.bytes("ks_enc"))
        #expect(r.sessionKeys.mac.bytes == v.bytes("ks_mac"))
        let cam = try #require(r.chipAuthenticationMapping)
        #expect(cam.encryptedChipAuthenticationData == v.bytes("encrypted_chip_auth_data_a_ic"))
        #expect(cam.chipAuthenticationData == v.bytes("chip_auth_data_ca_ic"))
        #expect(cam.chipMappingPublicKey == v.bytes("map_ic_public"))
        #expect(try cam.verify(chipStaticPublicKey: v.bytes("static_ca_public_pk_ic")))
        // Intermediates
        let iv = try AES.encryptECB(key: r.sessionKeys.encryption, [UInt8](repeating: 0xFF, count: 16))
        #expect(iv == v.bytes("iv_for_a_ic"))
        let s = try PACE.decryptNonce(
            v.bytes("encrypted_nonce"), key: Self.key.paceKey(cipher: .aes128), cipher: .aes128)
        #expect(s.bytes == v.bytes("nonce_s"))
        let (_, mapped) = try PACE.genericMapping(
            group: KeyAgreementGroup.standardized(13)!, nonce: s,
            terminalMappingKey: SecretBytes(v.bytes("map_ifd_private")),
            chipMappingPublicKey: v.bytes("map_ic_public"))
        #expect(mapped.generator == v.bytes("mapped_generator"))
        #expect(
            try mapped.sharedSecret(
                privateKey: SecretBytes(v.bytes("eph_ifd_private")), peerPublicKey: v.bytes("eph_ic_public")
            ).bytes
                == v.bytes("shared_secret_k"))
    }

    /// Negative twin: another static key (here the generator G) does not satisfy PK_map,IC = CA_IC · PK_IC.
    @Test func i1WrongStaticKey() async throws {
        let v = try Vector(Self.i1)
        let r = try await run(v.apdus(), v)
        let cam = try #require(r.chipAuthenticationMapping)
        #expect(try cam.verify(chipStaticPublicKey: cam.curve.generator) == false)
        #expect(throws: AccessControlError.self) {
            try cam.verify(chipStaticPublicKey: flipBit(v.bytes("static_ca_public_pk_ic"), at: 64))
        }
    }

    /// Negative twin: one bit of A_IC's first block flipped → CA_IC changes and the CAM check fails.
    @Test func i1FlippedEncryptedData() async throws {
        let v = try Vector(Self.i1)
        var pairs = v.apdus()
        let resp = hex(pairs[4].response)
        let aStart = resp.count - 2 - 48
        pairs[4].response = hexString(flipBit(resp, at: aStart + 3))
        let r = try await run(pairs, v)
        let cam = try #require(r.chipAuthenticationMapping)
        #expect(cam.chipAuthenticationData != v.bytes("chip_auth_data_ca_ic"))
        #expect(try cam.verify(chipStaticPublicKey: v.bytes("static_ca_public_pk_ic")) == false)
    }

    /// Negative twin: the last block flipped → padding no longer decodes: step CAM fails.
    @Test func i1FlippedPadding() async throws {
        let v = try Vector(Self.i1)
        var pairs = v.apdus()
        let resp = hex(pairs[4].response)
        pairs[4].response = hexString(flipBit(resp, at: resp.count - 3))
        let info = try #require(SecurityInfos.parse(DER.set([v.bytes("pace_info")])).paceInfos.first)
        let e = await #expect(throws: AccessControlError.self) {
            _ = try await PACE.perform(
                transport: ScriptedTransport(hexPairs: pairs), key: Self.key, info: info,
                options: PACEOptions(sendParameterId: false),
                random: FixedRandom([v.bytes("map_ifd_private"), v.bytes("eph_ifd_private")]))
        }
        #expect(e?.step == "CAM")
    }

    /// A CAM chip that leaves out DO'8A' is refused.
    @Test func i1MissingEncryptedData() async throws {
        let v = try Vector(Self.i1)
        var pairs = v.apdus()
        pairs[4].response = "7C0A8608" + v.string("t_ic") + "9000"
        let info = try #require(SecurityInfos.parse(DER.set([v.bytes("pace_info")])).paceInfos.first)
        let e = await #expect(throws: AccessControlError.self) {
            _ = try await PACE.perform(
                transport: ScriptedTransport(hexPairs: pairs), key: Self.key, info: info,
                options: PACEOptions(sendParameterId: false),
                random: FixedRandom([v.bytes("map_ifd_private"), v.bytes("eph_ifd_private")]))
        }
        #expect(e?.step == "CAM")
        #expect(e?.code == .malformedResponse)
    }
}

/// PACE-CAM end to end: I.1 APDUs, then EF.CardSecurity read under the new AES session (SSC from 0,
/// gmrtd-generated APDUs), then the CAM check against the key found there.
@Suite struct PACECAMWithCardSecurityTests {
    @Test func camThenReadThenVerify() async throws {
        let v = try Vector(PACECAMTests.i1)
        let cs = try Vector("pace/gmrtd-icao-appI-cardsecurity-read.json")
        let transport = ScriptedTransport(hexPairs: v.apdus() + cs.apdus())
        let info = try #require(SecurityInfos.parse(DER.set([v.bytes("pace_info")])).paceInfos.first)
        let r = try await PACE.perform(
            transport: transport, key: PACECAMTests.key, info: info, options: PACEOptions(sendParameterId: false),
            random: FixedRandom([v.bytes("map_ifd_private"), v.bytes("eph_ifd_private")]))
        #expect(r.sessionKeys.encryption.bytes == cs.bytes("ks_enc"))
        let channel = SecureChannel(transport: transport, session: r.session)
        #expect(try await channel.transmit(.selectFile(0x011D)).statusWord == .success)
        let head = try await channel.transmit(.readBinary(offset: 0, ne: 4))
        let rest = try await channel.transmit(.readBinary(offset: 4, ne: 0x62))
        #expect(transport.isFinished)
        let content = head.data + rest.data
        #expect(content == cs.bytes("security_infos"))
        let infos = try SecurityInfos.parse(content)
        #expect(infos.chipAuthenticationPublicKeyInfos.first?.keyId == 13)
        let cam = try #require(r.chipAuthenticationMapping)
        #expect(try cam.verify(cardSecurity: infos))
        // The Codable transcript re-verifies offline after a JSON round trip.
        let transcript = try #require(r.chipAuthenticationMappingTranscript)
        let decoded = try JSONDecoder().decode(PACECAMTranscript.self, from: JSONEncoder().encode(transcript))
        #expect(try decoded.verify(cardSecurity: infos))
        var forged = decoded
        forged.chipAuthenticationData = flipBit(forged.chipAuthenticationData, at: 31)
        #expect(try !forged.verify(cardSecurity: infos))
        // Negative twin: a CardSecurity whose key has one bit flipped (still parsed) does not satisfy the relation.
        let flipped = flipBit(content, at: content.count - 10)
        let bad = try SecurityInfos.parse(flipped)
        // off the curve: no usable key
        let e = #expect(throws: AccessControlError.self) { try cam.verify(cardSecurity: bad) }
        #expect(e?.step == "CAM")
    }
}
