import MRTDCrypto
import MRTDTestSupport
import Testing

/// `CryptoLimits`: key and curve sizes are refused from their encoded length, before any arithmetic
/// (a 32768-bit signer key cost 11–13 s, a 16384-bit explicit curve 50 s, an 8192-bit one 4–8 s).
@Suite struct CryptoLimitsTests {
    static func der(_ tag: UInt8, _ value: [UInt8]) -> [UInt8] {
        let n = value.count
        let length: [UInt8] =
            n < 0x80
            ? [UInt8(n)]
            : n < 0x100
                ? [0x81, UInt8(n)]
                : n < 0x10000
                    ? [0x82, UInt8(n >> 8), UInt8(n & 0xFF)]
                    : [0x83, UInt8(n >> 16), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF)]
        return [tag] + length + value
    }

    /// An odd number of `bits` bits (top and bottom bits set): shaped like a modulus, never factored.
    static func oddNumber(bits: Int) -> [UInt8] {
        var n = [UInt8](repeating: 0xA5, count: bits / 8)
        n[0] = 0xC5
        n[n.count - 1] |= 1
        return n
    }

    static func expectLimit(_ name: String, _ body: () throws(CryptoError) -> Void) {
        do {
            try body()
            Issue.record("accepted beyond CryptoLimits.\(name)")
        } catch {
            #expect(error.code == .limitExceeded, "\(error)")
            #expect(error.reason.contains("CryptoLimits.\(name)"), "\(error)")
        }
    }

    /// Key structures are read through ASN1TLV under their own, tighter bounds: a SubjectPublicKeyInfo whose
    /// algorithm parameters nest one level too deep, or hold one element too many, is refused before any key
    /// is built; at the bounds the structure is read (and fails only as an unknown key would).
    @Test func keyStructuresAreBoundedInDepthAndElements() {
        let ecPublicKey: [UInt8] = [0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01]
        func spki(parameters: [UInt8]) -> [UInt8] {
            Self.der(0x30, Self.der(0x30, Self.der(0x06, ecPublicKey) + parameters) + Self.der(0x03, [0, 4, 1, 2]))
        }
        func nested(_ levels: Int) -> [UInt8] {
            var p: [UInt8] = [0x05, 0x00]
            for _ in 0..<levels { p = Self.der(0x30, p) }
            return p
        }
        // SPKI (0) / AlgorithmIdentifier (1) / parameters (2…): the NULL at the bottom sits at depth 2 + levels
        let levelsAtCap = CryptoLimits.maxKeyStructureDepth - 2
        Self.expectLimit("maxKeyStructureDepth") { () throws(CryptoError) in
            _ = try PublicKey(subjectPublicKeyInfo: spki(parameters: nested(levelsAtCap + 1)))
        }
        #expect(throws: CryptoError.self) {
            _ = try PublicKey(subjectPublicKeyInfo: spki(parameters: nested(levelsAtCap)))
        }
        do {
            _ = try PublicKey(subjectPublicKeyInfo: spki(parameters: nested(levelsAtCap)))
        } catch {
            #expect(error.code != .limitExceeded, "\(error)")
        }
        // SPKI, AlgorithmIdentifier, OID, BIT STRING and the parameters SEQUENCE: 5 elements besides its NULLs
        let nulls = { (n: Int) in Self.der(0x30, Array([[UInt8]](repeating: [0x05, 0x00], count: n).joined())) }
        Self.expectLimit("maxKeyStructureElements") { () throws(CryptoError) in
            _ = try PublicKey(subjectPublicKeyInfo: spki(parameters: nulls(CryptoLimits.maxKeyStructureElements - 4)))
        }
        do {
            _ = try PublicKey(subjectPublicKeyInfo: spki(parameters: nulls(CryptoLimits.maxKeyStructureElements - 5)))
        } catch {
            #expect(error.code != .limitExceeded, "\(error)")
        }
    }

    @Test func rsaModulusAboveTheCapIsRefused() throws {
        // the 32768-bit signer key of the issue, directly and inside a SubjectPublicKeyInfo
        let huge = Self.oddNumber(bits: 32768)
        Self.expectLimit("maxRSAModulusBits") { () throws(CryptoError) in
            _ = try PublicKey(rsaModulus: huge, exponent: [1, 0, 1])
        }
        let rsaKey = Self.der(0x30, Self.der(0x02, [0] + huge) + Self.der(0x02, [1, 0, 1]))
        let spki = Self.der(
            0x30,
            Self.der(0x30, Self.der(0x06, [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x01]) + [0x05, 0x00])
                + Self.der(0x03, [0] + rsaKey))
        Self.expectLimit("maxRSAModulusBits") { () throws(CryptoError) in _ = try PublicKey(subjectPublicKeyInfo: spki)
        }
        // one bit above the cap is refused; at the cap the key is taken
        Self.expectLimit("maxRSAModulusBits") { () throws(CryptoError) in
            _ = try PublicKey(
                rsaModulus: [1] + Self.oddNumber(bits: CryptoLimits.maxRSAModulusBits), exponent: [1, 0, 1])
        }
        let atCap = try PublicKey(
            rsaModulus: Self.oddNumber(bits: CryptoLimits.maxRSAModulusBits), exponent: [1, 0, 1])
        #expect(atCap.kind == .rsa(modulusBits: CryptoLimits.maxRSAModulusBits))
        // leading zero octets do not count
        _ = try PublicKey(rsaModulus: [0, 0, 0] + Self.oddNumber(bits: 2048), exponent: [1, 0, 1])
    }

    @Test func rsaExponentAboveTheCapIsRefused() {
        Self.expectLimit("maxRSAExponentBits") { () throws(CryptoError) in
            _ = try PublicKey(rsaModulus: Self.oddNumber(bits: 4096), exponent: Self.oddNumber(bits: 512))
        }
    }

    /// Explicit parameters of a field of `bits` bits: nothing about them is checked before the size.
    static func explicitCurve(bits: Int) throws(CryptoError) -> ECCurve {
        let p = oddNumber(bits: bits)
        let x = [UInt8](repeating: 0x11, count: p.count)
        let y = [UInt8](repeating: 0x22, count: p.count)
        return try ECCurve(p: p, a: [3], b: [7], generator: [0x04] + x + y, order: p, cofactor: [1])
    }

    @Test(arguments: [16384, 8192, 2048, CryptoLimits.maxECFieldBits + 8])
    func explicitCurveAboveTheCapIsRefused(bits: Int) {
        Self.expectLimit("maxECFieldBits") { () throws(CryptoError) in _ = try Self.explicitCurve(bits: bits) }
    }

    @Test func signerKeyOnAHugeExplicitCurveIsRefused() {
        // a SubjectPublicKeyInfo (as in a document signer certificate) with explicit parameters of 16384 bits
        var p = Self.oddNumber(bits: 16384)
        p[1] = 0x00
        let w = p.count
        let point = [0x04] + [UInt8](repeating: 0x11, count: 2 * w)
        let primeField: [UInt8] = [0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x01, 0x01]
        let parameters = Self.der(
            0x30,
            [0x02, 0x01, 0x01] + Self.der(0x30, primeField + Self.der(0x02, [0] + p))
                + Self.der(0x30, Self.der(0x04, [3]) + Self.der(0x04, [7])) + Self.der(0x04, point)
                + Self.der(0x02, [0] + p) + [0x02, 0x01, 0x01])
        let ecPublicKey: [UInt8] = [0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01]
        let spki = Self.der(0x30, Self.der(0x30, ecPublicKey + parameters) + Self.der(0x03, [0] + point))
        Self.expectLimit("maxECFieldBits") { () throws(CryptoError) in _ = try PublicKey(subjectPublicKeyInfo: spki) }
    }

    @Test func explicitCurvesMustBeAStandardCurve() throws {
        // secp256k1 (SEC 2 §2.4.1) is a valid curve but none of ICAO 9303's: refused by the table lookup
        let p = hex("FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEFFFFFC2F")
        let g = hex(
            "0479BE667EF9DCBBAC55A06295CE870B07029BFCDB2DCE28D959F2815B16F81798"
                + "483ADA7726A3C4655DA4FBFC0E1108A8FD17B448A68554199C47D08FFB10D4B8")
        let n = hex("FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141")
        do {
            _ = try ECCurve(p: p, a: [0], b: [7], generator: g, order: n, cofactor: [1])
            Issue.record("a curve that is no standard curve was accepted")
        } catch {
            #expect(
                error.code == .unsupportedAlgorithm && error.reason.contains("CryptoLimits.explicitCurves"), "\(error)")
        }
        // every standard curve written out is recognised as itself, with its generator uncompressed or compressed,
        // also with leading zero octets on the order and cofactor; another generator of the same group is refused
        for named in CryptoLimits.explicitCurves {
            let c = ECCurve(named: named)
            let explicit = try ECCurve(
                p: c.p, a: c.a, b: c.b, generator: c.generator, order: [0] + c.order, cofactor: [0, 1])
            #expect(explicit == c && explicit.namedCurve == named)
            let compressed = [UInt8(2 | (c.generator.last! & 1))] + Array(c.generator[1...c.fieldSize])
            #expect(
                try ECCurve(p: c.p, a: c.a, b: c.b, generator: compressed, order: c.order, cofactor: c.cofactor) == c)
            let otherG = try c.multiplyGenerator(by: [2])
            #expect(throws: CryptoError.self) {
                try ECCurve(p: c.p, a: c.a, b: c.b, generator: otherG, order: c.order, cofactor: c.cofactor)
            }
        }
    }

    @Test func dhModulusAboveTheCapIsRefused() throws {
        Self.expectLimit("maxDHModulusBits") { () throws(CryptoError) in
            _ = try DHGroup(p: Self.oddNumber(bits: 8192), g: [2], q: nil)
        }
        // the standardised groups are within it
        let g = DHGroup(.group2048_256)
        _ = try DHGroup(p: g.p, g: g.g, q: g.q)
    }

    @Test func bitLengthCountsFromTheBytes() {
        #expect(CryptoLimits.bitLength([]) == 0)
        #expect(CryptoLimits.bitLength([0, 0]) == 0)
        #expect(CryptoLimits.bitLength([0, 1]) == 1)
        #expect(CryptoLimits.bitLength([0x80, 0]) == 16)
        #expect(CryptoLimits.bitLength([0, 0x7F, 0xFF]) == 15)
    }
}
