import ASN1TLV
import FaceImaging
import Foundation
public import MRTDDocument

extension LDSEncoders {
    /// ICAO 9303-10 §4.7.16 DG16 person(s) to notify: `70 { 02 number of templates, A1 { 5F50 date data recorded
    /// (yyyymmdd), 5F51 name (primary<<secondary), 5F52 telephone, 5F53 address (fields separated by '<') },
    /// A2 {…} … }` — one template per person, tagged A1, A2, … in order.
    public static func dg16(_ s: Specimen) -> [UInt8] {
        let templates = s.personsToNotify.enumerated().map { i, p in
            TLVWriter.encode(
                0xA1 + UInt32(i),
                children: [
                    TLVWriter.encode(0x5F50, Array(p.dateRecorded.utf8)), TLVWriter.encode(0x5F51, Array(p.name.utf8)),
                    TLVWriter.encode(0x5F52, Array(p.telephone.utf8)), TLVWriter.encode(0x5F53, Array(p.address.utf8)),
                ])
        }
        return TLVWriter.encode(0x70, children: [DER.integer(templates.count)] + templates)
    }

    /// ICAO 9303-10 §4.7.5 and §4.7.7: DG5 `65 { 02 count, 5F40 displayed portrait … }` and DG7
    /// `67 { 02 count, 5F43 displayed signature or usual mark … }` (images ISO/IEC 10918, JPEG).
    public static func displayedImages(_ file: LDSFile, images: [[UInt8]]) -> [UInt8] {
        precondition(file == .dg5 || file == .dg7, "displayed images are DG5 or DG7")
        let tag: UInt32 = file == .dg5 ? 0x5F40 : 0x5F43
        return TLVWriter.encode(
            file == .dg5 ? 0x65 : 0x67,
            children: [DER.integer(images.count)] + images.map { TLVWriter.encode(tag, $0) })
    }

    /// The displayed portrait of DG5: the synthetic specimen face, small.
    public static func displayedPortrait(width: Int = 60, height: Int = 80) -> [UInt8] {
        jpeg(width: width, height: height, pixels: SyntheticFace.pixels(width: width, height: height), quality: 70)
    }

    /// The displayed signature of DG7: a synthetic pen stroke (a few loops and a baseline flourish).
    public static func displayedSignature(width: Int = 120, height: Int = 40) -> [UInt8] {
        var px = [UInt8](repeating: 250, count: width * height)
        func dot(_ x: Double, _ y: Double) {
            let xi = Int(x.rounded())
            let yi = Int(y.rounded())
            for dy in 0...1 {
                for dx in 0...1 where xi + dx >= 0 && xi + dx < width && yi + dy >= 0 && yi + dy < height {
                    px[(yi + dy) * width + xi + dx] = 30
                }
            }
        }
        let w = Double(width)
        let h = Double(height)
        var t = 0.0
        while t < 1 {
            // A slanted cursive loop train across the width, then a flourish under it.
            let x = 0.06 * w + t * 0.82 * w + 0.05 * w * sin(t * 38)
            let y = 0.45 * h - 0.28 * h * cos(t * 38) * (1 - t * 0.4)
            dot(x, y)
            dot(0.1 * w + t * 0.8 * w, 0.82 * h - 0.08 * h * sin(t * 6.3))
            t += 0.0015
        }
        return jpeg(width: width, height: height, pixels: px, quality: 70)
    }

    /// The one place the personal-data images are JPEG-encoded (grayscale, by libjpeg-turbo through FaceImaging).
    static func jpeg(width: Int, height: Int, pixels: [UInt8], quality: Int) -> [UInt8] {
        encodeFace { () throws(ImageCodecError) in
            try JPEGCodec.encode(raster(width, height, 1, pixels), quality: quality)
        }
    }
}
