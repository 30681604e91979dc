public import ASN1TLV

/// An X.509 v3 extension as read (RFC 5280 §4.1.2.9).
///
/// ```
/// Extension ::= SEQUENCE {
///     extnID      OBJECT IDENTIFIER,
///     critical    BOOLEAN DEFAULT FALSE,
///     extnValue   OCTET STRING }
/// ```
public struct CertificateExtension: Sendable, Hashable {
    public let oid: ASN1ObjectIdentifier
    public let critical: Bool
    /// The contents of extnValue (the DER encoding of the extension's own type).
    public let value: [UInt8]

    init(node: TLVNode, step: TrustError.Step) throws(TrustError) {
        guard node.tag == 0x30, node.children.count >= 2 else {
            throw TrustError(.malformed, step, "Extension is not a SEQUENCE of two or three")
        }
        oid = try asn1(step, "extnID") { () throws(TLVError) in try node.children[0].objectIdentifierValue() }
        if node.children.count == 3 {
            critical = try asn1(step, "critical") { () throws(TLVError) in try node.children[1].booleanValue() }
        } else {
            critical = false
        }
        value = try asn1(step, "extnValue") { () throws(TLVError) in
            try node.children[node.children.count - 1].octetStringValue()
        }
    }

    /// Reads an extension found by a `TLVCursor`.
    init(header h: TLVHeader, in cursor: TLVCursor, step: TrustError.Step) throws(TrustError) {
        func read<T>(_ what: String, _ body: () throws(TLVError) -> T) throws(TrustError) -> T {
            try asn1(step, what, body)
        }
        guard h.tag == 0x30 else { throw TrustError(.malformed, step, "Extension is not a SEQUENCE of two or three") }
        var fields = try read("Extension") { () throws(TLVError) in try cursor.children(of: h) }
        guard let idHeader = try read("extnID", { () throws(TLVError) in try fields.next() }),
            var last = try read("Extension", { () throws(TLVError) in try fields.next() })
        else {
            throw TrustError(.malformed, step, "Extension is not a SEQUENCE of two or three")
        }
        oid = try read("extnID") { () throws(TLVError) in try fields.node(idHeader).objectIdentifierValue() }
        if let third = try read("Extension", { () throws(TLVError) in try fields.next() }) {
            critical = try read("critical") { () throws(TLVError) in try fields.node(last).booleanValue() }
            last = third
        } else {
            critical = false
        }
        guard fields.isAtEnd else { throw TrustError(.malformed, step, "Extension is not a SEQUENCE of two or three") }
        if last.isConstructed {
            value = try read("extnValue") { () throws(TLVError) in try fields.tree(last).octetStringValue() }
        } else {
            value = try read("extnValue") { () throws(TLVError) in try fields.node(last).octetStringValue() }
        }
    }

    /// Checks the Extensions SEQUENCE as `parseList(_:in:step:)` reads it, without building anything,
    /// and returns the subject key identifier (RFC 5280 §4.2.1.2; the last one when repeated, nil when
    /// absent or when its value does not decode — `DecodedExtensions` then lists it as malformed).
    static func skimList(_ h: TLVHeader, in cursor: TLVCursor, step: TrustError.Step) throws(TrustError) -> [UInt8]? {
        func read<T>(_ what: String, _ body: () throws(TLVError) -> T) throws(TrustError) -> T {
            try asn1(step, what, body)
        }
        guard h.tag == 0x30 else { throw TrustError(.malformed, step, "Extensions is not a SEQUENCE") }
        var items = try read("Extensions") { () throws(TLVError) in try cursor.children(of: h) }
        var ski: [UInt8]? = nil
        while let e = try read("Extension", { () throws(TLVError) in try items.next() }) {
            guard e.tag == 0x30 else {
                throw TrustError(.malformed, step, "Extension is not a SEQUENCE of two or three")
            }
            var fields = try read("Extension") { () throws(TLVError) in try items.children(of: e) }
            guard let idHeader = try read("extnID", { () throws(TLVError) in try fields.next() }),
                var last = try read("Extension", { () throws(TLVError) in try fields.next() })
            else {
                throw TrustError(.malformed, step, "Extension is not a SEQUENCE of two or three")
            }
            try read("extnID") { () throws(TLVError) in
                guard idHeader.tag == 0x06 else {
                    throw TLVError(
                        .unexpectedTag, offset: fields.offset(idHeader), "extnID is not an OBJECT IDENTIFIER")
                }
                try ASN1ObjectIdentifier.validate(contents: fields.value(idHeader), offset: fields.offset(idHeader))
            }
            if let third = try read("Extension", { () throws(TLVError) in try fields.next() }) {
                _ = try read("critical") { () throws(TLVError) in try fields.node(last).booleanValue() }
                last = third
            }
            guard fields.isAtEnd else {
                throw TrustError(.malformed, step, "Extension is not a SEQUENCE of two or three")
            }
            let value: ArraySlice<UInt8>
            if last.isConstructed {
                value = try read("extnValue") { () throws(TLVError) in try fields.tree(last).octetStringValue() }[...]
            } else {
                guard last.tag == 0x04 else {
                    throw TrustError(
                        .malformed, step, "extnValue: expected '04' (OCTET STRING), found \(TLVTag.describe(last.tag))")
                }
                value = fields.value(last)
            }
            if fields.value(idHeader).elementsEqual(Self.subjectKeyIdentifierOID) {
                ski = try? TLVParser.parse(value, rules: .ber).octetStringValue()
            }
        }
        return ski
    }

    /// Contents octets of id-ce-subjectKeyIdentifier (2.5.29.14).
    static let subjectKeyIdentifierOID: [UInt8] = [0x55, 0x1D, 0x0E]

    /// Reads the Extensions SEQUENCE found by a `TLVCursor`.
    static func parseList(_ h: TLVHeader, in cursor: TLVCursor, step: TrustError.Step) throws(TrustError)
        -> [CertificateExtension]
    {
        guard h.tag == 0x30 else { throw TrustError(.malformed, step, "Extensions is not a SEQUENCE") }
        var items = try asn1(step, "Extensions") { () throws(TLVError) in try cursor.children(of: h) }
        var out: [CertificateExtension] = []
        while let e = try asn1(step, "Extension", { () throws(TLVError) in try items.next() }) {
            out.append(try CertificateExtension(header: e, in: items, step: step))
        }
        return out
    }

    static func parseList(_ node: TLVNode, step: TrustError.Step) throws(TrustError) -> [CertificateExtension] {
        guard node.tag == 0x30 else { throw TrustError(.malformed, step, "Extensions is not a SEQUENCE") }
        var out: [CertificateExtension] = []
        for c in node.children { out.append(try CertificateExtension(node: c, step: step)) }
        return out
    }
}

/// RFC 5280 §4.2.1.3 KeyUsage; bit 0 is the most significant bit of the first octet.
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
    public static let encipherOnly = KeyUsage(rawValue: 1 << 7)
    public static let decipherOnly = KeyUsage(rawValue: 1 << 8)

    init(bitString node: TLVNode) throws(TLVError) {
        let bytes = try node.bitStringValue(allowUnused: true)
        var v: UInt16 = 0
        for (i, byte) in bytes.prefix(2).enumerated() {
            for bit in 0..<8 where byte & (0x80 >> bit) != 0 { v |= 1 << UInt16(i * 8 + bit) }
        }
        self.rawValue = v
    }

    public var names: [String] {
        let all: [(KeyUsage, String)] = [
            (.digitalSignature, "digitalSignature"), (.nonRepudiation, "nonRepudiation"),
            (.keyEncipherment, "keyEncipherment"), (.dataEncipherment, "dataEncipherment"),
            (.keyAgreement, "keyAgreement"),
            (.keyCertSign, "keyCertSign"), (.cRLSign, "cRLSign"), (.encipherOnly, "encipherOnly"),
            (.decipherOnly, "decipherOnly"),
        ]
        return all.filter { contains($0.0) }.map(\.1)
    }
}

/// RFC 5280 §4.2.1.9 BasicConstraints ::= SEQUENCE { cA BOOLEAN DEFAULT FALSE, pathLenConstraint INTEGER (0..MAX) OPTIONAL }
public struct BasicConstraints: Sendable, Hashable {
    public let isCA: Bool
    public let pathLength: Int?
}

/// RFC 5280 §4.2.1.1 AuthorityKeyIdentifier ::= SEQUENCE {
///     keyIdentifier [0] KeyIdentifier OPTIONAL, authorityCertIssuer [1] GeneralNames OPTIONAL,
///     authorityCertSerialNumber [2] CertificateSerialNumber OPTIONAL }
public struct AuthorityKeyIdentifier: Sendable, Hashable {
    public let keyIdentifier: [UInt8]?
    /// The contents of authorityCertSerialNumber, when present.
    public let authorityCertSerialNumber: [UInt8]?
}

/// RFC 3280 §4.2.1.4 (kept by ICAO 9303-12 §7.1.1) PrivateKeyUsagePeriod ::= SEQUENCE {
///     notBefore [0] GeneralizedTime OPTIONAL, notAfter [1] GeneralizedTime OPTIONAL }
public struct PrivateKeyUsagePeriod: Sendable, Hashable {
    public let notBefore: ASN1Time?
    public let notAfter: ASN1Time?

    public func contains(_ t: ASN1Time) -> Bool {
        (notBefore.map { $0 <= t } ?? true) && (notAfter.map { t <= $0 } ?? true)
    }
}

/// The extensions of a certificate or CRL that this module understands, decoded.
///
/// Decoding is lenient: a known extension that does not decode is listed in `malformed` (and, when
/// critical, makes the certificate unusable: see `Certificate.unhandledCriticalExtensions`).
public struct DecodedExtensions: Sendable, Hashable {
    public var basicConstraints: BasicConstraints?
    public var keyUsage: KeyUsage?
    public var subjectKeyIdentifier: [UInt8]?
    public var authorityKeyIdentifier: AuthorityKeyIdentifier?
    public var privateKeyUsagePeriod: PrivateKeyUsagePeriod?
    /// URIs of the CRL distribution points (RFC 5280 §4.2.1.13), in order.
    public var crlDistributionPoints: [String] = []
    /// ICAO 9303-12 §7.1.1.3 DocumentTypeListSyntax ::= SEQUENCE { version DocumentTypeListVersion,
    /// docTypeList SET OF DocumentType } — DocumentType ::= PrintableString(SIZE(1..2)).
    public var documentTypes: [String]?
    /// RFC 5280 §5.2.3 CRL number (CRLs only).
    public var crlNumber: [UInt8]?
    /// Extensions whose OID this module does not know, and whether they are critical.
    public var unknown: [(oid: ASN1ObjectIdentifier, critical: Bool)] { unknownList.map { ($0.oid, $0.critical) } }
    var unknownList: [Unknown] = []
    /// Known extensions whose value did not decode, with the reason.
    public var malformed: [String] = []

    struct Unknown: Sendable, Hashable {
        let oid: ASN1ObjectIdentifier
        let critical: Bool
    }

    static let understood: Set<ASN1ObjectIdentifier> = [
        TrustOID.subjectKeyIdentifier, TrustOID.keyUsage, TrustOID.privateKeyUsagePeriod, TrustOID.subjectAltName,
        TrustOID.issuerAltName, TrustOID.basicConstraints, TrustOID.crlNumber, TrustOID.crlDistributionPoints,
        TrustOID.certificatePolicies, TrustOID.authorityKeyIdentifier, TrustOID.extendedKeyUsage,
        TrustOID.freshestCRL, TrustOID.authorityInfoAccess, TrustOID.nameChange, TrustOID.documentTypeList,
    ]

    init(_ list: [CertificateExtension]) {
        for e in list {
            do {
                try decode(e)
            } catch {
                malformed.append("\(e.oid.dotted): \(error.reason)")
            }
        }
    }

    private mutating func decode(_ e: CertificateExtension) throws(TLVError) {
        switch e.oid {
        case TrustOID.basicConstraints:
            let seq = try TLVParser.parse(e.value, rules: .ber).expect(0x30, "BasicConstraints")
            var ca = false
            var path: Int? = nil
            for c in seq.children {
                if c.tag == 0x01 { ca = try c.booleanValue() } else if c.tag == 0x02 { path = try c.integerValue() }
            }
            basicConstraints = BasicConstraints(isCA: ca, pathLength: path)
        case TrustOID.keyUsage:
            keyUsage = try KeyUsage(bitString: try TLVParser.parse(e.value, rules: .ber))
        case TrustOID.subjectKeyIdentifier:
            subjectKeyIdentifier = try TLVParser.parse(e.value, rules: .ber).octetStringValue()
        case TrustOID.authorityKeyIdentifier:
            let seq = try TLVParser.parse(e.value, rules: .ber).expect(0x30, "AuthorityKeyIdentifier")
            authorityKeyIdentifier = AuthorityKeyIdentifier(
                keyIdentifier: seq.child(0x80)?.valueBytes,
                authorityCertSerialNumber: seq.child(0x82)?.valueBytes)
        case TrustOID.privateKeyUsagePeriod:
            let seq = try TLVParser.parse(e.value, rules: .ber).expect(0x30, "PrivateKeyUsagePeriod")
            func time(_ tag: UInt32) throws(TLVError) -> ASN1Time? {
                guard let n = seq.child(tag) else { return nil }
                guard let s = String(validating: n.value, as: UTF8.self) else {
                    throw TLVError(.invalidValue, offset: n.offset, "GeneralizedTime is not ASCII")
                }
                return try ASN1Time(generalizedTime: s, offset: n.offset)
            }
            privateKeyUsagePeriod = PrivateKeyUsagePeriod(notBefore: try time(0x80), notAfter: try time(0x81))
        case TrustOID.crlDistributionPoints:
            let seq = try TLVParser.parse(e.value, rules: .ber).expect(0x30, "CRLDistributionPoints")
            var uris: [String] = []
            func collect(_ n: TLVNode) {
                if n.tag == 0x86, let s = String(validating: n.value, as: UTF8.self) { uris.append(s) }
                for c in n.children { collect(c) }
            }
            collect(seq)
            crlDistributionPoints = uris
        case TrustOID.documentTypeList:
            let seq = try TLVParser.parse(e.value, rules: .ber).expect(0x30, "DocumentTypeListSyntax")
            guard let set = seq.children.first(where: { $0.tag == 0x31 }) else {
                throw TLVError(.unexpectedTag, offset: seq.offset, "DocumentTypeListSyntax without docTypeList")
            }
            var types: [String] = []
            for c in set.children { types.append(try c.stringValue()) }
            documentTypes = types
        case TrustOID.crlNumber:
            crlNumber = try TLVParser.parse(e.value, rules: .ber).unsignedIntegerBytes()
        default:
            if !Self.understood.contains(e.oid) { unknownList.append(Unknown(oid: e.oid, critical: e.critical)) }
        }
    }
}
