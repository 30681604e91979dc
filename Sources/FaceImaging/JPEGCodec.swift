import CTurboJPEG

/// JPEG (ITU-T T.81) through libjpeg-turbo's TurboJPEG API. Every call is checked; a failure names the call and
/// the library's message.
public enum JPEGCodec {
    /// Decodes to 8-bit grayscale or RGB after checking the declared size (SOFn, read by tjDecompressHeader3)
    /// against `limits`, and the scans counted (at most `limits.maxScans`; TJFLAG_LIMITSCANS stops the library at
    /// 500 as well). An image larger than `limits.maxDecodedPixels` is decoded scaled down (1/2, 1/4 or 1/8).
    /// Strict: a warning (premature end of data, corrupt entropy data) is an error.
    public static func decode(_ bytes: [UInt8], limits: ImageLimits = .standard) throws(ImageCodecError) -> Raster {
        let f = CodecFormat.jpeg
        guard !bytes.isEmpty else { throw ImageCodecError(.empty, f, "no bytes") }
        guard bytes.count <= limits.maxInputBytes else {
            throw ImageCodecError(
                .tooLarge, f, "\(bytes.count) bytes exceed the input limit of \(limits.maxInputBytes)")
        }
        guard bytes.count >= 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else {
            throw ImageCodecError(.unrecognisedFormat, f, "no SOI marker")
        }
        let scans = try countScans(bytes, limit: limits.maxScans)
        guard scans <= limits.maxScans else {
            throw ImageCodecError(
                .tooLarge, f, "more than \(limits.maxScans) scans (SOS markers; ImageLimits.maxScans)")
        }
        guard let handle = tjInitDecompress() else {
            throw ImageCodecError(.decodeFailed, f, "tjInitDecompress failed")
        }
        defer { _ = tjDestroy(handle) }
        // The header (up to the first SOS) is read into small fixed structures; the declared size is checked
        // against the limits before any pixel buffer exists.
        var width: Int32 = 0
        var height: Int32 = 0
        var subsampling: Int32 = 0
        var colourspace: Int32 = 0
        let headerStatus = bytes.withUnsafeBufferPointer {
            tjDecompressHeader3(handle, $0.baseAddress, UInt($0.count), &width, &height, &subsampling, &colourspace)
        }
        try check(headerStatus, handle, .malformedHeader, "tjDecompressHeader3")
        // A tables-only datastream (no SOFn before EOI) reads as 0 × 0; a SOFn declaring 0 fails above.
        guard width > 0, height > 0 else {
            throw ImageCodecError(.malformedHeader, f, "no frame header (SOFn) before the end")
        }
        try limits.check(width: Int(width), height: Int(height), format: f)
        let gray = colourspace == TJCS_GRAY.rawValue
        guard gray || colourspace == TJCS_YCbCr.rawValue || colourspace == TJCS_RGB.rawValue else {
            throw ImageCodecError(.unsupported, f, "colour space \(colourspace) (CMYK or YCCK)")
        }
        let channels = gray ? 1 : 3
        let format = gray ? TJPF_GRAY : TJPF_RGB
        let (outWidth, outHeight) = try scaled(Int(width), Int(height), limits: limits)
        ImageDecodeLog.record(f, outWidth, outHeight, channels)
        var pixels = [UInt8](repeating: 0, count: outWidth * outHeight * channels)
        let flags = TJFLAG_STOPONWARNING | TJFLAG_LIMITSCANS | TJFLAG_ACCURATEDCT
        let status = bytes.withUnsafeBufferPointer { input in
            pixels.withUnsafeMutableBufferPointer { output in
                tjDecompress2(
                    handle, input.baseAddress, UInt(input.count), output.baseAddress, Int32(outWidth), 0,
                    Int32(outHeight), format.rawValue, flags)
            }
        }
        try check(status, handle, .decodeFailed, "tjDecompress2")
        return Raster(unchecked: outWidth, outHeight, channels, pixels)
    }

    /// The largest output size libjpeg-turbo's DCT scaling gives (1/1, 1/2, 1/4, 1/8) with at most
    /// `limits.maxDecodedPixels` pixels; refused when even 1/8 is larger.
    static func scaled(_ width: Int, _ height: Int, limits: ImageLimits) throws(ImageCodecError) -> (Int, Int) {
        for denominator in [1, 2, 4, 8] {
            let w = (width + denominator - 1) / denominator
            let h = (height + denominator - 1) / denominator
            if w * h <= limits.maxDecodedPixels { return (w, h) }
        }
        throw ImageCodecError(
            .tooLarge, .jpeg,
            "\(width) × \(height) cannot be scaled to \(limits.maxDecodedPixels) pixels (ImageLimits.maxDecodedPixels; at most 1/8)"
        )
    }

    /// Counts the scans (SOS markers, T.81 §B.2.3) by walking the marker segments by their lengths and each scan's
    /// entropy-coded data to its next marker (`FF 00` is a stuffed byte, `FF D0`…`FF D7` a restart marker), stopping
    /// at EOI, at the end of the data or once `limit` is passed. Linear in the input; allocates nothing.
    static func countScans(_ b: [UInt8], limit: Int) throws(ImageCodecError) -> Int {
        var scans = 0
        var i = 2
        while i + 1 < b.count {
            guard b[i] == 0xFF else {
                throw ImageCodecError(.malformedHeader, .jpeg, "no marker at offset \(i)")
            }
            let marker = b[i + 1]
            if marker == 0xFF {  // fill byte
                i += 1
                continue
            }
            if marker == 0xD9 { break }  // EOI
            if (0xD0...0xD7).contains(marker) || marker == 0x01 {
                i += 2
                continue
            }
            guard i + 3 < b.count else { break }
            let length = Int(b[i + 2]) << 8 | Int(b[i + 3])
            guard length >= 2 else { throw ImageCodecError(.malformedHeader, .jpeg, "marker segment length \(length)") }
            i += 2 + length
            guard marker == 0xDA else { continue }
            scans += 1
            if scans > limit { return scans }
            // entropy-coded data up to the next marker that is neither a stuffed byte nor a restart marker
            while i + 1 < b.count {
                if b[i] == 0xFF, b[i + 1] != 0x00, !(0xD0...0xD7).contains(b[i + 1]) { break }
                i += 1
            }
        }
        return scans
    }

    /// Encodes a raster as baseline JPEG (JFIF) at `quality` 1…100 (4:2:0 chroma for RGB), optionally with
    /// COM segments (T.81 §B.2.4.5, at most 65,533 bytes each) placed after the APPn segments.
    public static func encode(
        _ raster: Raster, quality: Int = 90, comments: [[UInt8]] = [],
        limits: ImageLimits = .standard
    ) throws(ImageCodecError) -> [UInt8] {
        let f = CodecFormat.jpeg
        try limits.check(width: raster.width, height: raster.height, format: f)
        guard (1...100).contains(quality) else { throw ImageCodecError(.encodeFailed, f, "quality \(quality)") }
        for c in comments where c.count > 65533 {
            throw ImageCodecError(.encodeFailed, f, "a COM segment of \(c.count) bytes (at most 65,533)")
        }
        guard let handle = tjInitCompress() else { throw ImageCodecError(.encodeFailed, f, "tjInitCompress failed") }
        defer { _ = tjDestroy(handle) }
        let gray = raster.channels == 1
        var output: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        defer { if let output { tjFree(output) } }
        let status = raster.pixels.withUnsafeBufferPointer { px in
            tjCompress2(
                handle, px.baseAddress, Int32(raster.width), 0, Int32(raster.height),
                Int32((gray ? TJPF_GRAY : TJPF_RGB).rawValue), &output, &size,
                Int32((gray ? TJSAMP_GRAY : TJSAMP_420).rawValue), Int32(quality), TJFLAG_ACCURATEDCT)
        }
        try check(status, handle, .encodeFailed, "tjCompress2")
        guard let output, size >= 4 else { throw ImageCodecError(.encodeFailed, f, "tjCompress2 gave no output") }
        let total = Int(size) + comments.reduce(0) { $0 + 4 + $1.count }
        guard total <= limits.maxOutputBytes else {
            throw ImageCodecError(.tooLarge, f, "\(total) bytes exceed the output limit of \(limits.maxOutputBytes)")
        }
        var jpeg = Array(UnsafeBufferPointer(start: output, count: Int(size)))
        if !comments.isEmpty { jpeg = insertComments(comments, into: jpeg) }
        return jpeg
    }

    /// Inserts COM segments after SOI and the APPn segments that follow it.
    public static func insertComments(_ comments: [[UInt8]], into jpeg: [UInt8]) -> [UInt8] {
        var i = 2
        while i + 4 <= jpeg.count, jpeg[i] == 0xFF, (0xE0...0xEF).contains(jpeg[i + 1]) {
            i += 2 + (Int(jpeg[i + 2]) << 8 | Int(jpeg[i + 3]))
        }
        i = min(i, jpeg.count)
        var segments: [UInt8] = []
        for c in comments {
            let length = c.count + 2
            segments += [0xFF, 0xFE, UInt8(length >> 8), UInt8(length & 0xFF)] + c
        }
        return Array(jpeg[0..<i]) + segments + Array(jpeg[i...])
    }

    static func check(_ status: Int32, _ handle: tjhandle, _ code: ImageCodecError.Code, _ call: String)
        throws(ImageCodecError)
    {
        guard status != 0 else { return }
        let message = tjGetErrorStr2(handle).map { String(cString: $0) } ?? "failed"
        throw ImageCodecError(code, .jpeg, "\(call): \(message)")
    }
}
