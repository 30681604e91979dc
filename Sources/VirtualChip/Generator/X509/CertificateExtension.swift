public import ASN1TLV
import MRTDCrypto

/// One X.509 v3 extension (RFC 5280 §4.1: `Extension ::= SEQUENCE { extnID, critical BOOLEAN DEFAULT FALSE,
/// extnValue OCTET STRING }`). `value` is the DER encoding wrapped by extnValue.
public struct CertificateExtension: Sendable, Hashable {
    public var oid: ObjectIdentifier
    public var critical: Bool
    public var value: [UInt8]

    public init(oid: ObjectIdentifier, critical: Bool, value: [UInt8]) {
        self.oid = oid
        self.critical = critical
        self.value = value
    }

    /// DER `Extension` (critical omitted when false: DER leaves DEFAULT values out).
    public var der: [UInt8] {
        var parts = [DER.objectIdentifier(oid)]
        if critical { parts.append(DER.boolean(true)) }
        parts.append(DER.octetString(value))
        return DER.sequence(parts)
    }

    /// RFC 5280 §4.2.1.9 basicConstraints (2.5.29.19): `SEQUENCE { cA BOOLEAN DEFAULT FALSE, pathLenConstraint INTEGER OPTIONAL }`.
    public static func basicConstraints(ca: Bool, pathLength: Int? = nil, critical: Bool = true) -> CertificateExtension
    {
        var parts: [[UInt8]] = []
        if ca { parts.append(DER.boolean(true)) }
        if let p = pathLength { parts.append(DER.integer(p)) }
        return CertificateExtension(oid: "2.5.29.19", critical: critical, value: DER.sequence(parts))
    }

    /// RFC 5280 §4.2.1.3 key usage bits.
    public struct KeyUsage: OptionSet, Sendable, Hashable {
        public let rawValue: UInt16
        public init(rawValue: UInt16) { self.rawValue = rawValue }
        public static let digitalSignature = KeyUsage(rawValue: 1 << 0)
        public static let nonRepudiation = KeyUsage(rawValue: 1 << 1)
        public static let keyEncipherment = KeyUsage(rawValue: 1 << 2)
        public static let dataEncipherment = KeyUsage(rawValue: 1 << 3)
        public static let keyAgreement = KeyUsage(rawValue: 1 << 4)
        public static let keyCertSign = KeyUsage(rawValue: 1 << 5)
        public static let cRLSign = KeyUsage(rawValue: 1 << 6)
    }

    /// RFC 5280 §4.2.1.3 keyUsage (2.5.29.15), a named BIT STRING: bit n is (0x80 >> n) of the first octet;
    /// DER removes trailing zero bits (X.690 §11.2.2).
    public static func keyUsage(_ usage: KeyUsage, critical: Bool = true) -> CertificateExtension {
        var bytes: [UInt8] = [0, 0]
        for bit in 0..<9 where usage.rawValue & (1 << bit) != 0 { bytes[bit / 8] |= 0x80 >> UInt8(bit % 8) }
        while bytes.count > 1 && bytes.last == 0 { bytes.removeLast() }
        var unused: UInt8 = 0
        if let last = bytes.last, last != 0 {
            unused = UInt8(last.trailingZeroBitCount)
        } else {
            unused = 0
            bytes = []
        }
        return CertificateExtension(
            oid: "2.5.29.15", critical: critical, value: DER.bitString(bytes, unusedBits: unused))
    }

    /// RFC 5280 §4.2.1.2 subjectKeyIdentifier (2.5.29.14): `KeyIdentifier ::= OCTET STRING`.
    public static func subjectKeyIdentifier(_ keyID: [UInt8]) -> CertificateExtension {
        CertificateExtension(oid: "2.5.29.14", critical: false, value: DER.octetString(keyID))
    }

    /// RFC 5280 §4.2.1.1 authorityKeyIdentifier (2.5.29.35): `SEQUENCE { keyIdentifier [0] IMPLICIT KeyIdentifier }`.
    public static func authorityKeyIdentifier(_ keyID: [UInt8]) -> CertificateExtension {
        CertificateExtension(oid: "2.5.29.35", critical: false, value: DER.sequence(DER.implicit(0, keyID)))
    }

    /// RFC 3280 §4.2.1.4 privateKeyUsagePeriod (2.5.29.16), required for CSCA and DS certificates by
    /// ICAO 9303-12 §7: `SEQUENCE { notBefore [0] IMPLICIT GeneralizedTime, notAfter [1] IMPLICIT GeneralizedTime }`.
    public static func privateKeyUsagePeriod(notBefore: ASN1Time, notAfter: ASN1Time) -> CertificateExtension {
        let value = DER.sequence(
            DER.implicit(0, Array(notBefore.generalizedTimeString.utf8)),
            DER.implicit(1, Array(notAfter.generalizedTimeString.utf8)))
        return CertificateExtension(oid: "2.5.29.16", critical: false, value: value)
    }

    /// ICAO 9303-12 §7 (Document Type List extension, 2.23.136.1.1.6.2):
    /// `DocumentTypeListSyntax ::= SEQUENCE { version DocumentTypeListVersion (v0), docTypeList SET OF DocumentType }`,
    /// `DocumentType ::= PrintableString (SIZE (1..2))` — e.g. "P", "ID".
    public static func documentTypeList(_ types: [String]) -> CertificateExtension {
        let value = DER.sequence(DER.integer(0), DER.setOf(types.map { DER.printableString($0) }))
        return CertificateExtension(oid: "2.23.136.1.1.6.2", critical: false, value: value)
    }

    /// RFC 5280 §4.2.1.12 extKeyUsage (2.5.29.37). ICAO 9303-12 §7: the master list signer carries
    /// id-icao-cscaMasterListSigningKey 2.23.136.1.1.3.
    public static func extendedKeyUsage(_ oids: [ObjectIdentifier], critical: Bool = true) -> CertificateExtension {
        CertificateExtension(
            oid: "2.5.29.37", critical: critical, value: DER.sequence(oids.map { DER.objectIdentifier($0) }))
    }

    /// Method (1) of RFC 5280 §4.2.1.2: SHA-1 of the subjectPublicKey BIT STRING contents (without the
    /// unused-bits octet) of a SubjectPublicKeyInfo.
    public static func keyIdentifier(subjectPublicKeyInfo spki: [UInt8]) -> [UInt8] {
        guard let node = try? TLVParser.parse(spki, rules: .ber), node.children.count == 2,
            let key = try? node.children[1].bitStringValue(allowUnused: true)
        else {
            return HashAlgorithm.sha1.hash(spki)
        }
        return HashAlgorithm.sha1.hash(key)
    }
}
