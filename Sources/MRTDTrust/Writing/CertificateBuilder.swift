public import ASN1TLV
public import MRTDCrypto

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
    public func tbsCertificate(algorithm: SigningAlgorithm) -> [UInt8] {
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
    public func sign(with issuerKey: PrivateKey, algorithm: SigningAlgorithm) throws(CryptoError) -> [UInt8] {
        try algorithm.signed(tbsCertificate(algorithm: algorithm), with: issuerKey)
    }
}
