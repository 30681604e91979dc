import ASN1TLV

/// The biometric header template, tag `'A1'` inside a biometric information template `'7F60'`
/// (ICAO 9303-10 §4.7.2.1, after ISO/IEC 7816-11 and CBEFF):
///
/// | tag | content |
/// |---|---|
/// | 80 | ICAO header version (2 bytes, `0101`) |
/// | 81 | biometric type (1–3 bytes; `02` = facial features, `08` = finger, `10` = iris) |
/// | 82 | biometric subtype (1 byte) |
/// | 83 | creation date and time (7 bytes) |
/// | 85 | validity period (8 bytes: from, to) |
/// | 86 | creator of the biometric reference data (PID) |
/// | 87 | format owner (2 bytes; `0101` = ISO/IEC JTC 1/SC 37) |
/// | 88 | format type (2 bytes; `0008` = 19794-5 face, `0007` = 19794-4 finger, `0009` = 19794-6 iris) |
///
/// Every element is also kept by tag in `elements` (including ones this list does not name, such as `84`).
public struct BiometricHeaderTemplate: Sendable, Hashable {
    /// The template as read, tag and length included.
    public let raw: [UInt8]
    public let elements: [UInt32: [UInt8]]

    public var icaoHeaderVersion: [UInt8]? { elements[0x80] }
    public var biometricType: Int? { elements[0x81].map(Self.integer) }
    public var biometricSubtype: Int? { elements[0x82].map(Self.integer) }
    public var creationDateTime: [UInt8]? { elements[0x83] }
    public var validityPeriod: [UInt8]? { elements[0x85] }
    public var creator: [UInt8]? { elements[0x86] }
    public var formatOwner: Int? { elements[0x87].map(Self.integer) }
    public var formatType: Int? { elements[0x88].map(Self.integer) }

    static func integer(_ b: [UInt8]) -> Int { b.prefix(4).reduce(0) { $0 << 8 | Int($1) } }

    init(node: TLVNode, reader r: LDSReader) throws(LDSParseError) {
        raw = node.encodedBytes
        var e: [UInt32: [UInt8]] = [:]
        for c in node.children {
            guard !c.isConstructed else { continue }
            e[c.tag] = c.valueBytes
        }
        elements = e
    }
}
