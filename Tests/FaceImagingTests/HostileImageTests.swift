import Foundation
import MRTDDocument
import Testing

@testable import FaceImaging

/// Hostile and broken images: each gives an `ImageCodecError` with a stable code, before the codec library
/// allocates for what the header declares; none crashes.
@Suite("FaceImaging: hostile images")
struct HostileImageTests {
    static func code(_ body: () throws(ImageCodecError) -> Raster) -> ImageCodecError.Code? {
        do {
            _ = try body()
            return nil
        } catch { return error.code }
    }

    static let jp2: [UInt8] = try! JPEG2000Codec.encode(Samples.rgb(96, 128), container: .jp2, targetBytes: 4_000)
    static let j2k: [UInt8] = try! JPEG2000Codec.encode(
        Samples.rgb(96, 128), container: .codestream, targetBytes: 4_000)
    static let jpeg: [UInt8] = try! JPEGCodec.encode(Samples.rgb(96, 128), quality: 85)

    @Test func emptyAndGarbage() {
        #expect(Self.code { () throws(ImageCodecError) in try DisplayImage.decode([]) } == .empty)
        #expect(Self.code { () throws(ImageCodecError) in try JPEG2000Codec.decode([]) } == .empty)
        #expect(Self.code { () throws(ImageCodecError) in try JPEGCodec.decode([]) } == .empty)
        let garbage = (0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 7) }
        #expect(Self.code { () throws(ImageCodecError) in try DisplayImage.decode(garbage) } == .unrecognisedFormat)
        #expect(Self.code { () throws(ImageCodecError) in try JPEG2000Codec.decode(garbage) } == .unrecognisedFormat)
        #expect(Self.code { () throws(ImageCodecError) in try JPEGCodec.decode(garbage) } == .unrecognisedFormat)
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + [UInt8](repeating: 0, count: 32)
        #expect(Self.code { () throws(ImageCodecError) in try DisplayImage.decode(png) } == .unrecognisedFormat)
        // Signatures with nothing behind them.
        #expect(
            Self.code { () throws(ImageCodecError) in try DisplayImage.decode([0xFF, 0xD8, 0xFF, 0xD9]) }
                == .malformedHeader)
        #expect(
            Self.code { () throws(ImageCodecError) in try DisplayImage.decode(Array(Self.jp2.prefix(12))) }
                == .malformedHeader)
        #expect(
            Self.code { () throws(ImageCodecError) in try DisplayImage.decode([0xFF, 0x4F, 0xFF, 0x51, 0, 0x29]) }
                == .malformedHeader)
    }

    /// Cut anywhere after the header: a clear error (OpenJPEG in strict mode, libjpeg warnings as errors).
    @Test(arguments: [0.25, 0.5, 0.9, 0.995])
    func truncatedImagesFail(_ fraction: Double) {
        for (name, full) in [("jp2", Self.jp2), ("j2k", Self.j2k), ("jpeg", Self.jpeg)] {
            let cut = Array(full.prefix(Int(Double(full.count) * fraction)))
            let c = Self.code { () throws(ImageCodecError) in try DisplayImage.decode(cut) }
            #expect(
                c == .decodeFailed || c == .malformedHeader,
                "\(name) cut to \(cut.count) of \(full.count): \(String(describing: c))")
        }
        // Negative twin: the whole images decode.
        for full in [Self.jp2, Self.j2k, Self.jpeg] {
            #expect(Self.code { () throws(ImageCodecError) in try DisplayImage.decode(full) } == nil)
        }
    }

    /// Declared sizes far over the limits are refused from the header, before any pixel buffer exists.
    @Test func hugeDeclaredDimensions() throws {
        for source in [Self.jp2, Self.j2k] {
            var b = source
            let siz = try Samples.sizOffset(b)
            b.replaceSubrange(siz + 4..<siz + 12, with: Samples.u32(60_000) + Samples.u32(60_000))  // Xsiz, Ysiz
            b.replaceSubrange(siz + 20..<siz + 28, with: Samples.u32(60_000) + Samples.u32(60_000))  // one tile
            #expect(Self.code { () throws(ImageCodecError) in try DisplayImage.decode(b) } == .tooLarge)
        }
        var j = Self.jpeg
        let sof = try Samples.sofOffset(j)
        j.replaceSubrange(sof + 5..<sof + 9, with: [0xEA, 0x60, 0xEA, 0x60])  // 60,000 × 60,000
        #expect(Self.code { () throws(ImageCodecError) in try DisplayImage.decode(j) } == .tooLarge)
        // Just over the pixel limit, within the side limit.
        let limits = ImageLimits(maxPixels: 96 * 128 - 1)
        #expect(
            Self.code { () throws(ImageCodecError) in try JPEG2000Codec.decode(Self.jp2, limits: limits) } == .tooLarge)
        #expect(
            Self.code { () throws(ImageCodecError) in try JPEGCodec.decode(Self.jpeg, limits: limits) } == .tooLarge)
        #expect(
            Self.code { () throws(ImageCodecError) in
                try JPEG2000Codec.decode(Self.jp2, limits: ImageLimits(maxPixels: 96 * 128))
            } == nil)
        // Input size and encoder output are capped too.
        #expect(
            Self.code { () throws(ImageCodecError) in
                try JPEGCodec.decode(Self.jpeg, limits: ImageLimits(maxInputBytes: 100))
            } == .tooLarge)
        #expect(throws: ImageCodecError.self) {
            try JPEG2000Codec.encode(Samples.rgb(64, 64), limits: ImageLimits(maxOutputBytes: 200))
        }
    }

    /// A million 1 × 1 tiles: OpenJPEG would allocate per-tile state when reading the header.
    @Test func tooManyTiles() throws {
        var b = Self.j2k
        let siz = try Samples.sizOffset(b)
        b.replaceSubrange(siz + 20..<siz + 28, with: Samples.u32(1) + Samples.u32(1))
        let e = #expect(throws: ImageCodecError.self) { try JPEG2000Codec.decode(b) }
        #expect(e?.code == .tooLarge && e?.description.contains("tiles") == true)
    }

    @Test func zeroSize() throws {
        var b = Self.j2k
        let siz = try Samples.sizOffset(b)
        b.replaceSubrange(siz + 12..<siz + 16, with: b[siz + 4..<siz + 8])  // XOsiz = Xsiz
        #expect(Self.code { () throws(ImageCodecError) in try JPEG2000Codec.decode(b) } == .zeroSize)
        var j = Self.jpeg
        let sof = try Samples.sofOffset(j)
        j.replaceSubrange(sof + 7..<sof + 9, with: [0, 0])  // width 0: libjpeg refuses the frame header itself
        let e = #expect(throws: ImageCodecError.self) { try JPEGCodec.decode(j) }
        #expect(
            e?.code == .malformedHeader && e?.description.contains("Empty JPEG image") == true,
            "\(String(describing: e))")
    }

    @Test func unsupportedComponentsAndDepth() throws {
        var b = Self.j2k
        let siz = try Samples.sizOffset(b)
        b[siz + 38] = 0x1F  // component 0: 32 bits per sample
        #expect(Self.code { () throws(ImageCodecError) in try JPEG2000Codec.decode(b) } == .unsupported)
        var s = Self.j2k
        s[siz + 39] = 0  // XRsiz 0
        #expect(Self.code { () throws(ImageCodecError) in try JPEG2000Codec.decode(s) } == .unsupported)
        var l = Self.j2k
        l[siz + 1] = l[siz + 1] &+ 3  // Lsiz no longer matches Csiz
        #expect(Self.code { () throws(ImageCodecError) in try JPEG2000Codec.decode(l) } == .malformedHeader)
    }

    /// A JP2 box length past the end of the data.
    @Test func jp2BoxOverrunningTheData() {
        var b = Self.jp2
        b.replaceSubrange(12..<16, with: Samples.u32(0x7FFF_FFF0))  // the ftyp box
        #expect(Self.code { () throws(ImageCodecError) in try JPEG2000Codec.decode(b) } == .malformedHeader)
    }

    /// Corrupted bytes anywhere (deterministic): an image or an ImageCodecError, never a crash or a hang.
    @Test func corruptedBytesNeverCrash() {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(state >> 33)
        }
        var failures = 0
        var decoded = 0
        for source in [Self.jp2, Self.j2k, Self.jpeg] {
            for _ in 0..<60 {
                var b = source
                for _ in 0..<(1 + next() % 8) { b[next() % b.count] = UInt8(truncatingIfNeeded: next()) }
                do {
                    let r = try DisplayImage.decode(b)
                    #expect(r.width * r.height <= ImageLimits.standard.maxPixels)
                    decoded += 1
                } catch { failures += 1 }
            }
        }
        #expect(failures + decoded == 180)
        #expect(failures > 0, "no corruption was ever detected")
    }
}
