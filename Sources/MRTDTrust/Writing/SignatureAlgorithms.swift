import ASN1TLV
public import MRTDCrypto

/// A signature algorithm as it appears in certificates, CRLs and CMS SignerInfos, with its
/// AlgorithmIdentifier encoding.
///
/// - RSA PKCS#1 v1.5: RFC 8017 §A.2.4 / RFC 4055 §5 (`sha256WithRSAEncryption` 1.2.840.113549.1.1.11, NULL parameters).
/// - RSASSA-PSS: RFC 4055 §3.1 (`id-RSASSA-PSS` 1.2.840.113549.1.1.10 with RSASSA-PSS-params: hash, MGF1 with
///   the same hash, salt length = hash length, trailer field 1 (the default, so omitted in DER)).
/// - ECDSA: RFC 5758 §3.2 (`ecdsa-with-SHA256` 1.2.840.10045.4.3.2, parameters absent), DER Ecdsa-Sig-Value.
public enum SigningAlgorithm: Sendable, Hashable, CustomStringConvertible {
    case rsaPKCS1(HashAlgorithm)
    case rsaPSS(HashAlgorithm)
    case ecdsa(HashAlgorithm)

    /// The algorithm for `PrivateKey.sign`.
    public var cryptoAlgorithm: SignatureAlgorithm {
        switch self {
        case .rsaPKCS1(let h): return .rsaPKCS1v15(h)
        case .rsaPSS(let h): return .rsaPSS(hash: h, mgf1Hash: h, saltLength: h.outputLength)
        case .ecdsa(let h): return .ecdsa(h)
        }
    }

    public var hash: HashAlgorithm {
        switch self {
        case .rsaPKCS1(let h), .rsaPSS(let h), .ecdsa(let h): return h
        }
    }

    public var description: String {
        switch self {
        case .rsaPKCS1(let h): return "\(h.rawValue)WithRSAEncryption"
        case .rsaPSS(let h): return "RSASSA-PSS(\(h.rawValue))"
        case .ecdsa(let h): return "ecdsa-with-\(h.rawValue.uppercased())"
        }
    }

    /// Dotted OID of the signature algorithm.
    public var oid: String {
        switch self {
        case .rsaPKCS1(let h):
            switch h {
            case .sha1: return "1.2.840.113549.1.1.5"
            case .sha224: return "1.2.840.113549.1.1.14"
            case .sha256: return "1.2.840.113549.1.1.11"
            case .sha384: return "1.2.840.113549.1.1.12"
            case .sha512: return "1.2.840.113549.1.1.13"
            }
        case .rsaPSS: return "1.2.840.113549.1.1.10"
        case .ecdsa(let h):
            switch h {
            case .sha1: return "1.2.840.10045.4.1"
            case .sha224: return "1.2.840.10045.4.3.1"
            case .sha256: return "1.2.840.10045.4.3.2"
            case .sha384: return "1.2.840.10045.4.3.3"
            case .sha512: return "1.2.840.10045.4.3.4"
            }
        }
    }

    /// DER AlgorithmIdentifier (RFC 5280 §4.1.1.2).
    public var algorithmIdentifier: [UInt8] {
        switch self {
        case .rsaPKCS1:
            return DER.sequence(DER.objectIdentifier(oid), DER.null())
        case .rsaPSS(let h):
            // RFC 4055 §3.1: RSASSA-PSS-params ::= SEQUENCE { hashAlgorithm [0], maskGenAlgorithm [1],
            // saltLength [2], trailerField [3] DEFAULT 1 }. Hash identifiers carry NULL parameters (RFC 4055 §2.1).
            let hashID = DER.sequence(DER.objectIdentifier(h.oid), DER.null())
            let mgf = DER.sequence(DER.objectIdentifier("1.2.840.113549.1.1.8"), hashID)
            let params = DER.sequence(
                DER.explicit(0, hashID), DER.explicit(1, mgf),
                DER.explicit(2, DER.integer(h.outputLength)))
            return DER.sequence(DER.objectIdentifier(oid), params)
        case .ecdsa:
            return DER.sequence(DER.objectIdentifier(oid))
        }
    }

    /// The natural default for a key: ECDSA for EC keys, PKCS#1 v1.5 for RSA keys.
    public static func `default`(for key: PublicKey, hash: HashAlgorithm = .sha256) -> SigningAlgorithm {
        switch key.kind {
        case .ec: return .ecdsa(hash)
        case .rsa: return .rsaPKCS1(hash)
        }
    }
}

/// Digest AlgorithmIdentifier for CMS and the LDS security object: RFC 5754 §2 (parameters absent).
public func digestAlgorithmIdentifier(_ h: HashAlgorithm) -> [UInt8] {
    DER.sequence(DER.objectIdentifier(h.oid))
}

extension SigningAlgorithm {
    /// `SEQUENCE { tbs, signatureAlgorithm, signatureValue BIT STRING }` — a signed certificate (RFC 5280 §4.1) or
    /// CRL (§5.1) from its to-be-signed part.
    func signed(_ tbs: [UInt8], with key: PrivateKey) throws(CryptoError) -> [UInt8] {
        DER.sequence(tbs, algorithmIdentifier, DER.bitString(try signBytes(tbs, key: key, algorithm: self)))
    }
}

/// Signs `message` with `key` under `algorithm`.
func signBytes(_ message: [UInt8], key: PrivateKey, algorithm: SigningAlgorithm) throws(CryptoError) -> [UInt8] {
    try key.sign(message, algorithm: algorithm.cryptoAlgorithm)
}
