public import ASN1TLV
public import MRTDCrypto
import Synchronization

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
///
/// Reading is one pass with a `TLVCursor`: every field is checked when read, names and the
/// extensions' structure included; the extensions' values are decoded on first use (`decoded`), and
/// the inside of the SubjectPublicKeyInfo is read by MRTDCrypto when the key is used (`publicKey()`).
public struct Certificate: Sendable, Hashable, CustomStringConvertible {
    /// The parsed certificate, shared by every copy (a copy is one reference, not a dozen arrays).
    final class Storage: Sendable {
        /// The fields as read (`Fields` keeps its memberwise initializer).
        struct Fields: Sendable {
            let encoded: [UInt8]
            let tbsRange: Range<Int>
            let version: Int
            let serialRange: Range<Int>
            let signatureAlgorithm: AlgorithmIdentifier
            let issuer: DistinguishedName
            let subject: DistinguishedName
            let notBefore: ASN1Time
            let notAfter: ASN1Time
            let spkiRange: Range<Int>
            /// The signatureValue contents after the unused-bits octet.
            let signatureRange: Range<Int>
            /// The Extensions SEQUENCE (tag, length, value), checked structurally when read; nil without extensions.
            let extensionsRange: Range<Int>?
            /// Read with the structure check: the store indexes every certificate by it.
            let subjectKeyIdentifier: [UInt8]?
        }

        let fields: Fields

        /// The extensions decoded on first use (a master list's hundreds of CSCAs are indexed without them).
        let lazyExtensions = Mutex<Extensions?>(nil)

        struct Extensions: Sendable {
            let list: [CertificateExtension]
            let decoded: DecodedExtensions
        }

        init(_ fields: Fields) { self.fields = fields }

        var extensions: Extensions {
            lazyExtensions.withLock { cached in
                if let cached { return cached }
                var list: [CertificateExtension] = []
                if let r = fields.extensionsRange {
                    var cursor = TLVCursor(fields.encoded[r])
                    // The structure was checked when the certificate was read (`CertificateExtension.skimList`).
                    if let h = try? cursor.next(),
                        let l = try? CertificateExtension.parseList(h, in: cursor, step: .certificate)
                    {
                        list = l
                    }
                }
                let value = Extensions(list: list, decoded: DecodedExtensions(list))
                cached = value
                return value
            }
        }
    }

    let storage: Storage

    /// The whole certificate as read.
    public var encoded: [UInt8] { storage.fields.encoded }
    /// The TBSCertificate (tag, length, value) as read: the signed bytes.
    public var tbsCertificate: [UInt8] { Array(storage.fields.encoded[storage.fields.tbsRange]) }
    /// 1, 2 or 3.
    public var version: Int { storage.fields.version }
    /// The contents octets of serialNumber as read (two's complement, big-endian).
    public var serialNumber: [UInt8] { Array(storage.fields.encoded[storage.fields.serialRange]) }
    public var signatureAlgorithm: AlgorithmIdentifier { storage.fields.signatureAlgorithm }
    public var issuer: DistinguishedName { storage.fields.issuer }
    public var subject: DistinguishedName { storage.fields.subject }
    public var notBefore: ASN1Time { storage.fields.notBefore }
    public var notAfter: ASN1Time { storage.fields.notAfter }
    /// The SubjectPublicKeyInfo (tag, length, value) as read.
    public var subjectPublicKeyInfo: [UInt8] { Array(storage.fields.encoded[storage.fields.spkiRange]) }
    /// The signatureValue BIT STRING contents without the unused-bits octet.
    public var signature: [UInt8] { Array(storage.fields.encoded[storage.fields.signatureRange]) }
    /// All extensions, in order (decoded on first use).
    public var extensions: [CertificateExtension] { storage.extensions.list }
    /// The extensions this module decodes (decoded on first use).
    public var decoded: DecodedExtensions { storage.extensions.decoded }

    /// Reads a DER (or BER) certificate; the input must be exactly one certificate.
    public init(der bytes: [UInt8]) throws(TrustError) {
        try self.init(owning: bytes)
    }

    /// Reads a certificate from a parsed node (for example inside a CMS CertificateSet).
    public init(node: TLVNode) throws(TrustError) {
        try self.init(owning: node.encodedBytes)
    }

    /// Reads the certificate that is exactly `slice` (copied once; for example one entry of a
    /// master list's certList found with a `TLVCursor`).
    public init(slice: ArraySlice<UInt8>) throws(TrustError) {
        try self.init(owning: Array(slice))
    }

    /// Reads `bytes` with a `TLVCursor`: one pass, no tree; the parts kept are ranges of `bytes`.
    private init(owning bytes: [UInt8]) throws(TrustError) {
        let step = TrustError.Step.certificate
        func read<T>(_ what: String, _ body: () throws(TLVError) -> T) throws(TrustError) -> T {
            try asn1(step, what, body)
        }
        var top = TLVCursor(bytes)
        let certHeader = try read("Certificate") { () throws(TLVError) in try top.next(0x30, "Certificate") }
        guard top.isAtEnd else {
            throw TrustError(
                .malformed, step, "Certificate: \(bytes.count - certHeader.end) bytes after the end of '30'")
        }
        var cert = try read("Certificate") { () throws(TLVError) in try top.children(of: certHeader) }
        guard let tbs = try read("TBSCertificate", { () throws(TLVError) in try cert.next() }), tbs.tag == 0x30 else {
            throw TrustError(.malformed, step, "TBSCertificate is not a SEQUENCE")
        }
        guard let algHeader = try read("signatureAlgorithm", { () throws(TLVError) in try cert.next() }),
            let sigHeader = try read("signatureValue", { () throws(TLVError) in try cert.next() }),
            try read("Certificate", { () throws(TLVError) in try cert.next() }) == nil
        else {
            throw TrustError(.malformed, step, "Certificate is not a SEQUENCE of three")
        }
        let signatureAlgorithm = try AlgorithmIdentifier(header: algHeader, in: cert, step: step)
        guard sigHeader.tag == 0x03 else { throw TrustError(.malformed, step, "signatureValue is not a BIT STRING") }
        let sigValue = cert.value(sigHeader)
        guard let unused = sigValue.first, unused == 0 else {
            throw TrustError(
                .malformed, step,
                "signatureValue: BIT STRING \(sigValue.isEmpty ? "empty" : "with \(sigValue.first!) unused bits")")
        }

        var fields = try read("TBSCertificate") { () throws(TLVError) in try cert.children(of: tbs) }
        func nextField(_ what: String) throws(TrustError) -> TLVHeader {
            guard let h = try read(what, { () throws(TLVError) in try fields.next() }) else {
                throw TrustError(.malformed, step, "TBSCertificate has too few fields")
            }
            return h
        }
        var first = try nextField("version")
        let version: Int
        if first.tag == 0xA0 {
            var inner = try read("version") { () throws(TLVError) in try fields.children(of: first) }
            guard let v = try read("version", { () throws(TLVError) in try inner.next() }) else {
                throw TrustError(.malformed, step, "empty [0] version")
            }
            version = try read("version") { () throws(TLVError) in try inner.node(v).integerValue() } + 1
            first = try nextField("serialNumber")
        } else {
            version = 1
        }
        guard (1...3).contains(version) else { throw TrustError(.malformed, step, "certificate version \(version)") }
        let serialHeader = first
        guard serialHeader.tag == 0x02, serialHeader.valueLength > 0 else {
            throw TrustError(.malformed, step, "serialNumber is not an INTEGER")
        }
        let innerHeader = try nextField("signature")
        // Usually byte-identical to signatureAlgorithm (then nothing more to read); otherwise the OIDs must be equal.
        if !fields.encoded(innerHeader).elementsEqual(cert.encoded(algHeader)) {
            let inner = try AlgorithmIdentifier(header: innerHeader, in: fields, step: step)
            guard inner.oid == signatureAlgorithm.oid else {
                throw TrustError(
                    .malformed, step,
                    "TBSCertificate.signature \(inner) differs from signatureAlgorithm \(signatureAlgorithm)")
            }
        }
        let issuerHeader = try nextField("issuer")
        let validity = try nextField("validity")
        guard validity.tag == 0x30 else {
            throw TrustError(.malformed, step, "Validity is not a SEQUENCE of two times")
        }
        var times = try read("Validity") { () throws(TLVError) in try fields.children(of: validity) }
        guard let nb = try read("notBefore", { () throws(TLVError) in try times.next() }),
            let na = try read("notAfter", { () throws(TLVError) in try times.next() }),
            try read("Validity", { () throws(TLVError) in try times.next() }) == nil
        else {
            throw TrustError(.malformed, step, "Validity is not a SEQUENCE of two times")
        }
        let notBefore = try read("notBefore") { () throws(TLVError) in try times.node(nb).timeValue() }
        let notAfter = try read("notAfter") { () throws(TLVError) in try times.node(na).timeValue() }
        let subjectHeader = try nextField("subject")
        let subject = try DistinguishedName(slice: fields.encoded(subjectHeader), step: step)
        let spki = try nextField("subjectPublicKeyInfo")
        guard spki.tag == 0x30 else { throw TrustError(.malformed, step, "SubjectPublicKeyInfo is not a SEQUENCE") }
        var extensionsRange: Range<Int>? = nil
        var ski: [UInt8]? = nil
        while let f = try read("TBSCertificate", { () throws(TLVError) in try fields.next() }) {
            switch f.tag {
            case 0x81, 0x82, 0xA1, 0xA2: continue  // unique identifiers (RFC 5280 §4.1.2.8)
            case 0xA3:
                var wrapper = try read("extensions") { () throws(TLVError) in try fields.children(of: f) }
                guard let list = try read("extensions", { () throws(TLVError) in try wrapper.next() }) else {
                    throw TrustError(.malformed, step, "empty [3] extensions")
                }
                ski = try CertificateExtension.skimList(list, in: wrapper, step: step)
                extensionsRange = list.encodedRange
            default:
                throw TrustError(.malformed, step, "unexpected TBSCertificate field \(TLVTag.describe(f.tag))")
            }
        }
        // A self-issued certificate (every root CSCA) spells its issuer as its subject: read the name once.
        let issuerBytes = fields.encoded(issuerHeader)
        let subjectBytes = fields.encoded(subjectHeader)
        let issuer =
            issuerBytes.elementsEqual(subjectBytes)
            ? DistinguishedName(sameNameAs: subject, slice: issuerBytes)
            : try DistinguishedName(slice: issuerBytes, step: step)
        storage = Storage(
            .init(
                encoded: bytes, tbsRange: tbs.encodedRange, version: version, serialRange: serialHeader.valueRange,
                signatureAlgorithm: signatureAlgorithm, issuer: issuer, subject: subject,
                notBefore: notBefore, notAfter: notAfter, spkiRange: spki.encodedRange,
                signatureRange: (sigHeader.valueStart + 1)..<sigHeader.valueEnd,
                extensionsRange: extensionsRange, subjectKeyIdentifier: ski))
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

    public var subjectKeyIdentifier: [UInt8]? { storage.fields.subjectKeyIdentifier }
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
            if decoded.malformed.contains(where: { $0.hasPrefix(e.oid.dotted + ":") }) {
                out.append(e.oid.dotted + " (malformed)")
            }
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
        let sig = signature
        let tbs = tbsCertificate
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

    public static func == (a: Certificate, b: Certificate) -> Bool { a.storage === b.storage || a.encoded == b.encoded }
    /// Hashes the encoding as one block of bytes (an `[UInt8]`'s own hashing feeds the hasher byte by byte,
    /// which dominated loading a master list of several hundred certificates).
    public func hash(into hasher: inout Hasher) { encoded.withUnsafeBytes { hasher.combine(bytes: $0) } }
}
