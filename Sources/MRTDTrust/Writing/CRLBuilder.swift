public import ASN1TLV
public import MRTDCrypto

/// Builds and signs an X.509 v2 CRL (RFC 5280 §5.1):
/// ```
/// CertificateList ::= SEQUENCE { tbsCertList TBSCertList, signatureAlgorithm AlgorithmIdentifier, signatureValue BIT STRING }
/// TBSCertList ::= SEQUENCE { version INTEGER (v2 = 1), signature AlgorithmIdentifier, issuer Name, thisUpdate Time,
///   nextUpdate Time, revokedCertificates SEQUENCE OF SEQUENCE { userCertificate INTEGER, revocationDate Time } OPTIONAL,
///   crlExtensions [0] EXPLICIT Extensions }
/// ```
/// Extensions: authorityKeyIdentifier (§5.2.1) and cRLNumber (§5.2.3, 2.5.29.20), as ICAO 9303-12 §7 requires.
public struct CRLBuilder: Sendable {
    public struct Entry: Sendable, Hashable {
        public var serialNumber: [UInt8]
        public var revocationDate: ASN1Time
        public init(serialNumber: [UInt8], revocationDate: ASN1Time) {
            self.serialNumber = serialNumber
            self.revocationDate = revocationDate
        }
    }

    public var issuer: DistinguishedName
    public var thisUpdate: ASN1Time
    public var nextUpdate: ASN1Time
    public var revoked: [Entry]
    public var crlNumber: Int
    public var authorityKeyIdentifier: [UInt8]?

    public init(
        issuer: DistinguishedName, thisUpdate: ASN1Time, nextUpdate: ASN1Time, revoked: [Entry] = [],
        crlNumber: Int = 1, authorityKeyIdentifier: [UInt8]? = nil
    ) {
        (self.issuer, self.thisUpdate, self.nextUpdate) = (issuer, thisUpdate, nextUpdate)
        (self.revoked, self.crlNumber, self.authorityKeyIdentifier) = (revoked, crlNumber, authorityKeyIdentifier)
    }

    public func tbsCertList(algorithm: SigningAlgorithm) -> [UInt8] {
        var parts: [[UInt8]] = [
            DER.integer(1), algorithm.algorithmIdentifier, issuer.encoded,
            DER.time(thisUpdate), DER.time(nextUpdate),
        ]
        if !revoked.isEmpty {
            parts.append(
                DER.sequence(
                    revoked.map {
                        DER.sequence(DER.integer(unsigned: $0.serialNumber), DER.time($0.revocationDate))
                    }))
        }
        var exts: [[UInt8]] = []
        if let aki = authorityKeyIdentifier { exts.append(CertificateExtension.authorityKeyIdentifier(aki).der) }
        exts.append(CertificateExtension.crlNumber(crlNumber).der)
        parts.append(DER.explicit(0, DER.sequence(exts)))
        return DER.sequence(parts)
    }

    /// Signs with the issuer's key and returns the DER CertificateList.
    public func sign(with issuerKey: PrivateKey, algorithm: SigningAlgorithm) throws(CryptoError) -> [UInt8] {
        try algorithm.signed(tbsCertList(algorithm: algorithm), with: issuerKey)
    }
}
