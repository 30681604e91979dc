import FaceImaging
public import MRTDDocument

/// Face and document images an attacker who signs his own documents could put on a chip, each the worst case of a
/// kind that was found to cost a decoder far more than a genuine face (docs/reliability.md, "Limits"): for the
/// tests, `emrtd bench`'s hostile rows and the fuzz corpus. All generated; the pixels are synthetic.
public enum HostileImages {
    /// A JP2 file whose codestream declares one component and whose `jp2h` adds a palette of `columns` 8-bit columns
    /// (two entries) mapped from that component (`pclr` + `cmap`, ISO/IEC 15444-1 §I.5.3.4–5): OpenJPEG expands
    /// every sample into `columns` components. `side` × `side` grey pixels in about `targetBytes`.
    public static func paletteBomb(side: Int = 2048, columns: Int = 255, targetBytes: Int = 1_500) throws
        -> [UInt8]
    {
        let jp2 = try JPEG2000Codec.encode(grey(side, side), container: .jp2, targetBytes: targetBytes)
        return try paletted(jp2, columns: columns)
    }

    /// `jp2` (one component) with a palette of `columns` columns added to its `jp2h`.
    public static func paletted(_ jp2: [UInt8], columns: Int) throws -> [UInt8] {
        guard (1...255).contains(columns),
            let header = JPEG2000Header.boxes(jp2, in: 0..<jp2.count).first(where: { $0.type == "jp2h" })
        else { throw GeneratorError(.invalidInput, step: "hostile.palette", "no jp2h box or \(columns) columns") }
        var pclr: [UInt8] = [0x00, 0x02, UInt8(columns)] + [UInt8](repeating: 7, count: columns)
        pclr += (0..<2 * columns).map { UInt8(truncatingIfNeeded: $0 &* 37) }
        let cmap = (0..<columns).flatMap { [0x00, 0x00, 0x01, UInt8($0)] as [UInt8] }
        let contents = Array(jp2[header.contents]) + box("pclr", pclr) + box("cmap", cmap)
        let start = header.contents.lowerBound - 8
        return Array(jp2[..<start]) + box("jp2h", contents) + Array(jp2[header.contents.upperBound...])
    }

    /// A raw codestream declaring `side` × `side` grey pixels in a few hundred bytes (almost no coded data).
    public static func hugeCodestream(side: Int = 2048, targetBytes: Int = 300) throws -> [UInt8] {
        try JPEG2000Codec.encode(grey(side, side), container: .codestream, targetBytes: targetBytes)
    }

    /// A colour JP2 face coded in 4 × 4 code-blocks (a genuine one uses 64 × 64): a code-block structure per 16
    /// samples.
    public static func tinyCodeBlocks(width: Int = 480, height: Int = 600, targetBytes: Int = 23_000) throws
        -> [UInt8]
    {
        guard
            let raster = Raster(
                width: width, height: height, channels: 3,
                pixels: SyntheticFace.rgbPixels(width: width, height: height))
        else { throw GeneratorError(.invalidInput, step: "hostile.codeblocks", "\(width) × \(height)") }
        return try JPEG2000Codec.encode(
            raster, container: .jp2, targetBytes: targetBytes, limits: .standard, subsampling: nil, sYCC: false,
            codeBlockSize: 4)
    }

    /// A JPEG whose one scan is repeated `scans` times before EOI: a decoder that takes every scan decodes the
    /// image that many times. The image is flat grey, so each scan is a few kilobytes (476 scans of 480 × 600:
    /// about 1 MB, within the input limit: the scan count is what must refuse it).
    public static func manyScans(_ scans: Int = 476, width: Int = 480, height: Int = 600) throws -> [UInt8] {
        guard
            let flat = Raster(
                width: width, height: height, channels: 1, pixels: .init(repeating: 128, count: width * height))
        else { throw GeneratorError(.invalidInput, step: "hostile.scans", "\(width) × \(height)") }
        let jpeg = try JPEGCodec.encode(flat, quality: 85)
        guard let sos = (2..<(jpeg.count - 1)).first(where: { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xDA }) else {
            throw GeneratorError(.invalidInput, step: "hostile.scans", "no SOS")
        }
        let scan = Array(jpeg[sos..<(jpeg.count - 2)])
        return Array(jpeg[..<sos]) + (0..<scans).flatMap { _ in scan } + [0xFF, 0xD9]
    }

    /// `count` tiny JPEG 2000 images (16 × 16 grey, a few hundred bytes each) for a DG5 or DG7.
    public static func tinyJPEG2000Images(_ count: Int = 99) throws -> [[UInt8]] {
        let one = try JPEG2000Codec.encode(grey(16, 16), container: .jp2, targetBytes: 200)
        return Array(repeating: one, count: count)
    }

    /// DG2 holding `image` as its one face (`format` and the declared size as the face record states them).
    public static func dg2(_ image: [UInt8], format: ImageFormat, width: Int, height: Int) -> [UInt8] {
        LDSEncoders.dg2(
            faceRecord: LDSEncoders.faceRecord(
                image: image, format: format, width: width, height: height, colour: format == .jpeg2000))
    }

    static func box(_ type: String, _ contents: [UInt8]) -> [UInt8] {
        LDSEncoders.be(8 + contents.count, 4) + Array(type.utf8) + contents
    }

    static func grey(_ w: Int, _ h: Int) -> Raster {
        var px = [UInt8](repeating: 0, count: w * h)
        for y in 0..<h { for x in 0..<w { px[y * w + x] = UInt8(truncatingIfNeeded: (x * 7 + y * 3) / 5) } }
        return Raster(width: w, height: h, channels: 1, pixels: px)!
    }
}
