public import ASN1TLV
public import MRTDCrypto

/// SecurityInfos of EF.CardAccess, EF.CardSecurity and DG14 (ICAO 9303-11 §9.2, BSI TR-03110-3 §A.1.1):
/// `SecurityInfos ::= SET OF SecurityInfo`, `SecurityInfo ::= SEQUENCE { protocol OBJECT IDENTIFIER,
/// requiredData ANY DEFINED BY protocol, optionalData ANY DEFINED BY protocol OPTIONAL }`.
public enum SecurityInfoEncoder {
    /// The key agreement of a PACE / CA protocol.
    public enum KeyAgreement: String, Sendable, Hashable, Codable { case dh = "DH", ecdh = "ECDH" }
    /// PACE mapping (ICAO 9303-11 §4.4.3).
    public enum Mapping: String, Sendable, Hashable, Codable {
        case generic = "GM", integrated = "IM", chipAuthentication = "CAM"
    }

    /// ICAO 9303-11 §9.2 (PACEInfo) and BSI TR-03110-3 §A.1.1: id-PACE = 0.4.0.127.0.7.2.2.4; mapping and key agreement arc
    /// (DH-GM 1, ECDH-GM 2, DH-IM 3, ECDH-IM 4, ECDH-CAM 6), then the cipher
    /// (3DES-CBC-CBC 1, AES-CBC-CMAC-128 2, -192 3, -256 4).
    public static func paceOID(mapping: Mapping, keyAgreement: KeyAgreement, cipher: CipherAlgorithm)
        -> ASN1ObjectIdentifier
    {
        let arc: UInt64
        switch (mapping, keyAgreement) {
        case (.generic, .dh): arc = 1
        case (.generic, .ecdh): arc = 2
        case (.integrated, .dh): arc = 3
        case (.integrated, .ecdh): arc = 4
        case (.chipAuthentication, _): arc = 6
        }
        return ASN1ObjectIdentifier(arcs: [0, 4, 0, 127, 0, 7, 2, 2, 4, arc, cipherArc(cipher)])
    }

    /// ICAO 9303-11 §9.2 (ChipAuthenticationInfo), BSI TR-03110-3 §A.1.1.2: id-CA = 0.4.0.127.0.7.2.2.3; DH 1 / ECDH 2, then the cipher arc.
    public static func chipAuthenticationOID(keyAgreement: KeyAgreement, cipher: CipherAlgorithm)
        -> ASN1ObjectIdentifier
    {
        ASN1ObjectIdentifier(arcs: [0, 4, 0, 127, 0, 7, 2, 2, 3, keyAgreement == .dh ? 1 : 2, cipherArc(cipher)])
    }

    /// ICAO 9303-11 §9.2 (ChipAuthenticationPublicKeyInfo): id-PK = 0.4.0.127.0.7.2.2.1; id-PK-DH 1, id-PK-ECDH 2.
    public static func chipAuthenticationPublicKeyOID(_ keyAgreement: KeyAgreement) -> ASN1ObjectIdentifier {
        ASN1ObjectIdentifier(arcs: [0, 4, 0, 127, 0, 7, 2, 2, 1, keyAgreement == .dh ? 1 : 2])
    }

    static func cipherArc(_ c: CipherAlgorithm) -> UInt64 {
        switch c {
        case .tripleDES: return 1
        case .aes128: return 2
        case .aes192: return 3
        case .aes256: return 4
        }
    }

    /// ICAO 9303-11 §9.2 `PACEInfo ::= SEQUENCE { protocol, version INTEGER (2), parameterId INTEGER OPTIONAL }`.
    public static func paceInfo(
        mapping: Mapping, keyAgreement: KeyAgreement, cipher: CipherAlgorithm,
        parameterId: Int?
    ) -> [UInt8] {
        var parts = [
            DER.objectIdentifier(paceOID(mapping: mapping, keyAgreement: keyAgreement, cipher: cipher)), DER.integer(2),
        ]
        if let id = parameterId { parts.append(DER.integer(id)) }
        return DER.sequence(parts)
    }

    /// ICAO 9303-11 §9.2 `ChipAuthenticationInfo ::= SEQUENCE { protocol, version INTEGER (1), keyId INTEGER OPTIONAL }`.
    public static func chipAuthenticationInfo(
        keyAgreement: KeyAgreement, cipher: CipherAlgorithm, version: Int = 1,
        keyId: Int? = nil
    ) -> [UInt8] {
        var parts = [
            DER.objectIdentifier(chipAuthenticationOID(keyAgreement: keyAgreement, cipher: cipher)),
            DER.integer(version),
        ]
        if let k = keyId { parts.append(DER.integer(k)) }
        return DER.sequence(parts)
    }

    /// ICAO 9303-11 §9.2 `ChipAuthenticationPublicKeyInfo ::= SEQUENCE { protocol id-PK-DH | id-PK-ECDH,
    /// chipAuthenticationPublicKey SubjectPublicKeyInfo, keyId INTEGER OPTIONAL }`.
    public static func chipAuthenticationPublicKeyInfo(
        keyAgreement: KeyAgreement, subjectPublicKeyInfo: [UInt8],
        keyId: Int? = nil
    ) -> [UInt8] {
        var parts = [DER.objectIdentifier(chipAuthenticationPublicKeyOID(keyAgreement)), subjectPublicKeyInfo]
        if let k = keyId { parts.append(DER.integer(k)) }
        return DER.sequence(parts)
    }

    /// ICAO 9303-11 §9.2 `ActiveAuthenticationInfo ::= SEQUENCE { protocol id-AA (2.23.136.1.1.5),
    /// version INTEGER (1), signatureAlgorithm OBJECT IDENTIFIER }` with the BSI TR-03111 §5.2.1 plain ECDSA
    /// OIDs ecdsa-plain-SHAx = 0.4.0.127.0.7.1.1.4.1.{1 SHA-1, 2 SHA-224, 3 SHA-256, 4 SHA-384, 5 SHA-512}.
    public static func activeAuthenticationInfo(hash: HashAlgorithm) -> [UInt8] {
        let arc: UInt64
        switch hash {
        case .sha1: arc = 1
        case .sha224: arc = 2
        case .sha256: arc = 3
        case .sha384: arc = 4
        case .sha512: arc = 5
        }
        return DER.sequence(
            DER.objectIdentifier("2.23.136.1.1.5"), DER.integer(1),
            DER.objectIdentifier(ASN1ObjectIdentifier(arcs: [0, 4, 0, 127, 0, 7, 1, 1, 4, 1, arc])))
    }

    /// EF.CardAccess / the EF.CardSecurity content: the DER SET OF the given SecurityInfos.
    public static func securityInfos(_ infos: [[UInt8]]) -> [UInt8] { DER.setOf(infos) }
}
