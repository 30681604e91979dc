public import ASN1TLV

/// Object identifiers of the SecurityInfos of ICAO Doc 9303-11 §9.2 (§9.2.3 PACE, §9.2.7 CA, §9.2.9 TA)
/// and BSI TR-03110-3 Appendix A.1,
/// with their ASN.1 names.
///
/// ```
/// bsi-de OBJECT IDENTIFIER ::= { itu-t(0) identified-organization(4) etsi(0) reserved(127) etsi-identified-organization(0) 7 }
/// id-PK   ::= { bsi-de protocols(2) smartcard(2) 1 }     id-TA ::= { bsi-de protocols(2) smartcard(2) 2 }
/// id-CA   ::= { bsi-de protocols(2) smartcard(2) 3 }     id-PACE ::= { bsi-de protocols(2) smartcard(2) 4 }
/// id-AA   ::= { joint-iso-itu-t(2) international-organizations(23) icao(136) mrtd(1) security(1) aaProtocolObject(5) }
/// ```
public enum SecurityInfoOID {
    public static let bsiDE: [UInt64] = [0, 4, 0, 127, 0, 7]
    public static let idPK = ASN1ObjectIdentifier(arcs: bsiDE + [2, 2, 1])
    public static let idTA = ASN1ObjectIdentifier(arcs: bsiDE + [2, 2, 2])
    public static let idCA = ASN1ObjectIdentifier(arcs: bsiDE + [2, 2, 3])
    public static let idPACE = ASN1ObjectIdentifier(arcs: bsiDE + [2, 2, 4])
    /// id-RI (restricted identification, BSI TR-03110-3).
    public static let idRI = ASN1ObjectIdentifier(arcs: bsiDE + [2, 2, 5])
    /// id-CI (CardInfoLocator, BSI TR-03110-3).
    public static let idCI = ASN1ObjectIdentifier(arcs: bsiDE + [2, 2, 6])
    /// id-PT (PrivilegedTerminalInfo, BSI TR-03110-3).
    public static let idPT = ASN1ObjectIdentifier(arcs: bsiDE + [2, 2, 8])
    /// id-AA (ICAO 9303-11 §9.2.4, ActiveAuthenticationInfo).
    public static let idAA = ASN1ObjectIdentifier(arcs: [2, 23, 136, 1, 1, 5])
    /// id-icao-mrtd-security-efDir / id-EFDIR (ICAO 9303-11 §9.2.10).
    public static let idEFDIR = ASN1ObjectIdentifier(arcs: [2, 23, 136, 1, 1, 13])

    /// standardizedDomainParameters ::= { bsi-de algorithms(1) 2 } (BSI TR-03110-3 A.2.1.1; 9303-11 §9.5.1).
    public static let standardizedDomainParameters = ASN1ObjectIdentifier(arcs: bsiDE + [1, 2])
    /// id-ecPublicKey (RFC 3279 / X9.62).
    public static let ecPublicKey = ASN1ObjectIdentifier(arcs: [1, 2, 840, 10045, 2, 1])
    /// prime-field (X9.62).
    public static let primeField = ASN1ObjectIdentifier(arcs: [1, 2, 840, 10045, 1, 1])
    /// dhpublicnumber (ANSI X9.42, RFC 3279).
    public static let dhPublicNumber = ASN1ObjectIdentifier(arcs: [1, 2, 840, 10046, 2, 1])
    /// dhKeyAgreement (PKCS #3).
    public static let dhKeyAgreement = ASN1ObjectIdentifier(arcs: [1, 2, 840, 113549, 1, 3, 1])
    /// id-SecurityObject: the eContentType of EF.CardSecurity (BSI TR-03110-3 A.1.2.6).
    public static let securityObject = ASN1ObjectIdentifier(arcs: bsiDE + [3, 2, 1])
    /// id-signedData (RFC 5652).
    public static let signedData = ASN1ObjectIdentifier(arcs: [1, 2, 840, 113549, 1, 7, 2])

    /// The key agreement / mapping family arc under id-PACE and id-CA (1 = DH, 2 = ECDH for CA and GM;
    /// 3 = DH-IM, 4 = ECDH-IM, 6 = ECDH-CAM for PACE).
    static let paceFamilies: [UInt64: String] = [1: "DH-GM", 2: "ECDH-GM", 3: "DH-IM", 4: "ECDH-IM", 6: "ECDH-CAM"]
    static let caFamilies: [UInt64: String] = [1: "DH", 2: "ECDH"]
    static let cipherSuffixes: [UInt64: String] = [
        1: "3DES-CBC-CBC", 2: "AES-CBC-CMAC-128", 3: "AES-CBC-CMAC-192", 4: "AES-CBC-CMAC-256",
    ]

    /// The ASN.1 name of a known OID (e.g. "id-PACE-ECDH-GM-AES-CBC-CMAC-128"), nil when unknown.
    public static func name(of oid: ASN1ObjectIdentifier) -> String? {
        let a = oid.arcs
        if a == idAA.arcs { return "id-AA" }
        if a == idEFDIR.arcs { return "id-EFDIR" }
        if a == standardizedDomainParameters.arcs { return "standardizedDomainParameters" }
        if a == ecPublicKey.arcs { return "id-ecPublicKey" }
        if a == dhPublicNumber.arcs { return "dhpublicnumber" }
        if a == dhKeyAgreement.arcs { return "dhKeyAgreement" }
        if a == securityObject.arcs { return "id-SecurityObject" }
        if a == signedData.arcs { return "id-signedData" }
        if a == primeField.arcs { return "prime-field" }
        guard a.count >= 9, Array(a.prefix(8)) == bsiDE + [2, 2] else { return nil }
        let rest = Array(a.dropFirst(8))
        switch rest[0] {
        case 1:
            if rest.count == 1 { return "id-PK" }
            if rest.count == 2 { return rest[1] == 1 ? "id-PK-DH" : rest[1] == 2 ? "id-PK-ECDH" : nil }
        case 2:
            if rest.count == 1 { return "id-TA" }
        case 3:
            if rest.count == 1 { return "id-CA" }
            guard let fam = caFamilies[rest[1]] else { return nil }
            if rest.count == 2 { return "id-CA-\(fam)" }
            if rest.count == 3, let c = cipherSuffixes[rest[2]] { return "id-CA-\(fam)-\(c)" }
        case 4:
            if rest.count == 1 { return "id-PACE" }
            guard let fam = paceFamilies[rest[1]] else { return nil }
            if rest.count == 2 { return "id-PACE-\(fam)" }
            if rest.count == 3, let c = cipherSuffixes[rest[2]] { return "id-PACE-\(fam)-\(c)" }
        case 5: if rest.count == 1 { return "id-RI" }
        case 6: if rest.count == 1 { return "id-CI" }
        case 8: if rest.count == 1 { return "id-PT" }
        default: break
        }
        return nil
    }

    /// Whether `oid` lies under `prefix` (strictly longer).
    public static func isUnder(_ oid: ASN1ObjectIdentifier, _ prefix: ASN1ObjectIdentifier) -> Bool {
        oid.arcs.count > prefix.arcs.count && Array(oid.arcs.prefix(prefix.arcs.count)) == prefix.arcs
    }

    /// OID of a PACE protocol: id-PACE.family.cipher (family 1 DH-GM, 2 ECDH-GM, 3 DH-IM, 4 ECDH-IM, 6 ECDH-CAM;
    /// cipher 1 3DES, 2 AES-128, 3 AES-192, 4 AES-256).
    public static func pace(family: UInt64, cipher: UInt64) -> ASN1ObjectIdentifier {
        ASN1ObjectIdentifier(arcs: idPACE.arcs + [family, cipher])
    }

    /// OID of a Chip Authentication protocol: id-CA.family.cipher (family 1 DH, 2 ECDH).
    public static func chipAuthentication(family: UInt64, cipher: UInt64) -> ASN1ObjectIdentifier {
        ASN1ObjectIdentifier(arcs: idCA.arcs + [family, cipher])
    }
}
