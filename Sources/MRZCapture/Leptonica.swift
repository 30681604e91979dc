internal import CLeptonica
import Foundation

/// One owned Leptonica image (docs/architecture.md §3.2): its pixels are overwritten with zeros before it is freed
/// (a document image is personal data).
final class PixImage {
    let pix: UnsafeMutablePointer<PIX>

    init(_ pix: UnsafeMutablePointer<PIX>) { self.pix = pix }

    /// Wraps a Leptonica result; nil becomes an error naming the function.
    static func checked(_ pix: UnsafeMutablePointer<PIX>?, _ function: String) throws(MRZCaptureError) -> PixImage {
        guard let pix else { throw MRZCaptureError(.decodeFailed, "\(function) failed") }
        return PixImage(pix)
    }

    deinit {
        if let data = pixGetData(pix) {
            let bytes = Int(pixGetWpl(pix)) * 4 * Int(pixGetHeight(pix))
            memset(data, 0, bytes)
        }
        var p: UnsafeMutablePointer<PIX>? = pix
        pixDestroy(&p)
    }

    var width: Int { Int(pixGetWidth(pix)) }
    var height: Int { Int(pixGetHeight(pix)) }
    var depth: Int { Int(pixGetDepth(pix)) }

    /// The 8-bit pixels, rows top to bottom (Leptonica keeps each row in 32-bit words, most significant byte first).
    func grayBytes() -> [UInt8] {
        precondition(depth == 8)
        let w = width
        let h = height
        let wpl = Int(pixGetWpl(pix))
        var out = [UInt8](repeating: 0, count: w * h)
        guard let data = pixGetData(pix) else { return out }
        let raw = UnsafeRawPointer(data).assumingMemoryBound(to: UInt32.self)
        out.withUnsafeMutableBufferPointer { o in
            for y in 0..<h {
                let line = raw + y * wpl
                for x in 0..<w {
                    let word = line[x >> 2]
                    o[y * w + x] = UInt8(truncatingIfNeeded: word >> UInt32(24 - 8 * (x & 3)))
                }
            }
        }
        return out
    }

    /// A new 8-bit image from rows of bytes.
    static func gray(width: Int, height: Int, bytes: [UInt8]) throws(MRZCaptureError) -> PixImage {
        let p = try checked(pixCreate(Int32(width), Int32(height), 8), "pixCreate")
        let wpl = Int(pixGetWpl(p.pix))
        guard let data = pixGetData(p.pix) else { throw MRZCaptureError(.decodeFailed, "pixGetData failed") }
        bytes.withUnsafeBufferPointer { b in
            for y in 0..<height {
                let line = data + y * wpl
                for x4 in stride(from: 0, to: width, by: 4) {
                    var word: UInt32 = 0
                    for k in 0..<4 where x4 + k < width { word |= UInt32(b[y * width + x4 + k]) << UInt32(24 - 8 * k) }
                    line[x4 >> 2] = word
                }
            }
        }
        return p
    }

    func scaled(_ f: Double) throws(MRZCaptureError) -> PixImage {
        try .checked(pixScale(pix, Float(f), Float(f)), "pixScale")
    }

    /// Turned clockwise by `radians` about the centre, the same size, the uncovered corners white.
    func rotated(_ radians: Double) throws(MRZCaptureError) -> PixImage {
        try .checked(
            pixRotate(pix, Float(radians), Int32(L_ROTATE_AREA_MAP), Int32(L_BRING_IN_WHITE), 0, 0),
            "pixRotate")
    }

    func clipped(x: Int, y: Int, w: Int, h: Int) throws(MRZCaptureError) -> PixImage {
        var box: UnsafeMutablePointer<BOX>? = boxCreate(Int32(x), Int32(y), Int32(w), Int32(h))
        defer { boxDestroy(&box) }
        return try .checked(pixClipRectangle(pix, box, nil), "pixClipRectangle")
    }

    /// Dark detail on a light ground, lifted out of uneven light: the black top-hat (closing minus image), inverted,
    /// so the result is dark text on white whatever the illumination.
    func textOnWhite(kernel: Int) throws(MRZCaptureError) -> PixImage {
        let k = kernel | 1
        let hat = try PixImage.checked(pixTophat(pix, Int32(k), Int32(k), Int32(L_TOPHAT_BLACK)), "pixTophat")
        return try .checked(pixInvert(nil, hat.pix), "pixInvert")
    }

    func smoothed(_ half: Int) throws(MRZCaptureError) -> PixImage {
        try .checked(pixBlockconv(pix, Int32(half), Int32(half)), "pixBlockconv")
    }

    /// 1 bpp: 1 where the 8-bit value is below `threshold`.
    func binary(below threshold: Int) throws(MRZCaptureError) -> PixImage {
        try .checked(pixThresholdToBinary(pix, Int32(threshold)), "pixThresholdToBinary")
    }

    func closedHorizontally(_ size: Int) throws(MRZCaptureError) -> PixImage {
        try .checked(pixCloseBrick(nil, pix, Int32(size), 1), "pixCloseBrick")
    }

    func opened(_ w: Int, _ h: Int) throws(MRZCaptureError) -> PixImage {
        try .checked(pixOpenBrick(nil, pix, Int32(w), Int32(h)), "pixOpenBrick")
    }

    /// The bounding boxes of the 8-connected components of a 1 bpp image.
    func components() -> [(x: Int, y: Int, w: Int, h: Int)] {
        guard let boxa = pixConnComp(pix, nil, 8) else { return [] }
        defer {
            var b: UnsafeMutablePointer<BOXA>? = boxa
            boxaDestroy(&b)
        }
        var out: [(Int, Int, Int, Int)] = []
        let n = boxaGetCount(boxa)
        for i in 0..<n {
            var x: Int32 = 0
            var y: Int32 = 0
            var w: Int32 = 0
            var h: Int32 = 0
            if boxaGetBoxGeometry(boxa, i, &x, &y, &w, &h) == 0 { out.append((Int(x), Int(y), Int(w), Int(h))) }
        }
        return out
    }

    /// The skew of text lines in degrees (positive: the lines fall to the right), and whether it was found with
    /// confidence; searched within ±`range` degrees.
    func skew(range: Double) -> Double? {
        var angle: Float = 0
        var conf: Float = 0
        let st = pixFindSkewSweepAndSearch(pix, &angle, &conf, 2, 2, Float(range), 0.5, 0.01)
        guard st == 0, conf >= 0.5 else {
            return nil
        }
        return Double(angle)
    }
}

/// Leptonica writes its own diagnostics to stderr; a kiosk's log must not fill with them.
enum LeptonicaSetup {
    static let quiet: Void = { _ = setMsgSeverity(Int32(L_SEVERITY_NONE)) }()
}
