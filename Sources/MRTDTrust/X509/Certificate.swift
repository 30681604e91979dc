public import ASN1TLV
public import MRTDCrypto

/// An X.509 certificate (RFC 5280 §4.1) that keeps the bytes it was read from.
///
/// ```
/// Certificate ::= SEQUENCE {
///     tbsCertificate       TBSCertificate,
///     signatureAlgorithm   AlgorithmIdentifier,
///     signatureValue       BIT STRING }
/// TBSCertificate ::= SEQUENCE {
///     version         [0] EXPLICIT Version DEFAULT v1,
///     serialNumber         CertificateSerialNumber,
///     signature            AlgorithmIdentifier,
///     issuer               Name,
///     validity             Validity,
///     subject              Name,
///     subjectPublicKeyInfo SubjectPublicKeyInfo,
///     issuerUniqueID  [1] IMPLICIT UniqueIdentifier OPTIONAL,
///     subjectUniqueID [2] IMPLICIT UniqueIdentifier OPTIONAL,
///     extensions      [3] EXPLICIT Extensions OPTIONAL }
/// ```
///
/// Reading is lenient where real CSCA and document signer certificates are odd (BER lengths,
/// string types, explicit EC parameters): the signature is checked over `tbsCertificate` exactly as
/// read, so a BER oddity cannot change what was signed. It is strict where it matters: the outer
/// and inner signature algorithms must be the same OID (RFC 5280 §4.1.1.2), the structure must be
/// complete, and unknown critical extensions are reported (`unhandledCriticalExtensions`).
public struct Certificate: Sendable, Hashable, CustomStringConvertible {
    /// The whole certificate as read.
    public let encoded: [UInt8]
    /// The TBSCertificate (tag, length, value) as read: the signed bytes.
    public let tbsCertificate: [UInt8]
    /// 1, 2 or 3.
    public let version: Int
    /// The contents octets of serialNumber as read (two's complement, big-endian).
    public let serialNumber: [UInt8]
    public let signatureAlgorithm: AlgorithmIdentifier
    public let issuer: DistinguishedName
    public let subject: DistinguishedName
    public let notBefore: ASN1Time
    public let notAfter: ASN1Time
    /// The SubjectPublicKeyInfo (tag, length, value) as read.
    public let subjectPublicKeyInfo: [UInt8]
    /// The signatureValue BIT STRING contents without the unused-bits octet.
    public let signature: [UInt8]
    /// All extensions, in order.
    public let extensions: [CertificateExtension]
    /// The extensions this module decodes.
    public let decoded: DecodedExtensions

    /// Reads a DER (or BER) certificate; the input must be exactly one certificate.
    public init(der bytes: [UInt8]) throws(TrustError) {
        let node = try asn1(.certificate, "Certificate") { () throws(TLVError) in try TLVParser.parse(bytes, rules: .ber) }
        try self.init(node: node)
    }

    /// Reads a certificate from a parsed node (for example inside a CMS CertificateSet).
    public init(node: TLVNode) throws(TrustError) {
        let step = TrustError.Step.certificate
        guard node.tag == 0x30, node.children.count == 3 else {
            throw TrustError(.malformed, step, "Certificate is not a SEQUENCE of three")
        }
        let tbs = node.children[0]
        guard tbs.tag == 0x30 else { throw TrustError(.malformed, step, "TBSCertificate is not a SEQUENCE") }
        encoded = node.encodedBytes
        tbsCertificate = tbs.encodedBytes
        signatureAlgorithm = try AlgorithmIdentifier(node: node.children[1], step: step)
        signature = try asn1(step, "signatureValue") { () throws(TLVError) in try node.children[2].bitStringValue() }

        var fields = tbs.children[...]
        if let first = fields.first, first.tag == 0xA0 {
            guard let v = first.children.first else { throw TrustError(.malformed, step, "empty [0] version") }
            version = try asn1(step, "version") { () throws(TLVError) in try v.integerValue() } + 1
            fields = fields.dropFirst()
        } else {
            version = 1
        }
        guard (1...3).contains(version) else { throw TrustError(.malformed, step, "certificate version \(version)") }
        guard fields.count >= 6 else { throw TrustError(.malformed, step, "TBSCertificate has too few fields") }
        let serialNode = fields[fields.startIndex]
        guard serialNode.tag == 0x02, !serialNode.value.isEmpty else {
            throw TrustError(.malformed, step, "serialNumber is not an INTEGER")
        }
        serialNumber = serialNode.valueBytes
        let inner = try AlgorithmIdentifier(node: fields[fields.startIndex + 1], step: step)
        guard inner.oid == signatureAlgorithm.oid else {
            throw TrustError(.malformed, step, "TBSCertificate.signature \(inner) differs from signatureAlgorithm \(signatureAlgorithm)")
        }
        issuer = try DistinguishedName(node: fields[fields.startIndex + 2], step: step)
        let validity = fields[fields.startIndex + 3]
        guard validity.tag == 0x30, validity.children.count == 2 else {
            throw TrustError(.malformed, step, "Validity is not a SEQUENCE of two times")
        }
        notBefore = try asn1(step, "notBefore") { () throws(TLVError) in try validity.children[0].timeValue() }
        notAfter = try asn1(step, "notAfter") { () throws(TLVError) in try validity.children[1].timeValue() }
        subject = try DistinguishedName(node: fields[fields.startIndex + 4], step: step)
        let spki = fields[fields.startIndex + 5]
        guard spki.tag == 0x30 else { throw TrustError(.malformed, step, "SubjectPublicKeyInfo is not a SEQUENCE") }
        subjectPublicKeyInfo = spki.encodedBytes
        var exts: [CertificateExtension] = []
        for f in fields.dropFirst(6) {
            switch f.tag {
            case 0x81, 0x82, 0xA1, 0xA2: continue // unique identifiers (RFC 5280 §4.1.2.8)
            case 0xA3:
                guard let list = f.children.first else { throw TrustError(.malformed, step, "empty [3] extensions") }
                exts = try CertificateExtension.parseList(list, step: step)
            default:
                throw TrustError(.malformed, step, "unexpected TBSCertificate field \(TLVTag.describe(f.tag))")
            }
        }
        extensions = exts
        decoded = DecodedExtensions(exts)
    }

    // MARK: Derived values

    /// The public key (MRTDCrypto accepts named and explicit EC parameters).
    public func publicKey() throws(TrustError) -> PublicKey {
        let spki = subjectPublicKeyInfo
        return try crypto(.certificate, "subjectPublicKeyInfo of \(subject)") { () throws(CryptoError) in
            try PublicKey(subjectPublicKeyInfo: spki)
        }
    }

    /// The serial number as a minimal unsigned magnitude (leading zero octets removed), for comparisons.
    public var serialMagnitude: [UInt8] {
        let s = Array(serialNumber.drop { $0 == 0 })
        return s.isEmpty ? [0] : s
    }

    /// Uppercase hex of the serial number as read.
    public var serialHex: String { Hex.encode(serialNumber) }

    public var subjectKeyIdentifier: [UInt8]? { decoded.subjectKeyIdentifier }
    public var authorityKeyIdentifier: [UInt8]? { decoded.authorityKeyIdentifier?.keyIdentifier }

    /// Subject and issuer names are equal (a root CSCA, or a self-issued link certificate).
    public var isSelfIssued: Bool { subject == issuer }

    /// basicConstraints cA = TRUE.
    public var isCA: Bool { decoded.basicConstraints?.isCA ?? false }

    /// ICAO 9303-12 §5.3 link certificate: a CSCA certificate issued by another (older or newer)
    /// CSCA key of the same country — self-issued by name, signed by a different key.
    public var isLinkCertificate: Bool {
        guard isCA, isSelfIssued else { return false }
        if let ski = subjectKeyIdentifier, let aki = authorityKeyIdentifier { return ski != aki }
        return false
    }

    /// notBefore ≤ t ≤ notAfter (RFC 5280 §4.1.2.5).
    public func isValid(at t: ASN1Time) -> Bool { notBefore <= t && t <= notAfter }

    /// Extensions marked critical that this module cannot process (RFC 5280 §4.2: a certificate
    /// with such an extension must not be used), including critical known ones that failed to decode.
    public var unhandledCriticalExtensions: [String] {
        var out = decoded.unknownList.filter(\.critical).map(\.oid.dotted)
        for e in extensions where e.critical {
            if decoded.malformed.contains(where: { $0.hasPrefix(e.oid.dotted + ":") }) { out.append(e.oid.dotted + " (malformed)") }
        }
        return out
    }

    /// The signature algorithm mapped to MRTDCrypto.
    public func cryptoSignatureAlgorithm() throws(TrustError) -> SignatureAlgorithm {
        try signatureAlgorithm.signatureAlgorithm(step: .certificate)
    }

    /// Verifies this certificate's signature with the issuer's public key over `tbsCertificate` as read.
    /// Returns false when the signature does not verify; throws when the algorithm is unsupported or
    /// does not fit the key.
    public func isSignature(validFor issuerKey: PublicKey) throws(TrustError) -> Bool {
        let alg = try cryptoSignatureAlgorithm()
        let sig = signature, tbs = tbsCertificate
        return try crypto(.signature, "certificate signature of \(subject)") { () throws(CryptoError) in
            try issuerKey.verify(signature: sig, message: tbs, algorithm: alg)
        }
    }

    /// Whether `issuerCandidate` can have issued this certificate: names chain, and the key
    /// identifiers agree when both are present (RFC 5280 §4.2.1.1).
    public func isPossiblyIssued(by issuerCandidate: Certificate) -> Bool {
        guard issuer == issuerCandidate.subject else { return false }
        if let aki = authorityKeyIdentifier, let ski = issuerCandidate.subjectKeyIdentifier { return aki == ski }
        return true
    }

    /// SHA-256 of the encoded certificate, hex (for display and de-duplication).
    public var fingerprintSHA256: String { Hex.encode(HashAlgorithm.sha256.hash(encoded)) }

    public var description: String { "Certificate(subject: \(subject), serial: \(serialHex))" }

    public static func == (a: Certificate, b: Certificate) -> Bool { a.encoded == b.encoded }
    /// Hashes the encoding as one block of bytes (an `[UInt8]`'s own hashing feeds the hasher byte by byte,
    /// which dominated loading a master list of several hundred certificates).
    public func hash(into hasher: inout Hasher) { encoded.withUnsafeBytes { hasher.combine(bytes: $0) } }
}
