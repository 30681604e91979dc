/// Why no MRZ came out of an image. The reason names sizes, formats and steps only: never a recognised character.
public struct MRZCaptureError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable, Codable {
        /// The bytes are not a JPEG, PNG or PGM/PPM image.
        case notAnImage
        /// The header declares more bytes, pixels or a larger side than `MRZCaptureLimits` allow.
        case tooLarge
        /// The image's header was acceptable but its data could not be decoded.
        case decodeFailed
        /// No band of 2 or 3 MRZ-like lines was found.
        case noMRZFound
        /// A band was found but its characters could not be read so that every check digit holds (or only
        /// ambiguously).
        case unreadable
        /// The OCR engine or its `eng` model is not available.
        case engineUnavailable
    }

    public let code: Code
    public let reason: String

    init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { "\(code.rawValue): \(reason)" }
}

/// What an image may cost before it is decoded (docs/reliability.md): checked from the header, before a pixel is
/// allocated.
public struct MRZCaptureLimits: Sendable, Hashable {
    /// Encoded bytes: a 24-megapixel JPEG straight from a camera is under 15 MB; room to 32 MiB.
    public var maxInputBytes: Int
    /// Width or height in pixels: a 24-megapixel camera frame is 6,000 × 4,000.
    public var maxSide: Int
    /// Pixels: a 24-megapixel frame (the decoded grey copy is one byte per pixel, the colour one four).
    public var maxPixels: Int

    public init(maxInputBytes: Int = 32 << 20, maxSide: Int = 8192, maxPixels: Int = 24_000_000) {
        self.maxInputBytes = maxInputBytes
        self.maxSide = maxSide
        self.maxPixels = maxPixels
    }

    public static let standard = MRZCaptureLimits()
}
