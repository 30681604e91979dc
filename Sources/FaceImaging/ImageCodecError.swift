/// The two encodings a face image may have (ICAO 9303-10 §4.7.2), recognised from the first bytes: JPEG SOI
/// `FF D8`; a JP2 signature box (ISO/IEC 15444-1 §I.5.1) or a codestream's SOC `FF 4F`.
public enum CodecFormat: String, Sendable, Hashable, Codable {
    case jpeg
    case jpeg2000

    public init?(recognising b: [UInt8]) {
        if b.count >= 2, b[0] == 0xFF, b[1] == 0xD8 {
            self = .jpeg
            return
        }
        if b.count >= 2, b[0] == 0xFF, b[1] == 0x4F {
            self = .jpeg2000
            return
        }
        if b.count >= 12, Array(b[0..<12]) == JPEG2000Header.signatureBox {
            self = .jpeg2000
            return
        }
        return nil
    }
}

/// Why an image could not be decoded or encoded. The detail names what was wrong with the image (sizes,
/// markers, the codec library's message); it never carries image bytes.
public struct ImageCodecError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable, Codable {
        /// No bytes at all.
        case empty
        /// Neither a JPEG (SOI) nor a JPEG 2000 file or codestream signature.
        case unrecognisedFormat
        /// The header (JPEG SOFn, JPEG 2000 boxes or SIZ) is missing, truncated or inconsistent.
        case malformedHeader
        /// The header declares a zero width or height.
        case zeroSize
        /// The input, the declared dimensions, tile count or the output exceed `ImageLimits`.
        case tooLarge
        /// Well formed but outside what is displayed: component count, bit depth, colour space, subsampling.
        case unsupported
        /// The codec library rejected the image data (truncated, corrupt).
        case decodeFailed
        /// The codec library could not encode the raster.
        case encodeFailed
    }

    public var code: Code
    /// The format the bytes were taken for (nil when not recognised).
    public var format: CodecFormat?
    public var detail: String

    public init(_ code: Code, _ format: CodecFormat?, _ detail: String) {
        self.code = code
        self.format = format
        self.detail = detail
    }

    public var description: String {
        let name: String
        switch format {
        case .jpeg?: name = "JPEG"
        case .jpeg2000?: name = "JPEG 2000"
        case nil: name = "image"
        }
        return "\(name): \(code.rawValue): \(detail)"
    }
}

/// What hostile input may cost. Every check happens on the declared header before the codec allocates; each
/// limit names the real-world maximum it leaves room for (docs/reliability.md, "Limits").
public struct ImageLimits: Sendable, Hashable {
    /// Largest accepted input (a DG2 face is tens of kilobytes; the ISO/IEC 39794-5 sample face is 876 KB).
    public var maxInputBytes: Int
    /// Largest declared width or height.
    public var maxDimension: Int
    /// Largest declared width × height (a 2048 × 2048 image; ICAO 9303-10 faces are well under one megapixel).
    public var maxPixels: Int
    /// Largest JPEG 2000 tile count (OpenJPEG allocates per-tile state when it reads the header).
    public var maxTiles: Int
    /// Largest encoded output.
    public var maxOutputBytes: Int
    /// Most components the decoder may hand back, after a JP2 palette is expanded (grey, grey + alpha, RGB, RGBA).
    public var maxComponents: Int
    /// Most pixels decoded for display: a larger image is decoded at a reduced resolution (JPEG 2000: whole
    /// wavelet levels dropped; JPEG: the DCT scaled by 1/2, 1/4 or 1/8) until it fits, or refused when it cannot
    /// be. 640 × 800 holds a 480 × 600 face (the ICAO 9303-10 full frontal image) and the 39794-5 sample.
    public var maxDecodedPixels: Int
    /// Most JPEG 2000 code-blocks plus precincts (a 480 × 600 RGB face with 64 × 64 code-blocks has about 300;
    /// with 32 × 32 ones about 1,100).
    public var maxCodeBlocks: Int
    /// Most JPEG 2000 packets (quality layers × precincts): a face has a few layers in one precinct per resolution.
    public var maxPackets: Int
    /// Most JPEG scans (SOS markers): a baseline image has one per component or one in all, a progressive one
    /// as libjpeg writes it 6 (grey) or 10 (colour).
    public var maxScans: Int

    public init(
        maxInputBytes: Int = 8 << 20, maxDimension: Int = 8192, maxPixels: Int = 2048 * 2048,
        maxTiles: Int = 1024, maxOutputBytes: Int = 16 << 20, maxComponents: Int = 4,
        maxDecodedPixels: Int = 640 * 800, maxCodeBlocks: Int = 8192, maxPackets: Int = 16384, maxScans: Int = 16
    ) {
        self.maxInputBytes = maxInputBytes
        self.maxDimension = maxDimension
        self.maxPixels = maxPixels
        self.maxTiles = maxTiles
        self.maxOutputBytes = maxOutputBytes
        self.maxComponents = maxComponents
        self.maxDecodedPixels = maxDecodedPixels
        self.maxCodeBlocks = maxCodeBlocks
        self.maxPackets = maxPackets
        self.maxScans = maxScans
    }

    public static let standard = ImageLimits()

    /// Checks declared dimensions against the limits.
    func check(width: Int, height: Int, format: CodecFormat) throws(ImageCodecError) {
        guard width > 0, height > 0 else {
            throw ImageCodecError(.zeroSize, format, "declared size \(width) × \(height)")
        }
        guard width <= maxDimension, height <= maxDimension, width * height <= maxPixels else {
            throw ImageCodecError(
                .tooLarge, format,
                "declared size \(width) × \(height) exceeds the limit (\(maxDimension) per side, \(maxPixels) pixels)")
        }
    }
}
