/// ICAO 9303-11 §9.5.1 standardized domain parameters, ids 0–2 (DH) and 8–18 (ECDH).
///
/// | id | parameters | | id | parameters |
/// |---|---|---|---|---|
/// | 0 | 1024-bit MODP, 160-bit subgroup (RFC 5114 §2.1) | | 12 | NIST P-256 (secp256r1) |
/// | 1 | 2048-bit MODP, 224-bit subgroup (RFC 5114 §2.2) | | 13 | brainpoolP256r1 |
/// | 2 | 2048-bit MODP, 256-bit subgroup (RFC 5114 §2.3) | | 14 | brainpoolP320r1 |
/// | 8 | NIST P-192 (secp192r1) | | 15 | NIST P-384 (secp384r1) |
/// | 9 | brainpoolP192r1 | | 16 | brainpoolP384r1 |
/// | 10 | NIST P-224 (secp224r1) | | 17 | brainpoolP512r1 |
/// | 11 | brainpoolP224r1 | | 18 | NIST P-521 (secp521r1) |
///
/// Ids 3–7 and 19–31 are reserved.
public enum StandardDomainParameters {
    public enum Parameters: Sendable, Hashable {
        case dh(DHGroup)
        case ec(ECCurve)
    }

    /// The named curve behind an ECDH id, nil for the DH and reserved ids.
    public static func namedCurve(id: Int) -> NamedCurve? {
        switch id {
        case 8: return .secp192r1
        case 9: return .brainpoolP192r1
        case 10: return .secp224r1
        case 11: return .brainpoolP224r1
        case 12: return .secp256r1
        case 13: return .brainpoolP256r1
        case 14: return .brainpoolP320r1
        case 15: return .secp384r1
        case 16: return .brainpoolP384r1
        case 17: return .brainpoolP512r1
        case 18: return .secp521r1
        default: return nil
        }
    }

    /// The id of a named curve in the table (the inverse of `namedCurve(id:)`).
    public static func id(of curve: NamedCurve) -> Int {
        (8...18).first { namedCurve(id: $0) == curve }!
    }

    /// nil for reserved or unknown ids.
    public static func parameters(id: Int) -> Parameters? {
        if let group = DHGroup.RFC5114(rawValue: id) { return .dh(DHGroup(group)) }
        if let curve = namedCurve(id: id) { return .ec(ECCurve(named: curve)) }
        return nil
    }
}
