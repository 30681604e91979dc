import Foundation
import MRTDDocument
import MRTDTestSupport
import Testing

@testable import FaceImaging

/// Public sample DG2 files (`SharedFixtures`, kept beside the repository with their provenance), read at test time,
/// never copied; tests reading them carry `.sharedFixtures`.
enum Samples {
    static func bytes(_ relativePath: String) throws -> [UInt8] { try SharedFixtures.bytes(relativePath) }

    static func face(_ dg2Path: String) throws -> FaceImageInfo {
        try #require(try DG2File(bytes: bytes(dg2Path)).faceImage)
    }

    /// The 39794-5 sample block's JPEG representation (1024 × 1024, progressive).
    static func iso39794JPEG() throws -> [UInt8] {
        let block = try ISO39794FaceImageDataBlock(bytes: bytes("lds-samples/DG2-iso39794-5-sample.der"))
        return try #require(block.representations.first).imageData
    }

    static func gray(_ w: Int, _ h: Int) -> Raster {
        var px = [UInt8](repeating: 0, count: w * h)
        for y in 0..<h { for x in 0..<w { px[y * w + x] = UInt8((x * 255 / max(1, w - 1) + y * 3) % 256) } }
        return Raster(width: w, height: h, channels: 1, pixels: px)!
    }

    static func rgb(_ w: Int, _ h: Int) -> Raster {
        var px = [UInt8](repeating: 0, count: w * h * 3)
        for y in 0..<h {
            for x in 0..<w {
                let i = 3 * (y * w + x)
                px[i] = UInt8(x * 255 / max(1, w - 1))
                px[i + 1] = UInt8(y * 255 / max(1, h - 1))
                px[i + 2] = UInt8((x + y) % 256)
            }
        }
        return Raster(width: w, height: h, channels: 3, pixels: px)!
    }

    static func meanError(_ a: Raster, _ b: Raster) -> Double {
        Double(zip(a.pixels, b.pixels).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }) / Double(a.pixels.count)
    }

    static func u32(_ v: Int) -> [UInt8] {
        [UInt8(v >> 24 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
    }

    /// Offset of the SIZ marker segment's Lsiz in a raw codestream or JP2 file.
    static func sizOffset(_ b: [UInt8]) throws -> Int {
        let marker: [UInt8] = [0xFF, 0x4F, 0xFF, 0x51]
        let start: Int? = (0..<(b.count - 4)).first { (i: Int) -> Bool in Array(b[i..<i + 4]) == marker }
        return try #require(start) + 4
    }

    /// Offset of the first SOFn segment's marker in a JPEG.
    static func sofOffset(_ b: [UInt8]) throws -> Int {
        let sofs: [UInt8] = [0xC0, 0xC1, 0xC2]
        let at: Int? = (2..<(b.count - 1)).first { (i: Int) -> Bool in b[i] == 0xFF && sofs.contains(b[i + 1]) }
        return try #require(at)
    }
}

@Suite("FaceImaging: real-format samples")
struct SampleImageTests {
    /// JPEG 2000 faces of the specimen and sample DG2 files: decoded to the size their own header gives.
    @Test(
        .sharedFixtures,
        arguments: [
            "specimens/bsi2008/Datagroup2.bin", "specimens/nl-2006/ef0102.bin",
            "lds-samples/DG2-iso19794-5-all-fields.bin",
        ])
    func jpeg2000FacesOfSampleDG2sDecode(_ path: String) throws {
        let face = try Samples.face(path)
        #expect(face.format == .jpeg2000)
        let raster = try DisplayImage.decode(face.imageData)
        #expect(raster.width == face.width && raster.height == face.height)
        #expect(raster.channels == 3 || raster.channels == 1)
        // Not a blank image: a photograph has many distinct levels.
        #expect(Set(raster.pixels).count > 64)
        let jpeg = try DisplayImage.displayJPEG(from: face.imageData)
        #expect(ImageFormat.detect(jpeg) == .jpeg)
        let back = try JPEGCodec.decode(jpeg)
        #expect(back.width == raster.width && back.height == raster.height && back.channels == raster.channels)
        #expect(Samples.meanError(raster, back) < 4, "re-encoding changed the face too much")
    }

    /// The 39794-5 sample's JPEG (1024 × 1024, SOF2 progressive): decodes (whole with a limit that allows it,
    /// scaled to 512 × 512 under the standard display limit), and is delivered unchanged.
    @Test(.sharedFixtures) func jpegFaceOfThe39794SampleDecodesAndIsDeliveredAsStored() throws {
        let jpeg = try Samples.iso39794JPEG()
        let raster = try JPEGCodec.decode(jpeg, limits: ImageLimits(maxDecodedPixels: 1024 * 1024))
        #expect(raster.width == 1024 && raster.height == 1024)
        #expect(try JPEGCodec.decode(jpeg).width == 512)
        #expect(Set(raster.pixels).count > 64)
        #expect(try DisplayImage.displayJPEG(from: jpeg) == jpeg)
    }

    /// The specimen's JP2 file holds a codestream that decodes on its own, to the same pixels.
    @Test(.sharedFixtures) func rawCodestreamOfASpecimenDecodesLikeItsJP2() throws {
        let face = try Samples.face("specimens/bsi2008/Datagroup2.bin")
        let range = try JPEG2000Header.findCodestream(face.imageData)
        let codestream = Array(face.imageData[range])
        #expect(try JPEG2000Header(codestream).container == .codestream)
        let fromJP2 = try JPEG2000Codec.decode(face.imageData)
        let fromJ2K = try JPEG2000Codec.decode(codestream)
        #expect(fromJ2K.width == fromJP2.width && fromJ2K.height == fromJP2.height)
        // The JP2 may name a colour space the bare codestream cannot: compare only when both are RGB.
        if fromJ2K.channels == fromJP2.channels { #expect(fromJ2K.pixels == fromJP2.pixels) }
    }
}

@Suite("FaceImaging: generated images")
struct GeneratedImageTests {
    @Test(arguments: [JPEG2000Codec.Container.jp2, .codestream])
    func losslessJPEG2000RoundTripsExactly(_ container: JPEG2000Codec.Container) throws {
        for raster in [Samples.gray(37, 23), Samples.rgb(64, 48)] {
            let encoded = try JPEG2000Codec.encode(raster, container: container)
            #expect(ImageFormat.detect(encoded) == .jpeg2000)
            let header = try JPEG2000Header(encoded)
            #expect(header.container == (container == .jp2 ? .jp2 : .codestream))
            #expect(header.width == raster.width && header.height == raster.height)
            #expect(header.components.count == raster.channels && header.components.allSatisfy { $0.bitDepth == 8 })
            let decoded = try JPEG2000Codec.decode(encoded)
            #expect(decoded == raster)
        }
    }

    @Test func lossyJPEG2000MeetsItsTargetSizeAndStaysClose() throws {
        let raster = Samples.rgb(240, 320)
        let encoded = try JPEG2000Codec.encode(raster, container: .jp2, targetBytes: 8_000)
        #expect(encoded.count <= 8_300 && encoded.count >= 4_000, "\(encoded.count) bytes")
        let decoded = try JPEG2000Codec.decode(encoded)
        #expect(Samples.meanError(raster, decoded) < 3)
        // Negative twin: a decoder that ignored the data would not get close to a different image.
        #expect(Samples.meanError(Samples.gray(240, 320).asRGB, decoded) > 20)
    }

    @Test func jpegRoundTripsGrayAndRGB() throws {
        for raster in [Samples.gray(48, 64), Samples.rgb(96, 72)] {
            let jpeg = try JPEGCodec.encode(raster, quality: 95)
            #expect(Array(jpeg.prefix(2)) == [0xFF, 0xD8] && Array(jpeg.suffix(2)) == [0xFF, 0xD9])
            let dims = try #require(ImageFormat.dimensions(jpeg))
            #expect(dims.width == raster.width && dims.height == raster.height)
            let decoded = try JPEGCodec.decode(jpeg)
            #expect(decoded.width == raster.width && decoded.channels == raster.channels)
            #expect(Samples.meanError(raster, decoded) < 4)
        }
    }

    @Test func commentSegmentsFollowTheAPPSegments() throws {
        let plain = try JPEGCodec.encode(Samples.gray(16, 16))
        let padded = try JPEGCodec.encode(Samples.gray(16, 16), comments: [[UInt8](repeating: 0x41, count: 1000)])
        #expect(padded.count == plain.count + 1004)
        // SOI, APP0 (JFIF, 16 + 2 bytes), then the COM segment.
        #expect(Array(plain[2..<4]) == [0xFF, 0xE0])
        let app0End = 4 + (Int(plain[4]) << 8 | Int(plain[5]))
        #expect(Array(padded[app0End..<app0End + 4]) == [0xFF, 0xFE, 0x03, 0xEA])
        #expect(try JPEGCodec.decode(padded) == JPEGCodec.decode(plain))
        #expect(throws: ImageCodecError.self) {
            try JPEGCodec.encode(Samples.gray(8, 8), comments: [[UInt8](repeating: 0, count: 65534)])
        }
    }

    /// sYCC with 4:2:0 chroma (ISO/IEC 15444-1 Annex I enumerated colour space 18): upsampled and converted to
    /// RGB (ITU-T T.871) by `raster`, not by OpenJPEG.
    @Test func subsampledSYCCBecomesRGB() throws {
        let rgb = Samples.rgb(64, 48)
        var ycc = [UInt8](repeating: 0, count: rgb.pixels.count)
        for i in stride(from: 0, to: rgb.pixels.count, by: 3) {
            let r = Double(rgb.pixels[i])
            let g = Double(rgb.pixels[i + 1])
            let b = Double(rgb.pixels[i + 2])
            ycc[i] = UInt8(clamping: Int((0.299 * r + 0.587 * g + 0.114 * b).rounded()))
            ycc[i + 1] = UInt8(clamping: Int((128 - 0.168736 * r - 0.331264 * g + 0.5 * b).rounded()))
            ycc[i + 2] = UInt8(clamping: Int((128 + 0.5 * r - 0.418688 * g - 0.081312 * b).rounded()))
        }
        let source = try #require(Raster(width: 64, height: 48, channels: 3, pixels: ycc))
        let jp2 = try JPEG2000Codec.encode(
            source, container: .jp2, targetBytes: nil, limits: .standard,
            subsampling: [(1, 1), (2, 2), (2, 2)], sYCC: true)
        let header = try JPEG2000Header(jp2)
        #expect(header.components.map(\.dx) == [1, 2, 2] && header.width == 64)
        let decoded = try JPEG2000Codec.decode(jp2)
        #expect(decoded.width == 64 && decoded.height == 48 && decoded.channels == 3)
        let error = Samples.meanError(rgb, decoded)
        #expect(error < 6, "mean absolute error \(error)")
        // Negative twin: the YCC samples taken as RGB are far off.
        #expect(Samples.meanError(source, decoded) > 20)
    }

    @Test func displayJPEGReencodesJPEG2000AndPassesJPEGThrough() throws {
        let raster = Samples.rgb(120, 160)
        let jp2 = try JPEG2000Codec.encode(raster, targetBytes: 6_000)
        let shown = try DisplayImage.displayJPEG(from: jp2)
        #expect(ImageFormat.detect(shown) == .jpeg)
        #expect(Samples.meanError(raster, try JPEGCodec.decode(shown)) < 6)
        let jpeg = try JPEGCodec.encode(raster)
        #expect(try DisplayImage.displayJPEG(from: jpeg) == jpeg)
        // The bytes decide: a JP2 declared as JPEG is still shown.
        #expect(ImageFormat.detect(try DisplayImage.displayJPEG(from: jp2)) == .jpeg)
    }
}

extension Raster {
    var asRGB: Raster {
        channels == 3
            ? self : Raster(width: width, height: height, channels: 3, pixels: pixels.flatMap { [$0, $0, $0] })!
    }
}
