public import ASN1TLV

/// A face image data block in ISO/IEC 39794-5:2019 tagged-binary (ASN.1 DER) encoding, as carried in DG2
/// from LDS 1.8 / 9303-10 (8th ed.) on. Only what a reader needs is interpreted; every node keeps its bytes.
///
/// ```
/// FaceImageDataBlock ::= [APPLICATION 5] SEQUENCE {
///   versionBlock [0] VersionBlock,                       -- { generation [0] INTEGER, year [1] INTEGER }
///   representationBlocks [1] SEQUENCE OF RepresentationBlock, ... }
/// RepresentationBlock ::= SEQUENCE {
///   representationId [0] INTEGER,
///   imageRepresentation [1] CHOICE { base [0] CHOICE { imageRepresentation2DBlock [0] ImageRepresentation2DBlock,
///                                                      shapeRepresentation3DBlock [1] ... }, extension [1] ... },
///   captureDateTimeBlock [2] OPTIONAL, qualityBlocks [3] OPTIONAL, padDataBlock [4] OPTIONAL, ... }
/// ImageRepresentation2DBlock ::= SEQUENCE {
///   representationData2D [0] OCTET STRING,
///   imageInformation2DBlock [1] SEQUENCE {
///     imageDataFormat [0] CHOICE { code [0] INTEGER { unknown(0), other(1), jpeg(2), jpeg2000Lossy(3),
///                                                      jpeg2000Lossless(4), png(5), pgm(6), ppm(7) }, ... },
///     faceImageKind2D [1] OPTIONAL, …, imageSizeBlock [7] { width [0] INTEGER, height [1] INTEGER } OPTIONAL,
///     …, imageColourSpace [9] OPTIONAL, … }, ... }
/// ```
public struct ISO39794FaceImageDataBlock: Sendable, Hashable {
    public struct Representation: Sendable, Hashable {
        public let representationId: Int?
        /// The encoded image exactly as stored.
        public let imageData: [UInt8]
        /// `imageDataFormat.code` when present.
        public let imageDataFormatCode: Int?
        /// From the image size block (`imageSizeBlock [7]`) when present.
        public let declaredWidth: Int?
        public let declaredHeight: Int?
        /// From the image's own header (JPEG SOF, JPEG 2000 ihdr/SIZ) when readable, otherwise as declared.
        public let width: Int?
        public let height: Int?
        /// The ImageInformation2DBlock as found (for fields not interpreted here).
        public let imageInformation: TLVNode?

        /// Format by magic bytes first, then by the declared code.
        public var imageFormat: ImageFormat {
            let detected = ImageFormat.detect(imageData)
            if detected != .unknown { return detected }
            switch imageDataFormatCode {
            case 2: return .jpeg
            case 3, 4: return .jpeg2000
            case 5: return .png
            default: return .unknown
            }
        }
    }

    /// The `[APPLICATION 5]` node as read.
    public let node: TLVNode
    public let generation: Int?
    public let year: Int?
    public let representations: [Representation]

    /// Parses a standalone block (the bytes start with tag `'65'`).
    public init(bytes: [UInt8], file: LDSFile? = .dg2) throws(LDSParseError) {
        let r = LDSReader(file: file)
        try self.init(node: try r.parse(bytes[...]), reader: r)
    }

    init(node: TLVNode, reader r: LDSReader) throws(LDSParseError) {
        try r.expect(node, 0x65, "FaceImageDataBlock [APPLICATION 5]")
        self.node = node
        let version = try r.require(node, 0xA0, "versionBlock")
        generation = try version.child(0x80).map { n throws(LDSParseError) in try Self.int(n, r) }
        year = try version.child(0x81).map { n throws(LDSParseError) in try Self.int(n, r) }
        let blocks = try r.require(node, 0xA1, "representationBlocks")
        var reps: [Representation] = []
        for rep in blocks.children {
            try r.expect(rep, 0x30, "RepresentationBlock")
            let id = try rep.child(0x80).map { n throws(LDSParseError) in try Self.int(n, r) }
            let imageRep = try r.require(rep, 0xA1, "imageRepresentation")
            guard let base = imageRep.child(0xA0) else {
                throw r.error(.unsupported, imageRep, "imageRepresentation is not a base representation")
            }
            guard let twoD = base.child(0xA0) else {
                throw r.error(.unsupported, base, "only 2D image representations are supported")
            }
            let data = try r.require(twoD, 0x80, "representationData2D")
            let info = twoD.child(0xA1)
            var code: Int?
            var width: Int?
            var height: Int?
            if let info {
                if let format = info.child(0xA0), let c = format.child(0x80) { code = try Self.int(c, r) }
                if let size = info.child(0xA7) {
                    width = try size.child(0x80).map { n throws(LDSParseError) in try Self.int(n, r) }
                    height = try size.child(0x81).map { n throws(LDSParseError) in try Self.int(n, r) }
                }
            }
            let image = data.valueBytes
            let actual = ImageFormat.dimensions(image)
            reps.append(
                Representation(
                    representationId: id, imageData: image, imageDataFormatCode: code,
                    declaredWidth: width, declaredHeight: height,
                    width: actual?.width ?? width, height: actual?.height ?? height,
                    imageInformation: info))
        }
        guard !reps.isEmpty else { throw r.error(.missingElement, blocks, "no representation blocks") }
        representations = reps
    }

    /// A small non-negative INTEGER with an implicit context tag.
    static func int(_ n: TLVNode, _ r: LDSReader) throws(LDSParseError) -> Int {
        guard !n.isConstructed, (1...4).contains(n.value.count) else {
            throw r.error(.invalidValue, n, "expected a small integer in \(TLVTag.describe(n.tag))")
        }
        return n.value.reduce(0) { $0 << 8 | Int($1) }
    }
}
