public import ASN1TLV
import MRTDCrypto

/// The writing side of the X.509 model: the names and extensions the document generator (VirtualChip) puts into
/// the certificates and CRLs it issues, built as the same values this module reads, so that what is written is
/// what a verifier sees.
extension DistinguishedName {
    /// An X.501 Name as the ICAO PKI uses it (ICAO 9303-12 §7, RFC 5280 §4.1.2.4): country, organization,
    /// organizational unit, serial number, common name, in that order, one attribute per RelativeDistinguishedName.
    ///
    /// `countryName` and `serialNumber` are PrintableString (X.520); the other attributes are UTF8String
    /// (RFC 5280 §4.1.2.4) unless `printableStrings` is set. The encoding is read back as any name is, so the
    /// result compares (`canonical`) like the name of a certificate read from a document.
    public init(
        country: String, organization: String? = nil, organizationalUnit: String? = nil,
        commonName: String, serialNumber: String? = nil, printableStrings: Bool = false
    ) {
        func rdn(_ oid: ASN1ObjectIdentifier, _ value: [UInt8]) -> [UInt8] {
            DER.setOf([DER.sequence(DER.objectIdentifier(oid), value)])
        }
        func text(_ s: String) -> [UInt8] { printableStrings ? DER.printableString(s) : DER.utf8String(s) }
        var rdns: [[UInt8]] = [rdn(TrustOID.countryName, DER.printableString(country))]
        if let o = organization { rdns.append(rdn(TrustOID.organizationName, text(o))) }
        if let ou = organizationalUnit { rdns.append(rdn(TrustOID.organizationalUnitName, text(ou))) }
        if let sn = serialNumber { rdns.append(rdn(TrustOID.serialNumberAttribute, DER.printableString(sn))) }
        rdns.append(rdn(TrustOID.commonName, text(commonName)))
        do {
            try self.init(encoded: DER.sequence(rdns))
        } catch {
            preconditionFailure("a Name built from strings does not read back: \(error)")
        }
    }
}

extension CertificateExtension {
    /// An extension with `value`, the DER encoding that extnValue wraps.
    public init(oid: ASN1ObjectIdentifier, critical: Bool, value: [UInt8]) {
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

    /// RFC 5280 §4.2.1.9 basicConstraints: `SEQUENCE { cA BOOLEAN DEFAULT FALSE, pathLenConstraint INTEGER OPTIONAL }`.
    public static func basicConstraints(ca: Bool, pathLength: Int? = nil, critical: Bool = true) -> CertificateExtension
    {
        var parts: [[UInt8]] = []
        if ca { parts.append(DER.boolean(true)) }
        if let p = pathLength { parts.append(DER.integer(p)) }
        return CertificateExtension(oid: TrustOID.basicConstraints, critical: critical, value: DER.sequence(parts))
    }

    /// RFC 5280 §4.2.1.3 keyUsage, a named BIT STRING: bit n is (0x80 >> n) of the first octet; DER removes
    /// trailing zero bits (X.690 §11.2.2).
    public static func keyUsage(_ usage: KeyUsage, critical: Bool = true) -> CertificateExtension {
        var bytes: [UInt8] = [0, 0]
        for bit in 0..<9 where usage.rawValue & (1 << bit) != 0 { bytes[bit / 8] |= 0x80 >> UInt8(bit % 8) }
        while bytes.count > 1 && bytes.last == 0 { bytes.removeLast() }
        var unused: UInt8 = 0
        if let last = bytes.last, last != 0 {
            unused = UInt8(last.trailingZeroBitCount)
        } else {
            bytes = []
        }
        return CertificateExtension(
            oid: TrustOID.keyUsage, critical: critical, value: DER.bitString(bytes, unusedBits: unused))
    }

    /// RFC 5280 §4.2.1.2 subjectKeyIdentifier: `KeyIdentifier ::= OCTET STRING`.
    public static func subjectKeyIdentifier(_ keyID: [UInt8]) -> CertificateExtension {
        CertificateExtension(oid: TrustOID.subjectKeyIdentifier, critical: false, value: DER.octetString(keyID))
    }

    /// RFC 5280 §4.2.1.1 authorityKeyIdentifier: `SEQUENCE { keyIdentifier [0] IMPLICIT KeyIdentifier }`.
    public static func authorityKeyIdentifier(_ keyID: [UInt8]) -> CertificateExtension {
        CertificateExtension(
            oid: TrustOID.authorityKeyIdentifier, critical: false, value: DER.sequence(DER.implicit(0, keyID)))
    }

    /// RFC 3280 §4.2.1.4 privateKeyUsagePeriod, required for CSCA and DS certificates by ICAO 9303-12 §7:
    /// `SEQUENCE { notBefore [0] IMPLICIT GeneralizedTime, notAfter [1] IMPLICIT GeneralizedTime }`.
    public static func privateKeyUsagePeriod(notBefore: ASN1Time, notAfter: ASN1Time) -> CertificateExtension {
        let value = DER.sequence(
            DER.implicit(0, Array(notBefore.generalizedTimeString.utf8)),
            DER.implicit(1, Array(notAfter.generalizedTimeString.utf8)))
        return CertificateExtension(oid: TrustOID.privateKeyUsagePeriod, critical: false, value: value)
    }

    /// ICAO 9303-12 §7 Document Type List extension:
    /// `DocumentTypeListSyntax ::= SEQUENCE { version DocumentTypeListVersion (v0), docTypeList SET OF DocumentType }`,
    /// `DocumentType ::= PrintableString (SIZE (1..2))` — e.g. "P", "ID".
    public static func documentTypeList(_ types: [String]) -> CertificateExtension {
        let value = DER.sequence(DER.integer(0), DER.setOf(types.map { DER.printableString($0) }))
        return CertificateExtension(oid: TrustOID.documentTypeList, critical: false, value: value)
    }

    /// RFC 5280 §4.2.1.12 extKeyUsage. ICAO 9303-12 §7: the master list signer carries
    /// id-icao-cscaMasterListSigningKey (`TrustOID.cscaMasterListSigningKey`).
    public static func extendedKeyUsage(_ oids: [ASN1ObjectIdentifier], critical: Bool = true) -> CertificateExtension {
        CertificateExtension(
            oid: TrustOID.extendedKeyUsage, critical: critical,
            value: DER.sequence(oids.map { DER.objectIdentifier($0) }))
    }

    /// RFC 5280 §5.2.3 cRLNumber: `CRLNumber ::= INTEGER (0..MAX)`.
    public static func crlNumber(_ number: Int) -> CertificateExtension {
        CertificateExtension(oid: TrustOID.crlNumber, critical: false, value: DER.integer(number))
    }

    /// Method (1) of RFC 5280 §4.2.1.2: SHA-1 of the subjectPublicKey BIT STRING contents (without the
    /// unused-bits octet) of a SubjectPublicKeyInfo (SHA-1 of the whole input when it is not one).
    public static func keyIdentifier(subjectPublicKeyInfo spki: [UInt8]) -> [UInt8] {
        guard let node = try? TLVParser.parse(spki, rules: .ber), node.children.count == 2,
            let key = try? node.children[1].bitStringValue(allowUnused: true)
        else {
            return HashAlgorithm.sha1.hash(spki)
        }
        return HashAlgorithm.sha1.hash(key)
    }
}
