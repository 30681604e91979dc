public import ASN1TLV

/// PACEInfo (ICAO 9303-11 §9.2.1; BSI TR-03110-3 A.1.1.1):
///
/// ```
/// PACEInfo ::= SEQUENCE { protocol OBJECT IDENTIFIER (id-PACE-…), version INTEGER (2),
///                         parameterId INTEGER OPTIONAL }
/// ```
public struct PACEInfo: Sendable, Hashable {
    public var `protocol`: ASN1ObjectIdentifier
    public var version: Int
    /// The standardized domain parameter id (9303-11 §9.5.1) or the id of a PACEDomainParameterInfo.
    public var parameterId: Int?
    /// The SEQUENCE exactly as read.
    public var encoded: [UInt8]

    public init(protocol: ASN1ObjectIdentifier, version: Int, parameterId: Int?, encoded: [UInt8] = []) {
        self.protocol = `protocol`
        self.version = version
        self.parameterId = parameterId
        self.encoded = encoded
    }

    /// ASN.1 name of the protocol ("id-PACE-ECDH-GM-AES-CBC-CMAC-128").
    public var protocolName: String { SecurityInfoOID.name(of: `protocol`) ?? `protocol`.dotted }
}

/// PACEDomainParameterInfo (ICAO 9303-11 §9.2.2; BSI TR-03110-3 A.1.1.1):
///
/// ```
/// PACEDomainParameterInfo ::= SEQUENCE { protocol OBJECT IDENTIFIER (id-PACE-DH-GM | id-PACE-ECDH-GM |
///     id-PACE-DH-IM | id-PACE-ECDH-IM | id-PACE-ECDH-CAM), domainParameter AlgorithmIdentifier,
///     parameterId INTEGER OPTIONAL }
/// ```
public struct PACEDomainParameterInfo: Sendable, Hashable {
    public var `protocol`: ASN1ObjectIdentifier
    public var domainParameter: AlgorithmIdentifierInfo
    public var parameterId: Int?
    public var encoded: [UInt8]
}

/// ChipAuthenticationInfo (ICAO 9303-11 §9.2.5; BSI TR-03110-3 A.1.1.2):
///
/// ```
/// ChipAuthenticationInfo ::= SEQUENCE { protocol OBJECT IDENTIFIER (id-CA-…), version INTEGER (1 | 2),
///                                       keyId INTEGER OPTIONAL }
/// ```
public struct ChipAuthenticationInfo: Sendable, Hashable {
    public var `protocol`: ASN1ObjectIdentifier
    public var version: Int
    public var keyId: Int?
    public var encoded: [UInt8]

    public var protocolName: String { SecurityInfoOID.name(of: `protocol`) ?? `protocol`.dotted }
}

/// ChipAuthenticationDomainParameterInfo (BSI TR-03110-3 A.1.1.2):
///
/// ```
/// ChipAuthenticationDomainParameterInfo ::= SEQUENCE { protocol OBJECT IDENTIFIER (id-CA-DH | id-CA-ECDH),
///     domainParameter AlgorithmIdentifier, keyId INTEGER OPTIONAL }
/// ```
public struct ChipAuthenticationDomainParameterInfo: Sendable, Hashable {
    public var `protocol`: ASN1ObjectIdentifier
    public var domainParameter: AlgorithmIdentifierInfo
    public var keyId: Int?
    public var encoded: [UInt8]
}

/// ChipAuthenticationPublicKeyInfo (ICAO 9303-11 §9.2.6; BSI TR-03110-3 A.1.1.2):
///
/// ```
/// ChipAuthenticationPublicKeyInfo ::= SEQUENCE { protocol OBJECT IDENTIFIER (id-PK-DH | id-PK-ECDH),
///     chipAuthenticationPublicKey SubjectPublicKeyInfo, keyId INTEGER OPTIONAL }
/// ```
public struct ChipAuthenticationPublicKeyInfo: Sendable, Hashable {
    public var `protocol`: ASN1ObjectIdentifier
    public var publicKey: SubjectPublicKeyInfoValue
    public var keyId: Int?
    public var encoded: [UInt8]
    /// True when the file carried the AlgorithmIdentifier and the BIT STRING directly in the
    /// SecurityInfo instead of inside a SubjectPublicKeyInfo SEQUENCE (seen in the wild; tolerated).
    /// `publicKey.encoded` then holds a SEQUENCE built around the two elements as read.
    public var isFlattened: Bool = false

    public var isECDH: Bool { `protocol`.arcs.last == 2 }
}

/// TerminalAuthenticationInfo (ICAO 9303-11 §9.2.8; BSI TR-03110-3 A.1.1.3):
///
/// ```
/// TerminalAuthenticationInfo ::= SEQUENCE { protocol OBJECT IDENTIFIER (id-TA), version INTEGER (1 | 2),
///                                           efCVCA FileID OPTIONAL }   -- FileID ::= SEQUENCE { fid OCTET STRING (SIZE(2)), sfid OCTET STRING (SIZE(1)) OPTIONAL }
/// ```
public struct TerminalAuthenticationInfo: Sendable, Hashable {
    public var `protocol`: ASN1ObjectIdentifier
    public var version: Int
    /// The FileID encoding as read, when present.
    public var efCVCA: [UInt8]?
    public var encoded: [UInt8]
}

/// ActiveAuthenticationInfo (ICAO 9303-11 §9.2.4):
///
/// ```
/// ActiveAuthenticationInfo ::= SEQUENCE { protocol OBJECT IDENTIFIER (id-AA), version INTEGER (1),
///                                         signatureAlgorithm OBJECT IDENTIFIER }
/// ```
public struct ActiveAuthenticationInfo: Sendable, Hashable {
    public var `protocol`: ASN1ObjectIdentifier
    public var version: Int
    /// e.g. ecdsa-with-SHA256 (1.2.840.10045.4.3.2) or a BSI ecdsa-plain-SHA* OID.
    public var signatureAlgorithm: ASN1ObjectIdentifier
    public var encoded: [UInt8]
}

/// PrivilegedTerminalInfo (BSI TR-03110-3 A.1.1.8): SecurityInfos offered only to privileged terminals.
///
/// ```
/// PrivilegedTerminalInfo ::= SEQUENCE { protocol OBJECT IDENTIFIER (id-PT), privilegedTerminalInfos SecurityInfos }
/// ```
public struct PrivilegedTerminalInfo: Sendable, Hashable {
    public var infos: SecurityInfos
    public var encoded: [UInt8]
}

/// A SecurityInfo this parser does not model, kept raw.
///
/// ```
/// SecurityInfo ::= SEQUENCE { protocol OBJECT IDENTIFIER, requiredData ANY DEFINED BY protocol,
///                             optionalData ANY DEFINED BY protocol OPTIONAL }
/// ```
public struct UnknownSecurityInfo: Sendable, Hashable {
    public var `protocol`: ASN1ObjectIdentifier
    public var encoded: [UInt8]

    public init(protocol: ASN1ObjectIdentifier, encoded: [UInt8]) {
        self.protocol = `protocol`
        self.encoded = encoded
    }
}

/// One element of a SecurityInfos SET (ICAO 9303-11 §9.2).
public enum SecurityInfo: Sendable, Hashable {
    case pace(PACEInfo)
    case paceDomainParameters(PACEDomainParameterInfo)
    case chipAuthentication(ChipAuthenticationInfo)
    case chipAuthenticationDomainParameters(ChipAuthenticationDomainParameterInfo)
    case chipAuthenticationPublicKey(ChipAuthenticationPublicKeyInfo)
    case terminalAuthentication(TerminalAuthenticationInfo)
    case activeAuthentication(ActiveAuthenticationInfo)
    indirect case privilegedTerminal(PrivilegedTerminalInfo)
    case unknown(UnknownSecurityInfo)

    /// The protocol OID of the element.
    public var protocolOID: ASN1ObjectIdentifier {
        switch self {
        case .pace(let i): return i.protocol
        case .paceDomainParameters(let i): return i.protocol
        case .chipAuthentication(let i): return i.protocol
        case .chipAuthenticationDomainParameters(let i): return i.protocol
        case .chipAuthenticationPublicKey(let i): return i.protocol
        case .terminalAuthentication(let i): return i.protocol
        case .activeAuthentication(let i): return i.protocol
        case .privilegedTerminal: return SecurityInfoOID.idPT
        case .unknown(let i): return i.protocol
        }
    }

    /// Parses one SecurityInfo SEQUENCE.
    static func parse(_ node: TLVNode) throws(SecurityInfosError) -> SecurityInfo {
        do {
            return try parseTLV(node)
        } catch let e as SecurityInfosError {
            throw e
        } catch let e as TLVError {
            throw SecurityInfosError(e)
        } catch {
            throw SecurityInfosError(.malformedEncoding, offset: node.offset, "\(error)")
        }
    }

    private static func optionalInt(_ node: TLVNode, _ index: Int, _ what: String) throws -> Int? {
        guard node.children.count > index else { return nil }
        let v = try node.children[index].integerValue()
        guard v >= 0 else {
            throw SecurityInfosError(.invalidValue, offset: node.children[index].offset, "negative \(what)")
        }
        return v
    }

    private static func requireCount(_ node: TLVNode, _ range: ClosedRange<Int>, _ what: String) throws {
        guard range.contains(node.children.count) else {
            throw SecurityInfosError(
                .unexpectedStructure, offset: node.offset,
                "\(what) has \(node.children.count) elements, expected \(range.lowerBound)…\(range.upperBound)")
        }
    }

    private static func parseTLV(_ node: TLVNode) throws -> SecurityInfo {
        try node.expect(0x30, "SecurityInfo")
        let oid = try node.child(at: 0, "protocol").objectIdentifierValue()
        let enc = node.encodedBytes
        let arcs = oid.arcs
        if SecurityInfoOID.isUnder(oid, SecurityInfoOID.idPACE) {
            if arcs.count == SecurityInfoOID.idPACE.arcs.count + 2 {
                try requireCount(node, 2...3, "PACEInfo")
                let version = try node.children[1].integerValue()
                return .pace(
                    PACEInfo(
                        protocol: oid, version: version, parameterId: try optionalInt(node, 2, "parameterId"),
                        encoded: enc))
            }
            if arcs.count == SecurityInfoOID.idPACE.arcs.count + 1 {
                try requireCount(node, 2...3, "PACEDomainParameterInfo")
                return .paceDomainParameters(
                    PACEDomainParameterInfo(
                        protocol: oid, domainParameter: try AlgorithmIdentifierInfo(node: node.children[1]),
                        parameterId: try optionalInt(node, 2, "parameterId"), encoded: enc))
            }
        }
        if SecurityInfoOID.isUnder(oid, SecurityInfoOID.idCA) {
            if arcs.count == SecurityInfoOID.idCA.arcs.count + 2 {
                try requireCount(node, 2...3, "ChipAuthenticationInfo")
                let version = try node.children[1].integerValue()
                return .chipAuthentication(
                    ChipAuthenticationInfo(
                        protocol: oid, version: version,
                        keyId: try optionalInt(node, 2, "keyId"), encoded: enc))
            }
            if arcs.count == SecurityInfoOID.idCA.arcs.count + 1 {
                try requireCount(node, 2...3, "ChipAuthenticationDomainParameterInfo")
                return .chipAuthenticationDomainParameters(
                    ChipAuthenticationDomainParameterInfo(
                        protocol: oid, domainParameter: try AlgorithmIdentifierInfo(node: node.children[1]),
                        keyId: try optionalInt(node, 2, "keyId"), encoded: enc))
            }
        }
        if SecurityInfoOID.isUnder(oid, SecurityInfoOID.idPK) && arcs.count == SecurityInfoOID.idPK.arcs.count + 1 {
            try requireCount(node, 2...4, "ChipAuthenticationPublicKeyInfo")
            if node.children.count >= 3, node.children[1].tag == 0x30, node.children[1].children.first?.tag == 0x06,
                node.children[2].tag == 0x03
            {
                // Flattened form: { protocol, AlgorithmIdentifier, BIT STRING [, keyId] }.
                let wrapped = TLVWriter.encode(0x30, node.children[1].encodedBytes + node.children[2].encodedBytes)
                let spkiNode: TLVNode
                do { spkiNode = try TLVParser.parse(wrapped, rules: .ber) } catch {
                    throw SecurityInfosError(error, base: node.children[1].offset)
                }
                var spki: SubjectPublicKeyInfoValue
                do { spki = try SubjectPublicKeyInfoValue(node: spkiNode) } catch {
                    var e = error
                    e.offset = node.children[1].offset
                    throw e
                }
                spki.encoded = wrapped
                if oid.arcs.last == 1 { spki.unwrapDHInteger() }
                var info = ChipAuthenticationPublicKeyInfo(
                    protocol: oid, publicKey: spki,
                    keyId: try optionalInt(node, 3, "keyId"), encoded: enc)
                info.isFlattened = true
                return .chipAuthenticationPublicKey(info)
            }
            try requireCount(node, 2...3, "ChipAuthenticationPublicKeyInfo")
            var spki = try SubjectPublicKeyInfoValue(node: node.children[1])
            if oid.arcs.last == 1 { spki.unwrapDHInteger() }
            return .chipAuthenticationPublicKey(
                ChipAuthenticationPublicKeyInfo(
                    protocol: oid, publicKey: spki, keyId: try optionalInt(node, 2, "keyId"), encoded: enc))
        }
        if oid == SecurityInfoOID.idTA {
            try requireCount(node, 2...3, "TerminalAuthenticationInfo")
            let version = try node.children[1].integerValue()
            return .terminalAuthentication(
                TerminalAuthenticationInfo(
                    protocol: oid, version: version,
                    efCVCA: node.children.count > 2 ? node.children[2].encodedBytes : nil, encoded: enc))
        }
        if oid == SecurityInfoOID.idAA {
            try requireCount(node, 3...3, "ActiveAuthenticationInfo")
            let version = try node.children[1].integerValue()
            let alg = try node.children[2].objectIdentifierValue()
            return .activeAuthentication(
                ActiveAuthenticationInfo(protocol: oid, version: version, signatureAlgorithm: alg, encoded: enc))
        }
        if oid == SecurityInfoOID.idPT {
            try requireCount(node, 2...2, "PrivilegedTerminalInfo")
            let inner = try SecurityInfos(setNode: node.children[1])
            return .privilegedTerminal(PrivilegedTerminalInfo(infos: inner, encoded: enc))
        }
        return .unknown(UnknownSecurityInfo(protocol: oid, encoded: enc))
    }
}
