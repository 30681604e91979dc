import ASN1TLV
import DocumentGenerator
import MRTDCrypto
import MRTDDocument

/// The parts of the document's SecurityInfos the chip itself needs (ICAO 9303-11 §9.2), parsed once
/// from the profile's EF.CardAccess and DG14. A minimal local parse: the full SecurityInfos model lives
/// in MRTDDocument.
///
/// ```
/// SecurityInfos ::= SET OF SecurityInfo
/// SecurityInfo ::= SEQUENCE { protocol OBJECT IDENTIFIER, requiredData ANY, optionalData ANY OPTIONAL }
/// PACEInfo ::= SEQUENCE { protocol OBJECT IDENTIFIER (id-PACE-…), version INTEGER, parameterId INTEGER OPTIONAL }
/// ActiveAuthenticationInfo ::= SEQUENCE { protocol id-icao-mrtd-security-aaProtocolObject,
///                                        version INTEGER, signatureAlgorithm OBJECT IDENTIFIER }
/// ```
struct ChipSecurityInfos: Sendable {
    /// One PACE protocol the chip offers (from a PACEInfo), with its mapping, cipher and domain resolved.
    struct PACEOffer: Sendable, Hashable {
        var oid: ASN1ObjectIdentifier
        var mapping: PACEVariant
        var cipher: CipherAlgorithm
        var parameterId: Int?
        /// Domain parameters given explicitly by a PACEDomainParameterInfo (ICAO 9303-11 §9.2.2), when present.
        var explicitDomain: PACEDomain?

        /// The domain parameters: explicit ones, else the standardized set named by the parameter id (§9.5.1).
        var domain: PACEDomain? {
            if let explicitDomain { return explicitDomain }
            guard let id = parameterId else { return nil }
            switch StandardDomainParameters.parameters(id: id) {
            case .ec(let curve)?: return .ec(curve)
            case .dh(let group)?: return .dh(group)
            case nil: return nil
            }
        }
    }

    var paceInfos: [PACEOffer] = []
    /// Hash of ECDSA Active Authentication from DG14's ActiveAuthenticationInfo.
    var activeAuthenticationHash: HashAlgorithm?

    static let idPACE = SecurityInfoOID.idPACE
    static let idCA = SecurityInfoOID.idCA
    static let idAA = SecurityInfoOID.idAA

    init(profile: DocumentProfile) {
        if let cardAccess = profile.files[.cardAccess] {
            for info in Self.securityInfos(cardAccess) {
                if let p = Self.paceInfo(info) { paceInfos.append(p) }
            }
            // Explicit domain parameters (PACEDomainParameterInfo), parsed with MRTDDocument's SecurityInfos.
            if let parsed = try? SecurityInfos.parseCardAccess(cardAccess) {
                for i in paceInfos.indices {
                    let reference = PACEInfo(
                        protocol: paceInfos[i].oid, version: 2, parameterId: paceInfos[i].parameterId)
                    if let dp = parsed.domainParameters(for: reference)?.domainParameter.domainParameters {
                        paceInfos[i].explicitDomain = Self.domain(dp)
                    }
                }
            }
        }
        if let dg14 = profile.files[.dg14], let outer = try? TLVParser.parse(dg14, rules: .ber), outer.tag == 0x6E {
            for info in Self.securityInfos(outer.valueBytes) {
                guard info.count >= 3, let oid = try? info[0].objectIdentifierValue(), oid == Self.idAA,
                    let alg = try? info[2].objectIdentifierValue()
                else { continue }
                activeAuthenticationHash = Self.ecdsaHash(alg)
            }
        }
    }

    /// A PACE domain from explicit ECParameters or DH domain parameters (nil when unusable).
    static func domain(_ parameters: DomainParameters) -> PACEDomain? {
        switch parameters {
        case .standardized(let id):
            switch StandardDomainParameters.parameters(id: id) {
            case .ec(let curve)?: return .ec(curve)
            case .dh(let group)?: return .dh(group)
            case nil: return nil
            }
        case .ecExplicit(let ec):
            return
                (try? ECCurve(
                    p: ec.p, a: ec.a, b: ec.b, generator: ec.base, order: ec.order,
                    cofactor: ec.cofactor ?? [1])).map { .ec($0) }
        case .dh(let dh):
            return (try? DHGroup(p: dh.p, g: dh.g, q: dh.q)).map { .dh($0) }
        case .namedCurve:
            return nil
        }
    }

    /// The elements of each SecurityInfo SEQUENCE in a SET OF SecurityInfo.
    static func securityInfos(_ bytes: [UInt8]) -> [[TLVNode]] {
        guard let set = try? TLVParser.parse(bytes, rules: .ber), set.tag == 0x31 else { return [] }
        return set.children.filter { $0.tag == 0x30 }.map { $0.children }
    }

    static func paceInfo(_ elements: [TLVNode]) -> PACEOffer? {
        guard elements.count >= 2, let oid = try? elements[0].objectIdentifierValue(),
            let (mapping, cipher) = paceProtocol(oid)
        else { return nil }
        let parameterId = elements.count >= 3 ? try? elements[2].integerValue() : nil
        return PACEOffer(oid: oid, mapping: mapping, cipher: cipher, parameterId: parameterId)
    }

    /// id-PACE-{DH,ECDH}-{GM,IM,CAM}-{3DES-CBC-CBC, AES-CBC-CMAC-128/192/256} (ICAO 9303-11 §9.2.1).
    static func paceProtocol(_ oid: ASN1ObjectIdentifier) -> (PACEVariant, CipherAlgorithm)? {
        guard oid.hasPrefix(idPACE), oid.arcs.count == idPACE.arcs.count + 2 else { return nil }
        let mapping: PACEVariant
        switch oid.arcs[idPACE.arcs.count] {
        case 1: mapping = .genericDH
        case 2: mapping = .genericECDH
        case 3: mapping = .integratedDH
        case 4: mapping = .integratedECDH
        case 6: mapping = .chipAuthenticationECDH
        default: return nil
        }
        guard let cipher = cipher(oid.arcs[idPACE.arcs.count + 1]) else { return nil }
        return (mapping, cipher)
    }

    /// id-CA-{DH,ECDH}-{3DES-CBC-CBC, AES-CBC-CMAC-*} (ICAO 9303-11 §9.2.5): (is ECDH, cipher).
    static func chipAuthenticationProtocol(_ oid: ASN1ObjectIdentifier) -> (ecdh: Bool, cipher: CipherAlgorithm)? {
        guard oid.hasPrefix(idCA), oid.arcs.count == idCA.arcs.count + 2 else { return nil }
        let ecdh: Bool
        switch oid.arcs[idCA.arcs.count] {
        case 1: ecdh = false
        case 2: ecdh = true
        default: return nil
        }
        guard let cipher = cipher(oid.arcs[idCA.arcs.count + 1]) else { return nil }
        return (ecdh, cipher)
    }

    static func cipher(_ arc: UInt64) -> CipherAlgorithm? {
        switch arc {
        case 1: return .tripleDES
        case 2: return .aes128
        case 3: return .aes192
        case 4: return .aes256
        default: return nil
        }
    }

    /// ecdsa-with-SHA1/224/256/384/512 (ANSI X9.62 / RFC 5758).
    static func ecdsaHash(_ oid: ASN1ObjectIdentifier) -> HashAlgorithm? {
        switch oid.dotted {
        case "1.2.840.10045.4.1": return .sha1
        case "1.2.840.10045.4.3.1": return .sha224
        case "1.2.840.10045.4.3.2": return .sha256
        case "1.2.840.10045.4.3.3": return .sha384
        case "1.2.840.10045.4.3.4": return .sha512
        default: return nil
        }
    }
}
