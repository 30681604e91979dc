public import ASN1TLV
import MRTDCrypto

/// RFC 5652 §5.3 SignerIdentifier.
///
/// ```
/// SignerIdentifier ::= CHOICE {
///     issuerAndSerialNumber IssuerAndSerialNumber,
///     subjectKeyIdentifier [0] SubjectKeyIdentifier }
/// IssuerAndSerialNumber ::= SEQUENCE { issuer Name, serialNumber CertificateSerialNumber }
/// ```
public enum SignerIdentifier: Sendable, Hashable, CustomStringConvertible {
    case issuerAndSerialNumber(issuer: DistinguishedName, serialNumber: [UInt8])
    case subjectKeyIdentifier([UInt8])

    /// Whether `certificate` is the one this identifier names (serials compared as magnitudes).
    public func matches(_ certificate: Certificate) -> Bool {
        switch self {
        case .issuerAndSerialNumber(let issuer, let serial):
            let s = Array(serial.drop { $0 == 0 })
            return certificate.issuer == issuer && certificate.serialMagnitude == (s.isEmpty ? [0] : s)
        case .subjectKeyIdentifier(let ski):
            return certificate.subjectKeyIdentifier == ski
        }
    }

    public var description: String {
        switch self {
        case .issuerAndSerialNumber(let issuer, let serial): "issuer \(issuer), serial \(Hex.encode(serial))"
        case .subjectKeyIdentifier(let ski): "subjectKeyIdentifier \(Hex.encode(ski))"
        }
    }
}

/// RFC 5652 §5.3 Attribute ::= SEQUENCE { attrType OBJECT IDENTIFIER, attrValues SET OF AttributeValue }
public struct CMSAttribute: Sendable, Hashable {
    public let type: ASN1ObjectIdentifier
    /// The values as parsed nodes (each keeps its encoded bytes).
    public let values: [TLVNode]
}

/// RFC 5652 §5.3 SignerInfo, with the signed attributes kept exactly as read.
///
/// ```
/// SignerInfo ::= SEQUENCE {
///     version CMSVersion,
///     sid SignerIdentifier,
///     digestAlgorithm DigestAlgorithmIdentifier,
///     signedAttrs [0] IMPLICIT SignedAttributes OPTIONAL,
///     signatureAlgorithm SignatureAlgorithmIdentifier,
///     signature SignatureValue,
///     unsignedAttrs [1] IMPLICIT UnsignedAttributes OPTIONAL }
/// ```
public struct CMSSignerInfo: Sendable, Hashable {
    public let version: Int
    public let sid: SignerIdentifier
    public let digestAlgorithm: AlgorithmIdentifier
    /// The signed attributes, in the order read; nil when absent.
    public let signedAttributes: [CMSAttribute]?
    /// The `[0] IMPLICIT` signed attributes (tag, length, value) exactly as read.
    public let signedAttributesEncoded: [UInt8]?
    public let signatureAlgorithm: AlgorithmIdentifier
    /// The signature OCTET STRING contents.
    public let signature: [UInt8]

    init(node: TLVNode) throws(TrustError) {
        let step = TrustError.Step.cms
        guard node.tag == 0x30, node.children.count >= 5 else {
            throw TrustError(.malformed, step, "SignerInfo is not a SEQUENCE of at least five")
        }
        let c = node.children
        version = try asn1(step, "SignerInfo.version") { () throws(TLVError) in try c[0].integerValue() }
        switch c[1].tag {
        case 0x30:
            guard c[1].children.count == 2, c[1].children[1].tag == 0x02 else {
                throw TrustError(.malformed, step, "IssuerAndSerialNumber is not a SEQUENCE of Name and INTEGER")
            }
            sid = .issuerAndSerialNumber(
                issuer: try DistinguishedName(node: c[1].children[0], step: step),
                serialNumber: c[1].children[1].valueBytes)
        case 0x80:
            sid = .subjectKeyIdentifier(c[1].valueBytes)
        case 0xA0:  // a constructed [0] (BER) holding the OCTET STRING contents
            sid = .subjectKeyIdentifier(c[1].children.first?.valueBytes ?? [])
        default:
            throw TrustError(.malformed, step, "unknown SignerIdentifier \(TLVTag.describe(c[1].tag))")
        }
        digestAlgorithm = try AlgorithmIdentifier(node: c[2], step: step)
        var i = 3
        if c[i].tag == 0xA0 {
            signedAttributesEncoded = c[i].encodedBytes
            var attrs: [CMSAttribute] = []
            for a in c[i].children {
                guard a.tag == 0x30, a.children.count == 2, a.children[1].tag == 0x31 else {
                    throw TrustError(.malformed, .signedAttributes, "Attribute is not a SEQUENCE of OID and SET")
                }
                let type = try asn1(.signedAttributes, "attrType") { () throws(TLVError) in
                    try a.children[0].objectIdentifierValue()
                }
                attrs.append(CMSAttribute(type: type, values: a.children[1].children))
            }
            signedAttributes = attrs
            i += 1
        } else {
            signedAttributes = nil
            signedAttributesEncoded = nil
        }
        guard i + 1 < c.count else {
            throw TrustError(.malformed, step, "SignerInfo lacks signatureAlgorithm or signature")
        }
        signatureAlgorithm = try AlgorithmIdentifier(node: c[i], step: step)
        let sigNode = c[i + 1]
        signature = try asn1(step, "SignerInfo.signature") { () throws(TLVError) in try sigNode.octetStringValue() }
    }

    /// The bytes the signature covers when signed attributes are present (RFC 5652 §5.4): the
    /// `[0] IMPLICIT` tag replaced by the EXPLICIT SET OF tag 0x31, every other byte as read.
    public var signedAttributesForSignature: [UInt8]? {
        guard var b = signedAttributesEncoded, !b.isEmpty else { return nil }
        b[0] = 0x31
        return b
    }

    /// All values of a signed attribute (empty when absent).
    public func signedAttribute(_ type: ASN1ObjectIdentifier) -> [CMSAttribute] {
        (signedAttributes ?? []).filter { $0.type == type }
    }

    /// The value of a signed attribute that must occur exactly once with exactly one value (RFC 5652 §11.1
    /// contentType, §11.2 messageDigest); `name` names it in the error.
    func singleSignedAttributeValue(_ type: ASN1ObjectIdentifier, _ name: String) throws(TrustError) -> TLVNode {
        let attributes = signedAttribute(type)
        guard attributes.count == 1, attributes[0].values.count == 1 else {
            throw TrustError(.attributeMismatch, .signedAttributes, "signed attributes must hold exactly one \(name)")
        }
        return attributes[0].values[0]
    }

    /// RFC 5652 §11.3 signingTime, when present and readable.
    public var signingTime: ASN1Time? {
        guard let v = signedAttribute(TrustOID.signingTimeAttribute).first?.values.first else { return nil }
        return try? v.timeValue()
    }
}
