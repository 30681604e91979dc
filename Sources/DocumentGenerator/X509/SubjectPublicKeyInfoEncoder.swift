import ASN1TLV
public import MRTDCrypto

/// SubjectPublicKeyInfo encodings the generator needs beyond `PublicKey.subjectPublicKeyInfo`
/// (which always names the curve).
public enum SubjectPublicKeyInfoEncoder {
    /// RFC 5480 §2.1.1 / X9.62 / BSI TR-03111 §4.1: an EC key with EXPLICIT `ECParameters` instead of a
    /// named-curve OID, as German and other issuers' certificates and DG14 keys carry them:
    /// ```
    /// ECParameters ::= SEQUENCE { version INTEGER { ecpVer1(1) }, fieldID FieldID { prime-field 1.2.840.10045.1.1, p },
    ///   curve Curve { a FieldElement, b FieldElement }, base ECPoint, order INTEGER, cofactor INTEGER OPTIONAL }
    /// ```
    /// Field elements are fixed-width octet strings (the field size), the base point uncompressed.
    public static func explicitEC(point: [UInt8], curve: ECCurve) -> [UInt8] {
        DER.sequence(
            DER.sequence(DER.objectIdentifier("1.2.840.10045.2.1"), explicitECParameters(curve)),
            DER.bitString(point))
    }

    /// The explicit `ECParameters` SEQUENCE of `curve` (RFC 3279 §2.3.5).
    public static func explicitECParameters(_ curve: ECCurve) -> [UInt8] {
        let width = curve.fieldSize
        func fixed(_ b: [UInt8]) -> [UInt8] {
            let stripped = Array(b.drop { $0 == 0 })
            return [UInt8](repeating: 0, count: max(0, width - stripped.count)) + stripped
        }
        return DER.sequence(
            DER.integer(1),
            DER.sequence(DER.objectIdentifier("1.2.840.10045.1.1"), DER.integer(unsigned: curve.p)),
            DER.sequence(DER.octetString(fixed(curve.a)), DER.octetString(fixed(curve.b))),
            DER.octetString(curve.generator),
            DER.integer(unsigned: curve.order),
            DER.integer(unsigned: curve.cofactor))
    }

    /// The key of `publicKey`, re-encoded with explicit parameters when `explicit` is set and the key is EC.
    public static func encode(_ publicKey: PublicKey, explicitParameters explicit: Bool) -> [UInt8] {
        if explicit, case .ec(let curve) = publicKey.kind, let point = publicKey.ecPoint {
            return explicitEC(point: point, curve: curve)
        }
        return publicKey.subjectPublicKeyInfo
    }

    /// ICAO 9303-11 §9.2 (ChipAuthenticationPublicKeyInfo) / ANSI X9.42: a Diffie-Hellman public key for ChipAuthenticationPublicKeyInfo:
    /// algorithm `dhpublicnumber` (1.2.840.10046.2.1) with `DomainParameters ::= SEQUENCE { p, g, q }` and the
    /// public value y as a DER INTEGER inside the BIT STRING.
    public static func dh(publicKey y: [UInt8], group: DHGroup) -> [UInt8] {
        var params = [DER.integer(unsigned: group.p), DER.integer(unsigned: group.g)]
        if let q = group.q { params.append(DER.integer(unsigned: q)) }
        return DER.sequence(
            DER.sequence(DER.objectIdentifier("1.2.840.10046.2.1"), DER.sequence(params)),
            DER.bitString(DER.integer(unsigned: y)))
    }
}
