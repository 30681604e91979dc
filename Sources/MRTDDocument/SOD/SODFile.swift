public import ASN1TLV

/// EF.SOD, the Document Security Object (ICAO 9303-10 §4.6.2): application tag `'77'` wrapping a CMS
/// ContentInfo whose content is a SignedData (RFC 5652 §5.1) carrying an LDSSecurityObject.
///
/// ```
/// ContentInfo ::= SEQUENCE { contentType ContentType, content [0] EXPLICIT ANY DEFINED BY contentType }
/// SignedData ::= SEQUENCE {
///   version CMSVersion, digestAlgorithms DigestAlgorithmIdentifiers,
///   encapContentInfo EncapsulatedContentInfo,
///   certificates [0] IMPLICIT CertificateSet OPTIONAL, crls [1] IMPLICIT RevocationInfoChoices OPTIONAL,
///   signerInfos SignerInfos }
/// EncapsulatedContentInfo ::= SEQUENCE { eContentType ContentType, eContent [0] EXPLICIT OCTET STRING OPTIONAL }
/// ```
///
/// Parsed leniently as BER, as found in real documents: indefinite lengths anywhere and the eContent as a
/// constructed OCTET STRING (its segments are concatenated). Every node keeps the bytes as read so that the
/// trust module hashes and verifies exactly what the chip sent. No signature is checked here.
public struct SODFile: Sendable, Hashable {
    /// `id-signedData` (1.2.840.113549.1.7.2).
    public static let signedDataContentType = ASN1ObjectIdentifier(arcs: [1, 2, 840, 113549, 1, 7, 2])

    /// The whole file as read.
    public let raw: [UInt8]
    /// The ContentInfo SEQUENCE (its bytes are `contentInfoBytes`).
    public let contentInfo: TLVNode
    /// The SignedData SEQUENCE, with children parsed; its `encoded` bytes are a slice of `raw`.
    public let signedData: TLVNode
    /// SignedData.version.
    public let signedDataVersion: Int
    /// SignedData.digestAlgorithms: the algorithm OIDs.
    public let digestAlgorithms: [ASN1ObjectIdentifier]
    /// EncapsulatedContentInfo.eContentType (2.23.136.1.1.1 for an LDSSecurityObject).
    public let eContentType: ASN1ObjectIdentifier
    /// The eContent octets (the OCTET STRING's value; segments of a constructed encoding concatenated).
    /// This is what the signer's message-digest attribute covers.
    public let eContent: [UInt8]
    /// The certificates (`[0] IMPLICIT CertificateSet`), each node as found (normally the document signer).
    public let certificates: [TLVNode]
    /// The CRLs (`[1] IMPLICIT`), each as found.
    public let crls: [TLVNode]
    /// The SignerInfo SEQUENCEs as found.
    public let signerInfos: [TLVNode]
    /// The parsed LDSSecurityObject.
    public let ldsSecurityObject: LDSSecurityObject

    /// The ContentInfo bytes as read (tag '77' stripped).
    public var contentInfoBytes: [UInt8] { contentInfo.encodedBytes }
    /// The SignedData bytes as read.
    public var signedDataBytes: [UInt8] { signedData.encodedBytes }

    public init(bytes: [UInt8]) throws(LDSParseError) {
        let r = LDSReader(file: .sod)
        try r.checkLimit(bytes.count)
        raw = bytes
        let outer = try r.parse(bytes[...])
        // ICAO wraps the ContentInfo in application tag 77; a bare ContentInfo (as some tools save it) is accepted too.
        let ci: TLVNode
        if outer.tag == 0x77 {
            guard outer.children.count == 1 else {
                throw r.error(
                    .invalidValue, outer,
                    "'77' must hold exactly one ContentInfo, found \(outer.children.count) elements")
            }
            ci = outer.children[0]
        } else {
            ci = outer
        }
        try r.expect(ci, 0x30, "ContentInfo")
        contentInfo = ci
        let ct = try r.oid(try r.child(ci, at: 0, "contentType"), "contentType")
        guard ct == SODFile.signedDataContentType else {
            throw r.error(.unsupported, ci.children[0], "ContentInfo contentType \(ct) is not id-signedData")
        }
        let explicit = try r.child(ci, at: 1, "content")
        try r.expect(explicit, 0xA0, "content [0] EXPLICIT")
        let sd = try r.child(explicit, at: 0, "SignedData")
        try r.expect(sd, 0x30, "SignedData")
        signedData = sd
        signedDataVersion = try r.integer(try r.child(sd, at: 0, "version"), "SignedData.version")

        let algs = try r.child(sd, at: 1, "digestAlgorithms")
        try r.expect(algs, 0x31, "digestAlgorithms")
        var oids: [ASN1ObjectIdentifier] = []
        for a in algs.children {
            try r.expect(a, 0x30, "DigestAlgorithmIdentifier")
            oids.append(try r.oid(try r.child(a, at: 0, "algorithm"), "algorithm"))
        }
        digestAlgorithms = oids

        let encap = try r.child(sd, at: 2, "encapContentInfo")
        try r.expect(encap, 0x30, "EncapsulatedContentInfo")
        eContentType = try r.oid(try r.child(encap, at: 0, "eContentType"), "eContentType")
        let wrapper = try r.child(encap, at: 1, "eContent")
        try r.expect(wrapper, 0xA0, "eContent [0] EXPLICIT")
        let octets = try r.child(wrapper, at: 0, "eContent OCTET STRING")
        let contentSlice: ArraySlice<UInt8>
        let contentIsCopy: Bool
        switch octets.tag {
        case 0x04:
            contentSlice = octets.value
            contentIsCopy = false
        case 0x24:
            contentSlice = try SODFile.concatenate(octets, reader: r, depth: 0)[...]
            contentIsCopy = true
        default:
            throw r.error(
                .unexpectedTag, octets, "eContent must be an OCTET STRING, found \(TLVTag.describe(octets.tag))")
        }
        eContent = Array(contentSlice)

        var certs: [TLVNode] = []
        var revocations: [TLVNode] = []
        var signers: TLVNode?
        for element in sd.children.dropFirst(3) {
            switch element.tag {
            case 0xA0: certs = element.children
            case 0xA1: revocations = element.children
            case 0x31: signers = element
            default:
                throw r.error(.unexpectedTag, element, "unexpected \(TLVTag.describe(element.tag)) in SignedData")
            }
        }
        guard let signerSet = signers else { throw r.error(.missingElement, sd, "SignedData has no signerInfos") }
        certificates = certs
        crls = revocations
        signerInfos = signerSet.children

        guard eContentType == LDSSecurityObject.contentType else {
            throw r.error(.unsupported, encap.children[0], "eContentType \(eContentType) is not an LDSSecurityObject")
        }
        if contentIsCopy {
            do { ldsSecurityObject = try LDSSecurityObject(slice: contentSlice, reader: r) } catch {
                // Offsets inside a reassembled constructed OCTET STRING do not map to the file: name the OCTET STRING.
                throw LDSParseError(
                    error.code, file: .sod, offset: octets.encoded.startIndex,
                    "in the eContent at +\(error.offset): \(error.reason)")
            }
        } else {
            ldsSecurityObject = try LDSSecurityObject(slice: contentSlice, reader: r)
        }
    }

    /// Concatenates the segments of a constructed OCTET STRING (X.690 §8.7.3).
    static func concatenate(_ node: TLVNode, reader r: LDSReader, depth: Int) throws(LDSParseError) -> [UInt8] {
        guard depth < 8 else { throw r.error(.malformedTLV, node, "constructed OCTET STRING nested too deeply") }
        var out: [UInt8] = []
        for c in node.children {
            switch c.tag {
            case 0x04: out += c.value
            case 0x24: out += try concatenate(c, reader: r, depth: depth + 1)
            default:
                throw r.error(
                    .unexpectedTag, c, "segment of a constructed OCTET STRING has tag \(TLVTag.describe(c.tag))")
            }
        }
        return out
    }
}
