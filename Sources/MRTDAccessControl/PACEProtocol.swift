public import ASN1TLV
public import MRTDCrypto
import MRTDDocument

/// The PACE mapping (ICAO 9303-11 §4.4.3.3).
public enum PACEMapping: String, Sendable, Hashable, CaseIterable {
    /// Generic Mapping (§4.4.3.3.1).
    case genericMapping = "GM"
    /// Integrated Mapping (§4.4.3.3.2).
    case integratedMapping = "IM"
    /// Chip Authentication Mapping (§4.4.3.3.3).
    case chipAuthenticationMapping = "CAM"
}

/// The key agreement algorithm of PACE or Chip Authentication.
public enum KeyAgreementAlgorithm: String, Sendable, Hashable, CaseIterable {
    case ecdh = "ECDH"
    case dh = "DH"
}

/// A PACE protocol identified by its OID (ICAO 9303-11 §9.2.1 table of id-PACE-* object identifiers):
/// mapping × key agreement × cipher.
public struct PACEProtocol: Sendable, Hashable, CustomStringConvertible {
    public let oid: ASN1ObjectIdentifier
    public let mapping: PACEMapping
    public let keyAgreement: KeyAgreementAlgorithm
    public let cipher: CipherAlgorithm

    /// nil when the OID is not an id-PACE protocol this implementation knows.
    public init?(oid: ASN1ObjectIdentifier) {
        let base = SecurityInfoOID.idPACE.arcs
        guard oid.arcs.count == base.count + 2, Array(oid.arcs.prefix(base.count)) == base else { return nil }
        switch oid.arcs[base.count] {
        case 1:
            mapping = .genericMapping
            keyAgreement = .dh
        case 2:
            mapping = .genericMapping
            keyAgreement = .ecdh
        case 3:
            mapping = .integratedMapping
            keyAgreement = .dh
        case 4:
            mapping = .integratedMapping
            keyAgreement = .ecdh
        case 6:
            mapping = .chipAuthenticationMapping
            keyAgreement = .ecdh
        default: return nil
        }
        switch oid.arcs[base.count + 1] {
        case 1 where mapping != .chipAuthenticationMapping: cipher = .tripleDES
        case 2: cipher = .aes128
        case 3: cipher = .aes192
        case 4: cipher = .aes256
        default: return nil
        }
        self.oid = oid
    }

    public init(mapping: PACEMapping, keyAgreement: KeyAgreementAlgorithm, cipher: CipherAlgorithm) {
        let family: UInt64
        switch (mapping, keyAgreement) {
        case (.genericMapping, .dh): family = 1
        case (.genericMapping, .ecdh): family = 2
        case (.integratedMapping, .dh): family = 3
        case (.integratedMapping, .ecdh): family = 4
        case (.chipAuthenticationMapping, _): family = 6
        }
        let c: UInt64 =
            switch cipher {
            case .tripleDES: 1
            case .aes128: 2
            case .aes192: 3
            case .aes256: 4
            }
        self.init(oid: SecurityInfoOID.pace(family: family, cipher: c))!
    }

    /// "id-PACE-ECDH-GM-AES-CBC-CMAC-128" and so on.
    public var name: String { SecurityInfoOID.name(of: oid) ?? oid.dotted }
    public var description: String { name }
}
