internal import CLibCrypto
import Synchronization

/// Named curves used by ICAO 9303-11 standardized domain parameters and by document signers.
public enum NamedCurve: String, Sendable, CaseIterable, Hashable {
    case secp192r1, secp224r1, secp256r1, secp384r1, secp521r1
    case brainpoolP192r1, brainpoolP224r1, brainpoolP256r1, brainpoolP320r1, brainpoolP384r1, brainpoolP512r1

    var nid: Int32 {
        switch self {
        case .secp192r1: return NID_X9_62_prime192v1
        case .secp224r1: return NID_secp224r1
        case .secp256r1: return NID_X9_62_prime256v1
        case .secp384r1: return NID_secp384r1
        case .secp521r1: return NID_secp521r1
        case .brainpoolP192r1: return NID_brainpoolP192r1
        case .brainpoolP224r1: return NID_brainpoolP224r1
        case .brainpoolP256r1: return NID_brainpoolP256r1
        case .brainpoolP320r1: return NID_brainpoolP320r1
        case .brainpoolP384r1: return NID_brainpoolP384r1
        case .brainpoolP512r1: return NID_brainpoolP512r1
        }
    }

    /// Dotted OID of the named curve (RFC 5480 / RFC 5639).
    public var oid: String {
        switch self {
        case .secp192r1: return "1.2.840.10045.3.1.1"
        case .secp224r1: return "1.3.132.0.33"
        case .secp256r1: return "1.2.840.10045.3.1.7"
        case .secp384r1: return "1.3.132.0.34"
        case .secp521r1: return "1.3.132.0.35"
        case .brainpoolP192r1: return "1.3.36.3.3.2.8.1.1.3"
        case .brainpoolP224r1: return "1.3.36.3.3.2.8.1.1.5"
        case .brainpoolP256r1: return "1.3.36.3.3.2.8.1.1.7"
        case .brainpoolP320r1: return "1.3.36.3.3.2.8.1.1.9"
        case .brainpoolP384r1: return "1.3.36.3.3.2.8.1.1.11"
        case .brainpoolP512r1: return "1.3.36.3.3.2.8.1.1.13"
        }
    }

    public init?(oid: String) {
        guard let c = NamedCurve.allCases.first(where: { $0.oid == oid }) else { return nil }
        self = c
    }

    /// The curve's domain parameters as libcrypto knows them, read once.
    static let parameterTable: [NamedCurve: ECCurve.Parameters] = {
        var table: [NamedCurve: ECCurve.Parameters] = [:]
        for curve in NamedCurve.allCases {
            guard let g = EC_GROUP_new_by_curve_name(curve.nid) else {
                preconditionFailure("EC_GROUP_new_by_curve_name(\(curve.rawValue)) failed: \(OpenSSL.drainErrors())")
            }
            let group = ECGroup(owning: g)
            table[curve] = group.readParameters()
        }
        return table
    }()
}

/// An owned EC_GROUP (DESIGN §3.2). Immutable after construction: libcrypto only reads it in the
/// point operations used here, so it is shared between threads.
final class ECGroup: @unchecked Sendable {
    let pointer: OpaquePointer
    init(owning p: OpaquePointer) { pointer = p }
    deinit { EC_GROUP_free(pointer) }

    private static let namedGroups = Mutex<[NamedCurve: ECGroup]>([:])

    /// The group of a named curve, built once per process and shared (immutable, see above): every
    /// public key, PACE and CA step used to rebuild it with EC_GROUP_new_by_curve_name.
    static func named(_ curve: NamedCurve) -> ECGroup {
        namedGroups.withLock { groups in
            if let g = groups[curve] { return g }
            guard let raw = EC_GROUP_new_by_curve_name(curve.nid) else {
                preconditionFailure("EC_GROUP_new_by_curve_name(\(curve.rawValue)) failed: \(OpenSSL.drainErrors())")
            }
            let g = ECGroup(owning: raw)
            groups[curve] = g
            return g
        }
    }

    func readParameters() -> ECCurve.Parameters {
        let p = BN(), a = BN(), b = BN(), ctx = BNContext()
        precondition(EC_GROUP_get_curve(pointer, p.pointer, a.pointer, b.pointer, ctx.pointer) == 1, "EC_GROUP_get_curve failed")
        let width = p.byteCount
        let generator = ECPoint(group: self, borrowing: EC_GROUP_get0_generator(pointer)!)
        let order = BigNumber(BN_dup(EC_GROUP_get0_order(pointer)).map { BN(owning: $0) }!)
        let cofactor = BigNumber(BN_dup(EC_GROUP_get0_cofactor(pointer)).map { BN(owning: $0) }!)
        return ECCurve.Parameters(p: p.bytes, a: a.bytes(width: width)!, b: b.bytes(width: width)!,
                                  generator: generator.encoded(), order: order.bytes, cofactor: cofactor.bytes)
    }
}

/// An EC_POINT on a group, owned or borrowed.
final class ECPoint {
    let group: ECGroup
    let pointer: OpaquePointer
    private let owned: Bool

    init(group: ECGroup) throws(CryptoError) {
        self.group = group
        pointer = try OpenSSL.check(EC_POINT_new(group.pointer), "EC_POINT_new")
        owned = true
    }
    init(group: ECGroup, borrowing p: OpaquePointer) {
        self.group = group; pointer = p; owned = false
    }
    deinit { if owned { EC_POINT_clear_free(pointer) } }

    /// Decodes 04||X||Y or a compressed point; libcrypto checks that it lies on the curve.
    convenience init(group: ECGroup, encoded: [UInt8]) throws(CryptoError) {
        try self.init(group: group)
        guard !encoded.isEmpty, encoded[0] != 0 else {
            throw CryptoError(.invalidPoint, function: "EC_POINT_oct2point", "empty encoding or point at infinity")
        }
        let ctx = BNContext()
        let rc = encoded.withUnsafeBufferPointer {
            EC_POINT_oct2point(group.pointer, pointer, $0.baseAddress, $0.count, ctx.pointer)
        }
        try OpenSSL.check(rc, "EC_POINT_oct2point", code: .invalidPoint)
    }

    var isAtInfinity: Bool { EC_POINT_is_at_infinity(group.pointer, pointer) == 1 }

    /// Uncompressed 04||X||Y, coordinates fixed to the field width.
    func encoded() -> [UInt8] {
        let ctx = BNContext()
        let length = EC_POINT_point2oct(group.pointer, pointer, POINT_CONVERSION_UNCOMPRESSED, nil, 0, ctx.pointer)
        precondition(length > 0, "EC_POINT_point2oct on a point at infinity")
        var out = [UInt8](repeating: 0, count: length)
        _ = out.withUnsafeMutableBufferPointer {
            EC_POINT_point2oct(group.pointer, pointer, POINT_CONVERSION_UNCOMPRESSED, $0.baseAddress, length, ctx.pointer)
        }
        return out
    }
}

/// An elliptic curve group over a prime field, named or given by explicit parameters
/// (X9.62 / BSI TR-03111 §2.2). Equality compares the domain parameters (p, a, b, G, n, h).
public struct ECCurve: Sendable, Hashable {
    /// Normalised domain parameters: p, n, h minimal; a, b fixed to the field width; G uncompressed.
    struct Parameters: Hashable, Sendable {
        var p: [UInt8], a: [UInt8], b: [UInt8], generator: [UInt8], order: [UInt8], cofactor: [UInt8]
    }

    let parameters: Parameters
    /// Set when the curve is (or equals) a named curve.
    public let namedCurve: NamedCurve?
    let group: ECGroup
    /// A generator other than the group's own (a PACE mapping result on a named curve): kept outside the
    /// OpenSSL group so that the named curve's fast arithmetic still applies (an explicit group with the
    /// mapped generator would fall back to the generic, several times slower code).
    let mappedGenerator: [UInt8]?

    public static func == (l: ECCurve, r: ECCurve) -> Bool { l.parameters == r.parameters }
    public func hash(into hasher: inout Hasher) { hasher.combine(parameters) }

    public init(named: NamedCurve) {
        group = ECGroup.named(named)
        parameters = NamedCurve.parameterTable[named]!
        namedCurve = named
        mappedGenerator = nil
    }

    private init(parameters: Parameters, group: ECGroup, mappedGenerator: [UInt8]) {
        self.parameters = parameters
        self.namedCurve = nil
        self.group = group
        self.mappedGenerator = mappedGenerator
    }

    /// Explicit parameters (X9.62 ECParameters). The generator is an encoded point (04||X||Y or compressed).
    /// Matches a named curve when the parameters are identical (so `namedCurve` is set).
    ///
    /// Bounded first, from the encoded lengths: p of at most `CryptoLimits.maxECFieldBits`, n of at most one
    /// bit more than p (Hasse), h no wider than p. Then: p odd and > 3, a and b below p, n > 1, h > 0.
    /// Parameters equal to a named curve's are that curve. Any other curve must pass the validity checks of
    /// SEC 1 §3.1.1.2.1 (cheapest first): 4a³ + 27b² ≠ 0 mod p, G on the curve, |p + 1 − h·n| ≤ 2√p,
    /// n ≠ p, n ∤ p^B − 1 for B < 100 (MOV), n·G = O, then n and p prime.
    public init(p: [UInt8], a: [UInt8], b: [UInt8], generator: [UInt8], order: [UInt8], cofactor: [UInt8]) throws(CryptoError) {
        let fn = "ECCurve.init(p:a:b:generator:order:cofactor:)"
        try CryptoLimits.check(p, atMost: CryptoLimits.maxECFieldBits, "maxECFieldBits", what: "EC field p", function: fn)
        let fieldBits = CryptoLimits.bitLength(p)
        guard CryptoLimits.bitLength(order) <= fieldBits + 1, CryptoLimits.bitLength(cofactor) <= fieldBits,
              CryptoLimits.bitLength(a) <= fieldBits, CryptoLimits.bitLength(b) <= fieldBits,
              generator.count <= 1 + 2 * ((fieldBits + 7) / 8) else {
            throw CryptoError(.invalidParameters, function: fn, "a curve parameter is wider than the field p")
        }
        let pN = BigNumber(p), aN = BigNumber(a), bN = BigNumber(b), nN = BigNumber(order), hN = BigNumber(cofactor)
        guard pN > BigNumber(3), pN.bytes.last! & 1 == 1 else { throw CryptoError(.invalidParameters, function: fn, "p is not an odd prime candidate") }
        guard aN < pN, bN < pN else { throw CryptoError(.invalidParameters, function: fn, "a or b not reduced mod p") }
        guard nN > BigNumber(1), !hN.isZero else { throw CryptoError(.invalidParameters, function: fn, "order or cofactor out of range") }
        let width = pN.bytes.count
        // Parameters identical to a named curve's (the usual case for DG14/DG15 keys and certificates
        // with explicit parameters) need no further check: that curve's own group is valid, and building
        // and checking the explicit group costs a generic scalar multiplication (0.4–0.5 ms for 256 bits).
        // An uncompressed generator is compared as given; any other form is decoded on the explicit group
        // below, and the table is consulted again after normalisation.
        if generator.count == 1 + 2 * width, generator[0] == 0x04 {
            let given = Parameters(p: pN.bytes, a: aN.bytes(width: width), b: bN.bytes(width: width),
                                   generator: generator, order: nN.bytes, cofactor: hN.bytes)
            if let named = NamedCurve.allCases.first(where: { NamedCurve.parameterTable[$0] == given }) {
                self = ECCurve(named: named)
                return
            }
        }
        let ctx = BNContext()
        let pBN = pN.bn, aBN = aN.bn, bBN = bN.bn
        let raw = try OpenSSL.check(EC_GROUP_new_curve_GFp(pBN.pointer, aBN.pointer, bBN.pointer, ctx.pointer), "EC_GROUP_new_curve_GFp")
        let explicitGroup = ECGroup(owning: raw)
        let g = try ECPoint(group: explicitGroup, encoded: generator)
        let normalised = Parameters(p: pN.bytes, a: aN.bytes(width: width), b: bN.bytes(width: width),
                                    generator: g.encoded(), order: nN.bytes, cofactor: hN.bytes)
        if let named = NamedCurve.allCases.first(where: { NamedCurve.parameterTable[$0] == normalised }) {
            self = ECCurve(named: named)
            return
        }
        try Self.checkValidity(p: pN, a: aN, b: bN, order: nN, cofactor: hN, function: fn)
        let nBN = nN.bn, hBN = hN.bn
        try OpenSSL.check(EC_GROUP_set_generator(explicitGroup.pointer, g.pointer, nBN.pointer, hBN.pointer), "EC_GROUP_set_generator",
                          code: .invalidParameters)
        let check = try ECPoint(group: explicitGroup)
        try OpenSSL.check(EC_POINT_mul(explicitGroup.pointer, check.pointer, nil, g.pointer, nBN.pointer, ctx.pointer), "EC_POINT_mul")
        guard check.isAtInfinity else { throw CryptoError(.invalidParameters, function: fn, "n·G is not the point at infinity") }
        // the primality proofs last: the dearest checks (Miller–Rabin rounds), reached only by parameters that passed the rest
        guard nN.isProbablePrime else { throw CryptoError(.invalidParameters, function: fn, "the order n is not prime") }
        guard pN.isProbablePrime else { throw CryptoError(.invalidParameters, function: fn, "the field p is not prime") }

        parameters = normalised
        namedCurve = nil
        group = explicitGroup
        mappedGenerator = nil
    }

    /// The cheap SEC 1 §3.1.1.2.1 checks of a curve that is none of the named ones (the generator was already
    /// decoded on the curve; n·G = O and the primality of n and p are checked by the caller, in that order).
    private static func checkValidity(p: BigNumber, a: BigNumber, b: BigNumber, order n: BigNumber, cofactor h: BigNumber,
                                      function fn: String) throws(CryptoError) {
        // non-singular: 4a³ + 27b² ≢ 0 (mod p)
        let a3 = BigNumber.modMul(BigNumber.modMul(a, a, p), a, p)
        let discriminant = BigNumber.modAdd(BigNumber.modMul(BigNumber(4), a3, p),
                                            BigNumber.modMul(BigNumber(27), BigNumber.modMul(b, b, p), p), p)
        guard !discriminant.isZero else { throw CryptoError(.invalidParameters, function: fn, "singular curve (4a³ + 27b² ≡ 0 mod p)") }
        // Hasse: |p + 1 − h·n| ≤ 2√p, with ⌊√p⌋ + 1 for √p
        let hn = h * n, twoRoot = BigNumber(2) * (BigNumber.integerSquareRoot(p) + BigNumber(1)), p1 = p + BigNumber(1)
        guard !(hn + twoRoot < p1), !(p1 + twoRoot < hn) else {
            throw CryptoError(.invalidParameters, function: fn, "h·n is not the number of points of a curve over p (Hasse bound)")
        }
        guard n != p else { throw CryptoError(.invalidParameters, function: fn, "anomalous curve (n = p)") }
        // MOV / Frey–Rück: the embedding degree is at least 100
        var power = BigNumber(1)
        let pModN = p.mod(n)
        for _ in 1..<100 {
            power = BigNumber.modMul(power, pModN, n)
            if power == BigNumber(1) { throw CryptoError(.invalidParameters, function: fn, "embedding degree below 100 (MOV condition)") }
        }
    }

    public var p: [UInt8] { parameters.p }
    public var a: [UInt8] { parameters.a }
    public var b: [UInt8] { parameters.b }
    public var order: [UInt8] { parameters.order }
    public var cofactor: [UInt8] { parameters.cofactor }
    /// Uncompressed generator 04||X||Y.
    public var generator: [UInt8] { parameters.generator }
    /// Field size in bytes (32 for 256-bit curves, 66 for P-521).
    public var fieldSize: Int { parameters.p.count }
    /// Size of the order n in bytes.
    public var orderSize: Int { parameters.order.count }

    private func point(_ encoded: [UInt8]) throws(CryptoError) -> ECPoint {
        let pt = try ECPoint(group: group, encoded: encoded)
        if parameters.cofactor != [1] {
            // Small-subgroup check for curves with a cofactor (none of the ICAO curves have one).
            let check = try ECPoint(group: group), ctx = BNContext(), n = BigNumber(parameters.order).bn
            try OpenSSL.check(EC_POINT_mul(group.pointer, check.pointer, nil, pt.pointer, n.pointer, ctx.pointer), "EC_POINT_mul")
            guard check.isAtInfinity else { throw CryptoError(.invalidPoint, function: "ECCurve.decodePoint", "point not in the prime-order subgroup") }
        }
        return pt
    }

    private func finite(_ pt: ECPoint, _ function: String) throws(CryptoError) -> [UInt8] {
        guard !pt.isAtInfinity else { throw CryptoError(.invalidPoint, function: function, "result is the point at infinity") }
        return pt.encoded()
    }

    /// Validates and returns the uncompressed encoding (accepts compressed input); rejects points not on the curve or at infinity.
    public func decodePoint(_ encoded: [UInt8]) throws(CryptoError) -> [UInt8] {
        let pt = try point(encoded)
        // An uncompressed encoding with both coordinates below p is already the canonical one: return it
        // rather than re-encoding (which converts the point back to affine coordinates, about half the cost).
        if isCanonicalUncompressed(encoded) {
            guard !pt.isAtInfinity else { throw CryptoError(.invalidPoint, function: "ECCurve.decodePoint", "result is the point at infinity") }
            return encoded
        }
        return try finite(pt, "ECCurve.decodePoint")
    }

    /// 04 || X || Y at the field width with X < p and Y < p (big-endian comparison with p).
    private func isCanonicalUncompressed(_ encoded: [UInt8]) -> Bool {
        let w = parameters.p.count
        guard encoded.count == 1 + 2 * w, encoded[0] == 0x04 else { return false }
        let p = parameters.p  // minimal big-endian; its width is the field width
        func below(_ start: Int) -> Bool {
            for i in 0..<w {
                let b = encoded[start + i], q = p[i]
                if b != q { return b < q }
            }
            return false  // equal to p
        }
        return below(1) && below(1 + w)
    }
    public func isOnCurve(_ point: [UInt8]) -> Bool {
        (try? decodePoint(point)) != nil
    }
    public func add(_ p: [UInt8], _ q: [UInt8]) throws(CryptoError) -> [UInt8] {
        let a = try point(p), b = try point(q), r = try ECPoint(group: group), ctx = BNContext()
        try OpenSSL.check(EC_POINT_add(group.pointer, r.pointer, a.pointer, b.pointer, ctx.pointer), "EC_POINT_add")
        return try finite(r, "ECCurve.add")
    }
    /// scalar · point
    public func multiply(_ point: [UInt8], by scalar: [UInt8]) throws(CryptoError) -> [UInt8] {
        let pt = try self.point(point), k = BN(scalar), r = try ECPoint(group: group), ctx = BNContext()
        try OpenSSL.check(EC_POINT_mul(group.pointer, r.pointer, nil, pt.pointer, k.pointer, ctx.pointer), "EC_POINT_mul")
        return try finite(r, "ECCurve.multiply")
    }
    /// scalar · G
    public func multiplyGenerator(by scalar: [UInt8]) throws(CryptoError) -> [UInt8] {
        if let g = mappedGenerator { return try multiply(g, by: scalar) }
        let k = BN(scalar), r = try ECPoint(group: group), ctx = BNContext()
        try OpenSSL.check(EC_POINT_mul(group.pointer, r.pointer, k.pointer, nil, nil, ctx.pointer), "EC_POINT_mul")
        return try finite(r, "ECCurve.multiplyGenerator")
    }

    /// u1·G + u2·Q in one call (ECDSA verification).
    func linearCombination(u1: BN, u2: BN, q: ECPoint) throws(CryptoError) -> ECPoint? {
        let r = try ECPoint(group: group), ctx = BNContext()
        if let g = mappedGenerator {
            // the group's own generator is not this curve's: u1·G' + u2·Q as two products and a sum
            let gp = try point(g), a = try ECPoint(group: group), b = try ECPoint(group: group)
            try OpenSSL.check(EC_POINT_mul(group.pointer, a.pointer, nil, gp.pointer, u1.pointer, ctx.pointer), "EC_POINT_mul")
            try OpenSSL.check(EC_POINT_mul(group.pointer, b.pointer, nil, q.pointer, u2.pointer, ctx.pointer), "EC_POINT_mul")
            try OpenSSL.check(EC_POINT_add(group.pointer, r.pointer, a.pointer, b.pointer, ctx.pointer), "EC_POINT_add")
            return r.isAtInfinity ? nil : r
        }
        try OpenSSL.check(EC_POINT_mul(group.pointer, r.pointer, u1.pointer, q.pointer, u2.pointer, ctx.pointer), "EC_POINT_mul")
        return r.isAtInfinity ? nil : r
    }
    func decodedPoint(_ encoded: [UInt8]) throws(CryptoError) -> ECPoint { try point(encoded) }

    /// A uniformly random scalar in [1, n-1]: draws exactly `orderSize` bytes per attempt (top bits
    /// masked to the bit length of n) and rejects out-of-range values, so a fixed random source
    /// holding a published private key reproduces that key.
    func randomScalar(_ random: any RandomSource) -> [UInt8] {
        Self.randomBelow(BigNumber(parameters.order), random)
    }

    static func randomBelow(_ bound: BigNumber, _ random: any RandomSource) -> [UInt8] {
        let width = bound.bytes.count
        let excessBits = width * 8 - bound.bitCount
        let mask: UInt8 = excessBits == 0 ? 0xFF : UInt8(0xFF >> excessBits)
        while true {
            var candidate = random.randomBytes(count: width)
            candidate[0] &= mask
            let value = BigNumber(candidate)
            if !value.isZero && value < bound { return candidate }
        }
    }

    /// A key pair with private scalar in [1, n-1] from the random source.
    public func generateKeyPair(random: any RandomSource) throws(CryptoError) -> (privateKey: SecretBytes, publicKey: [UInt8]) {
        let scalar = randomScalar(random)
        let publicKey = try multiplyGenerator(by: scalar)
        return (SecretBytes(scalar), publicKey)
    }
    /// ECDH: x-coordinate of privateKey · peerPublic, fixed width (fieldSize). Validates the peer point.
    public func sharedSecret(privateKey: SecretBytes, peerPublicKey: [UInt8]) throws(CryptoError) -> SecretBytes {
        let product = try multiply(peerPublicKey, by: privateKey.bytes)
        return SecretBytes(Array(product[1...fieldSize]))
    }
    /// x-coordinate of an encoded point, fixed width.
    public func xCoordinate(_ point: [UInt8]) throws(CryptoError) -> [UInt8] {
        let decoded = try decodePoint(point)
        return Array(decoded[1...fieldSize])
    }
    /// Same curve with a different generator (PACE mapping result).
    public func withGenerator(_ point: [UInt8]) throws(CryptoError) -> ECCurve {
        let g = try decodePoint(point)
        if g == parameters.generator { return self }
        if parameters.cofactor == [1] {
            // same group, other generator: a point of the prime-order group (decodePoint checked it is on the
            // curve and finite; with cofactor 1 every such point generates the whole group of order n)
            var mapped = parameters
            mapped.generator = g
            return ECCurve(parameters: mapped, group: group, mappedGenerator: g)
        }
        return try ECCurve(p: parameters.p, a: parameters.a, b: parameters.b, generator: g,
                           order: parameters.order, cofactor: parameters.cofactor)
    }
}
