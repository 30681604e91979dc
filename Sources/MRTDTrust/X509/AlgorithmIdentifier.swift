public import ASN1TLV
public import MRTDCrypto

/// RFC 5280 §4.1.1.2 AlgorithmIdentifier, with its parameters kept as read.
///
/// ```
/// AlgorithmIdentifier ::= SEQUENCE {
///     algorithm   OBJECT IDENTIFIER,
///     parameters  ANY DEFINED BY algorithm OPTIONAL }
/// ```
public struct AlgorithmIdentifier: Sendable, Hashable, CustomStringConvertible {
    public let oid: ASN1ObjectIdentifier
    /// The encoded parameters (tag, length, value) as read; nil when absent.
    public let parameters: [UInt8]?

    public init(oid: ASN1ObjectIdentifier, parameters: [UInt8]? = nil) {
        self.oid = oid
        self.parameters = parameters
    }

    public init(node: TLVNode, step: TrustError.Step) throws(TrustError) {
        guard node.tag == 0x30, let first = node.children.first else {
            throw TrustError(.malformed, step, "AlgorithmIdentifier is not a SEQUENCE with an OID")
        }
        oid = try asn1(step, "algorithm OID") { () throws(TLVError) in try first.objectIdentifierValue() }
        parameters = node.children.count > 1 ? node.children[1].encodedBytes : nil
    }

    /// Reads an AlgorithmIdentifier found by a `TLVCursor`.
    public init(header h: TLVHeader, in cursor: TLVCursor, step: TrustError.Step) throws(TrustError) {
        guard h.tag == 0x30 else {
            throw TrustError(.malformed, step, "AlgorithmIdentifier is not a SEQUENCE with an OID")
        }
        var fields = try asn1(step, "AlgorithmIdentifier") { () throws(TLVError) in try cursor.children(of: h) }
        guard let first = try asn1(step, "algorithm OID", { () throws(TLVError) in try fields.next() }) else {
            throw TrustError(.malformed, step, "AlgorithmIdentifier is not a SEQUENCE with an OID")
        }
        oid = try asn1(step, "algorithm OID") { () throws(TLVError) in try fields.node(first).objectIdentifierValue() }
        let p = try asn1(step, "algorithm parameters") { () throws(TLVError) in try fields.next() }
        parameters = p.map { Array(fields.encoded($0)) }
    }

    /// Parameters that are absent or NULL (RFC 5754 / RFC 4055 allow both for hashes and PKCS #1 v1.5).
    public var hasNoParameters: Bool { parameters == nil || parameters == [0x05, 0x00] }

    public var description: String { Self.names[oid] ?? oid.dotted }

    static let names: [ASN1ObjectIdentifier: String] = [
        TrustOID.rsaEncryption: "rsaEncryption", TrustOID.rsassaPSS: "RSASSA-PSS",
        TrustOID.sha1WithRSA: "sha1WithRSAEncryption", TrustOID.sha224WithRSA: "sha224WithRSAEncryption",
        TrustOID.sha256WithRSA: "sha256WithRSAEncryption", TrustOID.sha384WithRSA: "sha384WithRSAEncryption",
        TrustOID.sha512WithRSA: "sha512WithRSAEncryption", TrustOID.ecPublicKey: "id-ecPublicKey",
        TrustOID.ecdsaWithSHA1: "ecdsa-with-SHA1", TrustOID.ecdsaWithSHA224: "ecdsa-with-SHA224",
        TrustOID.ecdsaWithSHA256: "ecdsa-with-SHA256", TrustOID.ecdsaWithSHA384: "ecdsa-with-SHA384",
        TrustOID.ecdsaWithSHA512: "ecdsa-with-SHA512", TrustOID.sha1: "SHA-1", TrustOID.sha224: "SHA-224",
        TrustOID.sha256: "SHA-256", TrustOID.sha384: "SHA-384", TrustOID.sha512: "SHA-512",
    ]

    /// The hash named by a digest AlgorithmIdentifier (RFC 5754 §2).
    public func hashAlgorithm(step: TrustError.Step) throws(TrustError) -> HashAlgorithm {
        guard let h = Self.hashes[oid] else {
            throw TrustError(.unsupportedAlgorithm, step, "digest algorithm \(oid.dotted) is not supported")
        }
        return h
    }

    static let hashes: [ASN1ObjectIdentifier: HashAlgorithm] = [
        TrustOID.sha1: .sha1, TrustOID.sha224: .sha224, TrustOID.sha256: .sha256,
        TrustOID.sha384: .sha384, TrustOID.sha512: .sha512,
    ]

    static func oid(of hash: HashAlgorithm) -> ASN1ObjectIdentifier {
        switch hash {
        case .sha1: TrustOID.sha1
        case .sha224: TrustOID.sha224
        case .sha256: TrustOID.sha256
        case .sha384: TrustOID.sha384
        case .sha512: TrustOID.sha512
        }
    }

    /// The signature algorithm this identifier names, mapped to `MRTDCrypto.SignatureAlgorithm`.
    ///
    /// - sha*WithRSAEncryption (RFC 8017 App. C): PKCS #1 v1.5 with that hash.
    /// - RSASSA-PSS (RFC 4055 §3.1) with its parameters: hash (default SHA-1), MGF1 hash (default SHA-1),
    ///   salt length (default 20), trailer field (must be 1).
    /// - ecdsa-with-SHA* (RFC 5758 §3.2, X9.62): DER ECDSA-Sig-Value; BSI TR-03111 plain signatures: r||s.
    /// - rsaEncryption or id-ecPublicKey used as a *signature* algorithm, as some CMS SignerInfos of real
    ///   documents do (RFC 5652 §10.1.2 permits the key algorithm): the hash is then `digest`.
    public func signatureAlgorithm(digest: HashAlgorithm? = nil, step: TrustError.Step) throws(TrustError)
        -> SignatureAlgorithm
    {
        switch oid {
        case TrustOID.sha1WithRSA: return .rsaPKCS1v15(.sha1)
        case TrustOID.sha224WithRSA: return .rsaPKCS1v15(.sha224)
        case TrustOID.sha256WithRSA: return .rsaPKCS1v15(.sha256)
        case TrustOID.sha384WithRSA: return .rsaPKCS1v15(.sha384)
        case TrustOID.sha512WithRSA: return .rsaPKCS1v15(.sha512)
        case TrustOID.ecdsaWithSHA1: return .ecdsa(.sha1)
        case TrustOID.ecdsaWithSHA224: return .ecdsa(.sha224)
        case TrustOID.ecdsaWithSHA256: return .ecdsa(.sha256)
        case TrustOID.ecdsaWithSHA384: return .ecdsa(.sha384)
        case TrustOID.ecdsaWithSHA512: return .ecdsa(.sha512)
        case TrustOID.rsassaPSS: return try pssParameters(step: step)
        case TrustOID.rsaEncryption:
            guard let digest else {
                throw TrustError(
                    .unsupportedAlgorithm, step, "rsaEncryption as signature algorithm without a digest algorithm")
            }
            return .rsaPKCS1v15(digest)
        case TrustOID.ecPublicKey:
            guard let digest else {
                throw TrustError(
                    .unsupportedAlgorithm, step, "id-ecPublicKey as signature algorithm without a digest algorithm")
            }
            return .ecdsa(digest)
        default:
            if oid.hasPrefix(TrustOID.ecdsaPlainPrefix), oid.arcs.count == TrustOID.ecdsaPlainPrefix.arcs.count + 1 {
                let plain: [UInt64: HashAlgorithm] = [1: .sha1, 2: .sha224, 3: .sha256, 4: .sha384, 5: .sha512]
                if let h = plain[oid.arcs.last!] { return .ecdsaPlain(h) }
            }
            throw TrustError(.unsupportedAlgorithm, step, "signature algorithm \(oid.dotted) is not supported")
        }
    }

    /// RFC 4055 §3.1:
    /// ```
    /// RSASSA-PSS-params ::= SEQUENCE {
    ///     hashAlgorithm      [0] HashAlgorithm DEFAULT sha1Identifier,
    ///     maskGenAlgorithm   [1] MaskGenAlgorithm DEFAULT mgf1SHA1Identifier,
    ///     saltLength         [2] INTEGER DEFAULT 20,
    ///     trailerField       [3] INTEGER DEFAULT 1 }
    /// ```
    func pssParameters(step: TrustError.Step) throws(TrustError) -> SignatureAlgorithm {
        var hash = HashAlgorithm.sha1
        var mgfHash = HashAlgorithm.sha1
        var salt = 20
        guard let parameters, parameters != [0x05, 0x00] else {
            return .rsaPSS(hash: hash, mgf1Hash: mgfHash, saltLength: salt)
        }
        let seq = try asn1(step, "RSASSA-PSS-params") { () throws(TLVError) in
            try TLVParser.parse(parameters, rules: .ber)
        }
        guard seq.tag == 0x30 else { throw TrustError(.malformed, step, "RSASSA-PSS-params is not a SEQUENCE") }
        for field in seq.children {
            guard let inner = field.children.first else { throw TrustError(.malformed, step, "empty RSASSA-PSS field") }
            switch field.tag {
            case 0xA0:
                hash = try AlgorithmIdentifier(node: inner, step: step).hashAlgorithm(step: step)
            case 0xA1:
                let mgf = try AlgorithmIdentifier(node: inner, step: step)
                guard mgf.oid == TrustOID.mgf1, let p = mgf.parameters else {
                    throw TrustError(
                        .unsupportedAlgorithm, step, "mask generation function \(mgf.oid.dotted) is not MGF1")
                }
                let hashNode = try asn1(step, "MGF1 hash") { () throws(TLVError) in try TLVParser.parse(p, rules: .ber)
                }
                mgfHash = try AlgorithmIdentifier(node: hashNode, step: step).hashAlgorithm(step: step)
            case 0xA2:
                salt = try asn1(step, "PSS salt length") { () throws(TLVError) in try inner.integerValue() }
                guard (0...1024).contains(salt) else { throw TrustError(.malformed, step, "PSS salt length \(salt)") }
            case 0xA3:
                let trailer = try asn1(step, "PSS trailer field") { () throws(TLVError) in try inner.integerValue() }
                guard trailer == 1 else {
                    throw TrustError(.unsupportedAlgorithm, step, "PSS trailer field \(trailer)")
                }
            default:
                throw TrustError(.malformed, step, "unknown RSASSA-PSS-params field \(TLVTag.describe(field.tag))")
            }
        }
        return .rsaPSS(hash: hash, mgf1Hash: mgfHash, saltLength: salt)
    }
}

extension SignatureAlgorithm {
    /// A short name for reports ("ecdsa-with-SHA256", "RSASSA-PSS SHA-256 MGF1-SHA-256 salt 32").
    public var reportName: String {
        switch self {
        case .rsaPKCS1v15(let h): "\(h.rawValue)WithRSAEncryption"
        case .rsaPSS(let h, let m, let s): "RSASSA-PSS \(h.rawValue) MGF1-\(m.rawValue) salt \(s)"
        case .ecdsa(let h): "ecdsa-with-\(h.rawValue.uppercased())"
        case .ecdsaPlain(let h): "ecdsa-plain-\(h.rawValue.uppercased())"
        }
    }
}
