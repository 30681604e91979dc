public import ASN1TLV
public import MRTDCrypto

/// Builds a CMS SignedData (RFC 5652 §5) with one signer, as used by EF.SOD (ICAO 9303-10 §4.6.2),
/// EF.CardSecurity (BSI TR-03110-3 §A.1.2) and ICAO master lists (ICAO 9303-12 §8):
/// ```
/// ContentInfo ::= SEQUENCE { contentType id-signedData (1.2.840.113549.1.7.2), content [0] EXPLICIT SignedData }
/// SignedData ::= SEQUENCE { version CMSVersion, digestAlgorithms SET OF DigestAlgorithmIdentifier,
///   encapContentInfo EncapsulatedContentInfo { eContentType, eContent [0] EXPLICIT OCTET STRING },
///   certificates [0] IMPLICIT CertificateSet OPTIONAL, signerInfos SET OF SignerInfo }
/// SignerInfo ::= SEQUENCE { version, sid SignerIdentifier, digestAlgorithm, signedAttrs [0] IMPLICIT SignedAttributes,
///   signatureAlgorithm, signature OCTET STRING }
/// ```
/// Versions follow RFC 5652 §5.1/§5.3: SignedData v3 (eContentType is not id-data), SignerInfo v1 with
/// issuerAndSerialNumber, v3 with subjectKeyIdentifier. Signed attributes: contentType (1.2.840.113549.1.9.3),
/// messageDigest (…9.4), signingTime (…9.5); the signature covers their DER `SET OF` encoding (§5.4).
public struct SignedDataBuilder: Sendable {
    public enum SignerIdentification: Sendable, Hashable { case issuerAndSerialNumber, subjectKeyIdentifier }

    public var eContentType: ASN1ObjectIdentifier
    public var eContent: [UInt8]
    /// Digest of the SignerInfo (messageDigest and the signed-attributes hash). Equal to the signature
    /// algorithm's hash by default, as RFC 5754 §3 and OpenSSL expect.
    public var digestAlgorithm: HashAlgorithm
    public var signatureAlgorithm: SigningAlgorithm
    public var signerCertificate: Certificate
    /// Certificates put in `certificates` (normally the signer's).
    public var embeddedCertificates: [[UInt8]]
    public var signerIdentification: SignerIdentification
    /// nil leaves signingTime out.
    public var signingTime: ASN1Time?

    public init(
        eContentType: ASN1ObjectIdentifier, eContent: [UInt8], digestAlgorithm: HashAlgorithm? = nil,
        signatureAlgorithm: SigningAlgorithm, signerCertificate: Certificate,
        embeddedCertificates: [[UInt8]]? = nil, signerIdentification: SignerIdentification = .issuerAndSerialNumber,
        signingTime: ASN1Time?
    ) {
        self.eContentType = eContentType
        self.eContent = eContent
        self.digestAlgorithm = digestAlgorithm ?? signatureAlgorithm.hash
        self.signatureAlgorithm = signatureAlgorithm
        self.signerCertificate = signerCertificate
        self.embeddedCertificates = embeddedCertificates ?? [signerCertificate.encoded]
        self.signerIdentification = signerIdentification
        self.signingTime = signingTime
    }

    /// The signed attributes as the DER `SET OF Attribute` that the signature covers.
    public func signedAttributesSet() -> [UInt8] {
        var attrs = [
            DER.sequence(DER.objectIdentifier("1.2.840.113549.1.9.3"), DER.setOf([DER.objectIdentifier(eContentType)])),
            DER.sequence(
                DER.objectIdentifier("1.2.840.113549.1.9.4"),
                DER.setOf([DER.octetString(digestAlgorithm.hash(eContent))])),
        ]
        if let t = signingTime {
            attrs.append(DER.sequence(DER.objectIdentifier("1.2.840.113549.1.9.5"), DER.setOf([DER.time(t)])))
        }
        return DER.setOf(attrs)
    }

    /// Signs and returns the DER ContentInfo.
    public func build(signerKey: PrivateKey) throws(CryptoError) -> [UInt8] {
        let signedAttrs = signedAttributesSet()
        let signature = try signBytes(signedAttrs, key: signerKey, algorithm: signatureAlgorithm)
        let sid: [UInt8]
        let signerVersion: Int
        switch signerIdentification {
        case .issuerAndSerialNumber:
            sid = DER.sequence(signerCertificate.issuer.encoded, DER.integer(unsigned: signerCertificate.serialNumber))
            signerVersion = 1
        case .subjectKeyIdentifier:
            guard let ski = signerCertificate.subjectKeyIdentifier else {
                throw CryptoError(
                    .invalidInput, function: "SignedDataBuilder.build",
                    "the signer certificate has no subjectKeyIdentifier extension")
            }
            sid = DER.implicit(0, ski)
            signerVersion = 3
        }
        // signedAttrs [0] IMPLICIT: the SET's contents under tag A0 (RFC 5652 §5.4).
        let implicitAttrs = retagged(signedAttrs, 0xA0)
        let signerInfo = DER.sequence(
            DER.integer(signerVersion), sid, digestAlgorithmIdentifier(digestAlgorithm), implicitAttrs,
            signatureAlgorithm.algorithmIdentifier, DER.octetString(signature))
        var signedData: [[UInt8]] = [
            DER.integer(3),
            DER.setOf([digestAlgorithmIdentifier(digestAlgorithm)]),
            DER.sequence(DER.objectIdentifier(eContentType), DER.explicit(0, DER.octetString(eContent))),
        ]
        if !embeddedCertificates.isEmpty {
            // certificates [0] IMPLICIT CertificateSet: a SET OF, so in DER order.
            signedData.append(retagged(DER.setOf(embeddedCertificates), 0xA0))
        }
        signedData.append(DER.setOf([signerInfo]))
        return DER.sequence(DER.objectIdentifier("1.2.840.113549.1.7.2"), DER.explicit(0, DER.sequence(signedData)))
    }
}

/// The same TLV with its (single-octet) tag replaced: IMPLICIT tagging of a constructed universal type.
func retagged(_ tlv: [UInt8], _ tag: UInt8) -> [UInt8] {
    var out = tlv
    out[0] = tag
    return out
}

/// Well-known CMS content types of the LDS.
public enum CMSContentType {
    /// ICAO 9303-10 §4.6.2.1: id-icao-mrtd-security-ldsSecurityObject.
    public static let ldsSecurityObject: ASN1ObjectIdentifier = "2.23.136.1.1.1"
    /// ICAO 9303-12 §8: id-icao-cscaMasterList.
    public static let cscaMasterList: ASN1ObjectIdentifier = "2.23.136.1.1.2"
    /// BSI TR-03110-3 §A.1.2 (EF.CardSecurity), ICAO 9303-11 §9.2: id-SecurityObject, bsi-de applications(3) eID(2) 1.
    public static let securityObject: ASN1ObjectIdentifier = "0.4.0.127.0.7.3.2.1"
}
