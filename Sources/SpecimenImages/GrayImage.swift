import FaceImaging
import Foundation

/// An 8-bit grayscale image, rows top to bottom, 0 black … 255 white.
public struct GrayImage: Sendable, Hashable {
    public let width: Int
    public let height: Int
    public var pixels: [UInt8]

    public init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(width > 0 && height > 0 && pixels.count == width * height, "pixel count")
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// A binary PGM (Netpbm P5).
    public var pgm: [UInt8] {
        Array("P5\n\(width) \(height)\n255\n".utf8) + pixels
    }

    /// A baseline grayscale JPEG at `quality` 1…100.
    public func jpeg(quality: Int) throws -> [UInt8] {
        guard let raster = Raster(width: width, height: height, channels: 1, pixels: pixels) else {
            throw SpecimenImageError("the image has no pixels")
        }
        return try JPEGCodec.encode(raster, quality: quality)
    }
}

/// A floating-point canvas the renderer and the distortions work on (0 black … 255 white).
struct Canvas {
    let width: Int
    let height: Int
    var v: [Float]

    init(width: Int, height: Int, fill: Float) {
        self.width = width
        self.height = height
        v = [Float](repeating: fill, count: width * height)
    }

    var image: GrayImage {
        GrayImage(
            width: width, height: height,
            pixels: v.map { UInt8(max(0, min(255, $0.rounded()))) })
    }

    /// Bilinear sample; nil outside the canvas.
    func sample(_ x: Float, _ y: Float) -> Float? {
        guard x >= 0, y >= 0, x <= Float(width - 1), y <= Float(height - 1) else { return nil }
        let x0 = Int(x)
        let y0 = Int(y)
        let x1 = min(x0 + 1, width - 1)
        let y1 = min(y0 + 1, height - 1)
        let fx = x - Float(x0)
        let fy = y - Float(y0)
        let a = v[y0 * width + x0] * (1 - fx) + v[y0 * width + x1] * fx
        let b = v[y1 * width + x0] * (1 - fx) + v[y1 * width + x1] * fx
        return a * (1 - fy) + b * fy
    }
}

/// Why an image could not be made (the font missing, an encoder failure).
public struct SpecimenImageError: Error, Sendable, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
