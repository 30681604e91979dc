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

/// The few fields of a generated certificate the generator needs again (issuer/serial for CMS SignerIdentifier,
/// the key identifier for AKI/SKI).
public struct CertificateInfo: Sendable, Hashable {
    public var der: [UInt8]
    /// DER `Name` of the subject and issuer, exactly as encoded in the certificate.
    public var subjectName: [UInt8]
    public var issuerName: [UInt8]
    public var serialNumber: [UInt8]
    public var subjectKeyIdentifier: [UInt8]?
    public var notBefore: ASN1Time
    public var notAfter: ASN1Time

    /// Reads them back from a DER certificate.
    public init(der: [UInt8]) throws(GeneratorError) {
        do {
            let cert = try TLVParser.parse(der, rules: .der)
            let tbs = try cert.child(at: 0, "tbsCertificate")
            let hasVersion = tbs.children.first?.tag == 0xA0
            let base = hasVersion ? 1 : 0
            self.der = der
            self.serialNumber = try tbs.child(at: base, "serialNumber").unsignedIntegerBytes()
            self.issuerName = try tbs.child(at: base + 2, "issuer").encodedBytes
            let validity = try tbs.child(at: base + 3, "validity")
            self.notBefore = try validity.child(at: 0).timeValue()
            self.notAfter = try validity.child(at: 1).timeValue()
            self.subjectName = try tbs.child(at: base + 4, "subject").encodedBytes
            var ski: [UInt8]? = nil
            if let ext = tbs.child(0xA3), let seq = ext.children.first {
                for e in seq.children where (try? e.child(at: 0).objectIdentifierValue()) == "2.5.29.14" {
                    if let inner = e.children.last, let os = try? inner.octetStringValue(),
                        let kid = try? TLVParser.parse(os, rules: .der).octetStringValue()
                    {
                        ski = kid
                    }
                }
            }
            self.subjectKeyIdentifier = ski
        } catch {
            throw GeneratorError(.invalidInput, step: "certificate.parse", error.description)
        }
    }
}
