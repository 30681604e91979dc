/// What showing one document's images (besides the face) may cost in all: a data group may hold up to 99 images
/// (ICAO 9303-10 §4.7.5, DG5 and DG7), each bounded by `ImageLimits`, so the count and the decoded pixels are
/// bounded per document too. One budget per document display (the HTML report, the kiosk's result).
public struct DocumentImageBudget: Sendable {
    /// Most images shown per data group: documents hold one displayed portrait (DG5) and one signature (DG7).
    public static let maxImagesPerDataGroup = 4
    /// Most images decoded for one document: DG5, DG7, DG11 and DG12's front and rear hold 5 at most in practice.
    public static let maxDecodes = 6
    /// Most pixels decoded for one document: four display-sized images.
    public static let maxDecodedPixels = 4 * ImageLimits.standard.maxDecodedPixels

    public private(set) var decodes = 0
    public private(set) var decodedPixels = 0

    public init() {}

    /// `DisplayImage.displayJPEG` charged to this budget: refused (`tooLarge`) once `maxDecodes` images were decoded
    /// or `maxDecodedPixels` spent; an image decodes at most at the pixels left (reduced like any large image).
    public mutating func displayJPEG(from stored: [UInt8], limits: ImageLimits = .standard) throws(ImageCodecError)
        -> [UInt8]
    {
        let left = Self.maxDecodedPixels - decodedPixels
        guard decodes < Self.maxDecodes, left > 0 else {
            throw ImageCodecError(
                .tooLarge, CodecFormat(recognising: stored),
                "the document's image budget is spent (DocumentImageBudget: \(Self.maxDecodes) images, \(Self.maxDecodedPixels) pixels)"
            )
        }
        var bounded = limits
        bounded.maxDecodedPixels = min(limits.maxDecodedPixels, left)
        decodes += 1
        let (jpeg, pixels) = try DisplayImage.display(stored, limits: bounded)
        decodedPixels += pixels
        return jpeg
    }
}
