import ASN1TLV

/// One biometric information template `'7F60'`: its header template and its biometric data block
/// (ICAO 9303-10 §4.7.2.1). The data block is `'5F2E'` (plain) or `'7F2E'` (constructed/enciphered); its
/// value bytes are kept exactly as found.
public struct BiometricInformationTemplate: Sendable, Hashable {
    /// The whole `7F60` template as read.
    public let raw: [UInt8]
    public let header: BiometricHeaderTemplate
    /// `0x5F2E` or `0x7F2E`.
    public let dataBlockTag: UInt32
    /// The biometric data block's value bytes as read.
    public let dataBlock: [UInt8]
    /// The data block node (for `7F2E`, its children are parsed).
    let dataBlockNode: TLVNode
    /// Offset of the data block's value in the file.
    public let dataBlockOffset: Int
}

/// The biometric information group template `'7F61'` shared by DG2, DG3 and DG4 (ICAO 9303-10 §4.7.2–4.7.4):
///
/// ```
/// 75|63|76 { 7F61 { 02 number of instances, 7F60 { A1 header, 5F2E|7F2E data block } ... } }
/// ```
public struct BiometricInformationGroup: Sendable, Hashable {
    /// The number of instances as declared in DO '02'.
    public let declaredCount: Int
    public let templates: [BiometricInformationTemplate]

    init(file: LDSFile, bytes: [UInt8]) throws(LDSParseError) {
        let r = LDSReader(file: file)
        let outer = try r.parseFile(bytes, tag: file.tag!)
        let group = try r.require(outer, 0x7F61, "biometric information group template")
        let count = try r.require(group, 0x02, "number of instances")
        guard count.value.count >= 1, count.value.count <= 2 else {
            throw r.error(.invalidValue, count, "number of instances must be 1 or 2 bytes, found \(count.value.count)")
        }
        declaredCount = count.value.reduce(0) { $0 << 8 | Int($1) }
        var list: [BiometricInformationTemplate] = []
        for t in group.children where t.tag == 0x7F60 {
            let headerNode = try r.require(t, 0xA1, "biometric header template")
            let header = try BiometricHeaderTemplate(node: headerNode, reader: r)
            guard let block = t.children.first(where: { $0.tag == 0x5F2E || $0.tag == 0x7F2E }) else {
                throw r.error(.missingElement, t, "missing biometric data block '5F2E'/'7F2E'")
            }
            list.append(
                BiometricInformationTemplate(
                    raw: t.encodedBytes, header: header, dataBlockTag: block.tag,
                    dataBlock: block.valueBytes, dataBlockNode: block,
                    dataBlockOffset: block.value.startIndex))
        }
        guard !list.isEmpty else { throw r.error(.missingElement, group, "no biometric information template '7F60'") }
        templates = list
    }
}

/// DG3 (fingerprints, ISO/IEC 19794-4) and DG4 (iris, ISO/IEC 19794-6): the container parsed, the biometric
/// data blocks kept raw (ICAO 9303-10 §4.7.3, §4.7.4). Reading them requires EAC terminal authentication.
public struct BiometricContainerFile: Sendable, Hashable {
    public let file: LDSFile
    public let raw: [UInt8]
    public let group: BiometricInformationGroup

    /// `file` must be `.dg3` or `.dg4`.
    public init(file: LDSFile, bytes: [UInt8]) throws(LDSParseError) {
        guard file == .dg3 || file == .dg4 else {
            throw LDSParseError(.unsupported, file: file, offset: 0, "BiometricContainerFile is for DG3 and DG4")
        }
        self.file = file
        raw = bytes
        group = try BiometricInformationGroup(file: file, bytes: bytes)
    }
}
