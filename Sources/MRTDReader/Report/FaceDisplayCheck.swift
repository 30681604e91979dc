public import FaceImaging
import MRTDDocument

/// Whether a stored face image can be shown: its bounded decoding (`DisplayImage.check`, `ImageLimits.standard`;
/// within a `DisplayImageMemo` the display JPEG made on the way is kept for the bundle and the HTML page),
/// kept with the bytes it was made from. The report's `faceImage` rests on it; made while a read is still going (from
/// DG2 as soon as it arrived, see `ReadOptions.fileCompleted`) it takes the decoding off the time to the result.
public struct FaceDisplayCheck: Sendable {
    /// The image bytes decoded (DG2's first face image).
    public let imageData: [UInt8]
    /// Success, or why the image cannot be shown.
    public let outcome: Result<Void, ImageCodecError>

    /// Decodes `imageData` now.
    public init(imageData: [UInt8]) {
        self.imageData = imageData
        do {
            try DisplayImage.check(imageData)
            outcome = .success(())
        } catch {
            outcome = .failure(error)
        }
    }

    /// The check of DG2's first face image, from DG2's bytes as read; nil when DG2 does not parse or holds no face.
    public init?(dg2: [UInt8]) {
        guard let face = (try? DG2File(bytes: dg2))?.faceImage else { return nil }
        self.init(imageData: face.imageData)
    }
}
