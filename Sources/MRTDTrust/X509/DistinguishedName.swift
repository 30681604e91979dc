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

    /// The encoded Name (tag, length, value) as read (a slice of the certificate, CRL or CMS
    /// structure it was read from: no copy).
    public let encodedSlice: ArraySlice<UInt8>
    /// The comparison form (see the type's documentation). Attribute types are written as the hex
    /// of their OID contents octets; the form is only compared, never shown.
    public let canonical: String

    /// The encoded Name (tag, length, value) as read.
    public var encoded: [UInt8] { Array(encodedSlice) }

    /// The RDNs in order, each a set of attributes (decoded from `encoded` on each access).
    public var rdns: [[Attribute]] {
        // The structure was checked when the name was read, so decoding it again cannot fail.
        (try? Self.decodeRDNs(encodedSlice)) ?? []
    }

    public init(node: TLVNode, step: TrustError.Step = .certificate) throws(TrustError) {
        try self.init(slice: node.encoded, step: step)
    }

    public init(encoded: [UInt8], step: TrustError.Step = .certificate) throws(TrustError) {
        try self.init(slice: encoded[...], step: step)
    }

    /// A name whose encoding is byte-identical to `other`'s (a self-issued certificate's issuer).
    init(sameNameAs other: DistinguishedName, slice: ArraySlice<UInt8>) {
        self.encodedSlice = slice
        self.canonical = other.canonical
    }

    /// Reads a Name from exactly its encoding (a slice of a larger buffer is kept, not copied).
    /// Builds the canonical form in one pass over the bytes: no per-attribute strings for the
    /// ASCII values that nearly every ICAO name consists of.
    public init(slice: ArraySlice<UInt8>, step: TrustError.Step = .certificate) throws(TrustError) {
        var outer = TLVCursor(slice)
        let name: TLVHeader
        do throws(TLVError) {
            name = try outer.next(0x30, "Name")
            guard outer.isAtEnd else {
                throw TLVError(.trailingData, offset: name.end - slice.startIndex, "bytes after the Name")
            }
        } catch {
            throw TrustError(.malformed, step, "Name: \(error.reason)")
        }
        var out: [UInt8] = []
        out.reserveCapacity(name.valueLength)
        do {
            var sets = try outer.children(of: name)
            var first = true
            while let set = try sets.next() {
                guard set.tag == 0x31 else {
                    throw TrustError(.malformed, step, "RelativeDistinguishedName is not a non-empty SET")
                }
                if !first { out.append(UInt8(ascii: ",")) }
                first = false
                var atvs = try sets.children(of: set)
                // Attributes are written straight into `out`; a multi-valued RDN (rare) is then
                // re-ordered, since it is a set and compares in any order.
                let rdnStart = out.count
                var ranges: [Range<Int>] = []
                var count = 0
                while let atv = try atvs.next() {
                    guard atv.tag == 0x30 else {
                        throw TrustError(.malformed, step, "AttributeTypeAndValue is not a SEQUENCE of two")
                    }
                    var fields = try atvs.children(of: atv)
                    guard let type = try fields.next(), let value = try fields.next(), fields.isAtEnd else {
                        throw TrustError(.malformed, step, "AttributeTypeAndValue is not a SEQUENCE of two")
                    }
                    guard type.tag == 0x06 else {
                        throw TrustError(.malformed, step, "attribute type is not an OBJECT IDENTIFIER")
                    }
                    try ObjectIdentifier.validate(contents: fields.value(type), offset: fields.offset(type))
                    if count > 0 { out.append(UInt8(ascii: "+")) }
                    let partStart = out.count
                    Hex.append(fields.value(type), to: &out, lowercase: true)
                    out.append(UInt8(ascii: "="))
                    Self.appendCanonicalValue(value, fields, to: &out)
                    count += 1
                    if count == 2 { ranges.append(rdnStart..<(partStart - 1)) }
                    if count >= 2 { ranges.append(partStart..<out.count) }
                }
                guard count > 0 else {
                    throw TrustError(.malformed, step, "RelativeDistinguishedName is not a non-empty SET")
                }
                if count > 1 {
                    let parts = ranges.map { Array(out[$0]) }.sorted { $0.lexicographicallyPrecedes($1) }
                    out.removeSubrange(rdnStart...)
                    for (k, p) in parts.enumerated() {
                        if k > 0 { out.append(UInt8(ascii: "+")) }
                        out += p
                    }
                }
            }
        } catch let e as TrustError {
            throw e
        } catch let e as TLVError {
            throw TrustError(.malformed, step, "Name: \(e.reason)")
        } catch {
            throw TrustError(.malformed, step, "Name: \(error)")
        }
        self.encodedSlice = slice[name.start..<name.end]
        self.canonical = String(decoding: out, as: UTF8.self)
    }

    /// The canonical value of one AttributeValue: character strings trimmed, inner white space
    /// collapsed, case folded, separators escaped; other values "#" and the hex of their encoding.
    private static func appendCanonicalValue(_ h: TLVHeader, _ cursor: TLVCursor, to out: inout [UInt8]) {
        let value = cursor.value(h)
        switch h.tag {
        case 0x0C, 0x13, 0x16, 0x1A, 0x12:  // UTF8String, PrintableString, IA5String, VisibleString, NumericString
            if value.allSatisfy({ $0 < 0x80 }) {
                appendCanonicalASCII(value, to: &out)
                return
            }
        default:
            break
        }
        if let s = try? cursor.node(h).stringValue() {
            out += canonicalValue(s).utf8
        } else {
            out.append(UInt8(ascii: "#"))
            Hex.append(cursor.encoded(h), to: &out, lowercase: true)
        }
    }

    private static func appendCanonicalASCII(_ bytes: some Sequence<UInt8>, to out: inout [UInt8]) {
        var pendingSpace = false
        var started = false
        for b in bytes {
            switch b {
            case 0x20, 0x09, 0x0A, 0x0B, 0x0C, 0x0D:
                pendingSpace = started
                continue
            default:
                break
            }
            if pendingSpace {
                out.append(0x20)
                pendingSpace = false
            }
            started = true
            switch b {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): out.append(b + 32)
            case UInt8(ascii: ","), UInt8(ascii: "+"), UInt8(ascii: "="), UInt8(ascii: "\\"), UInt8(ascii: "#"):
                out.append(UInt8(ascii: "\\"))
                out.append(b)
            default: out.append(b)
            }
        }
    }

    /// The attributes of an encoded Name, in order.
    static func decodeRDNs(_ slice: ArraySlice<UInt8>) throws(TLVError) -> [[Attribute]] {
        var outer = TLVCursor(slice)
        let name = try outer.next(0x30, "Name")
        var sets = try outer.children(of: name)
        var rdns: [[Attribute]] = []
        while let set = try sets.next() {
            var atvs = try sets.children(of: set)
            var rdn: [Attribute] = []
            while let atv = try atvs.next() {
                var fields = try atvs.children(of: atv)
                let type = try fields.next(0x06, "attribute type")
                guard let v = try fields.next() else {
                    throw TLVError(.truncated, offset: fields.offset(atv), "attribute without value")
                }
                rdn.append(
                    Attribute(
                        type: try fields.node(type).objectIdentifierValue(), value: try? fields.node(v).stringValue(),
                        encodedValue: Array(fields.encoded(v))))
            }
            rdns.append(rdn)
        }
        return rdns
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
        appendCanonicalASCII(utf8, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Values of an attribute type, in order.
    public func values(_ type: ObjectIdentifier) -> [String] {
        let contents = type.encodedValue
        var out: [String] = []
        forEachAttribute { oid, value, cursor in
            if oid.elementsEqual(contents), let s = try? cursor.node(value).stringValue() { out.append(s) }
        }
        return out
    }

    /// Calls `body` with the OID contents and the value header of every attribute, in order (no decoding).
    private func forEachAttribute(_ body: (ArraySlice<UInt8>, TLVHeader, TLVCursor) -> Void) {
        // The structure was checked when the name was read.
        var outer = TLVCursor(encodedSlice)
        guard let name = try? outer.next(), var sets = try? outer.children(of: name) else { return }
        while let set = try? sets.next() {
            guard var atvs = try? sets.children(of: set) else { return }
            while let atv = try? atvs.next() {
                guard var fields = try? atvs.children(of: atv), let type = try? fields.next(),
                    let value = try? fields.next()
                else { return }
                body(fields.value(type), value, fields)
            }
        }
    }

    /// The countryName (C), trimmed and upper-cased; nil when absent.
    public var country: String? {
        guard let v = values(TrustOID.countryName).first else { return nil }
        guard v.utf8.allSatisfy({ $0 < 0x80 }) else { return v.trimmingSpaces().uppercased() }
        var bytes = Array(v.utf8)[...]
        while let f = bytes.first, f == 0x20 || (0x09...0x0D).contains(f) { bytes = bytes.dropFirst() }
        while let l = bytes.last, l == 0x20 || (0x09...0x0D).contains(l) { bytes = bytes.dropLast() }
        return String(decoding: bytes.map { (0x61...0x7A).contains($0) ? $0 - 0x20 : $0 }, as: UTF8.self)
    }

    public var commonName: String? { values(TrustOID.commonName).first }

    static let shortNames: [ObjectIdentifier: String] = [
        TrustOID.countryName: "C", TrustOID.commonName: "CN", TrustOID.organizationName: "O",
        TrustOID.organizationalUnitName: "OU", TrustOID.serialNumberAttribute: "serialNumber",
        "2.5.4.7": "L", "2.5.4.8": "ST", "1.2.840.113549.1.9.1": "emailAddress",
    ]

    /// RFC 4514-like rendering, most significant RDN first ("C=DE, O=bund, OU=bsi, CN=csca-germany").
    public var description: String {
        var out = ""
        var outer = TLVCursor(encodedSlice)
        guard let name = try? outer.next(), var sets = try? outer.children(of: name) else { return out }
        var firstRDN = true
        while let set = try? sets.next(), var atvs = try? sets.children(of: set) {
            if !firstRDN { out += ", " }
            firstRDN = false
            var firstATV = true
            while let atv = try? atvs.next(), var fields = try? atvs.children(of: atv),
                let type = try? fields.next(), let value = try? fields.next()
            {
                if !firstATV { out += "+" }
                firstATV = false
                let oid = fields.value(type)
                if let short = Self.shortNamesByContents.first(where: { $0.0.elementsEqual(oid) })?.1 {
                    out += short
                } else {
                    out += (try? ObjectIdentifier(contents: oid).dotted) ?? "?"
                }
                out += "="
                out += (try? fields.node(value).stringValue()) ?? "#" + Hex.encode(fields.encoded(value))
            }
        }
        return out
    }

    static let shortNamesByContents: [([UInt8], String)] = shortNames.map { ($0.key.encodedValue, $0.value) }

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
            case ",", "+", "=", "\\", "#":
                out.append("\\")
                out.append(c)
            default: out.append(c)
            }
        }
        return out
    }
}
