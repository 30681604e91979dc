import ASN1TLV
internal import CLibCrypto

public enum SignatureAlgorithm: Sendable, Hashable {
    case rsaPKCS1v15(HashAlgorithm)
    /// RSASSA-PSS (RFC 8017 §8.1) with MGF1; `saltLength` -1 on verification accepts any salt length.
    case rsaPSS(hash: HashAlgorithm, mgf1Hash: HashAlgorithm, saltLength: Int)
    /// DER-encoded ECDSA-Sig-Value.
    case ecdsa(HashAlgorithm)
    /// Plain r||s (BSI TR-03111), each `fieldSize` wide — as used by Active Authentication.
    case ecdsaPlain(HashAlgorithm)

    var hash: HashAlgorithm {
        switch self {
        case .rsaPKCS1v15(let h), .ecdsa(let h), .ecdsaPlain(let h): return h
        case .rsaPSS(let h, _, _): return h
        }
    }
    var isRSA: Bool {
        switch self {
        case .rsaPKCS1v15, .rsaPSS: return true
        case .ecdsa, .ecdsaPlain: return false
        }
    }
}

/// A public key from a SubjectPublicKeyInfo: RSA, or EC on a named or explicit curve (RFC 5280 §4.1.2.7,
/// RFC 3279 §2.3.1/§2.3.5, RFC 5480). Verification is implemented on libcrypto big-number and EC-point
/// arithmetic, so it works identically on named and explicit curves.
public struct PublicKey: Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        case rsa(modulusBits: Int)
        case ec(ECCurve)
    }

    enum Material: Sendable, Hashable {
        case rsa(modulus: [UInt8], exponent: [UInt8])
        case ec(point: [UInt8], curve: ECCurve)
    }
    let material: Material

    /// Accepts EC keys with explicit domain parameters (matched to the named curve when equal; otherwise
    /// used as given). Tolerates BER oddities real documents carry where harmless.
    ///
    ///     SubjectPublicKeyInfo ::= SEQUENCE { algorithm AlgorithmIdentifier, subjectPublicKey BIT STRING }
    ///     RSAPublicKey ::= SEQUENCE { modulus INTEGER, publicExponent INTEGER }
    public init(subjectPublicKeyInfo der: [UInt8]) throws(CryptoError) {
        let fn = "PublicKey(subjectPublicKeyInfo:)"
        let spki = try KeyStructure.parse(der, fn).sequence(fn)
        guard spki.count == 2 else {
            throw CryptoError(.invalidInput, function: fn, "SubjectPublicKeyInfo has \(spki.count) elements")
        }
        let algorithm = try spki[0].sequence(fn)
        guard !algorithm.isEmpty else { throw CryptoError(.invalidInput, function: fn, "empty AlgorithmIdentifier") }
        let oid = try algorithm[0].objectIdentifier(fn)
        let keyBits = try spki[1].bitString(fn)
        switch oid {
        case KeyStructure.rsaEncryption, KeyStructure.rsassaPSS:
            let rsa = try KeyStructure.parse(keyBits, fn).sequence(fn)
            guard rsa.count == 2 else {
                throw CryptoError(.invalidKey, function: fn, "RSAPublicKey has \(rsa.count) elements")
            }
            try self.init(rsaModulus: rsa[0].unsignedInteger(fn), exponent: rsa[1].unsignedInteger(fn))
        case KeyStructure.ecPublicKey:
            guard algorithm.count == 2 else {
                throw CryptoError(.invalidParameters, function: fn, "id-ecPublicKey without parameters")
            }
            let curve = try ECCurve(algorithmParameters: algorithm[1])
            try self.init(ecPoint: keyBits, curve: curve)
        default:
            throw CryptoError(.unsupportedAlgorithm, function: fn, "public key algorithm \(oid)")
        }
    }

    /// Checks the modulus against `CryptoLimits.maxRSAModulusBits` and the exponent against
    /// `maxRSAExponentBits` before any arithmetic.
    public init(rsaModulus: [UInt8], exponent: [UInt8]) throws(CryptoError) {
        let fn = "PublicKey(rsaModulus:exponent:)"
        try CryptoLimits.check(
            rsaModulus, atMost: CryptoLimits.maxRSAModulusBits, "maxRSAModulusBits", what: "RSA modulus", function: fn)
        try CryptoLimits.check(
            exponent, atMost: CryptoLimits.maxRSAExponentBits, "maxRSAExponentBits", what: "RSA public exponent",
            function: fn)
        let n = BigNumber(rsaModulus)
        let e = BigNumber(exponent)
        guard n.bitCount >= 512, n.bytes.last! & 1 == 1 else {
            throw CryptoError(
                .invalidKey, function: "PublicKey(rsaModulus:exponent:)", "modulus of \(n.bitCount) bits or even")
        }
        guard e > BigNumber(1), e < n, e.bytes.last! & 1 == 1 else {
            throw CryptoError(.invalidKey, function: "PublicKey(rsaModulus:exponent:)", "public exponent out of range")
        }
        material = .rsa(modulus: n.bytes, exponent: e.bytes)
    }

    public init(ecPoint: [UInt8], curve: ECCurve) throws(CryptoError) {
        material = .ec(point: try curve.decodePoint(ecPoint), curve: curve)
    }

    public var kind: Kind {
        switch material {
        case .rsa(let n, _): return .rsa(modulusBits: BigNumber(n).bitCount)
        case .ec(_, let curve): return .ec(curve)
        }
    }

    /// Re-encoded DER SubjectPublicKeyInfo (named curve OID when the curve is named).
    public var subjectPublicKeyInfo: [UInt8] {
        switch material {
        case .rsa(let n, let e):
            let key = DER.sequence([DER.integer(unsigned: n), DER.integer(unsigned: e)])
            return DER.sequence([
                DER.sequence([DER.objectIdentifier(KeyStructure.rsaEncryption), DER.null()]), DER.bitString(key),
            ])
        case .ec(let point, let curve):
            return DER.sequence([
                DER.sequence([DER.objectIdentifier(KeyStructure.ecPublicKey), curve.parametersDER]),
                DER.bitString(point),
            ])
        }
    }

    /// RSA modulus / EC public point.
    public var rsaModulus: [UInt8]? {
        if case .rsa(let n, _) = material { return n }
        return nil
    }
    public var rsaExponent: [UInt8]? {
        if case .rsa(_, let e) = material { return e }
        return nil
    }
    public var ecPoint: [UInt8]? {
        if case .ec(let point, _) = material { return point }
        return nil
    }

    /// Verifies `signature` over `message` (the message is hashed here). False on any mismatch;
    /// throws only when the algorithm does not fit the key. Tolerates a superfluous leading zero
    /// in an RSA signature and non-minimal DER integers in ECDSA signatures.
    public func verify(signature: [UInt8], message: [UInt8], algorithm: SignatureAlgorithm) throws(CryptoError) -> Bool
    {
        try verify(signature: signature, digest: algorithm.hash.hash(message), algorithm: algorithm)
    }

    /// Verifies over an already computed digest.
    public func verify(signature: [UInt8], digest: [UInt8], algorithm: SignatureAlgorithm) throws(CryptoError) -> Bool {
        switch (material, algorithm) {
        case (.rsa(let n, let e), .rsaPKCS1v15(let hash)):
            return RSAVerifier(n: n, e: e).verifyPKCS1v15(signature: signature, digest: digest, hash: hash)
        case (.rsa(let n, let e), .rsaPSS(let hash, let mgf1Hash, let saltLength)):
            return RSAVerifier(n: n, e: e).verifyPSS(
                signature: signature, digest: digest, hash: hash, mgf1Hash: mgf1Hash, saltLength: saltLength)
        case (.ec(let point, let curve), .ecdsa):
            guard let plain = try? ECDSASignature.rs(fromDER: signature) else { return false }
            return try ECDSAMath.verify(r: plain.r, s: plain.s, digest: digest, point: point, curve: curve)
        case (.ec(let point, let curve), .ecdsaPlain):
            guard !signature.isEmpty, signature.count % 2 == 0 else { return false }
            let half = signature.count / 2
            return try ECDSAMath.verify(
                r: BigNumber(Array(signature[..<half])), s: BigNumber(Array(signature[half...])),
                digest: digest, point: point, curve: curve)
        default:
            throw CryptoError(
                .unsupportedAlgorithm, function: "PublicKey.verify",
                "\(algorithm) does not fit a \(algorithm.isRSA ? "EC" : "RSA") key")
        }
    }

    /// Raw RSA public operation s^e mod n, fixed width (modulus size) — for ISO/IEC 9796-2 message recovery.
    public func rsaPublicOperation(_ signature: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard case .rsa(let n, let e) = material else {
            throw CryptoError(.unsupportedAlgorithm, function: "PublicKey.rsaPublicOperation", "not an RSA key")
        }
        guard let out = RSAVerifier(n: n, e: e).publicOperation(signature) else {
            throw CryptoError(
                .invalidInput, function: "PublicKey.rsaPublicOperation",
                "signature of \(signature.count) bytes is not below the modulus")
        }
        return out
    }
}

/// RSA verification on big-number arithmetic (RFC 8017 §8.1.2 and §8.2.2).
struct RSAVerifier {
    let n: [UInt8], e: [UInt8]
    var k: Int { n.count }

    /// s^e mod n, fixed width; strips superfluous leading zeros; nil when s ≥ n.
    func publicOperation(_ signature: [UInt8]) -> [UInt8]? {
        var s = signature[...]
        while s.count > k, s.first == 0 { s = s.dropFirst() }
        guard s.count <= k else { return nil }
        let sN = BigNumber(Array(s))
        let nN = BigNumber(n)
        guard sN < nN else { return nil }
        return BigNumber.modExp(sN, BigNumber(e), nN).bytes(width: k)
    }

    static func digestInfo(_ hash: HashAlgorithm, _ digest: [UInt8], withNull: Bool) -> [UInt8] {
        let algorithm =
            withNull
            ? DER.sequence([DER.objectIdentifier(hash.oid), DER.null()])
            : DER.sequence([DER.objectIdentifier(hash.oid)])
        return DER.sequence([algorithm, DER.octetString(digest)])
    }

    /// EMSA-PKCS1-v1_5; accepts the DigestInfo with NULL or with absent parameters.
    func verifyPKCS1v15(signature: [UInt8], digest: [UInt8], hash: HashAlgorithm) -> Bool {
        guard digest.count == hash.outputLength, let em = publicOperation(signature) else { return false }
        for withNull in [true, false] {
            let t = Self.digestInfo(hash, digest, withNull: withNull)
            guard k >= t.count + 11 else { return false }
            let expected = [0x00, 0x01] + [UInt8](repeating: 0xFF, count: k - t.count - 3) + [0x00] + t
            if ConstantTime.equals(em, expected) { return true }
        }
        return false
    }

    /// MGF1 (RFC 8017 §B.2.1).
    static func mgf1(_ seed: [UInt8], length: Int, hash: HashAlgorithm) -> [UInt8] {
        var out: [UInt8] = []
        var counter: UInt32 = 0
        while out.count < length {
            let c = [
                UInt8(counter >> 24), UInt8(counter >> 16 & 0xFF), UInt8(counter >> 8 & 0xFF), UInt8(counter & 0xFF),
            ]
            out += hash.hash(seed + c)
            counter += 1
        }
        return Array(out.prefix(length))
    }

    /// EMSA-PSS-VERIFY (RFC 8017 §9.1.2); saltLength < 0 recovers the salt length from DB.
    func verifyPSS(signature: [UInt8], digest: [UInt8], hash: HashAlgorithm, mgf1Hash: HashAlgorithm, saltLength: Int)
        -> Bool
    {
        guard digest.count == hash.outputLength, let m = publicOperation(signature) else { return false }
        let modBits = BigNumber(n).bitCount
        let emBits = modBits - 1
        let emLen = (emBits + 7) / 8
        // EM is the low emLen bytes of m; any higher byte must be zero.
        guard m.count >= emLen, m[..<(m.count - emLen)].allSatisfy({ $0 == 0 }) else { return false }
        let em = Array(m.suffix(emLen))
        let hLen = hash.outputLength
        guard emLen >= hLen + 2, em.last == 0xBC else { return false }
        let maskedDB = Array(em[..<(emLen - hLen - 1)])
        let h = Array(em[(emLen - hLen - 1)..<(emLen - 1)])
        let unusedBits = 8 * emLen - emBits
        let topMask: UInt8 = unusedBits == 0 ? 0 : UInt8(0xFF << (8 - unusedBits) & 0xFF)
        guard maskedDB[0] & topMask == 0 else { return false }
        var db = zip(maskedDB, Self.mgf1(h, length: maskedDB.count, hash: mgf1Hash)).map { $0 ^ $1 }
        db[0] &= ~topMask
        let sLen: Int
        if saltLength >= 0 {
            sLen = saltLength
            guard emLen >= hLen + sLen + 2 else { return false }
            let psLength = emLen - hLen - sLen - 2
            guard db[..<psLength].allSatisfy({ $0 == 0 }), db[psLength] == 0x01 else { return false }
        } else {
            guard let one = db.firstIndex(where: { $0 != 0 }), db[one] == 0x01 else { return false }
            sLen = db.count - one - 1
        }
        let salt = Array(db.suffix(sLen))
        let mPrime = [UInt8](repeating: 0, count: 8) + digest + salt
        return ConstantTime.equals(hash.hash(mPrime), h)
    }
}

/// ECDSA (SEC 1 §4.1.3 signing, §4.1.4 verification) on EC-point arithmetic.
enum ECDSAMath {
    /// e: the leftmost bitlen(n) bits of the digest, as an integer.
    static func digestInteger(_ digest: [UInt8], order: BigNumber) -> BigNumber {
        let nBits = order.bitCount
        var e = digest
        if e.count * 8 > nBits {
            e = Array(e.prefix((nBits + 7) / 8))
            let shift = e.count * 8 - nBits
            if shift > 0 {
                var carry: UInt8 = 0
                for i in e.indices {
                    let b = e[i]
                    e[i] = b >> UInt8(shift) | carry
                    carry = b << UInt8(8 - shift)
                }
            }
        }
        return BigNumber(e)
    }

    static func verify(r: BigNumber, s: BigNumber, digest: [UInt8], point: [UInt8], curve: ECCurve) throws(CryptoError)
        -> Bool
    {
        let n = BigNumber(curve.order)
        guard !r.isZero, !s.isZero, r < n, s < n else { return false }
        guard let w = BigNumber.modInverse(s, n) else { return false }
        let e = digestInteger(digest, order: n)
        let u1 = BigNumber.modMul(e, w, n)
        let u2 = BigNumber.modMul(r, w, n)
        let q = try curve.decodedPoint(point)
        guard let result = try curve.linearCombination(u1: u1.bn, u2: u2.bn, q: q) else { return false }
        let x = BigNumber(Array(result.encoded()[1...curve.fieldSize]))
        return x.mod(n) == r
    }

    /// Signs with a fresh random nonce; k⁻¹ is computed as k^(n-2) mod n in constant time.
    static func sign(digest: [UInt8], privateScalar: SecretBytes, curve: ECCurve, random: any RandomSource)
        throws(CryptoError) -> (r: BigNumber, s: BigNumber)
    {
        let n = BigNumber(curve.order)
        let e = digestInteger(digest, order: n)
        let d = BigNumber(privateScalar.bytes)
        for _ in 0..<64 {
            let kBytes = curve.randomScalar(random)
            let kG = try curve.multiplyGenerator(by: kBytes)
            let r = BigNumber(Array(kG[1...curve.fieldSize])).mod(n)
            if r.isZero { continue }
            let kInverse = try constantTimeModExp(BigNumber(kBytes), n - BigNumber(2), n)
            let s = BigNumber.modMul(kInverse, BigNumber.modAdd(e, BigNumber.modMul(r, d, n), n), n)
            if s.isZero { continue }
            return (r, s)
        }
        throw CryptoError(.openSSL, function: "ECDSA.sign", "no valid nonce found")
    }

    /// a^e mod m for a secret exponent (BN_mod_exp_mont_consttime; m must be odd).
    static func constantTimeModExp(_ a: BigNumber, _ e: BigNumber, _ m: BigNumber) throws(CryptoError) -> BigNumber {
        let r = BN()
        let x = a.bn
        let y = e.bn
        let mod = m.bn
        let ctx = BNContext()
        try OpenSSL.check(
            BN_mod_exp_mont_consttime(r.pointer, x.pointer, y.pointer, mod.pointer, ctx.pointer, nil),
            "BN_mod_exp_mont_consttime")
        return BigNumber(r)
    }
}

/// ECDSA signature format conversions.
public enum ECDSASignature {
    ///     ECDSA-Sig-Value ::= SEQUENCE { r INTEGER, s INTEGER }
    static func rs(fromDER der: [UInt8]) throws(CryptoError) -> (r: BigNumber, s: BigNumber) {
        let fn = "ECDSASignature.plain(fromDER:)"
        let parts = try KeyStructure.parse(der, fn).sequence(fn)
        guard parts.count == 2 else {
            throw CryptoError(.invalidInput, function: fn, "ECDSA-Sig-Value has \(parts.count) elements")
        }
        return (BigNumber(try parts[0].unsignedInteger(fn)), BigNumber(try parts[1].unsignedInteger(fn)))
    }

    /// DER ECDSA-Sig-Value → r||s, each `width` bytes.
    public static func plain(fromDER der: [UInt8], width: Int) throws(CryptoError) -> [UInt8] {
        let (r, s) = try rs(fromDER: der)
        guard r.bytes.count <= width, s.bytes.count <= width else {
            throw CryptoError(
                .invalidInput, function: "ECDSASignature.plain(fromDER:width:)", "r or s wider than \(width) bytes")
        }
        return r.bytes(width: width) + s.bytes(width: width)
    }

    /// r||s → DER ECDSA-Sig-Value.
    public static func der(fromPlain plain: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard !plain.isEmpty, plain.count % 2 == 0 else {
            throw CryptoError(.invalidInput, function: "ECDSASignature.der(fromPlain:)", "odd length \(plain.count)")
        }
        let half = plain.count / 2
        return DER.sequence([
            DER.integer(unsigned: Array(plain[..<half])), DER.integer(unsigned: Array(plain[half...])),
        ])
    }
}
