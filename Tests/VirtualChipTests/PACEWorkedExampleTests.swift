import ASN1TLV
import DocumentGenerator
import ISO7816
import MRTDCrypto
import MRTDDocument
import MRTDSecureMessaging
import MRTDTestSupport
import Testing

@testable import VirtualChip

/// One published PACE exchange (ICAO 9303-11 Appendices G, H, I; values as transcribed in
/// TestVectors/) replayed against the chip, whose random source returns the
/// published chip nonce and private keys.
struct PACEExample: Sendable, CustomTestStringConvertible {
    var name: String
    var paceInfo: [UInt8]
    var documentNumber = "T22000129", dateOfBirth = "640812", dateOfExpiry = "101031"
    var can = "123456"
    /// Chip randomness in order of use: nonce s, (SK_map,IC), SK_IC.
    var chipRandom: [[UInt8]]
    /// (command, expected response or nil when not published).
    var apdus: [(String, String?)]
    var ksEnc: String
    var ksMac: String
    var chipAuthenticationKey: String? = nil
    /// Further SecurityInfos for EF.CardAccess (PACEDomainParameterInfo).
    var extraInfos: [[UInt8]] = []
    var testDescription: String { name }

    static let g1 = PACEExample(
        name: "G.1 ECDH-GM brainpoolP256r1",
        paceInfo: hex("3012060A04007F0007020204020202010202010D"),
        chipRandom: [
            hex("3F00C4D39D153F2B2A214A078D899B22"),
            hex("498FF49756F2DC1587840041839A85982BE7761D14715FB091EFA7BCE9058560"),
            hex("107CF58696EF6155053340FD633392BA81909DF7B9706F226F32086C7AFF974A"),
        ],
        apdus: [
            ("0022C1A40F800A04007F00070202040202830101", "9000"),
            ("10860000027C0000", "7C12801095A3A016522EE98D01E76CB6B98B42C39000"),
            (
                "10860000457C438141047ACF3EFC982EC45565A4B155129EFBC74650DCBFA6362D896FC70262E0C2CC5E544552DCB6725218799115B55C9BAA6D9F6BC3A9618E70C25AF71777A9C4922D00",
                "7C43824104824FBA91C9CBE26BEF53A0EBE7342A3BF178CEA9F45DE0B70AA601651FBA3F5730D8C879AAA9C9F73991E61B58F4D52EB87A0A0C709A49DC63719363CCD13C549000"
            ),
            (
                "10860000457C438341042DB7A64C0355044EC9DF190514C625CBA2CEA48754887122F3A5EF0D5EDD301C3556F3B3B186DF10B857B58F6A7EB80F20BA5DC7BE1D43D9BF850149FBB3646200",
                "7C438441049E880F842905B8B3181F7AF7CAA9F0EFB743847F44A306D2D28C1D9EC65DF6DB7764B22277A2EDDC3C265A9F018F9CB852E111B768B326904B59A0193776F0949000"
            ),
            ("008600000C7C0A8508C2B0BD78D94BA86600", "7C0A86083ABB9674BCE93C089000"),
        ],
        ksEnc: "F5F0E35C0D7161EE6724EE513A0D9A7F", ksMac: "FE251C7858B356B24514B3BD5F4297D1")

    static let g2 = PACEExample(
        name: "G.2 DH-GM RFC 5114 1024/160",
        paceInfo: hex("3012060A04007F00070202040102020102020100"),
        chipRandom: [
            hex("FA5B7E3E49753A0DB9178B7B9BD898C8"),
            hex("66DDAFEAC1609CB5B963BB0CB3FF8B3E047F336C"),
            hex("A5B780126B7C980E9FCEA1D4539DA1D27C342DFA"),
        ],
        apdus: [
            ("0022C1A40F800A04007F00070202040102830101", "9000"),
            ("10860000027C0000", "7C128010854D8DF5827FA6852D1A4FA701CDDDCA9000"),
            (
                "10860000867C818381818023FB3749EA030D2A25B278D2A562047ADE3F01B74F17A15402CB7352CA7D2B3EB71C343DB13D1DEBCE9A3666DBCFC920B49174A602CB47965CAA73DC702489A44D41DB914DE9613DC5E98C94160551C0DF86274B9359BC0490D01B03AD54022DCB4F57FAD6322497D7A1E28D46710F461AFE710FBBBC5F8BA166F4311975EC6C00",
                "7C818382818078879F57225AA8080D52ED0FC890A4B25336F699AA89A2D3A189654AF70729E623EA5738B26381E4DA19E004706FACE7B235C2DBF2F38748312F3C98C2DD4882A41947B324AA1259AC22579DB93F7085655AF30889DBB845D9E6783FE42C9F2449400306254C8AE8EE9DD812A804C0B66E8CAFC14F84D8258950A91B44126EE69000"
            ),
            (
                "10860000867C8183838180907D89E2D425A178AA81AF4A7774EC8E388C115CAE67031E85EECE520BD911551B9AE4D04369F29A02626C86FBC6747CC7BC352645B6161A2A42D44EDA80A08FA8D61B76D3A154AD8A5A51786B0BC07147057871A922212C5F67F43173172236B7747D1671E6D692A3C7D40A0C3C5CE397545D015C175EB5130551EDBC2EE5D400",
                "7C8183848180075693D9AE941877573E634B6E644F8E60AF17A0076B8B123D9201074D36152BD8B3A213F53820C42ADC79AB5D0AEEC3AEFB91394DA476BD97B9B14D0A65C1FC71A0E019CB08AF55E1F729005FBA7E3FA5DC41899238A250767A6D46DB974064386CD456743585F8E5D90CC8B4004B1F6D866C79CE0584E49687FF61BC29AEA19000"
            ),
            ("008600000C7C0A8508B46DD9BD4D98381F00", "7C0A8608917F37B5C0E6D8D19000"),
        ],
        ksEnc: "2F7F46ADCC9E7E521B45D192FAFA9126", ksMac: "805A1D27D45A5116F73C54469462B7D8")

    /// H.1: K_π of the example is KDF_π("123456"), so the chip is driven with the CAN "123456"
    /// (password reference 02 instead of the transcript's 01).
    static let h1 = PACEExample(
        name: "H.1 ECDH-IM brainpoolP256r1",
        paceInfo: hex("3012060A04007F0007020204040202010202010D"),
        chipRandom: [
            hex("2923BE84E16CD6AE529049F1F1BBE9EB"),
            hex("107CF58696EF6155053340FD633392BA81909DF7B9706F226F32086C7AFF974A"),
        ],
        apdus: [
            ("0022C1A40F800A04007F00070202040402830102", "9000"),
            ("10860000027C0000", "7C128010143DC40C08C8E891FBED7DEDB92B64AD9000"),
            ("10860000147C1281105DD4CBFC96F5453B130D890A1CDBAE3200", "7C009000"),
            (
                "10860000457C4383410489CBA23FFE96AA18D824627C3E934E54A9FD0B87A95D1471DC1C0ABFDCD640D46755DE9B7B778280B6BEBD57439ADFEB0E21FD4ED6DF42578C13418A59B34C3700",
                "7C4384410467F78E5F7F7686082B293E8D087E056916D0F74BC01A5F8957D0DE45691E51E8932B69A962B52A0985AD2C0A271EE6A13A8ADDDCD1A3A994B9DED257F4D227539000"
            ),
            ("008600000C7C0A8508450F02B86F6A090900", "7C0A860875D4D96E8D5B03089000"),
        ],
        ksEnc: "0D3FEB33251A6370893D62AE8DAAF51B", ksMac: "B01E89E3D9E8719E586B50B4A7506E0B")

    /// H.2: same password note as H.1; the chip key is the BSI PICC key reduced mod q (vectors `computed`).
    static let h2 = PACEExample(
        name: "H.2 DH-IM RFC 5114 1024/160",
        paceInfo: hex("3012060A04007F00070202040302020102020100"),
        chipRandom: [
            hex("FA5B7E3E49753A0DB9178B7B9BD898C8"),
            hex("A5B780126B7C980E9FCEA1D4539DA1D27C342DFA"),
        ],
        apdus: [
            ("0022C1A40F800A04007F00070202040302830102", "9000"),
            ("10860000027C0000", "7C1280109ABB8864CA0FF1551E620D1EF4E135109000"),
            ("10860000147C128110B3A6DB3C870C3E99245E0D1C06B747DE00", "7C009000"),
            (
                "10860000867C81838381800F0CC62945A8029251FB7EF3C094E12EC68E4EF07F27CB9D9CD04C5C4250FAE0E4F8A951557E929AEB48E5C6DD47F2F5CD7C351A9BD2CD722C07EDE166770F08FFCB370262CF308DD7B07F2E0DA9CAAA1492344C852906919538C98A4BA4187E76CE9D87832386D319CE2E043C3343AEAE6EDBA1A9894DC5094D22F7FE1351D500",
                "7C8183848180928D9A0F9DBA450F13FC859C6F290D1D36E42431138A4378500BEB4E0401854CFF111F71CB6DC1D0335807A11388CC8EAA87B07907AAD9FBA6B169AF6D8C26AF8DDDC39ADC3AD2E3FF882B84D23E9768E95A80E4746FB07A9767679FE92133B4D379935C771BD7FBED6C7BB4B1708B275EA75679524CDC9C6A91370CC662A2F39000"
            ),
            ("008600000C7C0A850855D61977CBF5307E00", "7C0A8608C2F04230187E15259000"),
        ],
        ksEnc: "01AFC10CF87BE36D8179E87370171F07", ksMac: "23F0FBD05FD6C7B8B88F4C8309669061")

    /// G.1 and G.2 with the domain parameters given explicitly in a PACEDomainParameterInfo
    /// (parameter id 32) instead of by standardized id: the exchange is byte for byte the same.
    static let g1Explicit: PACEExample = {
        var e = g1
        e.name = "G.1 with explicit ECParameters"
        e.paceInfo = hex("3012060A04007F00070202040202020102020120")
        guard case .ec(let curve)? = StandardDomainParameters.parameters(id: 13) else { return e }
        e.extraInfos = [
            TestProfiles.paceDomainParameterInfo(family: "0.4.0.127.0.7.2.2.4.2", curve: curve, parameterId: 32)
        ]
        return e
    }()
    static let g2Explicit: PACEExample = {
        var e = g2
        e.name = "G.2 with explicit DH parameters"
        e.paceInfo = hex("3012060A04007F00070202040102020102020120")
        guard case .dh(let group)? = StandardDomainParameters.parameters(id: 0) else { return e }
        e.extraInfos = [
            TestProfiles.paceDomainParameterInfo(family: "0.4.0.127.0.7.2.2.4.1", group: group, parameterId: 32)
        ]
        return e
    }()

    static let all = [g1, g2, h1, h2, g1Explicit, g2Explicit]

    func chip(link: LinkBehaviour = LinkBehaviour()) -> VirtualChip {
        let profile = TestProfiles.profile(
            documentNumber: documentNumber, dateOfBirth: dateOfBirth,
            dateOfExpiry: dateOfExpiry, can: can,
            cardAccess: DER.set([paceInfo] + extraInfos), link: link)
        return VirtualChip(profile: profile, random: FixedRandom(chipRandom))
    }
}

@Suite struct PACEWorkedExampleTests {
    /// Every published APDU answered byte for byte; then secure messaging runs with the published
    /// KS_enc / KS_mac and SSC 0.
    @Test(arguments: PACEExample.all)
    func reproducesExample(_ example: PACEExample) throws {
        let chip = example.chip()
        for (i, (command, response)) in example.apdus.enumerated() {
            let answer = chip.send(hex: command)
            if let response { #expect(answer == response, "APDU \(i)") }
        }
        #expect(chip.snapshot.secureMessagingActive)
        let keys = SessionKeys(
            cipher: .aes128, encryption: SecretBytes(hex(example.ksEnc)), mac: SecretBytes(hex(example.ksMac)))
        var terminal = TestTerminal(chip: chip)
        terminal.session = SecureMessagingSession(keys: keys)
        #expect(try terminal.secure(.selectApplication(MRTDApplication.lds1AID)).statusWord == .success)
        let com = try terminal.secure(.readBinary(sfi: 0x1E, offset: 0, ne: TestProfiles.com.count))
        #expect(com.data == TestProfiles.com)
    }

    /// AES secure messaging after G.1: a command whose DO'8E' has one bit flipped is answered 6988
    /// (unprotected) and the session is gone; so is a correctly protected one after it.
    @Test func badAESMACDropsSession() throws {
        let chip = PACEExample.g1.chip()
        for (command, _) in PACEExample.g1.apdus { _ = chip.send(hex: command) }
        let keys = SessionKeys(
            cipher: .aes128, encryption: SecretBytes(hex(PACEExample.g1.ksEnc)),
            mac: SecretBytes(hex(PACEExample.g1.ksMac)))
        var session = SecureMessagingSession(keys: keys)
        let protected = try session.protect(.selectApplication(MRTDApplication.lds1AID)).bytes
        #expect(hexString(chip.process(flipBit(protected, at: protected.count - 2))) == "6988")
        #expect(!chip.snapshot.secureMessagingActive)
        var fresh = SecureMessagingSession(keys: keys)
        #expect(hexString(chip.process(try fresh.protect(.selectApplication(MRTDApplication.lds1AID)).bytes)) == "6988")
    }

    /// Negative twin: T_IFD with one bit flipped → 6300 and no session.
    @Test(arguments: PACEExample.all)
    func flippedTerminalTokenFails(_ example: PACEExample) {
        let chip = example.chip()
        for (command, _) in example.apdus.dropLast() { _ = chip.send(hex: command) }
        let last = hex(example.apdus.last!.0)
        #expect(hexString(chip.process(flipBit(last, at: 12))) == "6300")
        #expect(!chip.snapshot.secureMessagingActive)
    }

    /// Negative twin for the password: with another MRZ (or CAN) the chip encrypts the same nonce
    /// under another K_π, so the published encrypted nonce is not reproduced (a terminal holding the
    /// printed password then maps with a wrong s and fails at GA4: see RoundTripTests.wrongPassword).
    @Test(arguments: PACEExample.all)
    func wrongPasswordChangesEncryptedNonce(_ example: PACEExample) {
        var wrong = example
        wrong.dateOfBirth = "640813"
        wrong.can = "123457"
        let chip = wrong.chip()
        #expect(chip.send(hex: example.apdus[0].0) == "9000")
        let ga1 = chip.send(hex: example.apdus[1].0)
        #expect(ga1.hasSuffix("9000"))
        #expect(ga1 != example.apdus[1].1)
    }

    @Test func mappingIntermediatesG1() throws {
        // G.1 mapped generator, from s, H and G (9303-11 G.1).
        guard case .ec(let curve)? = StandardDomainParameters.parameters(id: 13) else {
            Issue.record("no curve")
            return
        }
        let s = hex("3F00C4D39D153F2B2A214A078D899B22")
        let h = try curve.multiply(
            hex(
                "047ACF3EFC982EC45565A4B155129EFBC74650DCBFA6362D896FC70262E0C2CC5E544552DCB6725218799115B55C9BAA6D9F6BC3A9618E70C25AF71777A9C4922D"
            ),
            by: hex("498FF49756F2DC1587840041839A85982BE7761D14715FB091EFA7BCE9058560"))
        #expect(
            hexString(h)
                == "0460332EF2450B5D247EF6D3868397D398852ED6E8CAF6FFEEF6BF85CA57057FD50840CA7415BAF3E43BD414D35AA4608B93A2CAF3A4E3EA4E82C9C13D03EB7181"
        )
        let g = try curve.add(curve.multiplyGenerator(by: s), h)
        #expect(
            hexString(g)
                == "048CED63C91426D4F0EB1435E7CB1D74A46723A0AF21C89634F65A9AE87A9265E28C879506743F8611AC33645C5B985C80B5F09A0B83407C1B6A4D857AE76FE522"
        )
    }

    /// ICAO 9303-11 H.1 intermediates: R(s,t), R_p and the mapped generator (Appendix B point encoding),
    /// with a negative twin (one bit of t flipped changes G̃).
    @Test func integratedMappingIntermediatesH1() throws {
        guard case .ec(let curve)? = StandardDomainParameters.parameters(id: 13) else {
            Issue.record("no curve")
            return
        }
        let s = hex("2923BE84E16CD6AE529049F1F1BBE9EB")
        let t = hex("5DD4CBFC96F5453B130D890A1CDBAE32")
        let r = try PACEIntegratedMapping.pseudoRandom(s: s, t: t, cipher: .aes128, primeBits: 256)
        #expect(
            hexString(r)
                == "E4447E2DFB3586BAC05DDB00156B57FBB2179A3949294C97254189800C517BAA8DA0FF397ED8C445D3E421E4FEB57322")
        let rp = BigNumber(r).mod(BigNumber(curve.p))
        #expect(hexString(rp.bytes(width: 32)) == "A2F8FF2DF50E52C6599F386ADCB595D229F6A167ADE2BE5F2C3296ADD5B7430E")
        let g = try PACEIntegratedMapping.mapECDH(s: s, t: t, cipher: .aes128, curve: curve)
        #expect(
            hexString(g)
                == "048E82D31559ED0FDE92A4D0498ADD3C23BABA94FB77691E31E90AEA77FB17D4274C1AE14BD0C3DBAC0C871B7F3608169364437CA30AC243A089D3F266C1E60FAD"
        )
        let twin = try PACEIntegratedMapping.mapECDH(s: s, t: flipBit(t, at: 0), cipher: .aes128, curve: curve)
        #expect(twin != g)
    }

    /// ICAO 9303-11 H.2 intermediates: R(s,t) (1024-bit p: 9 blocks) and g̃ = R_p^((p-1)/q).
    @Test func integratedMappingIntermediatesH2() throws {
        guard case .dh(let group)? = StandardDomainParameters.parameters(id: 0) else {
            Issue.record("no group")
            return
        }
        let s = hex("FA5B7E3E49753A0DB9178B7B9BD898C8")
        let t = hex("B3A6DB3C870C3E99245E0D1C06B747DE")
        let r = try PACEIntegratedMapping.pseudoRandom(s: s, t: t, cipher: .aes128, primeBits: 1024)
        #expect(
            hexString(r)
                == "EAB98D13E09052952AA729907C3C946184DEA0FE74AD2B3AF506F0A83018459C38099CD1F7FF4EA0A078DB1FAC1365505E3DC85500EF95E20B4EEF2E88489233BEE0546B472F994B618D168702406791DEEF3CB4810932EC278F3533FDB860EB4835C36FA4F1BF3FA0B828A718C96BDE88FBA38A3E6C35AAA10959251EB5FC710FC187258995944C0F926E249373F485"
        )
        let g = try PACEIntegratedMapping.mapDH(s: s, t: t, cipher: .aes128, group: group)
        #expect(
            hexString(g)
                == "1D7D767F11E333BCD6DBAEF40E799E7A926B96973550656FF3C830726D118D61C276CDCC61D475CF03A98E0C0E79CAEBA5BE25578BD4551D0B10903236F0B0F976852FA78EEA14EA0ACA87D1E91F688FE0DFF897BBE35A472621D343564B262F34223AE8FC59B664BFEDFA2BFE7516CA5510A6BBB633D517EC25D4E0BBAA16C2"
        )
        #expect(try PACEIntegratedMapping.mapDH(s: flipBit(s, at: 15), t: t, cipher: .aes128, group: group) != g)
    }

    /// ICAO 9303-11 I.1 (PACE-CAM): GA1/GA2 byte for byte; the chip's ephemeral key for GA3 is not
    /// published, so the terminal finishes with its own computation, and the chip's encrypted
    /// chip authentication data must decrypt to the published CA_IC with CA_IC · PK_IC = PK_map,IC.
    @Test func chipAuthenticationMappingI1() throws {
        guard case .ec(let curve)? = StandardDomainParameters.parameters(id: 13) else {
            Issue.record("no curve")
            return
        }
        let staticPrivate = hex("86C88A4579CE48135878E6348A734B5D47CE5BC1E54C0E8978687B49FDE2E2C2")
        let staticPublic = hex(
            "041872709494399E7470A6431BE25E83EEE24FEA568C2ED28DB48E05DB3A610DC884D256A40E35EFCB59BF6753D3A489D28C7A4D973C2DA138A6E7A4A08F68E16F"
        )
        #expect(try curve.multiplyGenerator(by: staticPrivate) == staticPublic)
        let key = ChipAuthenticationKey(
            agreement: .ecdh(curve: curve, privateKey: SecretBytes(staticPrivate), publicKey: staticPublic),
            keyId: nil, parameterId: 13)
        let profile = TestProfiles.profile(
            documentNumber: "C11T002JM", dateOfBirth: "960812", dateOfExpiry: "231031",
            cardAccess: DER.set([hex("3012060A04007F0007020204060202010202010D")]),
            keys: ChipKeys(chipAuthentication: key))
        let mapIC = hex("9E56A6B59C95D06ECE5CD10F983BB2F4F1943528E577F23881D89D8C3BBEE0AA")
        let chip = VirtualChip(
            profile: profile,
            random: FixedRandom([
                hex("658B860BC94DF6F044FCE6D5C82CF8E5"), mapIC,
                hex("107CF58696EF6155053340FD633392BA81909DF7B9706F226F32086C7AFF974A"),
            ]))
        #expect(chip.send(hex: "0022C1A40F800A04007F00070202040602830101") == "9000")
        #expect(chip.send(hex: "10860000027C0000") == "7C128010CB60E8E0D85B76A9BD304747C2AD42E29000")
        let mapIFDPrivate = hex("5D8BB87BD74D985A4B7D4325B9F7B976FE835122773400798914AA22738135CC")
        let ga2 = chip.send(
            hex:
                "10860000457C438141047F1D410ADB7DDB3B84BF1030800981A9105D7457B4A3ADE002384F3086C67EDE1AB889104A27DB6D842B019020FBF3CEACB0DC627F7BDCAC29969E19D0E553C100"
        )
        #expect(
            ga2
                == "7C43824104A234236AA9B9621E8EFB73B5245C0E09D2576E5277183C1208BDD55280CAE8B304F365713A356E65A451E165ECC9AC0AC46E3771342C8FE5AEDD092685338E239000"
        )
        // Terminal side of the rest (9303-11 I.1 terminal keys).
        let s = hex("658B860BC94DF6F044FCE6D5C82CF8E5")
        let h = try curve.multiply(
            hex(
                "04A234236AA9B9621E8EFB73B5245C0E09D2576E5277183C1208BDD55280CAE8B304F365713A356E65A451E165ECC9AC0AC46E3771342C8FE5AEDD092685338E23"
            ), by: mapIFDPrivate)
        let mapped = try curve.withGenerator(curve.add(curve.multiplyGenerator(by: s), h))
        #expect(
            hexString(mapped.generator)
                == "0489F0B5EABF3BE293C75903A3986131925C9F5B515CA95AF485DC7E886F03245D44BEFB2DD3A0DBD71CB5E618971CF4747F12B79E548379A40E45963BAAF3E829"
        )
        let ephIFD = hex("76ECFDAA9841C323A3F5FC5E88B88DB3EFF7E35EBF57A7E6946CB630006C2120")
        let ga3 = chip.send(
            hex:
                "10860000457C43834104446C934084D9DAB863944F219520076C29EE3F7AE6722B11FF319EC1C7728F955483400BFF60BF0C5929270009277DC2A515E12575010AD9BA916CF1BF86FEFC00"
        )
        let chipEph = try TestTerminal.inner(hex(String(ga3.dropLast(4))), 0x84)
        let k = try mapped.sharedSecret(privateKey: SecretBytes(ephIFD), peerPublicKey: chipEph)
        let keys = SessionKeys.derive(sharedSecret: k.bytes, cipher: .aes128)
        let oid = ASN1ObjectIdentifier("0.4.0.127.0.7.2.2.4.6.2")
        let tIFD = try PACEToken.token(keys: keys, oid: oid, publicKey: chipEph, domain: .ec(curve))
        let ga4 = chip.send(.generalAuthenticate(TLVWriter.encode(0x7C, TLVWriter.encode(0x85, tIFD)), chained: false))
        #expect(ga4.statusWord == .success)
        let aIC = try TestTerminal.inner(ga4.data, 0x8A)
        let iv = try AES.encryptECB(key: keys.encryption, [UInt8](repeating: 0xFF, count: 16))
        let caIC = try Padding.unpad(AES.decryptCBC(key: keys.encryption, iv: iv, aIC), blockSize: 16)
        #expect(hexString(caIC) == "85DC3FA93D0952BFA82F5FD189EE75BD82F11D1F0B8ED4BF5319AC9B53C426B3")
        #expect(
            try curve.multiply(staticPublic, by: caIC)
                == hex(
                    "04A234236AA9B9621E8EFB73B5245C0E09D2576E5277183C1208BDD55280CAE8B304F365713A356E65A451E165ECC9AC0AC46E3771342C8FE5AEDD092685338E23"
                ))
        // The published A_IC under the published session keys (I.1 KS_enc) from the published CA_IC.
        let published = SessionKeys(
            cipher: .aes128, encryption: SecretBytes(hex("0A9DA4DB03BDDE39FC5202BC44B2E89E")),
            mac: SecretBytes(hex("4B1C06491ED5140CA2B537D344C6C0B1")))
        #expect(
            hexString(try ChipAuthenticationMapping.encrypt(caIC, keys: published))
                == "1EEA964DAAE372AC990E3EFDE6333353BFC89A6704D93DA8798CF77F5B7A54BD10CBA372B42BE0B9B5F28AA8DE2F4F92")
        // Negative twin: another static key gives another CA_IC.
        let other = try ChipAuthenticationMapping.chipAuthenticationData(
            mapPrivate: SecretBytes(mapIC), staticPrivate: SecretBytes(flipBit(staticPrivate, at: 31)),
            order: curve.order)
        #expect(hexString(other) != "85DC3FA93D0952BFA82F5FD189EE75BD82F11D1F0B8ED4BF5319AC9B53C426B3")
    }
}
