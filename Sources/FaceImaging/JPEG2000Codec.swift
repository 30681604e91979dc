import CFaceImagingShims
import COpenJPEG

/// JPEG 2000 (ISO/IEC 15444-1) through OpenJPEG: decode JP2 files and raw codestreams, encode either. Every call
/// into the library is checked; the library's messages are captured (never printed) and a failure names the first.
public enum JPEG2000Codec {
    /// Decodes after `JPEG2000Header` has checked the declared size, components and tiles against `limits`.
    /// Strict: a truncated or corrupt codestream, or any warning from the decoder, is an error.
    public static func decode(_ bytes: [UInt8], limits: ImageLimits = .standard) throws(ImageCodecError) -> Raster {
        let f = CodecFormat.jpeg2000
        guard !bytes.isEmpty else { throw ImageCodecError(.empty, f, "no bytes") }
        guard bytes.count <= limits.maxInputBytes else {
            throw ImageCodecError(
                .tooLarge, f, "\(bytes.count) bytes exceed the input limit of \(limits.maxInputBytes)")
        }
        let header = try JPEG2000Header(bytes, limits: limits)
        let reduce = try reduction(header, limits: limits)
        let session = try Session(decompress: header.container == .jp2 ? OPJ_CODEC_JP2 : OPJ_CODEC_J2K)
        defer { session.close() }
        var parameters = opj_dparameters_t()
        opj_set_default_decoder_parameters(&parameters)
        parameters.cp_reduce = UInt32(reduce.levels)
        try session.check(opj_setup_decoder(session.codec, &parameters), .decodeFailed, "opj_setup_decoder")
        try session.check(opj_decoder_set_strict_mode(session.codec, 1), .decodeFailed, "opj_decoder_set_strict_mode")

        let result: Result<Raster, ImageCodecError> = bytes.withUnsafeBufferPointer { input in
            var buffer = emrtd_opj_buffer(
                data: UnsafeMutablePointer(mutating: input.baseAddress), length: input.count,
                capacity: 0, position: 0, overflowed: 0)
            return withUnsafeMutablePointer(to: &buffer) { bufferPointer in
                guard let stream = emrtd_opj_read_stream(bufferPointer) else {
                    return .failure(ImageCodecError(.decodeFailed, f, "opj_stream_create failed"))
                }
                defer { opj_stream_destroy(stream) }
                var image: UnsafeMutablePointer<opj_image_t>?
                defer { if let image { opj_image_destroy(image) } }
                do throws(ImageCodecError) {
                    try session.check(
                        opj_read_header(stream, session.codec, &image), .malformedHeader, "opj_read_header")
                    guard let img = image else {
                        throw ImageCodecError(.malformedHeader, f, "opj_read_header gave no image")
                    }
                    // The library must have read what was checked: the same size and component count.
                    let w = Int(img.pointee.x1) - Int(img.pointee.x0)
                    let h = Int(img.pointee.y1) - Int(img.pointee.y0)
                    guard w == header.width, h == header.height, Int(img.pointee.numcomps) == header.components.count
                    else {
                        throw ImageCodecError(
                            .malformedHeader, f, "the JP2 header and the codestream disagree on size or components")
                    }
                    ImageDecodeLog.record(f, reduce.width, reduce.height, header.outputComponents)
                    try session.check(opj_decode(session.codec, stream, img), .decodeFailed, "opj_decode")
                    try session.check(opj_end_decompress(session.codec, stream), .decodeFailed, "opj_end_decompress")
                    try session.checkNoWarnings()
                    // What came out is what was checked: no more components, no more pixels.
                    let decodedWidth = img.pointee.numcomps > 0 ? Int(img.pointee.comps[0].w) : 0
                    let decodedHeight = img.pointee.numcomps > 0 ? Int(img.pointee.comps[0].h) : 0
                    guard Int(img.pointee.numcomps) <= header.outputComponents,
                        decodedWidth <= reduce.width + 1, decodedHeight <= reduce.height + 1
                    else {
                        throw ImageCodecError(
                            .decodeFailed, f,
                            "the decoder gave \(img.pointee.numcomps) components of \(decodedWidth) × \(decodedHeight)")
                    }
                    return .success(try raster(img.pointee, header: header))
                } catch {
                    return .failure(error)
                }
            }
        }
        return try result.get()
    }

    /// How many wavelet levels are dropped so that the decoded image has at most `limits.maxDecodedPixels` pixels
    /// (each level halves both sides, ISO/IEC 15444-1 §B.5), and the size that gives. Refused when the codestream
    /// has too few levels to get there.
    static func reduction(_ header: JPEG2000Header, limits: ImageLimits) throws(ImageCodecError)
        -> (levels: Int, width: Int, height: Int)
    {
        var r = 0
        var w = header.width
        var h = header.height
        while w * h > limits.maxDecodedPixels {
            guard r < header.minDecompositionLevels else {
                throw ImageCodecError(
                    .tooLarge, .jpeg2000,
                    "\(header.width) × \(header.height) cannot be reduced to \(limits.maxDecodedPixels) pixels (ImageLimits.maxDecodedPixels; "
                        + "\(header.minDecompositionLevels) wavelet levels)")
            }
            r += 1
            w = JPEG2000Header.ceilShift(header.width, r)
            h = JPEG2000Header.ceilShift(header.height, r)
        }
        return (r, w, h)
    }

    /// The file format written by `encode`.
    public enum Container: Sendable, Hashable {
        case jp2
        case codestream
    }

    /// Encodes an 8-bit raster with the irreversible 9/7 wavelet in one quality layer at a compression ratio
    /// that gives about `targetBytes` (nil: lossless 5/3). RGB uses the irreversible colour transform.
    public static func encode(
        _ raster: Raster, container: Container = .jp2, targetBytes: Int? = nil,
        limits: ImageLimits = .standard
    ) throws(ImageCodecError) -> [UInt8] {
        try encode(
            raster, container: container, targetBytes: targetBytes, limits: limits, subsampling: nil, sYCC: false,
            codeBlockSize: nil)
    }

    /// As `encode`, with per-component subsampling (each component sampled at every dx-th column and dy-th row)
    /// and, with `sYCC`, the raster's three channels taken as Y, Cb, Cr and labelled sYCC (enumerated colour
    /// space 18) — the forms a decoder must accept beyond plain RGB. For tests of those decoder paths.
    /// `codeBlockSize` (4…64, a power of two; nil: 64) sets the code-block width and height and
    /// `decompositionLevels` caps the wavelet levels (nil: up to 5), for hostile samples.
    public static func encode(
        _ raster: Raster, container: Container, targetBytes: Int?, limits: ImageLimits,
        subsampling: [(dx: Int, dy: Int)]?, sYCC: Bool, codeBlockSize: Int? = nil, decompositionLevels: Int? = nil
    ) throws(ImageCodecError) -> [UInt8] {
        let f = CodecFormat.jpeg2000
        try limits.check(width: raster.width, height: raster.height, format: f)
        var parameters = opj_cparameters_t()
        opj_set_default_encoder_parameters(&parameters)
        parameters.tcp_numlayers = 1
        parameters.cp_disto_alloc = 1
        let raw = raster.width * raster.height * raster.channels
        if let target = targetBytes {
            guard target > 0 else { throw ImageCodecError(.encodeFailed, f, "target size \(target)") }
            parameters.irreversible = 1
            parameters.tcp_rates.0 = Float(max(1.0, Double(raw) / Double(target)))
        } else {
            parameters.tcp_rates.0 = 0  // lossless
        }
        // At most 6 resolutions, and never more than the smaller side allows (2^(n−1) ≤ side).
        var levels = 1
        while levels < 6, (1 << levels) <= min(raster.width, raster.height) { levels += 1 }
        if let d = decompositionLevels { levels = min(levels, max(0, d) + 1) }
        parameters.numresolution = Int32(levels)
        if let size = codeBlockSize {
            guard [4, 8, 16, 32, 64].contains(size) else {
                throw ImageCodecError(.encodeFailed, f, "code-block size \(size)")
            }
            parameters.cblockw_init = Int32(size)
            parameters.cblockh_init = Int32(size)
        }
        let factors = subsampling ?? Array(repeating: (dx: 1, dy: 1), count: raster.channels)
        guard factors.count == raster.channels,
            factors.allSatisfy({ (1...4).contains($0.dx) && (1...4).contains($0.dy) })
        else {
            throw ImageCodecError(.encodeFailed, f, "subsampling for \(raster.channels) components")
        }
        // The colour transform needs three components of the same size (and RGB, not YCC).
        parameters.tcp_mct = raster.channels == 3 && subsampling == nil && !sYCC ? 1 : 0

        var componentParameters = [opj_image_cmptparm_t](repeating: opj_image_cmptparm_t(), count: raster.channels)
        for c in 0..<raster.channels {
            componentParameters[c].dx = UInt32(factors[c].dx)
            componentParameters[c].dy = UInt32(factors[c].dy)
            componentParameters[c].w = UInt32((raster.width + factors[c].dx - 1) / factors[c].dx)
            componentParameters[c].h = UInt32((raster.height + factors[c].dy - 1) / factors[c].dy)
            componentParameters[c].prec = 8
            componentParameters[c].sgnd = 0
        }
        let space = raster.channels == 3 ? (sYCC ? OPJ_CLRSPC_SYCC : OPJ_CLRSPC_SRGB) : OPJ_CLRSPC_GRAY
        guard let image = opj_image_create(UInt32(raster.channels), &componentParameters, space) else {
            throw ImageCodecError(.encodeFailed, f, "opj_image_create failed")
        }
        defer { opj_image_destroy(image) }
        image.pointee.x0 = 0
        image.pointee.y0 = 0
        image.pointee.x1 = UInt32(raster.width)
        image.pointee.y1 = UInt32(raster.height)
        raster.pixels.withUnsafeBufferPointer { px in
            for c in 0..<raster.channels {
                guard let data = image.pointee.comps[c].data else { continue }
                let (dx, dy) = factors[c]
                let w = Int(componentParameters[c].w)
                let h = Int(componentParameters[c].h)
                for y in 0..<h {
                    for x in 0..<w {
                        data[y * w + x] = Int32(px[((y * dy) * raster.width + x * dx) * raster.channels + c])
                    }
                }
            }
        }
        for c in 0..<raster.channels where image.pointee.comps[c].data == nil {
            throw ImageCodecError(.encodeFailed, f, "opj_image_create gave component \(c) no data")
        }

        let session = try Session(compress: container == .jp2 ? OPJ_CODEC_JP2 : OPJ_CODEC_J2K)
        defer { session.close() }
        try session.check(opj_setup_encoder(session.codec, &parameters, image), .encodeFailed, "opj_setup_encoder")
        // Lossless output can exceed the raw size slightly; never more than raw + headers.
        let capacity = min(limits.maxOutputBytes, raw + raw / 2 + 4096)
        let output = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
        defer { output.deallocate() }
        var buffer = emrtd_opj_buffer(data: output, length: 0, capacity: capacity, position: 0, overflowed: 0)
        let written: Result<Int, ImageCodecError> = withUnsafeMutablePointer(to: &buffer) { bufferPointer in
            guard let stream = emrtd_opj_write_stream(bufferPointer) else {
                return .failure(ImageCodecError(.encodeFailed, f, "opj_stream_create failed"))
            }
            defer { opj_stream_destroy(stream) }
            do throws(ImageCodecError) {
                try session.check(opj_start_compress(session.codec, image, stream), .encodeFailed, "opj_start_compress")
                try session.check(opj_encode(session.codec, stream), .encodeFailed, "opj_encode")
                try session.check(opj_end_compress(session.codec, stream), .encodeFailed, "opj_end_compress")
            } catch {
                return .failure(error)
            }
            if bufferPointer.pointee.overflowed != 0 {
                return .failure(ImageCodecError(.tooLarge, f, "the encoded image exceeds \(capacity) bytes"))
            }
            return .success(bufferPointer.pointee.length)
        }
        let length = try written.get()
        return Array(UnsafeBufferPointer(start: output, count: length))
    }

    /// One codec and its captured messages; `check` turns a failed call into an error naming the call and the
    /// library's first error message.
    final class Session {
        typealias Codec = UnsafeMutablePointer<opj_codec_t?>
        let codec: Codec
        let messages: OpaquePointer

        convenience init(decompress format: OPJ_CODEC_FORMAT) throws(ImageCodecError) {
            try self.init(opj_create_decompress(format), "opj_create_decompress")
        }

        convenience init(compress format: OPJ_CODEC_FORMAT) throws(ImageCodecError) {
            try self.init(opj_create_compress(format), "opj_create_compress")
        }

        private init(_ codec: Codec?, _ call: String) throws(ImageCodecError) {
            guard let codec else { throw ImageCodecError(.decodeFailed, .jpeg2000, "\(call) failed") }
            guard let messages = emrtd_opj_messages_create() else {
                opj_destroy_codec(codec)
                throw ImageCodecError(.decodeFailed, .jpeg2000, "out of memory")
            }
            self.codec = codec
            self.messages = messages
            guard emrtd_opj_capture_messages(codec, messages) != 0 else {
                close()
                throw ImageCodecError(.decodeFailed, .jpeg2000, "opj_set_error_handler failed")
            }
        }

        private var closed = false
        func close() {
            guard !closed else { return }
            closed = true
            opj_destroy_codec(codec)
            emrtd_opj_messages_free(messages)
        }

        func check(_ ok: OPJ_BOOL, _ code: ImageCodecError.Code, _ call: String) throws(ImageCodecError) {
            guard ok == 0 || emrtd_opj_error_count(messages) > 0 else { return }
            let first = String(cString: emrtd_opj_first_error(messages))
            throw ImageCodecError(code, .jpeg2000, "\(call): " + (first.isEmpty ? "failed" : first))
        }

        func checkNoWarnings() throws(ImageCodecError) {
            guard emrtd_opj_warning_count(messages) > 0 else { return }
            throw ImageCodecError(.decodeFailed, .jpeg2000, String(cString: emrtd_opj_first_warning(messages)))
        }
    }

    /// 8-bit grayscale or RGB from the decoded components: samples scaled from their bit depth, signed samples
    /// shifted, subsampled components sampled at the nearest position, sYCC converted to RGB (ITU-T T.871).
    static func raster(_ image: opj_image_t, header: JPEG2000Header) throws(ImageCodecError) -> Raster {
        let f = CodecFormat.jpeg2000
        let count = Int(image.numcomps)
        let space = image.color_space
        guard space != OPJ_CLRSPC_CMYK, space != OPJ_CLRSPC_EYCC else {
            throw ImageCodecError(.unsupported, f, "colour space \(space.rawValue) (CMYK or e-YCC)")
        }
        let colour = count >= 3
        let used = colour ? 3 : 1
        let base = image.comps[0]
        let width = Int(base.w)
        let height = Int(base.h)
        guard width > 0, height > 0, width * height <= header.width * header.height else {
            throw ImageCodecError(.decodeFailed, f, "decoded component 0 is \(width) × \(height)")
        }
        var planes:
            [(data: UnsafeMutablePointer<Int32>, w: Int, h: Int, shift: Int, offset: Int32, max: Int32, prec: Int)] = []
        for c in 0..<used {
            let comp = image.comps[c]
            guard let data = comp.data, comp.w > 0, comp.h > 0 else {
                throw ImageCodecError(.decodeFailed, f, "component \(c) was not decoded")
            }
            let prec = Int(comp.prec)
            guard (1...16).contains(prec) else {
                throw ImageCodecError(.unsupported, f, "component \(c) has \(prec) bits")
            }
            planes.append(
                (
                    data, Int(comp.w), Int(comp.h), max(0, prec - 8), comp.sgnd != 0 ? Int32(1) << Int32(prec - 1) : 0,
                    (Int32(1) << Int32(prec)) - 1, prec
                ))
        }
        func sample(_ p: Int, _ x: Int, _ y: Int) -> Int {
            let plane = planes[p]
            let sx = plane.w == width ? x : min(plane.w - 1, x * plane.w / width)
            let sy = plane.h == height ? y : min(plane.h - 1, y * plane.h / height)
            var v = plane.data[sy * plane.w + sx] + plane.offset
            v = min(max(v, 0), plane.max)
            if plane.prec >= 8 { return Int(v >> Int32(plane.shift)) }
            return Int(v) * 255 / Int(plane.max)
        }
        var out = [UInt8](repeating: 0, count: width * height * used)
        let ycc = space == OPJ_CLRSPC_SYCC
        for y in 0..<height {
            for x in 0..<width {
                let o = (y * width + x) * used
                if !colour {
                    out[o] = UInt8(sample(0, x, y))
                    continue
                }
                var r = sample(0, x, y)
                var g = sample(1, x, y)
                var b = sample(2, x, y)
                if ycc {
                    let yy = Double(r)
                    let cb = Double(g) - 128
                    let cr = Double(b) - 128
                    r = Int((yy + 1.402 * cr).rounded())
                    g = Int((yy - 0.344136 * cb - 0.714136 * cr).rounded())
                    b = Int((yy + 1.772 * cb).rounded())
                }
                out[o] = UInt8(clamping: r)
                out[o + 1] = UInt8(clamping: g)
                out[o + 2] = UInt8(clamping: b)
            }
        }
        return Raster(unchecked: width, height, used, out)
    }
}
