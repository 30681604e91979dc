import ASN1TLV
internal import CLibCrypto

/// An owned EVP_PKEY (RSA private key). libcrypto's EVP_PKEY is reference counted and safe to use
/// from several threads for signing (each operation gets its own EVP_PKEY_CTX).
final class EVPKey: @unchecked Sendable {
    let pointer: OpaquePointer
    init(owning p: OpaquePointer) { pointer = p }
    deinit { EVP_PKEY_free(pointer) }

    func bigNumberParameter(_ name: String) throws(CryptoError) -> [UInt8] {
        var bn: OpaquePointer?
        try OpenSSL.check(EVP_PKEY_get_bn_param(pointer, name, &bn), "EVP_PKEY_get_bn_param(\(name))")
        guard let bn else { throw OpenSSL.error("EVP_PKEY_get_bn_param(\(name))") }
        return BN(owning: bn).bytes
    }
}

/// An owned EVP_PKEY_CTX.
private final class EVPKeyContext {
    let pointer: OpaquePointer
    init(owning p: OpaquePointer) { pointer = p }
    deinit { EVP_PKEY_CTX_free(pointer) }
}

/// A private key, for the virtual chip and for generating test PKIs.
public struct PrivateKey: Sendable {
    enum Material: Sendable {
        case rsa(EVPKey, PublicKey)
        case ec(scalar: SecretBytes, curve: ECCurve, publicKey: PublicKey)
    }
    let material: Material

    public static func generateRSA(bits: Int, publicExponent: UInt64 = 65537) throws(CryptoError) -> PrivateKey {
        guard bits >= 1024, bits <= 8192 else {
            throw CryptoError(
                .invalidParameters, function: "PrivateKey.generateRSA", "\(bits) bits out of range 1024...8192")
        }
        let ctx = EVPKeyContext(
            owning: try OpenSSL.check(EVP_PKEY_CTX_new_from_name(nil, "RSA", nil), "EVP_PKEY_CTX_new_from_name"))
        try OpenSSL.check(EVP_PKEY_keygen_init(ctx.pointer), "EVP_PKEY_keygen_init")
        try OpenSSL.check(
            EVP_PKEY_CTX_set_rsa_keygen_bits(ctx.pointer, Int32(bits)), "EVP_PKEY_CTX_set_rsa_keygen_bits")
        let e = BigNumber(publicExponent).bn
        try OpenSSL.check(
            EVP_PKEY_CTX_set1_rsa_keygen_pubexp(ctx.pointer, e.pointer), "EVP_PKEY_CTX_set1_rsa_keygen_pubexp")
        var key: OpaquePointer?
        try OpenSSL.check(EVP_PKEY_generate(ctx.pointer, &key), "EVP_PKEY_generate")
        return try PrivateKey(rsa: EVPKey(owning: try OpenSSL.check(key, "EVP_PKEY_generate")))
    }

    private init(rsa key: EVPKey) throws(CryptoError) {
        let publicKey = try PublicKey(rsaModulus: key.bigNumberParameter("n"), exponent: key.bigNumberParameter("e"))
        material = .rsa(key, publicKey)
    }

    public static func generateEC(curve: ECCurve) throws(CryptoError) -> PrivateKey {
        let scalar = curve.randomScalar(SystemRandom())
        return try PrivateKey(ecScalar: SecretBytes(scalar), curve: curve)
    }

    /// An EC key from its private scalar (e.g. a published chip key of a worked example).
    public init(ecScalar: SecretBytes, curve: ECCurve) throws(CryptoError) {
        let d = BigNumber(ecScalar.bytes)
        guard !d.isZero, d < BigNumber(curve.order) else {
            throw CryptoError(.invalidKey, function: "PrivateKey(ecScalar:curve:)", "scalar not in [1, n-1]")
        }
        let point = try curve.multiplyGenerator(by: ecScalar.bytes)
        material = .ec(
            scalar: SecretBytes(d.bytes(width: curve.orderSize)), curve: curve,
            publicKey: try PublicKey(ecPoint: point, curve: curve))
    }

    /// PKCS#8 DER import/export (so generated profiles can be saved and loaded).
    ///
    ///     PrivateKeyInfo ::= SEQUENCE { version INTEGER, privateKeyAlgorithm AlgorithmIdentifier,
    ///                                   privateKey OCTET STRING, attributes [0] IMPLICIT Attributes OPTIONAL }
    ///     ECPrivateKey ::= SEQUENCE { version INTEGER (1), privateKey OCTET STRING,
    ///                                 parameters [0] ECParameters OPTIONAL, publicKey [1] BIT STRING OPTIONAL }  -- RFC 5915
    /// RSA keys go through libcrypto; EC keys (named or explicit curves) are parsed here.
    public init(pkcs8 der: [UInt8]) throws(CryptoError) {
        let fn = "PrivateKey(pkcs8:)"
        let info = try KeyStructure.parse(der, fn).sequence(fn)
        guard info.count >= 3 else {
            throw CryptoError(.invalidKey, function: fn, "PrivateKeyInfo has \(info.count) elements")
        }
        let algorithm = try info[1].sequence(fn)
        guard !algorithm.isEmpty else { throw CryptoError(.invalidKey, function: fn, "empty AlgorithmIdentifier") }
        switch try algorithm[0].objectIdentifier(fn) {
        case KeyStructure.rsaEncryption:
            let key: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
                var p: UnsafePointer<UInt8>? = buffer.baseAddress
                return d2i_AutoPrivateKey(nil, &p, buffer.count)
            }
            try self.init(rsa: EVPKey(owning: try OpenSSL.check(key, "d2i_AutoPrivateKey")))
        case KeyStructure.ecPublicKey:
            let ecKey = try KeyStructure.parse(info[2].octetString(fn), fn).sequence(fn)
            guard ecKey.count >= 2 else {
                throw CryptoError(.invalidKey, function: fn, "ECPrivateKey has \(ecKey.count) elements")
            }
            let scalar = try ecKey[1].octetString(fn)
            var curve: ECCurve?
            if algorithm.count > 1 && algorithm[1].tag != 0x05 {
                curve = try ECCurve(algorithmParameters: algorithm[1])
            } else if let tagged = ecKey.first(where: { $0.tag == 0xA0 }) {
                curve = try ECCurve(algorithmParameters: KeyStructure.parse(tagged.valueBytes, fn))
            }
            guard let curve else {
                throw CryptoError(.invalidParameters, function: fn, "EC private key without domain parameters")
            }
            try self.init(ecScalar: SecretBytes(scalar), curve: curve)
        case let other:
            throw CryptoError(.unsupportedAlgorithm, function: fn, "private key algorithm \(other)")
        }
    }

    public var pkcs8: SecretBytes {
        switch material {
        case .rsa(let key, _):
            guard let p8 = EVP_PKEY2PKCS8(key.pointer) else {
                preconditionFailure("EVP_PKEY2PKCS8: \(OpenSSL.drainErrors())")
            }
            defer { PKCS8_PRIV_KEY_INFO_free(p8) }
            let length = i2d_PKCS8_PRIV_KEY_INFO(p8, nil)
            precondition(length > 0, "i2d_PKCS8_PRIV_KEY_INFO: \(OpenSSL.drainErrors())")
            var out = [UInt8](repeating: 0, count: Int(length))
            _ = out.withUnsafeMutableBufferPointer { buffer in
                var p: UnsafeMutablePointer<UInt8>? = buffer.baseAddress
                return i2d_PKCS8_PRIV_KEY_INFO(p8, &p)
            }
            defer { for i in out.indices { out[i] = 0 } }
            return SecretBytes(out)
        case .ec(let scalar, let curve, let publicKey):
            var ecPrivateKey = DER.sequence([
                DER.integer(1), DER.octetString(scalar.bytes),
                DER.explicit(1, DER.bitString(publicKey.ecPoint!)),
            ])
            var info = DER.sequence([
                DER.integer(0), DER.sequence([DER.objectIdentifier(KeyStructure.ecPublicKey), curve.parametersDER]),
                DER.octetString(ecPrivateKey),
            ])
            defer {
                for i in ecPrivateKey.indices { ecPrivateKey[i] = 0 }
                for i in info.indices { info[i] = 0 }
            }
            return SecretBytes(info)
        }
    }

    public var publicKey: PublicKey {
        switch material {
        case .rsa(_, let publicKey): return publicKey
        case .ec(_, _, let publicKey): return publicKey
        }
    }

    /// EC private scalar (fixed width: the size of the order n) — for the chip's CA/PACE-CAM key agreement.
    public var ecPrivateScalar: SecretBytes? {
        if case .ec(let scalar, _, _) = material { return scalar }
        return nil
    }

    /// Signs (the message is hashed here). ECDSA uses a fresh random nonce; plain r||s is `fieldSize` wide each.
    public func sign(_ message: [UInt8], algorithm: SignatureAlgorithm) throws(CryptoError) -> [UInt8] {
        try sign(digest: algorithm.hash.hash(message), algorithm: algorithm)
    }

    /// Signs an already computed digest.
    public func sign(digest: [UInt8], algorithm: SignatureAlgorithm) throws(CryptoError) -> [UInt8] {
        guard digest.count == algorithm.hash.outputLength else {
            throw CryptoError(
                .invalidInput, function: "PrivateKey.sign",
                "digest of \(digest.count) bytes for \(algorithm.hash.rawValue)")
        }
        switch (material, algorithm) {
        case (.ec(let scalar, let curve, _), .ecdsa):
            let (r, s) = try ECDSAMath.sign(digest: digest, privateScalar: scalar, curve: curve, random: SystemRandom())
            return DER.sequence([DER.integer(unsigned: r.bytes), DER.integer(unsigned: s.bytes)])
        case (.ec(let scalar, let curve, _), .ecdsaPlain):
            let (r, s) = try ECDSAMath.sign(digest: digest, privateScalar: scalar, curve: curve, random: SystemRandom())
            let width = max(curve.fieldSize, curve.orderSize)
            return r.bytes(width: width) + s.bytes(width: width)
        case (.rsa(let key, _), .rsaPKCS1v15(let hash)):
            return try rsaSign(key, digest) { (ctx) throws(CryptoError) in
                try OpenSSL.check(EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_PADDING), "EVP_PKEY_CTX_set_rsa_padding")
                try OpenSSL.check(EVP_PKEY_CTX_set_signature_md(ctx, hash.evpMD), "EVP_PKEY_CTX_set_signature_md")
            }
        case (.rsa(let key, _), .rsaPSS(let hash, let mgf1Hash, let saltLength)):
            guard saltLength >= 0 else {
                throw CryptoError(.invalidParameters, function: "PrivateKey.sign", "PSS salt length must be given")
            }
            return try rsaSign(key, digest) { (ctx) throws(CryptoError) in
                try OpenSSL.check(
                    EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_PSS_PADDING), "EVP_PKEY_CTX_set_rsa_padding")
                try OpenSSL.check(EVP_PKEY_CTX_set_signature_md(ctx, hash.evpMD), "EVP_PKEY_CTX_set_signature_md")
                try OpenSSL.check(EVP_PKEY_CTX_set_rsa_mgf1_md(ctx, mgf1Hash.evpMD), "EVP_PKEY_CTX_set_rsa_mgf1_md")
                try OpenSSL.check(
                    EVP_PKEY_CTX_set_rsa_pss_saltlen(ctx, Int32(saltLength)), "EVP_PKEY_CTX_set_rsa_pss_saltlen")
            }
        default:
            throw CryptoError(.unsupportedAlgorithm, function: "PrivateKey.sign", "\(algorithm) does not fit this key")
        }
    }

    /// Raw RSA private operation m^d mod n, fixed width — for ISO/IEC 9796-2 signatures (active authentication).
    public func rsaPrivateOperation(_ message: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard case .rsa(let key, let publicKey) = material, let n = publicKey.rsaModulus else {
            throw CryptoError(.unsupportedAlgorithm, function: "PrivateKey.rsaPrivateOperation", "not an RSA key")
        }
        var m = Array(message.drop(while: { $0 == 0 }))
        guard m.count <= n.count, BigNumber(m) < BigNumber(n) else {
            throw CryptoError(
                .invalidInput, function: "PrivateKey.rsaPrivateOperation", "message not below the modulus")
        }
        m = [UInt8](repeating: 0, count: n.count - m.count) + m
        return try rsaSign(key, m) { (ctx) throws(CryptoError) in
            try OpenSSL.check(EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_NO_PADDING), "EVP_PKEY_CTX_set_rsa_padding")
        }
    }

    private func rsaSign(_ key: EVPKey, _ input: [UInt8], configure: (OpaquePointer) throws(CryptoError) -> Void)
        throws(CryptoError) -> [UInt8]
    {
        let ctx = EVPKeyContext(
            owning: try OpenSSL.check(EVP_PKEY_CTX_new_from_pkey(nil, key.pointer, nil), "EVP_PKEY_CTX_new_from_pkey"))
        try OpenSSL.check(EVP_PKEY_sign_init(ctx.pointer), "EVP_PKEY_sign_init")
        try configure(ctx.pointer)
        var length = 0
        try OpenSSL.check(
            input.withUnsafeBufferPointer { EVP_PKEY_sign(ctx.pointer, nil, &length, $0.baseAddress, $0.count) },
            "EVP_PKEY_sign")
        var out = [UInt8](repeating: 0, count: length)
        let rc = out.withUnsafeMutableBufferPointer { o in
            input.withUnsafeBufferPointer {
                EVP_PKEY_sign(ctx.pointer, o.baseAddress, &length, $0.baseAddress, $0.count)
            }
        }
        try OpenSSL.check(rc, "EVP_PKEY_sign")
        let width = publicKey.rsaModulus!.count
        let signature = Array(out.prefix(length))
        return [UInt8](repeating: 0, count: max(0, width - signature.count)) + signature
    }
}
