public import ASN1TLV
public import MRTDCrypto
public import MRTDTrust

/// Builds and signs an X.509 v3 certificate (RFC 5280 §4.1):
/// ```
/// Certificate ::= SEQUENCE { tbsCertificate TBSCertificate, signatureAlgorithm AlgorithmIdentifier, signatureValue BIT STRING }
/// TBSCertificate ::= SEQUENCE { version [0] EXPLICIT Version (v3 = 2), serialNumber INTEGER, signature AlgorithmIdentifier,
///   issuer Name, validity Validity, subject Name, subjectPublicKeyInfo, extensions [3] EXPLICIT Extensions }
/// ```
/// Times use UTCTime through 2049 and GeneralizedTime from 2050 (RFC 5280 §4.1.2.5).
public struct CertificateBuilder: Sendable {
    /// Positive serial number, big-endian magnitude (RFC 5280 §4.1.2.2: at most 20 octets).
    public var serialNumber: [UInt8]
    public var issuer: DistinguishedName
    public var subject: DistinguishedName
    public var notBefore: ASN1Time
    public var notAfter: ASN1Time
    /// DER SubjectPublicKeyInfo of the certified key.
    public var subjectPublicKeyInfo: [UInt8]
    public var extensions: [CertificateExtension]

    public init(
        serialNumber: [UInt8], issuer: DistinguishedName, subject: DistinguishedName, notBefore: ASN1Time,
        notAfter: ASN1Time, subjectPublicKeyInfo: [UInt8], extensions: [CertificateExtension] = []
    ) {
        self.serialNumber = serialNumber
        self.issuer = issuer
        self.subject = subject
        self.notBefore = notBefore
        self.notAfter = notAfter
        self.subjectPublicKeyInfo = subjectPublicKeyInfo
        self.extensions = extensions
    }

    /// The DER TBSCertificate for `algorithm`.
    public func tbsCertificate(algorithm: GeneratorSignatureAlgorithm) -> [UInt8] {
        var parts: [[UInt8]] = [
            DER.explicit(0, DER.integer(2)),
            DER.integer(unsigned: serialNumber),
            algorithm.algorithmIdentifier,
            issuer.encoded,
            DER.sequence(DER.time(notBefore), DER.time(notAfter)),
            subject.encoded,
            subjectPublicKeyInfo,
        ]
        if !extensions.isEmpty { parts.append(DER.explicit(3, DER.sequence(extensions.map(\.der)))) }
        return DER.sequence(parts)
    }

    /// Signs with the issuer's key and returns the DER certificate.
    public func sign(with issuerKey: PrivateKey, algorithm: GeneratorSignatureAlgorithm) throws(GeneratorError)
        -> [UInt8]
    {
        let tbs = tbsCertificate(algorithm: algorithm)
        let signature = try signBytes(tbs, key: issuerKey, algorithm: algorithm, step: "certificate.sign")
        return DER.sequence(tbs, algorithm.algorithmIdentifier, DER.bitString(signature))
    }
}

extension Certificate {
    /// Reads back a certificate the generator issued, as a verifier reads it (MRTDTrust's model: issuer and
    /// serial for a CMS SignerIdentifier, the subject key identifier for AKI/SKI, the validity).
    public init(issued der: [UInt8]) throws(GeneratorError) {
        do {
            try self.init(der: der)
        } catch {
            throw GeneratorError(.invalidInput, step: "certificate.parse", error.description)
        }
    }
}
