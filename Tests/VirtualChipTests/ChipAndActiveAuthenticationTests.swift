import ASN1TLV
import DocumentGenerator
import ISO7816
import MRTDCrypto
import MRTDDocument
import MRTDSecureMessaging
import MRTDTestSupport
import Testing

@testable import VirtualChip

/// Chip Authentication v1 (ICAO 9303-11 §6.2) and Active Authentication (§6.1), chip side.
@Suite struct ChipAuthenticationTests {
    static let mrzInformation = "L898902C<369080619406236"

    enum Variant: String, CaseIterable, Sendable {
        case ecdh3DES, ecdhAES128, ecdhAES256, dh3DES, dhAES128
    }

    /// A terminal after BAC with a chip holding a CA key of `variant`, the key's kind, its public key, the CA OID.
    struct Setup: ~Copyable {
        var terminal: TestTerminal
        let key: TestTerminal.CAKey
        let chipPublic: [UInt8]
        let oid: String?
    }

    static func setUp(_ variant: Variant) throws -> Setup {
        let agreement: ChipAuthenticationKey.Agreement
        let terminalKey: TestTerminal.CAKey
        let publicKey: [UInt8]
        switch variant {
        case .ecdh3DES, .ecdhAES128, .ecdhAES256:
            let curve = ECCurve(named: .brainpoolP256r1)
            let (priv, pub) = try curve.generateKeyPair(random: SystemRandom())
            agreement = .ecdh(curve: curve, privateKey: priv, publicKey: pub)
            terminalKey = .ecdh(curve)
            publicKey = pub
        case .dh3DES, .dhAES128:
            let group = DHGroup(.group2048_224)
            let (priv, pub) = try group.generateKeyPair(random: SystemRandom())
            agreement = .dh(group: group, privateKey: priv, publicKey: pub)
            terminalKey = .dh(group)
            publicKey = pub
        }
        let oid: String?
        switch variant {
        case .ecdh3DES, .dh3DES: oid = nil
        case .ecdhAES128: oid = "0.4.0.127.0.7.2.2.3.2.2"
        case .ecdhAES256: oid = "0.4.0.127.0.7.2.2.3.2.4"
        case .dhAES128: oid = "0.4.0.127.0.7.2.2.3.1.2"
        }
        let profile = TestProfiles.profile(
            keys: ChipKeys(chipAuthentication: ChipAuthenticationKey(agreement: agreement, keyId: 1)))
        var terminal = TestTerminal(chip: VirtualChip(profile: profile))
        _ = terminal.plain(.selectApplication(MRTDApplication.lds1AID))
        try terminal.bac(mrzInformation: mrzInformation)
        return Setup(terminal: terminal, key: terminalKey, chipPublic: publicKey, oid: oid)
    }

    /// CA restarts SM with the new keys and SSC 0 after the answer, which is protected with the old keys;
    /// the next protected read proves success.
    @Test(arguments: Variant.allCases)
    func chipAuthentication(_ variant: Variant) throws {
        let setup = try Self.setUp(variant)
        let (key, chipPublic, oid) = (setup.key, setup.chipPublic, setup.oid)
        var terminal = setup.terminal
        try terminal.chipAuthentication(key: key, oid: oid, keyId: 1)
        try terminal.finishChipAuthentication(key: key, chipStaticPublic: chipPublic)
        #expect(terminal.chip.snapshot.chipAuthenticated)
        let dg1 = try terminal.secure(.readBinary(sfi: 0x01, offset: 0, ne: TestProfiles.dg1.count))
        #expect(dg1.statusWord == .success && dg1.data == TestProfiles.dg1)
    }

    /// Negative twin: a terminal that keeps the old keys after CA is refused (6988) and the session dropped.
    @Test(arguments: [Variant.ecdh3DES, .ecdhAES128])
    func oldKeysRefusedAfterChipAuthentication(_ variant: Variant) throws {
        let setup = try Self.setUp(variant)
        let (key, oid) = (setup.key, setup.oid)
        var terminal = setup.terminal
        try terminal.chipAuthentication(key: key, oid: oid)
        #expect(throws: TerminalError.self) { try terminal.secure(.readBinary(sfi: 0x01, offset: 0, ne: 4)) }
        #expect(!terminal.chip.snapshot.secureMessagingActive)
    }

    /// A wrong key id is refused with 6A88 and the session keeps the old keys.
    @Test func wrongKeyId() throws {
        var terminal = try Self.setUp(.ecdhAES128).terminal
        let oid = ASN1ObjectIdentifier("0.4.0.127.0.7.2.2.3.2.2")
        let r = try terminal.secure(
            .manageSecurityEnvironment(
                p1: 0x41, p2: 0xA4,
                data: TLVWriter.encode(0x80, oid.encodedValue) + TLVWriter.encode(0x84, [7])))
        #expect(r.statusWord == .referencedDataNotFound)
        #expect(try terminal.secure(.readBinary(sfi: 0x01, offset: 0, ne: 4)).isSuccess)
    }

    /// CA needs secure messaging.
    @Test func chipAuthenticationNeedsAccessControl() {
        let chip = VirtualChip(profile: TestProfiles.profile())
        #expect(chip.send(hex: "002241A6039101AA") == "6982")
    }

    /// BSI EAC worked example static keys and terminal keys (ECDH brainpoolP256r1 and DH 1024/160):
    /// the chip computes the published K; CA v1 session keys are KDF(K, 1/2) (no r_IC), checked by a
    /// protected read under keys derived here from the published K.
    @Test(arguments: [
        (
            "ecdh", "7984674CF3B3A524BF929CE8A67FCF22173DA0BAD595EED6DEB72D22C542FA9D",
            "045A7A377FC9CAFC03AC7FF45441A8B2909D88EAB8E6B0173847AB49B949DF3799A34EE57EC55268CF8B1C3EC489F8BF4CF4C68D3FD9670E89C0D5D3FFF1AAF89F",
            "791DA04273CCFE862E52DF60347E2557192E1F8D7517822CE3D306056C1CDEB4"
        ),
        (
            "dh", "00D0E5A95ECA541DEF4FE92B9FF9920D49A454C297",
            "A2830947A6FCAACDE2FCB88B29AB38E07C3453ABC4BCB466087E11C79F32A19E6EF22BE108F8DD18FE8249C960951511200DC985AA3EC0CCAD59A5F9BBCC33EE5F1577E20330B4DD10EB06B740277C97A189180EDE52BEE9D429F10FB77F180F05D6A99C499CB5E1ECEEB8E92284F66EA98479674CE73F53C567A03B0D297833",
            "2A4FC2D11490DF4773DDFA6FF705557C51F4AD4533E8D8A66A3001BFDD271DB87BE3C1CAC22A05E8AF1A066DD0298E75DB928AAFDF00EB4BFB1BD12F372313C1CA649056517305638515D5A4FBE0AC59BDC80E8C5A5F46254D231916EA77F80AC58E6B63A26198EE4387F10981E8E46FFBA23790C81E679363C589587D30BBB3"
        ),
    ])
    func bsiStaticKeys(kind: String, staticPrivate: String, terminalPublic: String, sharedSecret: String) throws {
        let agreement: ChipAuthenticationKey.Agreement
        let oid: String
        if kind == "ecdh" {
            let curve = ECCurve(named: .brainpoolP256r1)
            let priv = hex(staticPrivate)
            agreement = .ecdh(
                curve: curve, privateKey: SecretBytes(priv), publicKey: try curve.multiplyGenerator(by: priv))
            oid = "0.4.0.127.0.7.2.2.3.2.2"
        } else {
            let group = DHGroup(.group1024_160)
            let priv = SecretBytes(hex(staticPrivate))
            agreement = .dh(group: group, privateKey: priv, publicKey: try group.publicKey(for: priv))
            oid = "0.4.0.127.0.7.2.2.3.1.2"
        }
        for flip in [false, true] {
            let profile = TestProfiles.profile(
                keys: ChipKeys(chipAuthentication: ChipAuthenticationKey(agreement: agreement)))
            var terminal = TestTerminal(chip: VirtualChip(profile: profile))
            _ = terminal.plain(.selectApplication(MRTDApplication.lds1AID))
            try terminal.bac(mrzInformation: Self.mrzInformation)
            let o = ASN1ObjectIdentifier(oid)!
            #expect(
                try terminal.secure(
                    .manageSecurityEnvironment(p1: 0x41, p2: 0xA4, data: TLVWriter.encode(0x80, o.encodedValue))
                ).isSuccess)
            let ga = try terminal.secure(
                .generalAuthenticate(
                    TLVWriter.encode(0x7C, TLVWriter.encode(0x80, hex(terminalPublic))), chained: false))
            #expect(hexString(ga.bytes) == "7C009000")
            // Negative twin: keys from a K with one bit flipped do not work.
            let k = flip ? flipBit(hex(sharedSecret), at: 3) : hex(sharedSecret)
            terminal.session = SecureMessagingSession(keys: SessionKeys.derive(sharedSecret: k, cipher: .aes128))
            if flip {
                #expect(throws: TerminalError.self) { try terminal.secure(.readBinary(sfi: 0x01, offset: 0, ne: 4)) }
            } else {
                #expect(
                    try terminal.secure(.readBinary(sfi: 0x01, offset: 0, ne: 4)).data
                        == Array(TestProfiles.dg1.prefix(4)))
            }
        }
    }
}

@Suite struct ActiveAuthenticationTests {
    static let challenge = hex("781723860C06C226")

    static func terminal(
        key: PrivateKey, extraFiles: [LDSFile: [UInt8]] = [:],
        options: VirtualChip.Options = .init()
    ) throws -> TestTerminal {
        let profile = TestProfiles.profile(extraFiles: extraFiles, keys: ChipKeys(activeAuthentication: key))
        var terminal = TestTerminal(chip: VirtualChip(profile: profile, options: options))
        _ = terminal.plain(.selectApplication(MRTDApplication.lds1AID))
        try terminal.bac(mrzInformation: ChipAuthenticationTests.mrzInformation)
        return terminal
    }

    /// ICAO 9303-11 Appendix F: F = '6A' || M1 || SHA-1(M1 || RND.IFD) || 'BC' for k = 1024 (|M1| = 106 bytes),
    /// with a negative twin (one challenge bit flipped changes H).
    @Test func appendixFMessageRepresentative() {
        let m1 = hex(
            "9D2784A67F8E7C659973EA1AEA25D95B6C8F91E5002F369F0FBDCE8A3CEC1991B543F1696546C5524CF23A5303CD6C98599F40B79F377B5F3A1406B3B4D8F96784D23AA88DB7E1032A405E69325FA91A6E86F5C71AEA978264C4A207446DAD4E7292E2DCDA3024B47DA8"
        )
        let rnd = hex("F173589974BF40C6")
        let f = ISO9796Trailer.messageRepresentative(m1: m1, challenge: rnd, hash: .sha1)
        #expect(
            hexString(f)
                == "6A9D2784A67F8E7C659973EA1AEA25D95B6C8F91E5002F369F0FBDCE8A3CEC1991B543F1696546C5524CF23A5303CD6C98599F40B79F377B5F3A1406B3B4D8F96784D23AA88DB7E1032A405E69325FA91A6E86F5C71AEA978264C4A207446DAD4E7292E2DCDA3024B47DA8C063AA1E6D22FBD976AB0FE73D94D2D9C6D88127BC"
        )
        #expect(f.count == 128)
        #expect(ISO9796Trailer.messageRepresentative(m1: m1, challenge: flipBit(rnd, at: 7), hash: .sha1) != f)
        #expect(ISO9796Trailer.trailer(for: .sha256) == [0x34, 0xCC])
    }

    /// ISO/IEC 9796-2 scheme 1: s^e mod n = '6A' || M1 || H(M1 || RND.IFD) || trailer.
    @Test(arguments: [(HashAlgorithm.sha1, [UInt8]([0xBC])), (.sha256, [0x34, 0xCC])])
    func rsa(hash: HashAlgorithm, trailer: [UInt8]) throws {
        let key = try PrivateKey.generateRSA(bits: 1024)
        var terminal = try Self.terminal(key: key, options: .init(rsaActiveAuthenticationHash: hash))
        let r = try terminal.secure(.internalAuthenticate(Self.challenge, ne: 256))
        #expect(r.statusWord == .success && r.data.count == 128)
        let f = try key.publicKey.rsaPublicOperation(r.data)
        #expect(f.first == 0x6A)
        #expect(Array(f.suffix(trailer.count)) == trailer)
        let digest = Array(f.dropLast(trailer.count).suffix(hash.outputLength))
        let m1 = Array(f.dropFirst().dropLast(trailer.count + hash.outputLength))
        #expect(hash.hash(m1 + Self.challenge) == digest)
        // Negative twin: another challenge does not match the recovered hash.
        #expect(hash.hash(m1 + flipBit(Self.challenge, at: 0)) != digest)
    }

    /// ECDSA plain r||s with the hash named by DG14's ActiveAuthenticationInfo (SHA-256 by default).
    @Test(arguments: [(nil as String?, HashAlgorithm.sha256), ("1.2.840.10045.4.3.3", .sha384)])
    func ecdsa(aaAlgorithm: String?, hash: HashAlgorithm) throws {
        let curve = ECCurve(named: .secp256r1)
        let key = try PrivateKey.generateEC(curve: curve)
        var files: [LDSFile: [UInt8]] = [:]
        if let aaAlgorithm { files[.dg14] = TestProfiles.dg14(activeAuthenticationAlgorithm: aaAlgorithm) }
        var terminal = try Self.terminal(key: key, extraFiles: files)
        let r = try terminal.secure(.internalAuthenticate(Self.challenge, ne: 256))
        #expect(r.statusWord == .success && r.data.count == 64)
        #expect(try key.publicKey.verify(signature: r.data, message: Self.challenge, algorithm: .ecdsaPlain(hash)))
        #expect(
            try !key.publicKey.verify(
                signature: r.data, message: flipBit(Self.challenge, at: 7), algorithm: .ecdsaPlain(hash)))
    }

    @Test func needsAccessControlAndKey() throws {
        let key = try PrivateKey.generateEC(curve: ECCurve(named: .secp256r1))
        let chip = VirtualChip(profile: TestProfiles.profile(keys: ChipKeys(activeAuthentication: key)))
        #expect(chip.send(.internalAuthenticate(Self.challenge, ne: 256)).statusWord == .securityStatusNotSatisfied)
        let noKey = VirtualChip(profile: TestProfiles.profile())
        #expect(noKey.send(.internalAuthenticate(Self.challenge, ne: 256)).statusWord == .insNotSupported)
    }
}
