import ASN1TLV

/// The SecurityInfos of EF.CardAccess, EF.CardSecurity and DG14 (ICAO 9303-11 §9.2; BSI TR-03110-3 A.1):
///
/// ```
/// SecurityInfos ::= SET OF SecurityInfo
/// ```
///
/// Elements keep their encodings; unknown elements are kept raw (`SecurityInfo.unknown`).
public struct SecurityInfos: Sendable, Hashable {
    /// The elements in the order they were read.
    public var infos: [SecurityInfo]
    /// The SET exactly as read.
    public var encoded: [UInt8]

    public init(infos: [SecurityInfo], encoded: [UInt8] = []) {
        self.infos = infos
        self.encoded = encoded
    }

    init(setNode node: TLVNode) throws(SecurityInfosError) {
        guard node.tag == 0x31 else {
            throw SecurityInfosError(
                .unexpectedStructure, offset: node.offset,
                "expected a SET OF SecurityInfo ('31'), found \(TLVTag.describe(node.tag))")
        }
        var list: [SecurityInfo] = []
        for c in node.children { list.append(try SecurityInfo.parse(c)) }
        infos = list
        encoded = node.encodedBytes
    }

    // MARK: Parsing the three containers

    /// Parses a bare `SET OF SecurityInfo` spanning the whole input (the content of EF.CardAccess, or
    /// the eContent of EF.CardSecurity). `baseOffset` is added to the offsets of errors.
    public static func parse(_ bytes: [UInt8], baseOffset: Int = 0) throws(SecurityInfosError) -> SecurityInfos {
        let node: TLVNode
        do {
            node = try TLVParser.parse(bytes, rules: .ber)
        } catch {
            throw SecurityInfosError(error, base: baseOffset)
        }
        do {
            return try SecurityInfos(setNode: node)
        } catch {
            var e = error
            e.offset += baseOffset
            throw e
        }
    }

    /// EF.CardAccess (ICAO 9303-11 §9.2.11; 9303-10): the file is the bare SecurityInfos SET.
    public static func parseCardAccess(_ file: [UInt8]) throws(SecurityInfosError) -> SecurityInfos {
        try SecurityInfosError.checkLimit(.cardAccess, length: file.count)
        return try parse(file)
    }

    /// DG14 (ICAO 9303-10 §4.7.14, 9303-11 §9.2): `6E L SecurityInfos`.
    public static func parseDG14(_ file: [UInt8]) throws(SecurityInfosError) -> SecurityInfos {
        try SecurityInfosError.checkLimit(.dg14, length: file.count)
        let node: TLVNode
        do {
            node = try TLVParser.parse(file, rules: .ber)
        } catch {
            throw SecurityInfosError(error)
        }
        guard node.tag == 0x6E else {
            throw SecurityInfosError(
                .unexpectedStructure, offset: 0, "DG14 must start with tag '6E', found \(TLVTag.describe(node.tag))")
        }
        guard node.children.count == 1 else {
            throw SecurityInfosError(
                .unexpectedStructure, offset: node.offset,
                "DG14 holds \(node.children.count) elements, expected one SET")
        }
        return try SecurityInfos(setNode: node.children[0])
    }

    /// EF.CardSecurity (ICAO 9303-11 §9.2.11; BSI TR-03110-3 A.1.2.6): parses the SecurityInfos signed
    /// inside the ContentInfo/SignedData **without** checking the signature (that is MRTDTrust's job).
    public static func parseCardSecurity(_ file: [UInt8]) throws(SecurityInfosError) -> SecurityInfos {
        let (content, offset) = try CardSecurityContent.eContent(of: file)
        return try parse(content, baseOffset: offset)
    }

    // MARK: Typed accessors

    public var paceInfos: [PACEInfo] {
        infos.compactMap { if case .pace(let i) = $0 { return i } else { return nil } }
    }
    public var paceDomainParameterInfos: [PACEDomainParameterInfo] {
        infos.compactMap { if case .paceDomainParameters(let i) = $0 { return i } else { return nil } }
    }
    public var chipAuthenticationInfos: [ChipAuthenticationInfo] {
        infos.compactMap { if case .chipAuthentication(let i) = $0 { return i } else { return nil } }
    }
    public var chipAuthenticationDomainParameterInfos: [ChipAuthenticationDomainParameterInfo] {
        infos.compactMap { if case .chipAuthenticationDomainParameters(let i) = $0 { return i } else { return nil } }
    }
    public var chipAuthenticationPublicKeyInfos: [ChipAuthenticationPublicKeyInfo] {
        infos.compactMap { if case .chipAuthenticationPublicKey(let i) = $0 { return i } else { return nil } }
    }
    public var terminalAuthenticationInfos: [TerminalAuthenticationInfo] {
        infos.compactMap { if case .terminalAuthentication(let i) = $0 { return i } else { return nil } }
    }
    public var activeAuthenticationInfo: ActiveAuthenticationInfo? {
        infos.lazy.compactMap { if case .activeAuthentication(let i) = $0 { return i } else { return nil } }.first
    }
    public var privilegedTerminalInfo: PrivilegedTerminalInfo? {
        infos.lazy.compactMap { if case .privilegedTerminal(let i) = $0 { return i } else { return nil } }.first
    }
    public var unknownInfos: [UnknownSecurityInfo] {
        infos.compactMap { if case .unknown(let i) = $0 { return i } else { return nil } }
    }

    /// The PACEDomainParameterInfo a PACEInfo refers to (same parameterId and matching protocol family),
    /// nil when the PACEInfo uses standardized parameters.
    public func domainParameters(for pace: PACEInfo) -> PACEDomainParameterInfo? {
        let family = Array(pace.protocol.arcs.dropLast())
        let candidates = paceDomainParameterInfos.filter { $0.protocol.arcs == family }
        if let id = pace.parameterId {
            return candidates.first { $0.parameterId == id }
        }
        return candidates.count == 1 ? candidates[0] : nil
    }

    /// The ChipAuthenticationPublicKeyInfo matching a ChipAuthenticationInfo (same keyId, or the only one).
    public func publicKey(for ca: ChipAuthenticationInfo) -> ChipAuthenticationPublicKeyInfo? {
        let keys = chipAuthenticationPublicKeyInfos
        if let id = ca.keyId, let k = keys.first(where: { $0.keyId == id }) { return k }
        return keys.count == 1 ? keys[0] : nil
    }
}

/// Digs the eContent (the SecurityInfos SET) out of EF.CardSecurity (RFC 5652 ContentInfo/SignedData,
/// BSI TR-03110-3 A.1.2.6) so that a reader can use it before the trust checks run.
///
/// ```
/// ContentInfo ::= SEQUENCE { contentType (id-signedData), content [0] EXPLICIT SignedData }
/// SignedData ::= SEQUENCE { version, digestAlgorithms SET, encapContentInfo EncapsulatedContentInfo, … }
/// EncapsulatedContentInfo ::= SEQUENCE { eContentType (id-SecurityObject), eContent [0] EXPLICIT OCTET STRING }
/// ```
public enum CardSecurityContent {
    /// The eContent bytes and their offset in `file` (offset of the first content octet of a
    /// primitive OCTET STRING; of the OCTET STRING itself when BER-constructed).
    public static func eContent(of file: [UInt8]) throws(SecurityInfosError) -> (content: [UInt8], offset: Int) {
        try SecurityInfosError.checkLimit(.cardSecurity, length: file.count)
        do {
            let ci = try TLVParser.parse(file, rules: .ber)
            try ci.expect(0x30, "ContentInfo")
            let type = try ci.child(at: 0, "contentType").objectIdentifierValue()
            guard type == SecurityInfoOID.signedData else {
                throw SecurityInfosError(
                    .notCardSecurity, offset: ci.children[0].offset, "ContentInfo type \(type) is not id-signedData")
            }
            let explicit = try ci.child(at: 1, "content").expect(0xA0, "[0] content")
            let sd = try explicit.child(at: 0, "SignedData").expect(0x30, "SignedData")
            let encap = try sd.child(at: 2, "encapContentInfo").expect(0x30, "EncapsulatedContentInfo")
            let eType = try encap.child(at: 0, "eContentType").objectIdentifierValue()
            guard eType == SecurityInfoOID.securityObject else {
                throw SecurityInfosError(
                    .notCardSecurity, offset: encap.children[0].offset,
                    "eContentType \(eType) is not id-SecurityObject")
            }
            let wrapper = try encap.child(at: 1, "eContent").expect(0xA0, "[0] eContent")
            let octets = try wrapper.child(at: 0, "OCTET STRING")
            let content = try octets.octetStringValue()
            let offset =
                octets.tag == 0x04 ? octets.offset + (octets.encoded.count - octets.value.count) : octets.offset
            return (content, offset)
        } catch let e as SecurityInfosError {
            throw e
        } catch let e as TLVError {
            throw SecurityInfosError(e)
        } catch {
            throw SecurityInfosError(.malformedEncoding, offset: 0, "\(error)")
        }
    }
}
