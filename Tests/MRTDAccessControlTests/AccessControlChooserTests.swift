import ASN1TLV
import ISO7816
import MRTDAccessControl
import MRTDCrypto
import MRTDDocument
import MRTDTestSupport
import Testing

/// The chooser (ICAO 9303-11 §4.2): PACE when EF.CardAccess offers it, CAM > GM-ECDH > IM-ECDH > GM-DH,
/// BAC only when allowed.
@Suite struct AccessControlChooserTests {
    static func paceInfo(_ family: UInt64, _ cipher: UInt64, _ param: Int) -> [UInt8] {
        DER.sequence(
            DER.objectIdentifier(SecurityInfoOID.pace(family: family, cipher: cipher)), DER.integer(2),
            DER.integer(param))
    }

    static let gmDH = paceInfo(1, 2, 0), gmECDH = paceInfo(2, 2, 13), imECDH = paceInfo(4, 2, 13)
    static let camECDH = paceInfo(6, 2, 12), imDH = paceInfo(3, 2, 0), gmECDH3DES = paceInfo(2, 1, 13)

    @Test(arguments: [
        ([gmDH, gmECDH, imECDH, camECDH, imDH], "id-PACE-ECDH-CAM-AES-CBC-CMAC-128"),
        ([gmDH, imECDH, gmECDH, imDH], "id-PACE-ECDH-GM-AES-CBC-CMAC-128"),
        ([gmDH, imECDH, imDH], "id-PACE-ECDH-IM-AES-CBC-CMAC-128"),
        ([imDH, gmDH], "id-PACE-DH-GM-AES-CBC-CMAC-128"),
        ([gmECDH3DES, gmECDH], "id-PACE-ECDH-GM-AES-CBC-CMAC-128"),
        ([gmECDH3DES], "id-PACE-ECDH-GM-3DES-CBC-CBC"),
        // the stronger cipher first, so that the chosen protocol is never weaker than one offered beside it
        ([gmECDH, paceInfo(2, 4, 13)], "id-PACE-ECDH-GM-AES-CBC-CMAC-256"),
        ([gmECDH3DES, imECDH], "id-PACE-ECDH-IM-AES-CBC-CMAC-128"),
    ])
    func preference(infos: [[UInt8]], expected: String) throws {
        let set = try SecurityInfos.parse(DER.set(infos))
        #expect(AccessControl.choosePACE(set)?.info.protocolName == expected)
    }

    /// A downgrade is weaker in one respect (cipher, key agreement, CAM) and no stronger in any; GM and IM are equal.
    @Test(arguments: [
        (
            PACEMapping.genericMapping, KeyAgreementAlgorithm.ecdh, CipherAlgorithm.tripleDES,
            PACEMapping.genericMapping,
            KeyAgreementAlgorithm.ecdh, CipherAlgorithm.aes256, true
        ),
        (.genericMapping, .ecdh, .aes128, .genericMapping, .ecdh, .aes256, true),
        (.genericMapping, .dh, .aes128, .genericMapping, .ecdh, .aes128, true),
        (.genericMapping, .ecdh, .aes128, .chipAuthenticationMapping, .ecdh, .aes128, true),
        (.genericMapping, .ecdh, .aes128, .genericMapping, .ecdh, .aes128, false),
        (.integratedMapping, .ecdh, .aes128, .genericMapping, .ecdh, .aes128, false),
        (.genericMapping, .ecdh, .aes256, .genericMapping, .ecdh, .aes128, false),
        // stronger in one respect, weaker in another: not comparable, not a downgrade
        (.genericMapping, .ecdh, .tripleDES, .genericMapping, .dh, .aes128, false),
    ])
    func downgradeOrder(
        um: PACEMapping, uk: KeyAgreementAlgorithm, uc: CipherAlgorithm, om: PACEMapping, ok: KeyAgreementAlgorithm,
        oc: CipherAlgorithm, weaker: Bool
    ) {
        let used = PACEProtocol(mapping: um, keyAgreement: uk, cipher: uc)
        let offered = PACEProtocol(mapping: om, keyAgreement: ok, cipher: oc)
        #expect(AccessControl.isWeaker(used, than: offered) == weaker, "\(used) vs \(offered)")
    }

    @Test func nothingUsable() throws {
        // Unknown parameter id 7 (reserved) and an unknown mapping: no PACE.
        let set = try SecurityInfos.parse(DER.set([Self.paceInfo(2, 2, 7), Self.paceInfo(5, 2, 13)]))
        #expect(AccessControl.choosePACE(set) == nil)
    }

    @Test func explicitDomainParameters() throws {
        // PACEInfo with parameterId 32 pointing to a PACEDomainParameterInfo with standardized parameters 13.
        let dp = DER.sequence(
            DER.objectIdentifier("0.4.0.127.0.7.2.2.4.2"),
            DER.sequence(DER.objectIdentifier("0.4.0.127.0.7.1.2"), DER.integer(13)), DER.integer(32))
        let set = try SecurityInfos.parse(DER.set([Self.paceInfo(2, 2, 32), dp]))
        let chosen = try #require(AccessControl.choosePACE(set))
        #expect(chosen.domainParameters?.parameterId == 32)
        #expect(
            try PACE.group(for: chosen.info, domainParameters: chosen.domainParameters)
                == KeyAgreementGroup.standardized(13))
    }

    @Test func pacePathThroughEstablish() async throws {
        let v = try Vector("pace/icao-9303-11-appG1-pace-ecdh-gm.json")
        let transport = ScriptedTransport(hexPairs: v.apdus())
        let r = try await AccessControl.establish(
            transport: transport, key: PACEGenericMappingTests.g1Key,
            cardAccess: SecurityInfos.parseCardAccess(v.bytes("ef_cardaccess_as_used_in_tests")),
            allowBACFallback: false,
            options: PACEOptions(sendParameterId: false),
            random: FixedRandom([v.bytes("map_ifd_private"), v.bytes("eph_ifd_private")]))
        #expect(r.protocol == .pace && r.mapping == .genericMapping && r.keyAgreement == .ecdh)
        #expect(r.cipher == .aes128 && r.parameterId == 13 && r.passwordType == .mrz && !r.fellBackToBAC)
        #expect(r.protocolOID == "0.4.0.127.0.7.2.2.4.2.2")
        #expect(r.session.cipher == .aes128)
    }

    @Test func bacFallbackWhenNoCardAccess() async throws {
        let v = try Vector(BACTests.file)
        let transport = ScriptedTransport(hexPairs: [
            ("00A4040C07A0000002471001", "9000"),
            (v.string("get_challenge_command"), v.string("get_challenge_response")),
            (v.string("external_authenticate_command"), v.string("external_authenticate_response")),
        ])
        let key = AccessKey.mrz(try MRZKey(documentNumber: "L898902C<", dateOfBirth: "690806", dateOfExpiry: "940623"))
        let r = try await AccessControl.establish(
            transport: transport, key: key, cardAccess: nil, allowBACFallback: true,
            random: FixedRandom([v.bytes("rnd_ifd"), v.bytes("k_ifd")]))
        // no EF.CardAccess: nothing this layer sees lists PACE, so no fallback (the reader adds what DG14 lists)
        #expect(r.protocol == .bac && !r.fellBackToBAC && r.cipher == .tripleDES && r.mapping == nil)
        #expect(transport.isFinished)
    }

    @Test func bacFallbackWhenChipRefusesPACE() async throws {
        let v = try Vector(BACTests.file)
        let g1 = try Vector("pace/icao-9303-11-appG1-pace-ecdh-gm.json")
        let transport = ResponderTransport([
            "6A80", "6982", v.string("get_challenge_response"), v.string("external_authenticate_response"),
        ])
        let key = AccessKey.mrz(try MRZKey(documentNumber: "L898902C<", dateOfBirth: "690806", dateOfExpiry: "940623"))
        let r = try await AccessControl.establish(
            transport: transport, key: key,
            cardAccess: SecurityInfos.parseCardAccess(g1.bytes("ef_cardaccess_as_used_in_tests")),
            allowBACFallback: true, random: FixedRandom([v.bytes("rnd_ifd"), v.bytes("k_ifd")]))
        #expect(r.protocol == .bac && r.fellBackToBAC)
        #expect(transport.commands[1] == hex("00A4040C07A0000002471001"))
    }

    @Test func bacWithoutTheApplication() async throws {
        let key = AccessKey.mrz(try MRZKey(documentNumber: "L898902C<", dateOfBirth: "690806", dateOfExpiry: "940623"))
        let e = await #expect(throws: AccessControlError.self) {
            _ = try await AccessControl.establish(
                transport: ResponderTransport(["6A82"]), key: key, cardAccess: nil,
                allowBACFallback: true, random: FixedRandom([]))
        }
        #expect(e?.step == "SELECT eMRTD application")
        #expect(e?.statusWord == .fileNotFound)
    }

    @Test func noFallbackWithoutPermission() async throws {
        let key = AccessKey.mrz(try MRZKey(documentNumber: "L898902C<", dateOfBirth: "690806", dateOfExpiry: "940623"))
        let e = await #expect(throws: AccessControlError.self) {
            _ = try await AccessControl.establish(
                transport: ResponderTransport([]), key: key, cardAccess: nil, allowBACFallback: false,
                random: FixedRandom([]))
        }
        #expect(e?.code == .noProtocolAvailable)
        let e2 = await #expect(throws: AccessControlError.self) {
            _ = try await AccessControl.establish(
                transport: ResponderTransport([]), key: .can("123456"), cardAccess: nil,
                allowBACFallback: true, random: FixedRandom([]))
        }
        #expect(e2?.code == .noProtocolAvailable)
    }

    /// A wrong password never falls back to BAC.
    @Test func wrongPasswordDoesNotFallBack() async throws {
        let g1 = try Vector("pace/icao-9303-11-appG1-pace-ecdh-gm.json")
        let pairs = g1.apdus()
        let transport = ResponderTransport([
            pairs[0].response, pairs[1].response, pairs[2].response, pairs[3].response, "6300",
        ])
        let wrong = AccessKey.mrz(
            try MRZKey(documentNumber: "T22000128", dateOfBirth: "640812", dateOfExpiry: "101031"))
        let e = await #expect(throws: AccessControlError.self) {
            _ = try await AccessControl.establish(
                transport: transport, key: wrong,
                cardAccess: SecurityInfos.parseCardAccess(g1.bytes("ef_cardaccess_as_used_in_tests")),
                allowBACFallback: true,
                random: FixedRandom([g1.bytes("map_ifd_private"), g1.bytes("eph_ifd_private")]))
        }
        #expect(e?.code == .wrongPassword)
        #expect(transport.commands.count == 5)
    }
}

/// PACEDomainParameterInfo with explicit parameters (9303-11 §9.2.2): G.1 and G.2 replayed with the
/// standardized groups written out explicitly under a proprietary parameter id.
@Suite struct PACEExplicitDomainParameterTests {
    static func ecParameters(_ c: ECCurve) -> [UInt8] {
        DER.sequence(
            DER.integer(1),
            DER.sequence(DER.objectIdentifier("1.2.840.10045.1.1"), DER.integer(unsigned: c.p)),
            DER.sequence(DER.octetString(c.a), DER.octetString(c.b)),
            DER.octetString(c.generator), DER.integer(unsigned: c.order), DER.integer(unsigned: c.cofactor))
    }

    @Test func g1WithExplicitCurve() async throws {
        let v = try Vector(PACEGenericMappingTests.g1)
        guard case .ec(let curve)? = KeyAgreementGroup.standardized(13) else {
            Issue.record("no curve")
            return
        }
        let dp = DER.sequence(
            DER.objectIdentifier("0.4.0.127.0.7.2.2.4.2"),
            DER.sequence(DER.objectIdentifier("1.2.840.10045.2.1"), Self.ecParameters(curve)), DER.integer(32))
        let pi = DER.sequence(DER.objectIdentifier("0.4.0.127.0.7.2.2.4.2.2"), DER.integer(2), DER.integer(32))
        let infos = try SecurityInfos.parseCardAccess(DER.set([pi, dp]))
        let (info, dpi) = try #require(AccessControl.choosePACE(infos))
        guard case .ecExplicit(let e)? = dpi?.domainParameter.domainParameters else {
            Issue.record("not explicit")
            return
        }
        #expect(e.p == curve.p && e.order == curve.order)
        #expect(dpi?.domainParameter.parameters == Self.ecParameters(curve))
        let transport = ScriptedTransport(hexPairs: v.apdus())
        let r = try await PACE.perform(
            transport: transport, key: PACEGenericMappingTests.g1Key, info: info, domainParameters: dpi,
            options: PACEOptions(sendParameterId: false),
            random: FixedRandom([v.bytes("map_ifd_private"), v.bytes("eph_ifd_private")]))
        #expect(transport.isFinished)
        #expect(r.sessionKeys.encryption.bytes == v.bytes("ks_enc"))
        #expect(r.parameterId == 32)
    }

    @Test func g2WithExplicitGroup() async throws {
        let v = try Vector(PACEGenericMappingTests.g2)
        let params = DER.sequence(
            DER.integer(unsigned: v.bytes("dh_p")), DER.integer(unsigned: v.bytes("dh_g")),
            DER.integer(unsigned: v.bytes("dh_q")))
        let dp = DER.sequence(
            DER.objectIdentifier("0.4.0.127.0.7.2.2.4.1"),
            DER.sequence(DER.objectIdentifier("1.2.840.10046.2.1"), params), DER.integer(40))
        let pi = DER.sequence(DER.objectIdentifier("0.4.0.127.0.7.2.2.4.1.2"), DER.integer(2), DER.integer(40))
        let infos = try SecurityInfos.parseCardAccess(DER.set([pi, dp]))
        let (info, dpi) = try #require(AccessControl.choosePACE(infos))
        let transport = ScriptedTransport(hexPairs: v.apdus())
        let r = try await PACE.perform(
            transport: transport, key: PACEGenericMappingTests.g1Key, info: info, domainParameters: dpi,
            options: PACEOptions(sendParameterId: false),
            random: FixedRandom([v.bytes("map_ifd_private"), v.bytes("eph_ifd_private")]))
        #expect(transport.isFinished)
        #expect(r.sessionKeys.mac.bytes == v.bytes("ks_mac"))
        // Negative twin: a flipped bit in g makes another group; the run diverges at GA2's answer check or later.
        let badParams = DER.sequence(
            DER.integer(unsigned: v.bytes("dh_p")), DER.integer(unsigned: flipBit(v.bytes("dh_g"), at: 127)),
            DER.integer(unsigned: v.bytes("dh_q")))
        let badDP = DER.sequence(
            DER.objectIdentifier("0.4.0.127.0.7.2.2.4.1"),
            DER.sequence(DER.objectIdentifier("1.2.840.10046.2.1"), badParams), DER.integer(40))
        let bad = try SecurityInfos.parseCardAccess(DER.set([pi, badDP]))
        let choice = AccessControl.choosePACE(bad)
        if let (bi, bdp) = choice {
            await #expect(throws: (any Error).self) {
                _ = try await PACE.perform(
                    transport: ScriptedTransport(hexPairs: v.apdus()), key: PACEGenericMappingTests.g1Key, info: bi,
                    domainParameters: bdp, options: PACEOptions(sendParameterId: false),
                    random: FixedRandom([v.bytes("map_ifd_private"), v.bytes("eph_ifd_private")]))
            }
        }
    }
}
