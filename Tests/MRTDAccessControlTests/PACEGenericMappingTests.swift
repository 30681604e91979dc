import ASN1TLV
import ISO7816
import MRTDAccessControl
import MRTDCrypto
import MRTDDocument
/// Session keys KSenc/KSmac from K (9303-11 §9.7.1), through MRTDSecureMessaging's helper.
import MRTDSecureMessaging
import MRTDTestSupport
import Testing

/// PACE Generic Mapping — ICAO 9303-11 Appendix G.1 (ECDH, brainpoolP256r1) and G.2 (DH, RFC 5114
/// 1024/160); protocol §4.4, tokens §4.4.3.4, K_π §9.7.3. BSI EAC worked example v1.01 (PIN).
@Suite struct PACEGenericMappingTests {
    static let g1 = "pace/icao-9303-11-appG1-pace-ecdh-gm.json"
    static let g2 = "pace/icao-9303-11-appG2-pace-dh-gm.json"
    static let bsi = "pace/bsi-eac-worked-example-v101-pace-ecdh.json"

    static let g1Key = AccessKey.mrz(
        try! MRZKey(documentNumber: "T22000129", dateOfBirth: "640812", dateOfExpiry: "101031"))

    func paceInfo(_ v: Vector) throws -> PACEInfo {
        try #require(SecurityInfos.parse(DER.set([v.bytes("pace_info")])).paceInfos.first)
    }

    /// Every intermediate value of G.1, terminal and chip side.
    @Test func g1Intermediates() throws {
        let v = try Vector(Self.g1)
        guard case .mrz(let mrz) = Self.g1Key else { return }
        #expect(mrz.mrzInformation == v.string("mrz_information_ascii"))
        #expect(mrz.sha1.bytes == v.bytes("k_sha1_mrz"))
        let proto = try #require(PACEProtocol(oid: try paceInfo(v).protocol))
        #expect(proto.name == "id-PACE-ECDH-GM-AES-CBC-CMAC-128")
        #expect(proto.oid.encodedValue == v.bytes("oid"))
        let kPi = Self.g1Key.paceKey(cipher: proto.cipher)
        #expect(kPi.bytes == v.bytes("k_pi"))
        let s = try PACE.decryptNonce(v.bytes("encrypted_nonce"), key: kPi, cipher: proto.cipher)
        #expect(s.bytes == v.bytes("nonce_s"))
        let group = try #require(KeyAgreementGroup.standardized(13))
        #expect(try group.publicKey(for: SecretBytes(v.bytes("map_ifd_private"))) == v.bytes("map_ifd_public"))
        #expect(try group.publicKey(for: SecretBytes(v.bytes("map_ic_private"))) == v.bytes("map_ic_public"))
        let (h, mapped) = try PACE.genericMapping(
            group: group, nonce: s, terminalMappingKey: SecretBytes(v.bytes("map_ifd_private")),
            chipMappingPublicKey: v.bytes("map_ic_public"))
        #expect(h == v.bytes("shared_secret_h"))
        #expect(mapped.generator == v.bytes("mapped_generator"))
        // The chip maps to the same generator.
        let (hChip, mappedChip) = try PACE.genericMapping(
            group: group, nonce: s, terminalMappingKey: SecretBytes(v.bytes("map_ic_private")),
            chipMappingPublicKey: v.bytes("map_ifd_public"))
        #expect(hChip == h && mappedChip.generator == mapped.generator)
        #expect(try mapped.publicKey(for: SecretBytes(v.bytes("eph_ifd_private"))) == v.bytes("eph_ifd_public"))
        #expect(try mapped.publicKey(for: SecretBytes(v.bytes("eph_ic_private"))) == v.bytes("eph_ic_public"))
        let k = try mapped.sharedSecret(
            privateKey: SecretBytes(v.bytes("eph_ifd_private")), peerPublicKey: v.bytes("eph_ic_public"))
        #expect(k.bytes == v.bytes("shared_secret_k"))
        #expect(
            try mapped.sharedSecret(
                privateKey: SecretBytes(v.bytes("eph_ic_private")), peerPublicKey: v.bytes("eph_ifd_public")) == k)
        let keys = SessionKeysCheck.derive(k.bytes, proto.cipher)
        #expect(keys.encryption.bytes == v.bytes("ks_enc"))
        #expect(keys.mac.bytes == v.bytes("ks_mac"))
        #expect(
            PACE.publicKeyDataObject(protocol: proto.oid, publicKey: v.bytes("eph_ic_public"), group: mapped)
                == v.bytes("token_input_t_ifd"))
        #expect(
            PACE.publicKeyDataObject(protocol: proto.oid, publicKey: v.bytes("eph_ifd_public"), group: mapped)
                == v.bytes("token_input_t_ic"))
        #expect(
            try PACE.authenticationToken(
                macKey: keys.mac, cipher: proto.cipher, protocol: proto.oid,
                publicKey: v.bytes("eph_ic_public"), group: mapped) == v.bytes("t_ifd"))
        #expect(
            try PACE.authenticationToken(
                macKey: keys.mac, cipher: proto.cipher, protocol: proto.oid,
                publicKey: v.bytes("eph_ifd_public"), group: mapped) == v.bytes("t_ic"))
    }

    /// All five APDU pairs of G.1 byte for byte (MSE:Set AT without DO'84', as the example).
    @Test func g1Replay() async throws {
        let v = try Vector(Self.g1)
        let infos = try SecurityInfos.parseCardAccess(v.bytes("ef_cardaccess_as_used_in_tests"))
        let info = try #require(infos.paceInfos.first)
        let transport = ScriptedTransport(hexPairs: v.apdus())
        let r = try await PACE.perform(
            transport: transport, key: Self.g1Key, info: info, options: PACEOptions(sendParameterId: false),
            random: FixedRandom([v.bytes("map_ifd_private"), v.bytes("eph_ifd_private")]))
        #expect(transport.isFinished)
        #expect(r.sessionKeys.encryption.bytes == v.bytes("ks_enc"))
        #expect(r.sessionKeys.mac.bytes == v.bytes("ks_mac"))
        #expect(r.chipMappingPublicKey == v.bytes("map_ic_public"))
        #expect(r.chipEphemeralPublicKey == v.bytes("eph_ic_public"))
        #expect(r.terminalEphemeralPublicKey == v.bytes("eph_ifd_public"))
        #expect(
            r.protocol.mapping == .genericMapping && r.protocol.keyAgreement == .ecdh && r.protocol.cipher == .aes128)
        #expect(r.parameterId == 13 && r.passwordType == .mrz)
        #expect(r.chipAuthenticationMapping == nil)
    }

    /// With the default options DO'84' (parameter id 13) is sent in MSE:Set AT.
    @Test func mseSetATWithParameterId() async throws {
        let v = try Vector(Self.g1)
        let info = try #require(
            SecurityInfos.parseCardAccess(v.bytes("ef_cardaccess_as_used_in_tests")).paceInfos.first)
        #expect(
            PACE.mseSetAT(protocol: info.protocol, password: .mrz, parameterId: 13).bytes
                == hex("0022C1A412800A04007F0007020204020283010184010D"))
        var pairs = v.apdus()
        pairs[0].command = "0022C1A412800A04007F0007020204020283010184010D"
        let transport = ScriptedTransport(hexPairs: pairs)
        _ = try await PACE.perform(
            transport: transport, key: Self.g1Key, info: info,
            random: FixedRandom([v.bytes("map_ifd_private"), v.bytes("eph_ifd_private")]))
        #expect(transport.isFinished)
    }

    /// Negative twin: one bit of T_IC flipped → GA mutual authentication fails on the token.
    @Test func g1FlippedChipToken() async throws {
        let v = try Vector(Self.g1)
        let info = try #require(
            SecurityInfos.parseCardAccess(v.bytes("ef_cardaccess_as_used_in_tests")).paceInfos.first)
        var pairs = v.apdus()
        pairs[4].response = hexString(flipBit(hex(pairs[4].response), at: 6))
        let transport = ScriptedTransport(hexPairs: pairs)
        let e = await #expect(throws: AccessControlError.self) {
            _ = try await PACE.perform(
                transport: transport, key: Self.g1Key, info: info, options: PACEOptions(sendParameterId: false),
                random: FixedRandom([v.bytes("map_ifd_private"), v.bytes("eph_ifd_private")]))
        }
        #expect(e?.step == "GA mutual authentication")
        #expect(e?.code == .authenticationFailed)
    }

    /// A wrong MRZ: the nonce decrypts to another s, GA3 differs, and the chip answers GA4 with 6300.
    @Test func g1WrongMRZ() async throws {
        let v = try Vector(Self.g1)
        let info = try #require(
            SecurityInfos.parseCardAccess(v.bytes("ef_cardaccess_as_used_in_tests")).paceInfos.first)
        let pairs = v.apdus()
        let transport = ResponderTransport([
            pairs[0].response, pairs[1].response, pairs[2].response, pairs[3].response, "6300",
        ])
        let wrong = AccessKey.mrz(
            try MRZKey(documentNumber: "T22000128", dateOfBirth: "640812", dateOfExpiry: "101031"))
        let e = await #expect(throws: AccessControlError.self) {
            _ = try await PACE.perform(
                transport: transport, key: wrong, info: info, options: PACEOptions(sendParameterId: false),
                random: FixedRandom([v.bytes("map_ifd_private"), v.bytes("eph_ifd_private")]))
        }
        #expect(e?.step == "GA mutual authentication")
        #expect(e?.code == .wrongPassword)
        #expect(e?.statusWord == StatusWord(rawValue: 0x6300))
        #expect(transport.commands[2] == hex(pairs[2].command))  // mapping key does not depend on the password
        #expect(transport.commands[3] != hex(pairs[3].command))  // the mapped generator does
        // And the token it would have accepted from the chip no longer verifies:
        let t2 = ResponderTransport(pairs.map(\.response))
        let e2 = await #expect(throws: AccessControlError.self) {
            _ = try await PACE.perform(
                transport: t2, key: wrong, info: info, options: PACEOptions(sendParameterId: false),
                random: FixedRandom([v.bytes("map_ifd_private"), v.bytes("eph_ifd_private")]))
        }
        #expect(e2?.code == .authenticationFailed)
        #expect(e2?.step == "GA mutual authentication")
    }

    @Test func mseSetATRefused() async throws {
        let v = try Vector(Self.g1)
        let info = try #require(
            SecurityInfos.parseCardAccess(v.bytes("ef_cardaccess_as_used_in_tests")).paceInfos.first)
        let e = await #expect(throws: AccessControlError.self) {
            _ = try await PACE.perform(
                transport: ResponderTransport(["6A80"]), key: Self.g1Key, info: info, random: FixedRandom([]))
        }
        #expect(e?.step == "MSE:Set AT")
        #expect(e?.code == .chipRejected)
    }

    /// G.2: every intermediate of PACE DH-GM.
    @Test func g2Intermediates() throws {
        let v = try Vector(Self.g2)
        let proto = try #require(PACEProtocol(oid: try paceInfo(v).protocol))
        #expect(proto.name == "id-PACE-DH-GM-AES-CBC-CMAC-128")
        let kPi = Self.g1Key.paceKey(cipher: proto.cipher)
        #expect(kPi.bytes == v.bytes("k_pi"))
        let s = try PACE.decryptNonce(v.bytes("encrypted_nonce"), key: kPi, cipher: proto.cipher)
        #expect(s.bytes == v.bytes("nonce_s"))
        let group = try #require(KeyAgreementGroup.standardized(0))
        guard case .dh(let dh) = group else {
            Issue.record("expected DH")
            return
        }
        #expect(dh.p == v.bytes("dh_p") && dh.g == v.bytes("dh_g") && dh.q == v.bytes("dh_q"))
        #expect(try group.publicKey(for: SecretBytes(v.bytes("map_ifd_private"))) == v.bytes("map_ifd_public"))
        #expect(try group.publicKey(for: SecretBytes(v.bytes("map_ic_private"))) == v.bytes("map_ic_public"))
        let (h, mapped) = try PACE.genericMapping(
            group: group, nonce: s, terminalMappingKey: SecretBytes(v.bytes("map_ifd_private")),
            chipMappingPublicKey: v.bytes("map_ic_public"))
        #expect(h == v.bytes("shared_secret_h"))
        #expect(mapped.generator == v.bytes("mapped_generator"))
        #expect(try mapped.publicKey(for: SecretBytes(v.bytes("eph_ifd_private"))) == v.bytes("eph_ifd_public"))
        #expect(try mapped.publicKey(for: SecretBytes(v.bytes("eph_ic_private"))) == v.bytes("eph_ic_public"))
        let k = try mapped.sharedSecret(
            privateKey: SecretBytes(v.bytes("eph_ifd_private")), peerPublicKey: v.bytes("eph_ic_public"))
        #expect(k.bytes == v.bytes("shared_secret_k"))
        let keys = SessionKeysCheck.derive(k.bytes, proto.cipher)
        #expect(keys.encryption.bytes == v.bytes("ks_enc") && keys.mac.bytes == v.bytes("ks_mac"))
        #expect(
            PACE.publicKeyDataObject(protocol: proto.oid, publicKey: v.bytes("eph_ic_public"), group: mapped)
                == v.bytes("token_input_t_ifd"))
        #expect(
            try PACE.authenticationToken(
                macKey: keys.mac, cipher: proto.cipher, protocol: proto.oid,
                publicKey: v.bytes("eph_ic_public"), group: mapped) == v.bytes("t_ifd"))
        #expect(
            try PACE.authenticationToken(
                macKey: keys.mac, cipher: proto.cipher, protocol: proto.oid,
                publicKey: v.bytes("eph_ifd_public"), group: mapped) == v.bytes("t_ic"))
    }

    /// G.2 APDUs byte for byte.
    @Test func g2Replay() async throws {
        let v = try Vector(Self.g2)
        let transport = ScriptedTransport(hexPairs: v.apdus())
        let r = try await PACE.perform(
            transport: transport, key: Self.g1Key, info: try paceInfo(v), options: PACEOptions(sendParameterId: false),
            random: FixedRandom([v.bytes("map_ifd_private"), v.bytes("eph_ifd_private")]))
        #expect(transport.isFinished)
        #expect(r.sessionKeys.encryption.bytes == v.bytes("ks_enc"))
        #expect(r.protocol.keyAgreement == .dh && r.parameterId == 0)
    }

    /// G.2 negative twin: one bit of the encrypted nonce flipped → the GA3 command differs and the chip's
    /// token does not verify.
    @Test func g2FlippedNonce() async throws {
        let v = try Vector(Self.g2)
        var responses = v.apdus().map(\.response)
        responses[1] = hexString(flipBit(hex(responses[1]), at: 4))
        let e = await #expect(throws: AccessControlError.self) {
            _ = try await PACE.perform(
                transport: ResponderTransport(responses), key: Self.g1Key, info: try paceInfo(v),
                options: PACEOptions(sendParameterId: false),
                random: FixedRandom([v.bytes("map_ifd_private"), v.bytes("eph_ifd_private")]))
        }
        #expect(e?.step == "GA mutual authentication")
        #expect(e?.code == .authenticationFailed)
    }

    /// BSI EAC worked example v1.01, PACE ECDH-GM with PIN "123456": the chip's answers built from the
    /// published values; the terminal's commands must carry the published values.
    @Test func bsiWorkedExamplePIN() async throws {
        let v = try Vector(Self.bsi)
        let infos = try SecurityInfos.parseCardAccess(v.bytes("ef_cardaccess"))
        let (info, dp) = try #require(AccessControl.choosePACE(infos))
        #expect(dp == nil && info.parameterId == 13)
        let pin = AccessKey.pin(v.string("password_ascii"))
        #expect(pin.paceKey(cipher: .aes128).bytes == v.bytes("k_pi"))
        func ga(_ objects: [(UInt8, [UInt8])], last: Bool) -> String {
            hexString(PACE.generalAuthenticate(objects.map { (tag: $0.0, value: $0.1) }, last: last).bytes)
        }
        func r(_ objects: [(UInt8, [UInt8])]) -> String {
            hexString(DynamicAuthenticationData.encode(objects.map { (tag: $0.0, value: $0.1) })) + "9000"
        }
        let script: [(String, String)] = [
            ("0022C1A412800A04007F0007020204020283010384010D", "9000"),
            (ga([], last: false), r([(0x80, v.bytes("encrypted_nonce"))])),
            (ga([(0x81, v.bytes("map_ifd_public"))], last: false), r([(0x82, v.bytes("map_ic_public"))])),
            (ga([(0x83, v.bytes("eph_ifd_public"))], last: false), r([(0x84, v.bytes("eph_ic_public"))])),
            (ga([(0x85, v.bytes("t_ifd"))], last: true), r([(0x86, v.bytes("t_ic"))])),
        ]
        let ephIFD = Array(v.bytes("eph_ifd_private").drop { $0 == 0 })  // stored with a leading 00 in the source
        let transport = ScriptedTransport(hexPairs: script)
        let res = try await PACE.perform(
            transport: transport, key: pin, info: info,
            random: FixedRandom([v.bytes("map_ifd_private"), ephIFD]))
        #expect(transport.isFinished)
        #expect(res.sessionKeys.encryption.bytes == v.bytes("ks_enc"))
        #expect(res.sessionKeys.mac.bytes == v.bytes("ks_mac"))
        #expect(res.passwordType == .pin)
        // Intermediates
        let s = try PACE.decryptNonce(v.bytes("encrypted_nonce"), key: pin.paceKey(cipher: .aes128), cipher: .aes128)
        #expect(s.bytes == v.bytes("nonce_s"))
        let (h, mapped) = try PACE.genericMapping(
            group: KeyAgreementGroup.standardized(13)!, nonce: s,
            terminalMappingKey: SecretBytes(v.bytes("map_ifd_private")),
            chipMappingPublicKey: v.bytes("map_ic_public"))
        #expect(h == v.bytes("shared_secret_h") && mapped.generator == v.bytes("mapped_generator"))
        #expect(
            try mapped.sharedSecret(privateKey: SecretBytes(ephIFD), peerPublicKey: v.bytes("eph_ic_public")).bytes
                == v.bytes("shared_secret_k"))
    }

    /// BSI EAC worked example v1.01, PACE DH-GM with PIN: the source's 1024-bit private keys reduced mod q
    /// (the same public values, vectors README pitfall 4); the PCD key stored with a leading 00 is sent as
    /// the 128-byte unsigned integer.
    @Test func bsiWorkedExampleDHPIN() async throws {
        let v = try Vector("pace/bsi-eac-worked-example-v101-pace-dh.json")
        let infos = try SecurityInfos.parseCardAccess(v.bytes("ef_cardaccess"))
        let (info, _) = try #require(AccessControl.choosePACE(infos))
        #expect(info.protocolName == "id-PACE-DH-GM-AES-CBC-CMAC-128" && info.parameterId == 0)
        let pin = AccessKey.pin(v.string("password_ascii"))
        #expect(pin.paceKey(cipher: .aes128).bytes == v.bytes("k_pi"))
        guard case .dh(let dh)? = KeyAgreementGroup.standardized(0), let qBytes = dh.q else {
            Issue.record("no group")
            return
        }
        let q = BigNumber(qBytes)
        func reduced(_ k: String) -> [UInt8] { BigNumber(v.bytes(k)).mod(q).bytes(width: qBytes.count) }
        let ephIFDPublic = Array(v.bytes("eph_ifd_public_as_stored").drop { $0 == 0 })
        func ga(_ objects: [(UInt8, [UInt8])], last: Bool) -> String {
            hexString(PACE.generalAuthenticate(objects.map { (tag: $0.0, value: $0.1) }, last: last).bytes)
        }
        func r(_ objects: [(UInt8, [UInt8])]) -> String {
            hexString(DynamicAuthenticationData.encode(objects.map { (tag: $0.0, value: $0.1) })) + "9000"
        }
        let script: [(String, String)] = [
            ("0022C1A40F800A04007F00070202040102830103", "9000"),
            (ga([], last: false), r([(0x80, v.bytes("encrypted_nonce"))])),
            (ga([(0x81, v.bytes("map_ifd_public"))], last: false), r([(0x82, v.bytes("map_ic_public"))])),
            (ga([(0x83, ephIFDPublic)], last: false), r([(0x84, v.bytes("eph_ic_public"))])),
            (ga([(0x85, v.bytes("t_ifd"))], last: true), r([(0x86, v.bytes("t_ic"))])),
        ]
        let transport = ScriptedTransport(hexPairs: script)
        let res = try await PACE.perform(
            transport: transport, key: pin, info: info, options: PACEOptions(sendParameterId: false),
            random: FixedRandom([reduced("map_ifd_private"), reduced("eph_ifd_private")]))
        #expect(transport.isFinished)
        #expect(res.sessionKeys.encryption.bytes == v.bytes("ks_enc") && res.sessionKeys.mac.bytes == v.bytes("ks_mac"))
        // The full-width private keys of the source give the same values.
        let s = try PACE.decryptNonce(v.bytes("encrypted_nonce"), key: pin.paceKey(cipher: .aes128), cipher: .aes128)
        #expect(s.bytes == v.bytes("nonce_s"))
        let (h, mapped) = try PACE.genericMapping(
            group: .dh(dh), nonce: s, terminalMappingKey: SecretBytes(v.bytes("map_ifd_private")),
            chipMappingPublicKey: v.bytes("map_ic_public"))
        #expect(h == v.bytes("shared_secret_h") && mapped.generator == v.bytes("mapped_generator"))
        #expect(
            try mapped.sharedSecret(privateKey: SecretBytes(v.bytes("eph_ic_private")), peerPublicKey: ephIFDPublic)
                .bytes
                == v.bytes("shared_secret_k"))
        // Negative twin: the MRZ-derived K_pi of G.2 does not decrypt this nonce to s.
        #expect(
            try PACE.decryptNonce(v.bytes("encrypted_nonce"), key: Self.g1Key.paceKey(cipher: .aes128), cipher: .aes128)
                .bytes
                != v.bytes("nonce_s"))
    }

    /// The same with a wrong PIN: the chip answers GA4 with 63C2 (two tries left).
    @Test func bsiWrongPIN() async throws {
        let v = try Vector(Self.bsi)
        let info = try #require(SecurityInfos.parseCardAccess(v.bytes("ef_cardaccess")).paceInfos.first)
        func r(_ tag: UInt8, _ key: String) -> String {
            hexString(DynamicAuthenticationData.encode([(tag: tag, value: v.bytes(key))])) + "9000"
        }
        let transport = ResponderTransport([
            "9000", r(0x80, "encrypted_nonce"), r(0x82, "map_ic_public"), r(0x84, "eph_ic_public"), "63C2",
        ])
        let e = await #expect(throws: AccessControlError.self) {
            _ = try await PACE.perform(
                transport: transport, key: .pin("123457"), info: info,
                random: FixedRandom([v.bytes("map_ifd_private"), Array(v.bytes("eph_ifd_private").dropFirst())]))
        }
        #expect(e?.code == .wrongPassword)
        #expect(e?.statusWord == StatusWord(rawValue: 0x63C2))
        #expect(e.map { !"\($0)".contains("123457") } == true)
    }
}

enum SessionKeysCheck {
    static func derive(_ k: [UInt8], _ cipher: CipherAlgorithm) -> SessionKeys {
        SessionKeys.derive(sharedSecret: k, cipher: cipher)
    }
}

/// DH public values travel as unsigned integers of minimal length (9303-11 §9.4.1, §4.4.5.2.1); EC points
/// keep their fixed width.
@Suite struct PublicKeyEncodingTests {
    @Test func dhMinimalECFixed() {
        let dh = KeyAgreementGroup.standardized(0)!
        let value = [UInt8](repeating: 0, count: 1) + [UInt8](repeating: 0x5A, count: 127)
        #expect(dh.encodePublicKey(value) == [UInt8](repeating: 0x5A, count: 127))
        let oid: ASN1ObjectIdentifier = "0.4.0.127.0.7.2.2.4.1.2"
        let pkdo = PACE.publicKeyDataObject(protocol: oid, publicKey: value, group: dh)
        #expect(
            pkdo == hex("7F49818D 060A04007F00070202040102 84 7F".filter { $0 != " " })
                + [UInt8](repeating: 0x5A, count: 127))
        let ec = KeyAgreementGroup.standardized(13)!
        let point = [0x04] + [UInt8](repeating: 0, count: 64)
        #expect(ec.encodePublicKey(point) == point)
    }
}
