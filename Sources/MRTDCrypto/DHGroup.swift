import ASN1TLV

/// Finite-field Diffie-Hellman over a prime p with generator g of (optional) prime order q
/// (PKCS #3 / X9.42 as used by PACE DH, ICAO 9303-11 §4.4). Values are fixed width (the size of p).
public struct DHGroup: Sendable, Hashable {
    /// RFC 5114 groups: 1 = 1024-bit/160-bit subgroup (id 0), 2 = 2048/224 (id 1), 3 = 2048/256 (id 2).
    public enum RFC5114: Int, Sendable, CaseIterable { case group1024_160 = 0, group2048_224 = 1, group2048_256 = 2 }

    private let pValue: BigNumber
    private let gValue: BigNumber
    private let qValue: BigNumber?

    public init(_ group: RFC5114) {
        let c: (String, String, String)
        switch group {
        case .group1024_160:
            c = (RFC5114Constants.group1024_160_p, RFC5114Constants.group1024_160_g, RFC5114Constants.group1024_160_q)
        case .group2048_224:
            c = (RFC5114Constants.group2048_224_p, RFC5114Constants.group2048_224_g, RFC5114Constants.group2048_224_q)
        case .group2048_256:
            c = (RFC5114Constants.group2048_256_p, RFC5114Constants.group2048_256_g, RFC5114Constants.group2048_256_q)
        }
        pValue = BigNumber(hexConstant(c.0))
        gValue = BigNumber(hexConstant(c.1))
        qValue = BigNumber(hexConstant(c.2))
    }

    /// Checks, before any arithmetic: p of at most `CryptoLimits.maxDHModulusBits`. Then p odd and > 3;
    /// g in [2, p-2]; when q is given, q < p and g^q ≡ 1 (mod p).
    public init(p: [UInt8], g: [UInt8], q: [UInt8]?) throws(CryptoError) {
        let fn = "DHGroup.init(p:g:q:)"
        try CryptoLimits.check(
            p, atMost: CryptoLimits.maxDHModulusBits, "maxDHModulusBits", what: "DH modulus p", function: fn)
        let pN = BigNumber(p)
        let gN = BigNumber(g)
        guard pN > BigNumber(3), pN.bytes.last! & 1 == 1 else {
            throw CryptoError(.invalidParameters, function: fn, "p is not an odd number > 3")
        }
        guard gN > BigNumber(1), gN < pN - BigNumber(1) else {
            throw CryptoError(.invalidParameters, function: fn, "g not in [2, p-2]")
        }
        var qN: BigNumber?
        if let q {
            let value = BigNumber(q)
            guard value > BigNumber(1), value < pN else {
                throw CryptoError(.invalidParameters, function: fn, "q out of range")
            }
            guard BigNumber.modExp(gN, value, pN) == BigNumber(1) else {
                throw CryptoError(.invalidParameters, function: fn, "g does not generate the subgroup of order q")
            }
            qN = value
        }
        pValue = pN
        gValue = gN
        qValue = qN
    }

    public var p: [UInt8] { pValue.bytes }
    /// Generator, fixed width (primeSize).
    public var g: [UInt8] { gValue.bytes(width: primeSize) }
    public var q: [UInt8]? { qValue?.bytes }
    /// Size of p in bytes; public keys and shared secrets are this wide.
    public var primeSize: Int { pValue.bytes.count }

    /// Private key in [1, q-1] (or of the size of q); public = g^x mod p, fixed width.
    /// Without q the private key is drawn in [1, p-2]. Draws exactly the byte size of the bound per
    /// attempt, so a fixed random source holding a published private key reproduces it.
    public func generateKeyPair(random: any RandomSource) throws(CryptoError) -> (
        privateKey: SecretBytes, publicKey: [UInt8]
    ) {
        let bound = qValue ?? (pValue - BigNumber(1))
        let x = ECCurve.randomBelow(bound, random)
        let secret = SecretBytes(x)
        return (secret, try publicKey(for: secret))
    }

    public func publicKey(for privateKey: SecretBytes) throws(CryptoError) -> [UInt8] {
        let x = BigNumber(privateKey.bytes)
        guard !x.isZero else { throw CryptoError(.invalidKey, function: "DHGroup.publicKey", "private key is zero") }
        return try ECDSAMath.constantTimeModExp(gValue, x, pValue).bytes(width: primeSize)
    }

    /// Checks a peer value: in [2, p-2] and, when q is known, of order q.
    func validatePeer(_ value: [UInt8], _ function: String) throws(CryptoError) -> BigNumber {
        let y = BigNumber(value)
        guard value.count <= primeSize + 1, y > BigNumber(1), y < pValue - BigNumber(1) else {
            throw CryptoError(.invalidKey, function: function, "peer public value not in [2, p-2]")
        }
        if let qValue, BigNumber.modExp(y, qValue, pValue) != BigNumber(1) {
            throw CryptoError(.invalidKey, function: function, "peer public value not in the subgroup of order q")
        }
        return y
    }

    /// peer^x mod p, fixed width; rejects peer values outside [2, p-2] (and not in the subgroup when q is known).
    public func sharedSecret(privateKey: SecretBytes, peerPublicKey: [UInt8]) throws(CryptoError) -> SecretBytes {
        let y = try validatePeer(peerPublicKey, "DHGroup.sharedSecret")
        let x = BigNumber(privateKey.bytes)
        return SecretBytes(try ECDSAMath.constantTimeModExp(y, x, pValue).bytes(width: primeSize))
    }

    /// Same group with a different generator (checked like `init(p:g:q:)`).
    public func withGenerator(_ g: [UInt8]) throws(CryptoError) -> DHGroup {
        try DHGroup(p: p, g: g, q: q)
    }
}

/// Decodes a hex constant of the tables below (white space ignored, see `Hex.decode`).
func hexConstant(_ text: String) -> [UInt8] {
    guard let bytes = Hex.decode(text) else { preconditionFailure("malformed hex constant") }
    return bytes
}

/// The MODP groups with prime-order subgroups of RFC 5114 §2.1–§2.3 (p, g, q as printed there),
/// used as ICAO 9303-11 §9.5.1 standardized domain parameters 0, 1 and 2.
enum RFC5114Constants {
    static let group1024_160_p = """
        B10B8F96A080E01DDE92DE5EAE5D54EC52C99FBCFB06A3C69A6A9DCA52D23B61
        6073E28675A23D189838EF1E2EE652C013ECB4AEA906112324975C3CD49B83BF
        ACCBDD7D90C4BD7098488E9C219A73724EFFD6FAE5644738FAA31A4FF55BCCC0
        A151AF5F0DC8B4BD45BF37DF365C1A65E68CFDA76D4DA708DF1FB2BC2E4A4371
        """
    static let group1024_160_g = """
        A4D1CBD5C3FD34126765A442EFB99905F8104DD258AC507FD6406CFF14266D31
        266FEA1E5C41564B777E690F5504F213160217B4B01B886A5E91547F9E2749F4
        D7FBD7D3B9A92EE1909D0D2263F80A76A6A24C087A091F531DBF0A0169B6A28A
        D662A4D18E73AFA32D779D5918D08BC8858F4DCEF97C2A24855E6EEB22B3B2E5
        """
    static let group1024_160_q = """
        F518AA8781A8DF278ABA4E7D64B7CB9D49462353
        """
    static let group2048_224_p = """
        AD107E1E9123A9D0D660FAA79559C51FA20D64E5683B9FD1B54B1597B61D0A75
        E6FA141DF95A56DBAF9A3C407BA1DF15EB3D688A309C180E1DE6B85A1274A0A6
        6D3F8152AD6AC2129037C9EDEFDA4DF8D91E8FEF55B7394B7AD5B7D0B6C12207
        C9F98D11ED34DBF6C6BA0B2C8BBC27BE6A00E0A0B9C49708B3BF8A3170918836
        81286130BC8985DB1602E714415D9330278273C7DE31EFDC7310F7121FD5A074
        15987D9ADC0A486DCDF93ACC44328387315D75E198C641A480CD86A1B9E587E8
        BE60E69CC928B2B9C52172E413042E9B23F10B0E16E79763C9B53DCF4BA80A29
        E3FB73C16B8E75B97EF363E2FFA31F71CF9DE5384E71B81C0AC4DFFE0C10E64F
        """
    static let group2048_224_g = """
        AC4032EF4F2D9AE39DF30B5C8FFDAC506CDEBE7B89998CAF74866A08CFE4FFE3
        A6824A4E10B9A6F0DD921F01A70C4AFAAB739D7700C29F52C57DB17C620A8652
        BE5E9001A8D66AD7C17669101999024AF4D027275AC1348BB8A762D0521BC98A
        E247150422EA1ED409939D54DA7460CDB5F6C6B250717CBEF180EB34118E98D1
        19529A45D6F834566E3025E316A330EFBB77A86F0C1AB15B051AE3D428C8F8AC
        B70A8137150B8EEB10E183EDD19963DDD9E263E4770589EF6AA21E7F5F2FF381
        B539CCE3409D13CD566AFBB48D6C019181E1BCFE94B30269EDFE72FE9B6AA4BD
        7B5A0F1C71CFFF4C19C418E1F6EC017981BC087F2A7065B384B890D3191F2BFA
        """
    static let group2048_224_q = """
        801C0D34C58D93FE997177101F80535A4738CEBCBF389A99B36371EB
        """
    static let group2048_256_p = """
        87A8E61DB4B6663CFFBBD19C651959998CEEF608660DD0F25D2CEED4435E3B00
        E00DF8F1D61957D4FAF7DF4561B2AA3016C3D91134096FAA3BF4296D830E9A7C
        209E0C6497517ABD5A8A9D306BCF67ED91F9E6725B4758C022E0B1EF4275BF7B
        6C5BFC11D45F9088B941F54EB1E59BB8BC39A0BF12307F5C4FDB70C581B23F76
        B63ACAE1CAA6B7902D52526735488A0EF13C6D9A51BFA4AB3AD8347796524D8E
        F6A167B5A41825D967E144E5140564251CCACB83E6B486F6B3CA3F7971506026
        C0B857F689962856DED4010ABD0BE621C3A3960A54E710C375F26375D7014103
        A4B54330C198AF126116D2276E11715F693877FAD7EF09CADB094AE91E1A1597
        """
    static let group2048_256_g = """
        3FB32C9B73134D0B2E77506660EDBD484CA7B18F21EF205407F4793A1A0BA125
        10DBC15077BE463FFF4FED4AAC0BB555BE3A6C1B0C6B47B1BC3773BF7E8C6F62
        901228F8C28CBB18A55AE31341000A650196F931C77A57F2DDF463E5E9EC144B
        777DE62AAAB8A8628AC376D282D6ED3864E67982428EBC831D14348F6F2F9193
        B5045AF2767164E1DFC967C1FB3F2E55A4BD1BFFE83B9C80D052B985D182EA0A
        DB2A3B7313D3FE14C8484B1E052588B9B7D2BBD2DF016199ECD06E1557CD0915
        B3353BBB64E0EC377FD028370DF92B52C7891428CDC67EB6184B523D1DB246C3
        2F63078490F00EF8D647D148D47954515E2327CFEF98C582664B4C0F6CC41659
        """
    static let group2048_256_q = """
        8CF83642A709A097B447997640129DA299B1A47D1EB3750BA308B0FE64F5FBD3
        """
}
