import Testing
import Foundation
@testable import VirtualChip

@Suite("Generator: baseline JPEG encoder (ITU-T T.81)")
struct JPEGEncoderTests {
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

    @Test func canonicalHuffmanCodesFollowAnnexC() {
        // T.81 Table K.3: category 0 → '00' (2 bits), 1 → '010', 5 → '110', 6 → '1110', 11 → '111111110'.
        let dc = BaselineJPEGEncoder.huffmanCodes(bits: BaselineJPEGEncoder.dcBits, values: BaselineJPEGEncoder.dcValues)
        #expect(dc[0]! == (code: 0b00, length: 2))
        #expect(dc[1]! == (code: 0b010, length: 3))
        #expect(dc[5]! == (code: 0b110, length: 3))
        #expect(dc[6]! == (code: 0b1110, length: 4))
        #expect(dc[11]! == (code: 0b1_1111_1110, length: 9))
        // T.81 Table K.5: EOB (0/0) → '1010', 0/1 → '00', ZRL (F/0) → '11111111001'.
        let ac = BaselineJPEGEncoder.huffmanCodes(bits: BaselineJPEGEncoder.acBits, values: BaselineJPEGEncoder.acValues)
        #expect(ac[0x00]! == (code: 0b1010, length: 4))
        #expect(ac[0x01]! == (code: 0b00, length: 2))
        #expect(ac[0xF0]! == (code: 0b111_1111_1001, length: 11))
        #expect(ac.count == 162)
    }

    @Test func structureIsBaselineGrayscale() throws {
        let jpeg = BaselineJPEGEncoder.encode(width: 48, height: 64, pixels: SyntheticFace.pixels(width: 48, height: 64))
        #expect(Array(jpeg.suffix(2)) == [0xFF, 0xD9])
        let segs = try #require(Self.segments(jpeg))
        #expect(segs.map(\.0) == [0xE0, 0xDB, 0xC0, 0xC4, 0xC4, 0xDA])
        let sof = segs[2].1
        #expect(sof[0] == 8 && Int(sof[1]) << 8 | Int(sof[2]) == 64 && Int(sof[3]) << 8 | Int(sof[4]) == 48 && sof[5] == 1)
        // No unstuffed 0xFF in the entropy-coded data: every FF is followed by 00 (or is the EOI).
        let scanStart = segs.reduce(2) { $0 + 4 + $1.1.count }
        let scan = Array(jpeg[scanStart..<(jpeg.count - 2)])
        for (i, b) in scan.enumerated() where b == 0xFF { #expect(i + 1 < scan.count && scan[i + 1] == 0x00) }
    }

    @Test func commentSegmentsPadTheFile() throws {
        let px = SyntheticFace.pixels(width: 32, height: 32)
        let plain = BaselineJPEGEncoder.encode(width: 32, height: 32, pixels: px)
        let padded = BaselineJPEGEncoder.encode(width: 32, height: 32, pixels: px, comments: [[UInt8](repeating: 0x41, count: 1000)])
        #expect(padded.count == plain.count + 1004)
        let segs = try #require(Self.segments(padded))
        #expect(segs[1].0 == 0xFE && segs[1].1.count == 1000)
    }

    /// Decodes `jpeg` with libjpeg's djpeg (Debian libjpeg-turbo-progs) to 8-bit gray samples; nil when absent.
    static func decodeWithDJPEG(_ jpeg: [UInt8]) throws -> ExternalTool.Result? {
        guard let djpeg = ExternalTool.find("djpeg") else { ExternalTool.skipNote("djpeg (libjpeg-turbo-progs)"); return nil }
        let dir = try ExternalTool.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = try writeFile(dir, "image.jpg", jpeg)
        return try ExternalTool.run(djpeg, ["-grayscale", "-pnm", path])
    }

    /// Decodes with an independent decoder (libjpeg) and compares the pixels with the source image.
    @Test func decodesWithAnIndependentDecoder() throws {
        let (w, h) = (96, 128)
        let px = SyntheticFace.pixels(width: w, height: h)
        let jpeg = BaselineJPEGEncoder.encode(width: w, height: h, pixels: px, quality: 90)
        guard let r = try Self.decodeWithDJPEG(jpeg) else { return }
        #expect(r.status == 0, "djpeg failed: \(r.stderr)")
        #expect(r.stderr.isEmpty, "decoder warnings: \(r.stderr)")
        let header = Array("P5\n\(w) \(h)\n255\n".utf8)
        try #require(Array(r.stdout.prefix(header.count)) == header)
        let decoded = Array(r.stdout.dropFirst(header.count))
        try #require(decoded.count == w * h)
        let meanError = zip(px, decoded).map { abs(Int($0) - Int($1)) }.reduce(0, +) / (w * h)
        #expect(meanError < 6, "mean absolute error \(meanError)")
        // Negative twin: a broken Huffman table must make the decoder complain.
        var broken = jpeg
        let dht = try #require((0..<(broken.count - 1)).first { broken[$0] == 0xFF && broken[$0 + 1] == 0xC4 })
        broken[dht + 5 + 1] = 0xFF // 255 codes of length 2: not a prefix code
        let rb = try #require(try Self.decodeWithDJPEG(broken))
        #expect(rb.status != 0 || !rb.stderr.isEmpty)
    }
}
