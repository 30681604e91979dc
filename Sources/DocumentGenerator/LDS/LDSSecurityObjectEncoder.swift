public import ASN1TLV
public import MRTDCrypto
public import MRTDDocument
public import MRTDTrust

/// ICAO 9303-10 §4.6.2.2 / Appendix D.1 LDS security object and the EF.SOD container:
/// ```
/// LDSSecurityObject ::= SEQUENCE { version LDSSecurityObjectVersion (v0 | v1), hashAlgorithm DigestAlgorithmIdentifier,
///   dataGroupHashValues SEQUENCE SIZE (2..ub-DataGroups) OF DataGroupHash, ldsVersionInfo LDSVersionInfo OPTIONAL }
/// DataGroupHash ::= SEQUENCE { dataGroupNumber DataGroupNumber, dataGroupHashValue OCTET STRING }
/// LDSVersionInfo ::= SEQUENCE { ldsVersion PrintableString, unicodeVersion PrintableString }   -- v1 only
/// ```
/// EF.SOD is `77 L ContentInfo` (ICAO 9303-10 §4.6.2).
public enum LDSSecurityObjectEncoder {
    /// LDS version and Unicode version for an LDSSecurityObject v1 ("0108", "040000").
    public struct VersionInfo: Sendable, Hashable {
        public var ldsVersion: String
        public var unicodeVersion: String
        public init(ldsVersion: String = "0108", unicodeVersion: String = "040000") {
            self.ldsVersion = ldsVersion
            self.unicodeVersion = unicodeVersion
        }
    }

    /// DER LDSSecurityObject over the given data group hashes (in data group order).
    public static func encode(
        hashes: [Int: [UInt8]], hashAlgorithm: HashAlgorithm,
        versionInfo: VersionInfo? = nil
    ) -> [UInt8] {
        let entries = hashes.keys.sorted().map { DER.sequence(DER.integer($0), DER.octetString(hashes[$0]!)) }
        var parts = [
            DER.integer(versionInfo == nil ? 0 : 1), digestAlgorithmIdentifier(hashAlgorithm), DER.sequence(entries),
        ]
        if let v = versionInfo {
            parts.append(DER.sequence(DER.printableString(v.ldsVersion), DER.printableString(v.unicodeVersion)))
        }
        return DER.sequence(parts)
    }

    /// Hashes each data group file (bytes as stored) with `hashAlgorithm`.
    public static func hashes(of files: [LDSFile: [UInt8]], hashAlgorithm: HashAlgorithm) -> [Int: [UInt8]] {
        var out: [Int: [UInt8]] = [:]
        for (file, bytes) in files { if let n = file.dataGroupNumber { out[n] = hashAlgorithm.hash(bytes) } }
        return out
    }

    /// The complete EF.SOD: `77 L` around the signed ContentInfo.
    /// - Parameters:
    ///   - securityObject: the DER LDSSecurityObject (the signed content).
    ///   - hashAlgorithm: the CMS digest (messageDigest and SignerInfo digestAlgorithm); nil = the hash of the
    ///     signer's signature algorithm, which OpenSSL requires. The data-group hash inside the security object
    ///     is independent of it.
    ///   - signer: the document signer's key and certificate.
    ///   - signingTime: the signingTime signed attribute, or nil for none.
    ///   - signerIdentification: how the SignerInfo names its certificate.
    public static func sod(
        securityObject: [UInt8], hashAlgorithm: HashAlgorithm? = nil, signer: SignerMaterial,
        signingTime: ASN1Time?,
        signerIdentification: SignedDataBuilder.SignerIdentification = .issuerAndSerialNumber
    )
        throws(GeneratorError) -> [UInt8]
    {
        let builder = SignedDataBuilder(
            eContentType: CMSContentType.ldsSecurityObject, eContent: securityObject, digestAlgorithm: hashAlgorithm,
            signatureAlgorithm: signer.signatureAlgorithm, signerCertificate: signer.certificate,
            signerIdentification: signerIdentification, signingTime: signingTime)
        let cms = try withCrypto("sod.sign") { () throws(CryptoError) in
            try builder.build(signerKey: signer.privateKey)
        }
        return TLVWriter.encode(0x77, cms)
    }
}

/// A signing key with its certificate and the algorithm it signs with.
public struct SignerMaterial: Sendable {
    public var certificate: Certificate
    public var privateKey: PrivateKey
    public var signatureAlgorithm: SigningAlgorithm
    public init(certificate: Certificate, privateKey: PrivateKey, signatureAlgorithm: SigningAlgorithm) {
        self.certificate = certificate
        self.privateKey = privateKey
        self.signatureAlgorithm = signatureAlgorithm
    }
}
