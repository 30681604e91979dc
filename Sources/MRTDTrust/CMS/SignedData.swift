public import ASN1TLV
public import MRTDCrypto

/// RFC 5652 §5.1 SignedData inside a ContentInfo (§3), as used by EF.SOD (ICAO 9303-10 §4.6.2),
/// EF.CardSecurity (BSI TR-03110-3 / ICAO 9303-11 §9.2.2) and CSCA master lists (9303-12 §9).
///
/// ```
/// ContentInfo ::= SEQUENCE { contentType ContentType, content [0] EXPLICIT ANY DEFINED BY contentType }
/// SignedData ::= SEQUENCE {
///     version CMSVersion,
///     digestAlgorithms DigestAlgorithmIdentifiers,
///     encapContentInfo EncapsulatedContentInfo,
///     certificates [0] IMPLICIT CertificateSet OPTIONAL,
///     crls [1] IMPLICIT RevocationInfoChoices OPTIONAL,
///     signerInfos SignerInfos }
/// EncapsulatedContentInfo ::= SEQUENCE { eContentType ContentType, eContent [0] EXPLICIT OCTET STRING OPTIONAL }
/// ```
public struct CMSSignedData: Sendable, Hashable {
    public let version: Int
    public let digestAlgorithms: [AlgorithmIdentifier]
    public let eContentType: ASN1ObjectIdentifier
    /// The eContent octets (a BER constructed OCTET STRING is concatenated); nil when detached.
    public let eContent: [UInt8]?
    /// Certificates embedded in `certificates` that were read.
    public let certificates: [Certificate]
    /// Embedded certificate entries that could not be read (other certificate formats or malformed);
    /// they are skipped, not fatal.
    public let unreadableCertificates: [String]
    public let signerInfos: [CMSSignerInfo]

    /// Reads a ContentInfo holding SignedData. An ICAO EF.SOD application wrapper (tag 0x77,
    /// 9303-10 §4.6.2) around it is accepted and removed.
    public init(contentInfo bytes: [UInt8]) throws(TrustError) {
        var node = try asn1(.cms, "ContentInfo") { () throws(TLVError) in try TLVParser.parse(bytes, rules: .ber) }
        if node.tag == 0x77 {
            guard node.children.count == 1 else {
                throw TrustError(.malformed, .cms, "EF.SOD wrapper does not hold one ContentInfo")
            }
            node = node.children[0]
        }
        try self.init(contentInfo: node)
    }

    /// Reads a parsed ContentInfo node.
    public init(contentInfo node: TLVNode) throws(TrustError) {
        guard node.tag == 0x30, node.children.count == 2 else {
            throw TrustError(.malformed, .cms, "ContentInfo is not a SEQUENCE of two")
        }
        let type = try asn1(.cms, "contentType") { () throws(TLVError) in try node.children[0].objectIdentifierValue() }
        guard type == TrustOID.signedData else {
            throw TrustError(.malformed, .cms, "ContentInfo content type \(type.dotted) is not signedData")
        }
        guard node.children[1].tag == 0xA0, let sd = node.children[1].children.first else {
            throw TrustError(.malformed, .cms, "ContentInfo content is not [0] EXPLICIT")
        }
        try self.init(signedData: sd)
    }

    /// Reads the SignedData SEQUENCE itself.
    public init(signedData node: TLVNode) throws(TrustError) {
        let step = TrustError.Step.cms
        guard node.tag == 0x30, node.children.count >= 4 else {
            throw TrustError(.malformed, step, "SignedData is not a SEQUENCE of at least four")
        }
        let c = node.children
        version = try asn1(step, "SignedData.version") { () throws(TLVError) in try c[0].integerValue() }
        guard c[1].tag == 0x31 else { throw TrustError(.malformed, step, "digestAlgorithms is not a SET") }
        var algs: [AlgorithmIdentifier] = []
        for a in c[1].children { algs.append(try AlgorithmIdentifier(node: a, step: step)) }
        digestAlgorithms = algs
        let eci = c[2]
        guard eci.tag == 0x30, let typeNode = eci.children.first else {
            throw TrustError(.malformed, step, "EncapsulatedContentInfo is not a SEQUENCE")
        }
        eContentType = try asn1(step, "eContentType") { () throws(TLVError) in try typeNode.objectIdentifierValue() }
        if eci.children.count > 1 {
            guard eci.children[1].tag == 0xA0, let os = eci.children[1].children.first else {
                throw TrustError(.malformed, step, "eContent is not [0] EXPLICIT OCTET STRING")
            }
            eContent = try asn1(step, "eContent") { () throws(TLVError) in try os.octetStringValue() }
        } else {
            eContent = nil
        }
        var certs: [Certificate] = []
        var unreadable: [String] = []
        var signerSet: TLVNode? = nil
        for f in c.dropFirst(3) {
            switch f.tag {
            case 0xA0:
                for (n, certNode) in f.children.enumerated() {
                    do {
                        certs.append(try Certificate(node: certNode))
                    } catch {
                        unreadable.append("certificate #\(n): \(error.reason)")
                    }
                }
            case 0xA1: continue  // crls: not used by ICAO documents
            case 0x31: signerSet = f
            default: throw TrustError(.malformed, step, "unexpected SignedData field \(TLVTag.describe(f.tag))")
            }
        }
        certificates = certs
        unreadableCertificates = unreadable
        guard let signerSet else { throw TrustError(.malformed, step, "SignedData has no signerInfos SET") }
        var infos: [CMSSignerInfo] = []
        for s in signerSet.children { infos.append(try CMSSignerInfo(node: s)) }
        signerInfos = infos
    }
}

/// A signer whose signature over the SignedData verified (RFC 5652 §5.6).
public struct CMSVerifiedSigner: Sendable, Hashable {
    public let signerInfo: CMSSignerInfo
    public let certificate: Certificate
    public let certificateSource: CertificateSource
    public let digestAlgorithm: HashAlgorithm
    public let signatureAlgorithm: SignatureAlgorithm
    /// RFC 5652 §11.3 signingTime, when the signer put one in the signed attributes.
    public let signingTime: ASN1Time?
    /// False when the signature covers eContent directly (no signed attributes, so the content
    /// type is not protected by the signature — tolerated, see `verifySigner`).
    public var hasSignedAttributes: Bool { signerInfo.signedAttributes != nil }

    /// Where the signer's certificate came from.
    public enum CertificateSource: String, Sendable, Hashable, Codable {
        /// From the SignedData's own `certificates`.
        case embedded
        /// From the caller (for example the trust store).
        case external
    }
}

extension CMSSignedData {
    /// Verifies one SignerInfo (RFC 5652 §5.4, §5.6, §11.1, §11.2):
    ///
    /// 1. eContent is present (ICAO never detaches it);
    /// 2. with signed attributes: exactly one contentType equal to eContentType, exactly one
    ///    messageDigest equal to the hash of eContent (digestAlgorithm of the SignerInfo), and the
    ///    signature computed over the signed attributes as read, re-tagged as SET OF (0x31);
    ///    without signed attributes the signature is over eContent (RFC 5652 allows that only for
    ///    id-data; real EF.CardSecurity files do it for id-SecurityObject, so it is tolerated and
    ///    reported through `CMSVerifiedSigner.hasSignedAttributes`);
    /// 3. the signer certificate is an embedded certificate matching `sid`, or one of
    ///    `externalCertificates(sid)` (the trust store); every candidate is tried;
    /// 4. the signature algorithm (and RSASSA-PSS parameters) come from the SignerInfo, the key
    ///    from the certificate; `MRTDCrypto.PublicKey.verify` checks it (named and explicit curves,
    ///    a superfluous leading zero in RSA signatures tolerated).
    ///
    /// Throws a `TrustError` whose code says which step failed.
    public func verifySigner(
        at index: Int = 0,
        externalCertificates: (SignerIdentifier) -> [Certificate] = { _ in [] }
    ) throws(TrustError) -> CMSVerifiedSigner {
        guard index < signerInfos.count else {
            throw TrustError(
                .malformed, .cms, signerInfos.isEmpty ? "SignedData has no SignerInfo" : "no SignerInfo #\(index)")
        }
        let si = signerInfos[index]
        guard let eContent else {
            throw TrustError(.malformed, .cms, "eContent is absent (detached content is not supported)")
        }
        let digest = try si.digestAlgorithm.hashAlgorithm(step: .cms)
        let signedBytes: [UInt8]
        if let attrs = si.signedAttributesForSignature {
            let ct = try si.singleSignedAttributeValue(TrustOID.contentTypeAttribute, "contentType")
            let ctValue = try asn1(.signedAttributes, "contentType") { () throws(TLVError) in
                try ct.objectIdentifierValue()
            }
            guard ctValue == eContentType else {
                throw TrustError(
                    .attributeMismatch, .signedAttributes,
                    "contentType attribute \(ctValue.dotted) differs from eContentType \(eContentType.dotted)")
            }
            let md = try si.singleSignedAttributeValue(TrustOID.messageDigestAttribute, "messageDigest")
            let mdValue = try asn1(.signedAttributes, "messageDigest") { () throws(TLVError) in
                try md.octetStringValue()
            }
            guard mdValue == digest.hash(eContent) else {
                throw TrustError(
                    .attributeMismatch, .signedAttributes,
                    "messageDigest does not equal the \(digest.rawValue) hash of eContent")
            }
            signedBytes = attrs
        } else {
            // RFC 5652 §5.3 requires signed attributes when eContentType is not id-data, but real
            // EF.CardSecurity files sign eContent directly. Accepted (the content itself is still
            // covered by the signature); `CMSVerifiedSigner.hasSignedAttributes` tells the caller.
            signedBytes = eContent
        }
        let algorithm = try si.signatureAlgorithm.signatureAlgorithm(digest: digest, step: .signature)

        var candidates: [(Certificate, CMSVerifiedSigner.CertificateSource)] = certificates.filter {
            si.sid.matches($0)
        }.map { ($0, .embedded) }
        for c in externalCertificates(si.sid) where !candidates.contains(where: { $0.0 == c }) {
            candidates.append((c, .external))
        }
        guard !candidates.isEmpty else {
            throw TrustError(
                .signerNotFound, .cms, "no certificate for the signer (\(si.sid)) is embedded or in the trust store")
        }
        var problems: [String] = []
        for (cert, source) in candidates {
            do {
                let key = try cert.publicKey()
                let sig = si.signature
                let ok = try crypto(.signature, "signature of \(cert.subject)") { () throws(CryptoError) in
                    try key.verify(signature: sig, message: signedBytes, algorithm: algorithm)
                }
                if ok {
                    return CMSVerifiedSigner(
                        signerInfo: si, certificate: cert, certificateSource: source,
                        digestAlgorithm: digest, signatureAlgorithm: algorithm, signingTime: si.signingTime)
                }
                problems.append(
                    "\(algorithm.reportName) signature does not verify with the key of \(cert.subject) (serial \(cert.serialHex))"
                )
            } catch {
                problems.append(error.reason)
            }
        }
        throw TrustError(.signatureInvalid, .signature, problems.joined(separator: "; "))
    }
}
