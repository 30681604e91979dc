/// Face and document images as a browser shows them: the entry points for the report's `faceImage`, `--out`,
/// the HTML report and `emrtd serve`'s face endpoint. The bytes decide the format (JPEG or JPEG 2000, file
/// or codestream); a container that mislabels a decodable image still shows it.
public enum DisplayImage {
    /// JPEG quality of re-encoded JPEG 2000 images.
    public static let jpegQuality = 90

    /// Decodes stored image bytes (JPEG, JP2 file or JPEG 2000 codestream), bounded by `limits`.
    public static func decode(_ stored: [UInt8], limits: ImageLimits = .standard) throws(ImageCodecError) -> Raster {
        switch try format(of: stored) {
        case .jpeg: return try JPEGCodec.decode(stored, limits: limits)
        case .jpeg2000: return try JPEG2000Codec.decode(stored, limits: limits)
        }
    }

    /// JPEG bytes any browser shows: a stored JPEG that decodes cleanly is returned unchanged (exactly the
    /// signed bytes, no generation loss); JPEG 2000 is decoded and re-encoded as JPEG at `jpegQuality`.
    /// Throws when the stored image cannot be decoded.
    /// An image larger than `limits.maxDecodedPixels` is checked (JPEG) or converted (JPEG 2000) at a reduced size.
    public static func displayJPEG(from stored: [UInt8], limits: ImageLimits = .standard) throws(ImageCodecError)
        -> [UInt8]
    {
        try display(stored, limits: limits).jpeg
    }

    /// Whether stored image bytes can be shown: `decode`, bounded by `limits`. Within a `DisplayImageMemo` the
    /// display JPEG is made on the way and kept, so that a later `displayJPEG` of the same bytes decodes nothing.
    public static func check(_ stored: [UInt8], limits: ImageLimits = .standard) throws(ImageCodecError) {
        if DisplayImageMemo.current != nil {
            _ = try display(stored, limits: limits)
        } else {
            _ = try decode(stored, limits: limits)
        }
    }

    /// `displayJPEG`, with the pixels decoded on the way; the current `DisplayImageMemo`'s conversion when it has one.
    static func display(_ stored: [UInt8], limits: ImageLimits) throws(ImageCodecError) -> (jpeg: [UInt8], pixels: Int)
    {
        guard let memo = DisplayImageMemo.current else { return try convert(stored, limits: limits) }
        return try memo.display(stored, limits: limits) { () throws(ImageCodecError) in
            try convert(stored, limits: limits)
        }
    }

    static func convert(_ stored: [UInt8], limits: ImageLimits) throws(ImageCodecError) -> (jpeg: [UInt8], pixels: Int)
    {
        switch try format(of: stored) {
        case .jpeg:
            let raster = try JPEGCodec.decode(stored, limits: limits)
            return (stored, raster.width * raster.height)
        case .jpeg2000:
            let raster = try JPEG2000Codec.decode(stored, limits: limits)
            return (try JPEGCodec.encode(raster, quality: jpegQuality, limits: limits), raster.width * raster.height)
        }
    }

    static func format(of stored: [UInt8]) throws(ImageCodecError) -> CodecFormat {
        guard !stored.isEmpty else { throw ImageCodecError(.empty, nil, "no image bytes") }
        guard let format = CodecFormat(recognising: stored) else {
            throw ImageCodecError(.unrecognisedFormat, nil, "the bytes are neither JPEG nor JPEG 2000")
        }
        return format
    }
}
