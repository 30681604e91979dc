import ASN1TLV

/// DG5 (displayed portrait), DG6 (reserved) and DG7 (displayed signature or usual mark)
/// (ICAO 9303-10 §4.7.5–4.7.7): `65|66|67 { 02 number of instances, 5F40|5F43 <image> … }`.
/// The image tag is '5F40' for the portrait and '5F43' for the signature or usual mark. Bounded: a declared
/// count in 1…99 and at most `LDSFields.maxEntries` images.
public struct DisplayedImageFile: Sendable, Hashable {
    public struct Image: Sendable, Hashable {
        /// '5F40' or '5F43' (other '5F4x' tags are kept too).
        public let tag: UInt32
        public let data: [UInt8]
        public var format: ImageFormat { ImageFormat.detect(data) }
        public var dimensions: (width: Int, height: Int)? { ImageFormat.dimensions(data) }
        public static func == (a: Image, b: Image) -> Bool { a.tag == b.tag && a.data == b.data }
        public func hash(into h: inout Hasher) {
            h.combine(tag)
            h.combine(data)
        }
    }

    public let file: LDSFile
    public let raw: [UInt8]
    public let declaredCount: Int
    public let images: [Image]

    /// `file` must be `.dg5`, `.dg6` or `.dg7`.
    public init(file: LDSFile, bytes: [UInt8]) throws(LDSParseError) {
        guard [.dg5, .dg6, .dg7].contains(file) else {
            throw LDSParseError(.unsupported, file: file, offset: 0, "DisplayedImageFile is for DG5, DG6 and DG7")
        }
        let r = LDSReader(file: file)
        self.file = file
        raw = bytes
        let root = try r.parseFile(bytes, tag: file.tag!)
        declaredCount = try LDSFields.count(try r.require(root, 0x02, "number of instances"), reader: r, "instances")
        let nodes = root.children.filter { $0.tag & 0xFFF0 == 0x5F40 && !$0.isConstructed }
        guard nodes.count <= LDSFields.maxEntries else {
            throw r.error(
                .invalidValue, root, "\(nodes.count) displayed images present, at most \(LDSFields.maxEntries) accepted"
            )
        }
        images = nodes.map { Image(tag: $0.tag, data: $0.valueBytes) }
        guard !images.isEmpty else { throw r.error(.missingElement, root, "no displayed image '5F40'/'5F43'") }
    }
}

/// DG13, optional details: the content is defined by the issuing state, so it is kept raw
/// (ICAO 9303-10 §4.7.13).
public struct DG13File: Sendable, Hashable {
    public let raw: [UInt8]
    /// The value of the '6D' template.
    public let content: [UInt8]

    public init(bytes: [UInt8]) throws(LDSParseError) {
        let r = LDSReader(file: .dg13)
        raw = bytes
        // Only the outer header is checked: the inner content need not be TLV.
        let header: (tag: UInt32, headerLength: Int, valueLength: Int?)
        do { header = try TLVParser.peekHeader(bytes[...]) } catch { throw LDSParseError(error, file: .dg13) }
        guard header.tag == 0x6D else {
            throw r.error(.unexpectedTag, at: 0, "expected '6D', found \(TLVTag.describe(header.tag))")
        }
        guard let len = header.valueLength else {
            throw r.error(.malformedTLV, at: 1, "indefinite length is not allowed for DG13")
        }
        guard header.headerLength + len == bytes.count else {
            throw r.error(
                .malformedTLV, at: 1, "'6D' declares \(len) bytes, \(bytes.count - header.headerLength) present")
        }
        content = Array(bytes[header.headerLength...])
    }
}
