import ASN1TLV

/// One face image found in DG2, whichever biometric encoding carried it.
public struct FaceImageInfo: Sendable, Hashable {
    public enum Encoding: String, Sendable, Hashable, Codable {
        /// ISO/IEC 19794-5:2005 binary facial record ('FAC\0').
        case iso19794_5
        /// ISO/IEC 39794-5:2019 tagged binary ([APPLICATION 5]).
        case iso39794_5
    }
    public let encoding: Encoding
    public let format: ImageFormat
    /// Width and height from the image's own header when readable, otherwise as declared in the record.
    public let width: Int?
    public let height: Int?
    /// As declared by the biometric record (19794-5 image information; 39794-5 image size block).
    public let declaredWidth: Int?
    public let declaredHeight: Int?
    /// The encoded image exactly as stored.
    public let imageData: [UInt8]
    /// The biometric header template of the enclosing `7F60`.
    public let header: BiometricHeaderTemplate
    /// Set for 19794-5: every field of the facial information and image information blocks.
    public let iso19794: ISO19794FaceRecord.FaceImage?
    /// Set for 39794-5.
    public let iso39794: ISO39794FaceImageDataBlock.Representation?
}

/// DG2, encoded face (ICAO 9303-10 §4.7.2): `75 { 7F61 { 02 n, 7F60 { A1 …, 5F2E|7F2E … } … } }`, the data
/// block holding an ISO/IEC 19794-5 facial record or an ISO/IEC 39794-5 face image data block (both accepted,
/// recognised by content).
public struct DG2File: Sendable, Hashable {
    public let raw: [UInt8]
    public let group: BiometricInformationGroup
    /// Every face image, in file order.
    public let faces: [FaceImageInfo]
    /// The 19794-5 records, one per template using that encoding.
    public let iso19794Records: [ISO19794FaceRecord]
    /// The 39794-5 blocks, one per template using that encoding.
    public let iso39794Blocks: [ISO39794FaceImageDataBlock]

    /// The first face image (the one to display and compare).
    public var faceImage: FaceImageInfo? { faces.first }

    public init(bytes: [UInt8]) throws(LDSParseError) {
        raw = bytes
        let r = LDSReader(file: .dg2)
        group = try BiometricInformationGroup(file: .dg2, bytes: bytes)
        var faces: [FaceImageInfo] = []
        var records: [ISO19794FaceRecord] = []
        var blocks: [ISO39794FaceImageDataBlock] = []
        for t in group.templates {
            let bdb = t.dataBlock
            if bdb.count >= 4, bdb[0..<4] == [0x46, 0x41, 0x43, 0x00] {
                let record = try ISO19794FaceRecord(bytes: bdb, file: .dg2, offset: t.dataBlockOffset)
                records.append(record)
                for img in record.images {
                    let actual = ImageFormat.dimensions(img.imageData)
                    faces.append(
                        FaceImageInfo(
                            encoding: .iso19794_5, format: img.imageFormat,
                            width: actual?.width ?? img.width, height: actual?.height ?? img.height,
                            declaredWidth: img.width, declaredHeight: img.height,
                            imageData: img.imageData, header: t.header, iso19794: img, iso39794: nil))
                }
                continue
            }
            let root: TLVNode
            if t.dataBlockNode.isConstructed {
                root = t.dataBlockNode
            } else {
                root = try r.parse(t.dataBlockNode.value)
            }
            guard let blockNode = DG2File.find(0x65, in: root, depth: 0) else {
                throw r.error(
                    .unsupported, t.dataBlockNode,
                    "biometric data block is neither an ISO/IEC 19794-5 record nor an ISO/IEC 39794-5 block")
            }
            let block = try ISO39794FaceImageDataBlock(node: blockNode, reader: r)
            blocks.append(block)
            for rep in block.representations {
                faces.append(
                    FaceImageInfo(
                        encoding: .iso39794_5, format: rep.imageFormat, width: rep.width,
                        height: rep.height, declaredWidth: rep.declaredWidth,
                        declaredHeight: rep.declaredHeight, imageData: rep.imageData,
                        header: t.header, iso19794: nil, iso39794: rep))
            }
        }
        self.faces = faces
        iso19794Records = records
        iso39794Blocks = blocks
    }

    static func find(_ tag: UInt32, in node: TLVNode, depth: Int) -> TLVNode? {
        if node.tag == tag { return node }
        guard depth < 4 else { return nil }
        for c in node.children {
            if let f = find(tag, in: c, depth: depth + 1) { return f }
        }
        return nil
    }
}
