public import MRTDDocument

/// Face and document images as a browser shows them. The entry points for `emrtd serve`'s face endpoint, the
/// HTML report, `--out` and the report's `faceImage`.
public enum DisplayImage {
    /// JPEG quality of re-encoded JPEG 2000 images.
    public static let jpegQuality = 90

    /// Decodes stored image bytes (JPEG, JP2 file or JPEG 2000 codestream), bounded by `limits`. `format`
    /// is what the container declared (DG2's image data type), used only to name errors: the bytes decide.
    public static func decode(_ stored: [UInt8], format: ImageFormat? = nil,
                              limits: ImageLimits = .standard) throws(ImageCodecError) -> Raster {
        switch try resolve(stored, format) {
        case .jpeg: return try JPEGCodec.decode(stored, limits: limits)
        default: return try JPEG2000Codec.decode(stored, limits: limits)
        }
    }

    /// JPEG bytes any browser shows: a stored JPEG that decodes cleanly is returned unchanged (exactly the
    /// signed bytes, no generation loss); JPEG 2000 is decoded and re-encoded as JPEG at `jpegQuality`.
    /// Throws when the stored image cannot be decoded.
    public static func displayJPEG(from stored: [UInt8], format: ImageFormat? = nil,
                                   limits: ImageLimits = .standard) throws(ImageCodecError) -> [UInt8] {
        switch try resolve(stored, format) {
        case .jpeg:
            _ = try JPEGCodec.decode(stored, limits: limits)
            return stored
        default:
            let raster = try JPEG2000Codec.decode(stored, limits: limits)
            return try JPEGCodec.encode(raster, quality: jpegQuality, limits: limits)
        }
    }

    /// The format to decode as: what the bytes are (JPEG SOI, JP2 signature box or SOC+SIZ). The declared format
    /// only names the error when the bytes are neither; a container that mislabels a decodable image still shows it.
    static func resolve(_ stored: [UInt8], _ declared: ImageFormat?) throws(ImageCodecError) -> ImageFormat {
        let named = declared == .unknown ? nil : declared
        guard !stored.isEmpty else { throw ImageCodecError(.empty, named, "no image bytes") }
        let detected = ImageFormat.detect(stored)
        switch detected {
        case .jpeg, .jpeg2000: return detected
        case .png: throw ImageCodecError(.unrecognisedFormat, named, "PNG is not a face image format of ICAO 9303-10")
        case .unknown: throw ImageCodecError(.unrecognisedFormat, named, "the bytes are neither JPEG nor JPEG 2000")
        }
    }
}
