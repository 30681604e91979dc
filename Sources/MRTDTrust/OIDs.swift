public import ASN1TLV

/// Object identifiers used by X.509 (RFC 5280), CMS (RFC 5652), PKCS #1 (RFC 8017), ECDSA (RFC 5758,
/// X9.62), BSI TR-03111 and ICAO 9303-10/-12.
public enum TrustOID {
    // ICAO 9303-10 §4.6.2 / 9303-12 §9
    public static let ldsSecurityObject: ASN1ObjectIdentifier = "2.23.136.1.1.1"
    public static let cscaMasterList: ASN1ObjectIdentifier = "2.23.136.1.1.2"
    public static let cscaMasterListSigningKey: ASN1ObjectIdentifier = "2.23.136.1.1.3"
    public static let defectList: ASN1ObjectIdentifier = "2.23.136.1.1.5"
    public static let nameChange: ASN1ObjectIdentifier = "2.23.136.1.1.6.1"
    /// ICAO 9303-12 §7.1.1.3 documentTypeList certificate extension.
    public static let documentTypeList: ASN1ObjectIdentifier = "2.23.136.1.1.6.2"
    /// BSI TR-03110 id-SecurityObject (EF.CardSecurity / EF.ChipSecurity eContentType).
    public static let bsiSecurityObject: ASN1ObjectIdentifier = "0.4.0.127.0.7.3.2.1"

    // RFC 5652 §4 – §11
    public static let data: ASN1ObjectIdentifier = "1.2.840.113549.1.7.1"
    public static let signedData: ASN1ObjectIdentifier = "1.2.840.113549.1.7.2"
    public static let contentTypeAttribute: ASN1ObjectIdentifier = "1.2.840.113549.1.9.3"
    public static let messageDigestAttribute: ASN1ObjectIdentifier = "1.2.840.113549.1.9.4"
    public static let signingTimeAttribute: ASN1ObjectIdentifier = "1.2.840.113549.1.9.5"

    // RFC 5280 §4.1.2.4 attribute types
    public static let countryName: ASN1ObjectIdentifier = "2.5.4.6"
    public static let commonName: ASN1ObjectIdentifier = "2.5.4.3"
    public static let organizationName: ASN1ObjectIdentifier = "2.5.4.10"
    public static let organizationalUnitName: ASN1ObjectIdentifier = "2.5.4.11"
    public static let serialNumberAttribute: ASN1ObjectIdentifier = "2.5.4.5"

    // RFC 5280 §4.2.1 extensions
    public static let subjectKeyIdentifier: ASN1ObjectIdentifier = "2.5.29.14"
    public static let keyUsage: ASN1ObjectIdentifier = "2.5.29.15"
    public static let privateKeyUsagePeriod: ASN1ObjectIdentifier = "2.5.29.16"
    public static let subjectAltName: ASN1ObjectIdentifier = "2.5.29.17"
    public static let issuerAltName: ASN1ObjectIdentifier = "2.5.29.18"
    public static let basicConstraints: ASN1ObjectIdentifier = "2.5.29.19"
    public static let crlNumber: ASN1ObjectIdentifier = "2.5.29.20"
    public static let crlReason: ASN1ObjectIdentifier = "2.5.29.21"
    public static let nameConstraints: ASN1ObjectIdentifier = "2.5.29.30"
    public static let crlDistributionPoints: ASN1ObjectIdentifier = "2.5.29.31"
    public static let certificatePolicies: ASN1ObjectIdentifier = "2.5.29.32"
    public static let authorityKeyIdentifier: ASN1ObjectIdentifier = "2.5.29.35"
    public static let extendedKeyUsage: ASN1ObjectIdentifier = "2.5.29.37"
    public static let freshestCRL: ASN1ObjectIdentifier = "2.5.29.46"
    public static let authorityInfoAccess: ASN1ObjectIdentifier = "1.3.6.1.5.5.7.1.1"

    // Keys and signatures
    public static let rsaEncryption: ASN1ObjectIdentifier = "1.2.840.113549.1.1.1"
    public static let rsassaPSS: ASN1ObjectIdentifier = "1.2.840.113549.1.1.10"
    public static let mgf1: ASN1ObjectIdentifier = "1.2.840.113549.1.1.8"
    public static let sha1WithRSA: ASN1ObjectIdentifier = "1.2.840.113549.1.1.5"
    public static let sha224WithRSA: ASN1ObjectIdentifier = "1.2.840.113549.1.1.14"
    public static let sha256WithRSA: ASN1ObjectIdentifier = "1.2.840.113549.1.1.11"
    public static let sha384WithRSA: ASN1ObjectIdentifier = "1.2.840.113549.1.1.12"
    public static let sha512WithRSA: ASN1ObjectIdentifier = "1.2.840.113549.1.1.13"
    public static let ecPublicKey: ASN1ObjectIdentifier = "1.2.840.10045.2.1"
    public static let ecdsaWithSHA1: ASN1ObjectIdentifier = "1.2.840.10045.4.1"
    public static let ecdsaWithSHA224: ASN1ObjectIdentifier = "1.2.840.10045.4.3.1"
    public static let ecdsaWithSHA256: ASN1ObjectIdentifier = "1.2.840.10045.4.3.2"
    public static let ecdsaWithSHA384: ASN1ObjectIdentifier = "1.2.840.10045.4.3.3"
    public static let ecdsaWithSHA512: ASN1ObjectIdentifier = "1.2.840.10045.4.3.4"
    /// BSI TR-03111 §5.2.1 ecdsa-plain-signatures (r||s), arcs .1 (SHA-1) … .5 (SHA-512).
    public static let ecdsaPlainPrefix: ASN1ObjectIdentifier = "0.4.0.127.0.7.1.1.4.1"

    // Hashes (NIST CSOR, OIW)
    public static let sha1: ASN1ObjectIdentifier = "1.3.14.3.2.26"
    public static let sha224: ASN1ObjectIdentifier = "2.16.840.1.101.3.4.2.4"
    public static let sha256: ASN1ObjectIdentifier = "2.16.840.1.101.3.4.2.1"
    public static let sha384: ASN1ObjectIdentifier = "2.16.840.1.101.3.4.2.2"
    public static let sha512: ASN1ObjectIdentifier = "2.16.840.1.101.3.4.2.3"
}
