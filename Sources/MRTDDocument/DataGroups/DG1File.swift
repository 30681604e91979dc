import ASN1TLV

/// DG1, the machine readable zone information (ICAO 9303-10 §4.7.1): `61 { 5F1F <MRZ characters> }`.
public struct DG1File: Sendable, Hashable, CustomStringConvertible {
    public let raw: [UInt8]
    public let mrz: MRZ

    public init(bytes: [UInt8]) throws(LDSParseError) {
        let r = LDSReader(file: .dg1)
        raw = bytes
        let root = try r.parseFile(bytes, tag: 0x61)
        let node = try r.require(root, 0x5F1F, "MRZ data elements")
        guard !node.isConstructed, node.value.allSatisfy({ $0 < 0x80 }) else {
            throw r.error(.invalidMRZ, node, "MRZ data element is not ASCII")
        }
        mrz = try MRZ(LDSText.decode(node.value), file: .dg1, base: node.value.startIndex)
    }

    public var description: String { "DG1(\(mrz))" }
}
