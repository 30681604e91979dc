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

/// An owned EC_GROUP (docs/architecture.md §3.2). Immutable after construction: libcrypto only reads it in the
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
        let p = BN()
        let a = BN()
        let b = BN()
        let ctx = BNContext()
        precondition(
            EC_GROUP_get_curve(pointer, p.pointer, a.pointer, b.pointer, ctx.pointer) == 1, "EC_GROUP_get_curve failed")
        let width = p.byteCount
        let generator = ECPoint(group: self, borrowing: EC_GROUP_get0_generator(pointer)!)
        let order = BigNumber(BN_dup(EC_GROUP_get0_order(pointer)).map { BN(owning: $0) }!)
        let cofactor = BigNumber(BN_dup(EC_GROUP_get0_cofactor(pointer)).map { BN(owning: $0) }!)
        return ECCurve.Parameters(
            p: p.bytes, a: a.bytes(width: width)!, b: b.bytes(width: width)!,
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
        self.group = group
        pointer = p
        owned = false
    }
    deinit { if owned { EC_POINT_clear_free(pointer) } }

    /// Decodes 04||X||Y or a compressed point; libcrypto checks that it lies on the curve.
    convenience init(group: ECGroup, encoded: [UInt8]) throws(CryptoError) {
        try self.init(group: group)
        guard !encoded.isEmpty, encoded[0] != 0 else {
            throw CryptoError(.invalidPoint, function: "EC_POINT_oct2point", "empty encoding or point at infinity")
        }
        // The encoding's shape first (SEC 1 §2.3.4): 02/03 || X, or 04 (06/07 hybrid) || X || Y at the field width.
        // A malformed encoding is refused here, without a libcrypto call and its error queue.
        let width = (Int(EC_GROUP_get_degree(group.pointer)) + 7) / 8
        let expected = encoded[0] == 0x02 || encoded[0] == 0x03 ? 1 + width : 1 + 2 * width
        guard [0x02, 0x03, 0x04, 0x06, 0x07].contains(encoded[0]), encoded.count == expected else {
            throw CryptoError(
                .invalidPoint, function: "EC_POINT_oct2point",
                "\(encoded.count) bytes with prefix \(encoded[0]) is no point encoding for a \(width)-byte field")
        }
        let ctx = BNContext()
        let rc = encoded.withUnsafeBufferPointer {
            EC_POINT_oct2point(group.pointer, pointer, $0.baseAddress, $0.count, ctx.pointer)
        }
        guard rc == 1 else {
            // the one failure left is a point off the curve (or an X without a Y): say so, and skip formatting
            // libcrypto's error queue — hostile points are refused at the cost of a genuine one
            ERR_clear_error()
            throw CryptoError(.invalidPoint, function: "EC_POINT_oct2point", "the point is not on the curve")
        }
    }

    var isAtInfinity: Bool { EC_POINT_is_at_infinity(group.pointer, pointer) == 1 }

    /// Uncompressed 04||X||Y, coordinates fixed to the field width.
    func encoded() -> [UInt8] {
        let ctx = BNContext()
        let length = EC_POINT_point2oct(group.pointer, pointer, POINT_CONVERSION_UNCOMPRESSED, nil, 0, ctx.pointer)
        precondition(length > 0, "EC_POINT_point2oct on a point at infinity")
        var out = [UInt8](repeating: 0, count: length)
        _ = out.withUnsafeMutableBufferPointer {
            EC_POINT_point2oct(
                group.pointer, pointer, POINT_CONVERSION_UNCOMPRESSED, $0.baseAddress, length, ctx.pointer)
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
    ///
    /// Accepted only when they are one of the standard curves written out (`NamedCurve`, which is then set):
    /// ICAO 9303 documents and CSCAs with explicit parameters carry the standardised curves (ICAO 9303-11
    /// §9.5.1, BSI TR-03111), e.g. the German CSCAs' brainpool curves. Any other curve is refused
    /// (`CryptoLimits.explicitCurves`) at the cost of a table lookup: validating an arbitrary curve
    /// (SEC 1 §3.1.1.2.1: discriminant, Hasse bound, MOV condition, n·G = O, primality of n and p) costs
    /// 1000–3000 times the lookup, so a hostile chip, bundle or master list could make every refusal expensive.
    /// Bounded first, from the encoded lengths: p of at most `CryptoLimits.maxECFieldBits`.
    public init(p: [UInt8], a: [UInt8], b: [UInt8], generator: [UInt8], order: [UInt8], cofactor: [UInt8])
        throws(CryptoError)
    {
        let fn = "ECCurve.init(p:a:b:generator:order:cofactor:)"
        try CryptoLimits.check(
            p, atMost: CryptoLimits.maxECFieldBits, "maxECFieldBits", what: "EC field p", function: fn)
        let pN = BigNumber(p)
        let width = pN.bytes.count
        guard width > 0, generator.count <= 1 + 2 * width else {
            throw CryptoError(.invalidParameters, function: fn, "a curve parameter is wider than the field p")
        }
        // minimal magnitudes, as the parameter table holds them (a and b at the field's width)
        func magnitude(_ bytes: [UInt8]) -> [UInt8] { BigNumber(bytes).bytes }
        let aW = BigNumber(a).bytes(width: width)
        let bW = BigNumber(b).bytes(width: width)
        let nM = magnitude(order)
        let hM = magnitude(cofactor)
        guard
            let named = CryptoLimits.explicitCurves.first(where: { c in
                let t = NamedCurve.parameterTable[c]!
                return t.p == pN.bytes && t.a == aW && t.b == bW && t.order == nM && t.cofactor == hM
            })
        else {
            throw CryptoError(
                .unsupportedAlgorithm, function: fn,
                "explicit EC parameters of a \(pN.bitCount)-bit curve that is none of the standard curves "
                    + "(CryptoLimits.explicitCurves)")
        }
        let curve = ECCurve(named: named)
        // the generator, as given (uncompressed) or decoded on the standard curve (compressed), must be its own
        let g = generator == curve.generator ? generator : try curve.decodePoint(generator)
        guard g == curve.generator else {
            throw CryptoError(
                .unsupportedAlgorithm, function: fn,
                "explicit EC parameters of \(named) with another generator (CryptoLimits.explicitCurves)")
        }
        self = curve
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
            let check = try ECPoint(group: group)
            let ctx = BNContext()
            let n = BigNumber(parameters.order).bn
            try OpenSSL.check(
                EC_POINT_mul(group.pointer, check.pointer, nil, pt.pointer, n.pointer, ctx.pointer), "EC_POINT_mul")
            guard check.isAtInfinity else {
                throw CryptoError(
                    .invalidPoint, function: "ECCurve.decodePoint", "point not in the prime-order subgroup")
            }
        }
        return pt
    }

    private func finite(_ pt: ECPoint, _ function: String) throws(CryptoError) -> [UInt8] {
        guard !pt.isAtInfinity else {
            throw CryptoError(.invalidPoint, function: function, "result is the point at infinity")
        }
        return pt.encoded()
    }

    /// Validates and returns the uncompressed encoding (accepts compressed input); rejects points not on the curve or at infinity.
    public func decodePoint(_ encoded: [UInt8]) throws(CryptoError) -> [UInt8] {
        let pt = try point(encoded)
        // An uncompressed encoding with both coordinates below p is already the canonical one: return it
        // rather than re-encoding (which converts the point back to affine coordinates, about half the cost).
        if isCanonicalUncompressed(encoded) {
            guard !pt.isAtInfinity else {
                throw CryptoError(.invalidPoint, function: "ECCurve.decodePoint", "result is the point at infinity")
            }
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
                let b = encoded[start + i]
                let q = p[i]
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
        let a = try point(p)
        let b = try point(q)
        let r = try ECPoint(group: group)
        let ctx = BNContext()
        try OpenSSL.check(EC_POINT_add(group.pointer, r.pointer, a.pointer, b.pointer, ctx.pointer), "EC_POINT_add")
        return try finite(r, "ECCurve.add")
    }
    /// scalar · point
    public func multiply(_ point: [UInt8], by scalar: [UInt8]) throws(CryptoError) -> [UInt8] {
        let pt = try self.point(point)
        let k = BN(scalar)
        let r = try ECPoint(group: group)
        let ctx = BNContext()
        try OpenSSL.check(
            EC_POINT_mul(group.pointer, r.pointer, nil, pt.pointer, k.pointer, ctx.pointer), "EC_POINT_mul")
        return try finite(r, "ECCurve.multiply")
    }
    /// scalar · G
    public func multiplyGenerator(by scalar: [UInt8]) throws(CryptoError) -> [UInt8] {
        if let g = mappedGenerator { return try multiply(g, by: scalar) }
        let k = BN(scalar)
        let r = try ECPoint(group: group)
        let ctx = BNContext()
        try OpenSSL.check(EC_POINT_mul(group.pointer, r.pointer, k.pointer, nil, nil, ctx.pointer), "EC_POINT_mul")
        return try finite(r, "ECCurve.multiplyGenerator")
    }

    /// u1·G + u2·Q in one call (ECDSA verification).
    func linearCombination(u1: BN, u2: BN, q: ECPoint) throws(CryptoError) -> ECPoint? {
        let r = try ECPoint(group: group)
        let ctx = BNContext()
        if let g = mappedGenerator {
            // the group's own generator is not this curve's: u1·G' + u2·Q as two products and a sum
            let gp = try point(g)
            let a = try ECPoint(group: group)
            let b = try ECPoint(group: group)
            try OpenSSL.check(
                EC_POINT_mul(group.pointer, a.pointer, nil, gp.pointer, u1.pointer, ctx.pointer), "EC_POINT_mul")
            try OpenSSL.check(
                EC_POINT_mul(group.pointer, b.pointer, nil, q.pointer, u2.pointer, ctx.pointer), "EC_POINT_mul")
            try OpenSSL.check(EC_POINT_add(group.pointer, r.pointer, a.pointer, b.pointer, ctx.pointer), "EC_POINT_add")
            return r.isAtInfinity ? nil : r
        }
        try OpenSSL.check(
            EC_POINT_mul(group.pointer, r.pointer, u1.pointer, q.pointer, u2.pointer, ctx.pointer), "EC_POINT_mul")
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
    public func generateKeyPair(random: any RandomSource) throws(CryptoError) -> (
        privateKey: SecretBytes, publicKey: [UInt8]
    ) {
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
        return try ECCurve(
            p: parameters.p, a: parameters.a, b: parameters.b, generator: g,
            order: parameters.order, cofactor: parameters.cofactor)
    }
}
