import ASN1TLV
internal import CLibCrypto

/// An owned BIGNUM, cleared on free (docs/architecture.md §3.2). Internal to MRTDCrypto.
final class BN {
    let pointer: OpaquePointer

    init() {
        guard let p = BN_new() else { preconditionFailure("BN_new: out of memory") }
        pointer = p
    }
    init(_ bytes: [UInt8]) {
        let p = bytes.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress, Int32($0.count), nil) }
        guard let p else { preconditionFailure("BN_bin2bn: out of memory") }
        pointer = p
    }
    convenience init(_ secret: SecretBytes) {
        self.init(secret.bytes)
    }
    /// Takes ownership of a BIGNUM returned by libcrypto.
    init(owning p: OpaquePointer) { pointer = p }
    deinit { BN_clear_free(pointer) }

    var bitCount: Int { Int(BN_num_bits(pointer)) }
    var byteCount: Int { (bitCount + 7) / 8 }
    var isZero: Bool { BN_is_zero(pointer) == 1 }

    /// Minimal big-endian bytes ([0] for zero).
    var bytes: [UInt8] {
        let n = byteCount
        if n == 0 { return [0] }
        var out = [UInt8](repeating: 0, count: n)
        _ = out.withUnsafeMutableBufferPointer { BN_bn2bin(pointer, $0.baseAddress) }
        return out
    }
    /// Left-padded to `width` bytes; nil when it does not fit.
    func bytes(width: Int) -> [UInt8]? {
        guard byteCount <= width else { return nil }
        var out = [UInt8](repeating: 0, count: width)
        let rc = out.withUnsafeMutableBufferPointer { BN_bn2binpad(pointer, $0.baseAddress, Int32(width)) }
        return rc == Int32(width) ? out : nil
    }
    func compare(_ other: BN) -> Int { Int(BN_cmp(pointer, other.pointer)) }
}

/// An owned BN_CTX scratch area.
final class BNContext {
    let pointer: OpaquePointer
    init() {
        guard let p = BN_CTX_new() else { preconditionFailure("BN_CTX_new: out of memory") }
        pointer = p
    }
    deinit { BN_CTX_free(pointer) }
}

/// Non-negative big integer (OpenSSL BIGNUM behind the scenes), big-endian magnitude.
/// Used for the PACE mappings (ICAO 9303-11 §4.4.3.3) and signature arithmetic.
public struct BigNumber: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Minimal big-endian magnitude, `[0]` for zero.
    private let magnitude: [UInt8]

    public init(_ magnitude: [UInt8]) {
        let trimmed = magnitude.drop(while: { $0 == 0 })
        self.magnitude = trimmed.isEmpty ? [0] : Array(trimmed)
    }
    public init(_ value: UInt64) {
        var b: [UInt8] = []
        for shift in stride(from: 56, through: 0, by: -8) { b.append(UInt8(value >> UInt64(shift) & 0xFF)) }
        self.init(b)
    }
    init(_ bn: BN) { self.init(bn.bytes) }
    var bn: BN { BN(magnitude) }

    /// Minimal big-endian bytes ([0] for zero).
    public var bytes: [UInt8] { magnitude }
    /// Left-padded to `width` bytes (precondition: fits).
    public func bytes(width: Int) -> [UInt8] {
        let significant = isZero ? [] : magnitude
        precondition(significant.count <= width, "BigNumber of \(significant.count) bytes does not fit in \(width)")
        return [UInt8](repeating: 0, count: width - significant.count) + significant
    }
    public var bitCount: Int {
        if isZero { return 0 }
        return (magnitude.count - 1) * 8 + (8 - magnitude[0].leadingZeroBitCount)
    }
    public var isZero: Bool { magnitude == [0] }
    public static func < (a: BigNumber, b: BigNumber) -> Bool {
        if a.magnitude.count != b.magnitude.count { return a.magnitude.count < b.magnitude.count }
        return a.magnitude.lexicographicallyPrecedes(b.magnitude)
    }
    /// Hexadecimal, for diagnostics (not for secrets).
    public var description: String {
        "0x" + Hex.encode(magnitude)
    }

    private static func binary(
        _ a: BigNumber, _ b: BigNumber, _ name: String,
        _ op: (OpaquePointer, OpaquePointer, OpaquePointer, OpaquePointer) -> Int32
    ) -> BigNumber {
        let r = BN()
        let x = a.bn
        let y = b.bn
        let ctx = BNContext()
        precondition(op(r.pointer, x.pointer, y.pointer, ctx.pointer) == 1, "\(name) failed: \(OpenSSL.drainErrors())")
        return BigNumber(r)
    }
    private static func modular(
        _ a: BigNumber, _ b: BigNumber, _ m: BigNumber, _ name: String,
        _ op: (OpaquePointer, OpaquePointer, OpaquePointer, OpaquePointer, OpaquePointer) -> Int32
    ) -> BigNumber {
        precondition(!m.isZero, "\(name): modulus is zero")
        let r = BN()
        let x = a.bn
        let y = b.bn
        let mod = m.bn
        let ctx = BNContext()
        precondition(
            op(r.pointer, x.pointer, y.pointer, mod.pointer, ctx.pointer) == 1,
            "\(name) failed: \(OpenSSL.drainErrors())")
        return BigNumber(r)
    }

    public func mod(_ m: BigNumber) -> BigNumber {
        precondition(!m.isZero, "mod: modulus is zero")
        let r = BN()
        let x = bn
        let mod = m.bn
        let ctx = BNContext()
        precondition(BN_nnmod(r.pointer, x.pointer, mod.pointer, ctx.pointer) == 1, "BN_nnmod failed")
        return BigNumber(r)
    }
    public static func modAdd(_ a: BigNumber, _ b: BigNumber, _ m: BigNumber) -> BigNumber {
        modular(a, b, m, "BN_mod_add") { BN_mod_add($0, $1, $2, $3, $4) }
    }
    public static func modSub(_ a: BigNumber, _ b: BigNumber, _ m: BigNumber) -> BigNumber {
        modular(a, b, m, "BN_mod_sub") { BN_mod_sub($0, $1, $2, $3, $4) }
    }
    public static func modMul(_ a: BigNumber, _ b: BigNumber, _ m: BigNumber) -> BigNumber {
        modular(a, b, m, "BN_mod_mul") { BN_mod_mul($0, $1, $2, $3, $4) }
    }
    public static func modExp(_ a: BigNumber, _ e: BigNumber, _ m: BigNumber) -> BigNumber {
        modular(a, e, m, "BN_mod_exp") { BN_mod_exp($0, $1, $2, $3, $4) }
    }
    /// nil when not invertible.
    public static func modInverse(_ a: BigNumber, _ m: BigNumber) -> BigNumber? {
        precondition(!m.isZero, "modInverse: modulus is zero")
        let x = a.bn
        let mod = m.bn
        let ctx = BNContext()
        guard let r = BN_mod_inverse(nil, x.pointer, mod.pointer, ctx.pointer) else {
            _ = OpenSSL.drainErrors()
            return nil
        }
        return BigNumber(BN(owning: r))
    }
    /// A square root of a modulo the prime p (Tonelli–Shanks in libcrypto), nil when a is a
    /// non-residue — for point encodings such as the PACE Integrated Mapping's.
    public static func modSqrt(_ a: BigNumber, _ p: BigNumber) -> BigNumber? {
        precondition(!p.isZero, "modSqrt: modulus is zero")
        let x = a.bn
        let mod = p.bn
        let ctx = BNContext()
        guard let r = BN_mod_sqrt(nil, x.pointer, mod.pointer, ctx.pointer) else {
            _ = OpenSSL.drainErrors()
            return nil
        }
        let root = BigNumber(BN(owning: r))
        // libcrypto does not always detect non-residues for every prime form: check.
        return modMul(root, root, p) == a.mod(p) ? root : nil
    }
    public var isOdd: Bool { magnitude.last! & 1 == 1 }

    public static func + (a: BigNumber, b: BigNumber) -> BigNumber {
        let r = BN()
        let x = a.bn
        let y = b.bn
        precondition(BN_add(r.pointer, x.pointer, y.pointer) == 1, "BN_add failed")
        return BigNumber(r)
    }
    /// precondition a >= b
    public static func - (a: BigNumber, b: BigNumber) -> BigNumber {
        precondition(!(a < b), "BigNumber subtraction would be negative")
        let r = BN()
        let x = a.bn
        let y = b.bn
        precondition(BN_sub(r.pointer, x.pointer, y.pointer) == 1, "BN_sub failed")
        return BigNumber(r)
    }
    public static func * (a: BigNumber, b: BigNumber) -> BigNumber {
        binary(a, b, "BN_mul") { BN_mul($0, $1, $2, $3) }
    }
    /// Quotient and remainder.
    public static func divide(_ a: BigNumber, _ b: BigNumber) -> (BigNumber, BigNumber) {
        precondition(!b.isZero, "divide by zero")
        let q = BN()
        let r = BN()
        let x = a.bn
        let y = b.bn
        let ctx = BNContext()
        precondition(BN_div(q.pointer, r.pointer, x.pointer, y.pointer, ctx.pointer) == 1, "BN_div failed")
        return (BigNumber(q), BigNumber(r))
    }
}
