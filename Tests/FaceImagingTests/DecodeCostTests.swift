import DocumentGenerator
import Foundation
import MRTDTestSupport
import Testing

@testable import FaceImaging

/// The decoded shape, not only the declared one: what the decoders are asked to produce stays within
/// `ImageLimits` whatever the header declares (palette expansion, huge sizes, tiny code-blocks, many scans).
/// Every assertion is structural — the decoder's recorded output size or a refusal naming the limit — never a time.
@Suite("FaceImaging: decode cost")
struct DecodeCostTests {
    /// Runs `body` with a fresh decode log; gives the log and the outcome.
    static func logged<T>(_ body: () throws(ImageCodecError) -> T) -> (ImageDecodeLog, Result<T, ImageCodecError>) {
        let log = ImageDecodeLog()
        let result = ImageDecodeLog.$current.withValue(log) { () -> Result<T, ImageCodecError> in
            do throws(ImageCodecError) { return .success(try body()) } catch { return .failure(error) }
        }
        return (log, result)
    }

    /// A one-component 64 × 64 JP2 with a palette of `columns` columns (`HostileImages.paletted`).
    static func paletted(columns: Int) throws -> [UInt8] {
        let jp2 = try JPEG2000Codec.encode(Samples.gray(64, 64), container: .jp2, targetBytes: 1_500)
        return try HostileImages.paletted(jp2, columns: columns)
    }

    /// The palette bomb: a small JP2 declaring one component that a 255-column palette would expand to 255.
    @Test func paletteBombIsRefusedBeforeDecoding() throws {
        let bomb = try HostileImages.paletteBomb(side: 1024)
        #expect(bomb.count < 4_000)
        let (log, result) = Self.logged { () throws(ImageCodecError) in try DisplayImage.decode(bomb) }
        guard case .failure(let e) = result else {
            Issue.record("the palette bomb decoded")
            return
        }
        #expect(e.code == .tooLarge && e.detail.contains("palette"), "\(e)")
        #expect(log.entries.isEmpty, "the decoder was called: \(log.entries)")
        // Negative twin: a three-column palette (grey index → RGB) is within the limit and decodes to RGB.
        let rgb = try Self.paletted(columns: 3)
        let (twinLog, twin) = Self.logged { () throws(ImageCodecError) in try DisplayImage.decode(rgb) }
        let raster = try twin.get()
        #expect(raster.channels == 3)
        #expect(twinLog.entries.map(\.components) == [3])
    }

    /// A tiny codestream declaring 2048 × 2048 is decoded at a reduced resolution, never at its declared size.
    @Test func hugeDeclaredImageIsDecodedAtDisplaySize() throws {
        let big = try JPEG2000Codec.encode(Samples.gray(2048, 2048), container: .codestream, targetBytes: 400)
        #expect(big.count < 2_000)
        let (log, result) = Self.logged { () throws(ImageCodecError) in try DisplayImage.decode(big) }
        let raster = try result.get()
        let limit = ImageLimits.standard.maxDecodedPixels
        #expect(raster.width * raster.height <= limit)
        #expect(raster.width == 512 && raster.height == 512)
        #expect(log.entries.count == 1 && log.entries.allSatisfy { $0.width * $0.height <= limit })
        // The same image with too few wavelet levels to get there is refused, naming the limit.
        let flat = try JPEG2000Codec.encode(
            Samples.gray(2048, 2048), container: .codestream, targetBytes: 400,
            limits: .standard, subsampling: nil, sYCC: false, decompositionLevels: 1)
        let (flatLog, refused) = Self.logged { () throws(ImageCodecError) in try DisplayImage.decode(flat) }
        guard case .failure(let e) = refused else {
            Issue.record("a 2048 × 2048 image with one level decoded")
            return
        }
        #expect(e.code == .tooLarge && e.detail.contains("\(limit) pixels"), "\(e)")
        #expect(flatLog.entries.isEmpty)
        // Negative twin: a face-sized image is decoded whole.
        let face = try JPEG2000Codec.encode(Samples.rgb(480, 600), container: .jp2, targetBytes: 20_000)
        let (_, whole) = Self.logged { () throws(ImageCodecError) in try DisplayImage.decode(face) }
        #expect(try whole.get().width == 480)
    }

    /// Code-blocks of 4 × 4 samples: refused from the COD segment before OpenJPEG sets up its code-blocks.
    @Test func tinyCodeBlocksAreRefused() throws {
        let tiny = try JPEG2000Codec.encode(
            Samples.rgb(240, 300), container: .jp2, targetBytes: 20_000, limits: .standard, subsampling: nil,
            sYCC: false, codeBlockSize: 4)
        let (log, result) = Self.logged { () throws(ImageCodecError) in try DisplayImage.decode(tiny) }
        guard case .failure(let e) = result else {
            Issue.record("4 × 4 code-blocks decoded")
            return
        }
        #expect(e.code == .tooLarge && e.detail.contains("code-blocks"), "\(e)")
        #expect(log.entries.isEmpty)
        // Negative twin: 32 × 32 code-blocks on the same image decode.
        let fine = try JPEG2000Codec.encode(
            Samples.rgb(240, 300), container: .jp2, targetBytes: 20_000, limits: .standard, subsampling: nil,
            sYCC: false, codeBlockSize: 32)
        #expect(try JPEG2000Header(fine).codeBlocks < ImageLimits.standard.maxCodeBlocks)
        _ = try DisplayImage.decode(fine)
    }

    /// A coding style in a tile-part header (not the main header) counts too.
    @Test func tilePartCodingStyleIsCounted() throws {
        let j2k = try JPEG2000Codec.encode(Samples.gray(128, 128), container: .codestream, targetBytes: 3_000)
        let h = try JPEG2000Header(j2k)
        // insert a COD with 4 × 4 code-blocks (xcb = ycb = 0) after the first SOT, and fix Psot
        let sot = try #require((0..<(j2k.count - 1)).first { j2k[$0] == 0xFF && j2k[$0 + 1] == 0x90 })
        let levels = UInt8(h.minDecompositionLevels)
        let cod: [UInt8] = [0xFF, 0x52, 0x00, 0x0C, 0x00, 0x00, 0x00, 0x01, 0x00, levels, 0x00, 0x00, 0x00, 0x01]
        var b = Array(j2k[..<(sot + 12)]) + cod + Array(j2k[(sot + 12)...])
        let psot = Int(b[sot + 6]) << 24 | Int(b[sot + 7]) << 16 | Int(b[sot + 8]) << 8 | Int(b[sot + 9])
        if psot != 0 { b.replaceSubrange((sot + 6)..<(sot + 10), with: Samples.u32(psot + cod.count)) }
        let limits = ImageLimits(maxCodeBlocks: 1_000)
        #expect(h.codeBlocks < 1_000)
        let e = #expect(throws: ImageCodecError.self) { try JPEG2000Header(b, limits: limits) }
        #expect(e?.code == .tooLarge)
    }

    /// A progressive JPEG with hundreds of scans is refused from a count of its SOS markers, before libjpeg-turbo.
    @Test(arguments: [17, 476, 560])
    func manyScansAreRefusedBeforeDecoding(_ scans: Int) throws {
        let jpeg = try JPEGCodec.encode(Samples.rgb(96, 128), quality: 85)
        let sos = try #require((2..<(jpeg.count - 1)).first { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xDA })
        let scan = Array(jpeg[sos..<(jpeg.count - 2)])  // SOS, its data, up to EOI
        let many = Array(jpeg[..<sos]) + (0..<scans).flatMap { _ in scan } + [0xFF, 0xD9]
        #expect(try JPEGCodec.countScans(many, limit: 1_000) == scans)
        let (log, result) = Self.logged { () throws(ImageCodecError) in try DisplayImage.decode(many) }
        guard case .failure(let e) = result else {
            Issue.record("\(scans) scans decoded")
            return
        }
        #expect(e.code == .tooLarge && e.detail.contains("scans"), "\(e)")
        #expect(log.entries.isEmpty)
        // Negative twin: the one-scan original decodes, and a ten-scan progressive JPEG is counted as such.
        #expect(try JPEGCodec.countScans(jpeg, limit: 16) == 1)
        #expect(try DisplayImage.decode(jpeg).width == 96)
    }

    /// A progressive JPEG from libjpeg (the 39794-5 sample face, 1024 × 1024) passes the scan count and is decoded
    /// scaled to fit the display limit.
    @Test(.sharedFixtures) func largeJPEGIsDecodedScaled() throws {
        let jpeg = try Samples.iso39794JPEG()
        #expect(try JPEGCodec.countScans(jpeg, limit: 100) <= ImageLimits.standard.maxScans)
        let (log, result) = Self.logged { () throws(ImageCodecError) in try DisplayImage.decode(jpeg) }
        let raster = try result.get()
        #expect(raster.width == 512 && raster.height == 512)
        #expect(log.entries.map(\.width) == [512])
    }
}
