public import ASN1TLV

/// An X.501 Name (RFC 5280 §4.1.2.4), kept as read, with a canonical form for comparison.
///
/// ```
/// Name ::= CHOICE { rdnSequence RDNSequence }
/// RDNSequence ::= SEQUENCE OF RelativeDistinguishedName
/// RelativeDistinguishedName ::= SET SIZE (1..MAX) OF AttributeTypeAndValue
/// AttributeTypeAndValue ::= SEQUENCE { type AttributeType, value AttributeValue }
/// ```
///
/// Equality and hashing use `canonical`: RFC 5280 §7.1 name comparison, simplified as is usual for
/// ICAO PKI names: per attribute, character strings are compared after trimming, collapsing inner
/// white space and case folding (whatever string type encodes them: PrintableString vs UTF8String
/// differ between CSCA and document signer certificates of real documents); values that are not
/// character strings compare by their encoded bytes; the attributes of a multi-valued RDN are
/// compared as a set; the order of RDNs matters.
public struct DistinguishedName: Sendable, Hashable, CustomStringConvertible {
    public struct Attribute: Sendable, Hashable {
        public let type: ObjectIdentifier
        /// The value decoded as a string (nil when it is not a character string).
        public let value: String?
        /// The encoded AttributeValue as read.
        public let encodedValue: [UInt8]
    }

    /// The RDNs in order, each a set of attributes.
    public let rdns: [[Attribute]]
    /// The encoded Name (tag, length, value) as read.
    public let encoded: [UInt8]
    /// The comparison form (see the type's documentation).
    public let canonical: String

    public init(node: TLVNode, step: TrustError.Step = .certificate) throws(TrustError) {
        guard node.tag == 0x30 else { throw TrustError(.malformed, step, "Name is not a SEQUENCE") }
        var rdns: [[Attribute]] = []
        for set in node.children {
            guard set.tag == 0x31, !set.children.isEmpty else {
                throw TrustError(.malformed, step, "RelativeDistinguishedName is not a non-empty SET")
            }
            var rdn: [Attribute] = []
            for atv in set.children {
                guard atv.tag == 0x30, atv.children.count == 2 else {
                    throw TrustError(.malformed, step, "AttributeTypeAndValue is not a SEQUENCE of two")
                }
                let type = try asn1(step, "attribute type") { () throws(TLVError) in try atv.children[0].objectIdentifierValue() }
                let v = atv.children[1]
                rdn.append(Attribute(type: type, value: try? v.stringValue(), encodedValue: v.encodedBytes))
            }
            rdns.append(rdn)
        }
        self.rdns = rdns
        self.encoded = node.encodedBytes
        self.canonical = Self.canonicalForm(rdns)
    }

    public init(encoded: [UInt8], step: TrustError.Step = .certificate) throws(TrustError) {
        let node = try asn1(step, "Name") { () throws(TLVError) in try TLVParser.parse(encoded, rules: .ber) }
        try self.init(node: node, step: step)
    }

    static func canonicalForm(_ rdns: [[Attribute]]) -> String {
        rdns.map { rdn in
            rdn.map { a -> String in
                let v: String
                if let s = a.value {
                    v = Self.canonicalValue(s)
                } else {
                    v = "#" + Hex.encode(a.encodedValue)
                }
                return a.type.dotted + "=" + v
            }.sorted().joined(separator: "+")
        }.joined(separator: ",")
    }

    /// Whitespace collapsed, case folded, separators escaped. ASCII values (nearly all of them) take a
    /// byte-level path; others go through Unicode-aware String operations.
    static func canonicalValue(_ s: String) -> String {
        let utf8 = s.utf8
        let isASCII = utf8.allSatisfy { $0 < 0x80 }
        guard isASCII else {
            return s.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ").lowercased().replacingEscapes()
        }
        var out: [UInt8] = []
        out.reserveCapacity(utf8.count + 4)
        var pendingSpace = false
        for b in utf8 {
            switch b {
            case 0x20, 0x09, 0x0A, 0x0B, 0x0C, 0x0D:
                pendingSpace = !out.isEmpty
                continue
            default:
                break
            }
            if pendingSpace { out.append(0x20); pendingSpace = false }
            switch b {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): out.append(b + 32)
            case UInt8(ascii: ","), UInt8(ascii: "+"), UInt8(ascii: "="), UInt8(ascii: "\\"), UInt8(ascii: "#"):
                out.append(UInt8(ascii: "\\")); out.append(b)
            default: out.append(b)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Values of an attribute type, in order.
    public func values(_ type: ObjectIdentifier) -> [String] {
        rdns.flatMap { $0 }.filter { $0.type == type }.compactMap(\.value)
    }

    /// The countryName (C), trimmed and upper-cased; nil when absent.
    public var country: String? {
        values(TrustOID.countryName).first.map { $0.trimmingSpaces().uppercased() }
    }

    public var commonName: String? { values(TrustOID.commonName).first }

    static let shortNames: [ObjectIdentifier: String] = [
        TrustOID.countryName: "C", TrustOID.commonName: "CN", TrustOID.organizationName: "O",
        TrustOID.organizationalUnitName: "OU", TrustOID.serialNumberAttribute: "serialNumber",
        "2.5.4.7": "L", "2.5.4.8": "ST", "1.2.840.113549.1.9.1": "emailAddress",
    ]

    /// RFC 4514-like rendering, most significant RDN first ("C=DE, O=bund, OU=bsi, CN=csca-germany").
    public var description: String {
        rdns.map { rdn in
            rdn.map { a in "\(Self.shortNames[a.type] ?? a.type.dotted)=\(a.value ?? "#" + Hex.encode(a.encodedValue))" }
                .joined(separator: "+")
        }.joined(separator: ", ")
    }

    public static func == (a: DistinguishedName, b: DistinguishedName) -> Bool { a.canonical == b.canonical }
    public func hash(into hasher: inout Hasher) { hasher.combine(canonical) }
}

extension String {
    func trimmingSpaces() -> String {
        String(self.drop(while: { $0.isWhitespace }).reversed().drop(while: { $0.isWhitespace }).reversed())
    }

    /// Canonical strings must not be ambiguous: escape the separators used by `canonicalForm`.
    fileprivate func replacingEscapes() -> String {
        var out = ""
        for c in self {
            switch c {
            case ",", "+", "=", "\\", "#": out.append("\\"); out.append(c)
            default: out.append(c)
            }
        }
        return out
    }
}
