public import ASN1TLV
public import MRTDCrypto

/// ICAO 9303-12 §8 CSCA master list: a CMS SignedData with eContentType id-icao-cscaMasterList
/// (2.23.136.1.1.2) and content
/// ```
/// CscaMasterList ::= SEQUENCE { version CscaMasterListVersion (v0), certList SET OF Certificate }
/// ```
/// signed by a master-list signer whose certificate (issued by a CSCA) is embedded.
public enum MasterListBuilder {
    /// DER `CscaMasterList`.
    public static func content(certificates: [[UInt8]]) -> [UInt8] {
        DER.sequence(DER.integer(0), DER.setOf(certificates))
    }

    /// The signed master list (DER ContentInfo). `extraCertificates` (e.g. the signer's CSCA) are embedded
    /// beside the signer certificate.
    public static func build(
        certificates: [[UInt8]], signerCertificate: Certificate, signerKey: PrivateKey,
        signatureAlgorithm: SigningAlgorithm, extraCertificates: [[UInt8]] = [],
        signingTime: ASN1Time? = nil
    ) throws(CryptoError) -> [UInt8] {
        let builder = SignedDataBuilder(
            eContentType: CMSContentType.cscaMasterList, eContent: content(certificates: certificates),
            digestAlgorithm: signatureAlgorithm.hash, signatureAlgorithm: signatureAlgorithm,
            signerCertificate: signerCertificate, embeddedCertificates: [signerCertificate.encoded] + extraCertificates,
            signingTime: signingTime)
        return try builder.build(signerKey: signerKey)
    }
}
