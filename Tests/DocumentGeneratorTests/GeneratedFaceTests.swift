import FaceImaging
import Foundation
import MRTDDocument
import Testing

@testable import DocumentGenerator

@Suite("Generator: face images (libjpeg-turbo, OpenJPEG)")
struct GeneratedFaceTests {
    /// Walks the marker segments up to SOS and returns (marker, segment payload) pairs.
    static func segments(_ jpeg: [UInt8]) -> [(UInt8, [UInt8])]? {
        guard jpeg.count > 4, jpeg[0] == 0xFF, jpeg[1] == 0xD8 else { return nil }
        var i = 2
        var out: [(UInt8, [UInt8])] = []
        while i + 4 <= jpeg.count {
            guard jpeg[i] == 0xFF else { return nil }
            let marker = jpeg[i + 1]
            let len = Int(jpeg[i + 2]) << 8 | Int(jpeg[i + 3])
            guard len >= 2, i + 2 + len <= jpeg.count else { return nil }
            out.append((marker, Array(jpeg[(i + 4)..<(i + 2 + len)])))
            i += 2 + len
            if marker == 0xDA { break }
        }
        return out
    }

    /// The top-level JP2 boxes: (type, contents).
    static func boxes(_ b: [UInt8]) -> [(String, [UInt8])] {
        var out: [(String, [UInt8])] = []
        var i = 0
        while i + 8 <= b.count {
            let length = b[i..<i + 4].reduce(0) { $0 << 8 | Int($1) }
            guard length >= 8, i + length <= b.count else { break }
            out.append((String(decoding: b[i + 4..<i + 8], as: UTF8.self), Array(b[i + 8..<i + length])))
            i += length
        }
        return out
    }

    static func image(ofDG2 dg2: [UInt8]) throws -> (format: UInt8, colourSpace: UInt8, image: [UInt8]) {
        let record = try LDSEncoderTests.faceRecord(of: dg2).record
        return (record[35], record[40], Array(record[46...]))
    }

    @Test func jpegFaceIsBaselineGrayscaleWithTheSpecimenComment() throws {
        let (format, space, jpeg) = try Self.image(ofDG2: LDSEncoders.dg2(face: 48, height: 64, format: .jpeg))
        #expect(format == 0 && space == 3)  // JPEG, 8-bit grayscale (ISO/IEC 19794-5 §5.7.2, §5.7.4)
        #expect(Array(jpeg.suffix(2)) == [0xFF, 0xD9])
        let segs = try #require(Self.segments(jpeg))
        #expect(segs.first?.0 == 0xE0 && segs[1].0 == 0xFE)
        #expect(String(decoding: segs[1].1, as: UTF8.self).contains("not a real person"))
        let sof = try #require(segs.first { $0.0 == 0xC0 }?.1)
        #expect(
            sof[0] == 8 && Int(sof[1]) << 8 | Int(sof[2]) == 64 && Int(sof[3]) << 8 | Int(sof[4]) == 48 && sof[5] == 1)
    }

    @Test func jpeg2000FaceIsAColourJP2() throws {
        let (format, space, jp2) = try Self.image(ofDG2: LDSEncoders.dg2(format: .jpeg2000))
        #expect(format == 1 && space == 1)  // JPEG 2000, 24-bit RGB
        #expect(Self.boxes(jp2).map(\.0) == ["jP  ", "ftyp", "jp2h", "jp2c"])
        let header = try JPEG2000Header(jp2)
        #expect(header.width == 240 && header.height == 320 && header.components.count == 3)
        // About the size of a real passport face, and the decoded face is the synthetic one.
        #expect((7_000...10_500).contains(jp2.count), "\(jp2.count) bytes")
        let decoded = try DisplayImage.decode(jp2)
        let source = SyntheticFace.rgbPixels(width: 240, height: 320)
        let error =
            Double(zip(source, decoded.pixels).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }) / Double(source.count)
        #expect(error < 8, "mean absolute error \(error)")
        let gray = SyntheticFace.pixels(width: 240, height: 320).flatMap { [$0, $0, $0] }
        let unrelated =
            Double(zip(gray, decoded.pixels).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }) / Double(gray.count)
        #expect(unrelated > error + 5)
    }

    @Test(arguments: [15_000, 20_000, 60_000])
    func jpeg2000PaddingIsAnXMLBoxBeforeTheCodestream(_ target: Int) throws {
        let dg2 = LDSEncoders.dg2(targetSize: target, format: .jpeg2000)
        #expect(dg2.count >= target && dg2.count <= target + 8, "DG2 is \(dg2.count) bytes for target \(target)")
        let (_, _, jp2) = try Self.image(ofDG2: dg2)
        let boxes = Self.boxes(jp2)
        #expect(boxes.map(\.0).last == "jp2c")
        // The face itself grows with the target (encoded at about that size); the XML box takes the rest.
        let codestream = try #require(boxes.last).1.count
        #expect(codestream > target * 8 / 10, "codestream \(codestream) bytes for target \(target)")
        _ = try DisplayImage.decode(jp2)
    }

    /// Decodes `jpeg` with libjpeg's djpeg (Debian libjpeg-turbo-progs) to 8-bit gray samples; nil when absent.
    static func decodeWithDJPEG(_ jpeg: [UInt8]) throws -> ExternalTool.Result? {
        guard let djpeg = ExternalTool.find("djpeg") else {
            ExternalTool.skipNote("djpeg (libjpeg-turbo-progs)")
            return nil
        }
        let dir = try ExternalTool.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = try writeFile(dir, "image.jpg", jpeg)
        return try ExternalTool.run(djpeg, ["-grayscale", "-pnm", path])
    }

    /// The generated JPEG decodes with the command-line decoder and stays close to the source image.
    @Test func jpegDecodesWithDJPEG() throws {
        let (w, h) = (96, 128)
        let (_, _, jpeg) = try Self.image(ofDG2: LDSEncoders.dg2(face: w, height: h, quality: 90, format: .jpeg))
        guard let r = try Self.decodeWithDJPEG(jpeg) else { return }
        #expect(r.status == 0, "djpeg failed: \(r.stderr)")
        #expect(r.stderr.isEmpty, "decoder warnings: \(r.stderr)")
        let header = Array("P5\n\(w) \(h)\n255\n".utf8)
        try #require(Array(r.stdout.prefix(header.count)) == header)
        let decoded = Array(r.stdout.dropFirst(header.count))
        try #require(decoded.count == w * h)
        let px = SyntheticFace.pixels(width: w, height: h)
        let meanError = zip(px, decoded).map { abs(Int($0) - Int($1)) }.reduce(0, +) / (w * h)
        #expect(meanError < 6, "mean absolute error \(meanError)")
        // Negative twin: a broken Huffman table must make the decoder complain.
        var broken = jpeg
        let dht = try #require((0..<(broken.count - 1)).first { broken[$0] == 0xFF && broken[$0 + 1] == 0xC4 })
        broken[dht + 5 + 1] = 0xFF  // 255 codes of length 2: not a prefix code
        let rb = try #require(try Self.decodeWithDJPEG(broken))
        #expect(rb.status != 0 || !rb.stderr.isEmpty)
    }

    /// Most built-in profiles store JPEG 2000, as most passports do; `bac` keeps a JPEG face; the option overrides.
    @Test func profilesCarryJPEG2000FacesMostly() throws {
        let formats = ProfileSpec.builtIn.map(\.faceFormat)
        #expect(formats.filter { $0 == .jpeg2000 }.count * 2 > formats.count)
        #expect(ProfileSpec.named("bac")?.faceFormat == .jpeg)
        #expect(ProfileSpec.named(SpecimenGenerator.defaultProfileName)?.faceFormat == .jpeg2000)
        for (name, option) in [("bac", ImageFormat.jpeg2000), ("pace-cam", .jpeg)] {
            let doc = try SpecimenGenerator.generate(named: name, options: GeneratorOptions(faceFormat: option))
            let face = try #require(try DG2File(bytes: doc.profile.files[.dg2]!).faceImage)
            #expect(face.format == option && face.iso19794?.imageDataType == (option == .jpeg2000 ? 1 : 0))
            _ = try DisplayImage.decode(face.imageData)
        }
    }

    @Test func documentImagesAreSmallGrayJPEGs() throws {
        let scan = LDSEncoders.documentImage(seed: 2)
        let r = try JPEGCodec.decode(scan)
        #expect(r.width == 64 && r.height == 40 && r.channels == 1)
        #expect(scan != LDSEncoders.documentImage(seed: 3))
    }
}
