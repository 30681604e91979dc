public import ASN1TLV
public import MRTDCrypto

/// An X.509 CRL (RFC 5280 §5.1) that keeps the signed bytes.
///
/// ```
/// CertificateList ::= SEQUENCE {
///     tbsCertList          TBSCertList,
///     signatureAlgorithm   AlgorithmIdentifier,
///     signatureValue       BIT STRING }
/// TBSCertList ::= SEQUENCE {
///     version              Version OPTIONAL,  -- if present, MUST be v2
///     signature            AlgorithmIdentifier,
///     issuer               Name,
///     thisUpdate           Time,
///     nextUpdate           Time OPTIONAL,
///     revokedCertificates  SEQUENCE OF SEQUENCE {
///          userCertificate         CertificateSerialNumber,
///          revocationDate          Time,
///          crlEntryExtensions      Extensions OPTIONAL } OPTIONAL,
///     crlExtensions        [0] EXPLICIT Extensions OPTIONAL }
/// ```
public struct CertificateRevocationList: Sendable, Hashable, CustomStringConvertible {
    public struct RevokedCertificate: Sendable, Hashable {
        /// The serial number contents as read.
        public let serialNumber: [UInt8]
        public let revocationDate: ASN1Time
        /// RFC 5280 §5.3.1 CRLReason code, when the entry carries one.
        public let reasonCode: Int?

        /// Serial as a minimal magnitude for comparison.
        public var serialMagnitude: [UInt8] {
            let s = Array(serialNumber.drop { $0 == 0 })
            return s.isEmpty ? [0] : s
        }
    }

    public let encoded: [UInt8]
    /// The TBSCertList as read: the signed bytes.
    public let tbsCertList: [UInt8]
    public let version: Int
    public let signatureAlgorithm: AlgorithmIdentifier
    public let issuer: DistinguishedName
    public let thisUpdate: ASN1Time
    public let nextUpdate: ASN1Time?
    public let revokedCertificates: [RevokedCertificate]
    public let extensions: [CertificateExtension]
    public let decoded: DecodedExtensions
    public let signature: [UInt8]
    /// Revoked serials (minimal magnitudes) for O(1) lookups.
    let revokedIndex: [[UInt8]: Int]

    public init(der bytes: [UInt8]) throws(TrustError) {
        let step = TrustError.Step.crl
        let node = try asn1(step, "CertificateList") { () throws(TLVError) in try TLVParser.parse(bytes, rules: .ber) }
        guard node.tag == 0x30, node.children.count == 3, node.children[0].tag == 0x30 else {
            throw TrustError(.malformed, step, "CertificateList is not a SEQUENCE of three")
        }
        encoded = node.encodedBytes
        let tbs = node.children[0]
        tbsCertList = tbs.encodedBytes
        signatureAlgorithm = try AlgorithmIdentifier(node: node.children[1], step: step)
        signature = try asn1(step, "signatureValue") { () throws(TLVError) in try node.children[2].bitStringValue() }
        var fields = tbs.children[...]
        if let f = fields.first, f.tag == 0x02 {
            version = try asn1(step, "version") { () throws(TLVError) in try f.integerValue() } + 1
            fields = fields.dropFirst()
        } else {
            version = 1
        }
        guard fields.count >= 3 else { throw TrustError(.malformed, step, "TBSCertList has too few fields") }
        let inner = try AlgorithmIdentifier(node: fields[fields.startIndex], step: step)
        guard inner.oid == signatureAlgorithm.oid else {
            throw TrustError(.malformed, step, "TBSCertList.signature differs from signatureAlgorithm")
        }
        issuer = try DistinguishedName(node: fields[fields.startIndex + 1], step: step)
        let thisNode = fields[fields.startIndex + 2]
        thisUpdate = try asn1(step, "thisUpdate") { () throws(TLVError) in try thisNode.timeValue() }
        fields = fields.dropFirst(3)
        if let f = fields.first, f.tag == 0x17 || f.tag == 0x18 {
            nextUpdate = try asn1(step, "nextUpdate") { () throws(TLVError) in try f.timeValue() }
            fields = fields.dropFirst()
        } else {
            nextUpdate = nil
        }
        var revoked: [RevokedCertificate] = []
        var exts: [CertificateExtension] = []
        for f in fields {
            if f.tag == 0x30 {
                for entry in f.children {
                    guard entry.tag == 0x30, entry.children.count >= 2, entry.children[0].tag == 0x02 else {
                        throw TrustError(.malformed, step, "revokedCertificates entry is malformed")
                    }
                    let date = try asn1(step, "revocationDate") { () throws(TLVError) in
                        try entry.children[1].timeValue()
                    }
                    var reason: Int? = nil
                    if entry.children.count > 2 {
                        let entryExts = try CertificateExtension.parseList(entry.children[2], step: step)
                        if let r = entryExts.first(where: { $0.oid == TrustOID.crlReason }),
                            let n = try? TLVParser.parse(r.value, rules: .ber), n.tag == 0x0A, n.value.count == 1
                        {
                            reason = Int(n.value.first!)
                        }
                    }
                    revoked.append(
                        RevokedCertificate(
                            serialNumber: entry.children[0].valueBytes, revocationDate: date, reasonCode: reason))
                }
            } else if f.tag == 0xA0, let list = f.children.first {
                exts = try CertificateExtension.parseList(list, step: step)
            } else {
                throw TrustError(.malformed, step, "unexpected TBSCertList field \(TLVTag.describe(f.tag))")
            }
        }
        revokedCertificates = revoked
        extensions = exts
        decoded = DecodedExtensions(exts)
        var index: [[UInt8]: Int] = [:]
        for (i, r) in revoked.enumerated() { index[r.serialMagnitude] = i }
        revokedIndex = index
    }

    /// The entry revoking `certificate`'s serial number, if any. The caller must have checked that
    /// this CRL's issuer is the certificate's issuer.
    public func revocation(of certificate: Certificate) -> RevokedCertificate? {
        revokedIndex[certificate.serialMagnitude].map { revokedCertificates[$0] }
    }

    /// Verifies the CRL's signature with the issuing CSCA's key over `tbsCertList` as read.
    public func isSignature(validFor issuerKey: PublicKey) throws(TrustError) -> Bool {
        let alg = try signatureAlgorithm.signatureAlgorithm(step: .crl)
        let sig = signature
        let tbs = tbsCertList
        return try crypto(.signature, "CRL signature of \(issuer)") { () throws(CryptoError) in
            try issuerKey.verify(signature: sig, message: tbs, algorithm: alg)
        }
    }

    public var authorityKeyIdentifier: [UInt8]? { decoded.authorityKeyIdentifier?.keyIdentifier }

    public var description: String {
        "CRL(issuer: \(issuer), thisUpdate: \(thisUpdate), revoked: \(revokedCertificates.count))"
    }

    public static func == (a: Self, b: Self) -> Bool { a.encoded == b.encoded }
    public func hash(into hasher: inout Hasher) { hasher.combine(encoded) }
}
