import ASN1TLV

/// An X.501 Name as the ICAO PKI uses it (ICAO 9303-12 §7, RFC 5280 §4.1.2.4): country, organization,
/// organizational unit, common name, in that order, one attribute per RelativeDistinguishedName.
///
/// `countryName` is PrintableString (X.520); the other attributes are UTF8String (RFC 5280 §4.1.2.4) unless
/// `printableStrings` is set.
public struct DistinguishedName: Sendable, Hashable {
    public var country: String
    public var organization: String?
    public var organizationalUnit: String?
    public var commonName: String
    public var serialNumber: String?
    public var printableStrings: Bool

    public init(
        country: String, organization: String? = nil, organizationalUnit: String? = nil,
        commonName: String, serialNumber: String? = nil, printableStrings: Bool = false
    ) {
        self.country = country
        self.organization = organization
        self.organizationalUnit = organizationalUnit
        self.commonName = commonName
        self.serialNumber = serialNumber
        self.printableStrings = printableStrings
    }

    /// DER `Name` (RDNSequence).
    public var der: [UInt8] {
        func rdn(_ oid: String, _ value: [UInt8]) -> [UInt8] {
            DER.setOf([DER.sequence(DER.objectIdentifier(oid), value)])
        }
        func text(_ s: String) -> [UInt8] { printableStrings ? DER.printableString(s) : DER.utf8String(s) }
        var rdns: [[UInt8]] = [rdn("2.5.4.6", DER.printableString(country))]
        if let o = organization { rdns.append(rdn("2.5.4.10", text(o))) }
        if let ou = organizationalUnit { rdns.append(rdn("2.5.4.11", text(ou))) }
        if let sn = serialNumber { rdns.append(rdn("2.5.4.5", DER.printableString(sn))) }
        rdns.append(rdn("2.5.4.3", text(commonName)))
        return DER.sequence(rdns)
    }
}
