/// The parts of a JPEG 2000 image that decide what decoding will cost, read before OpenJPEG sees the bytes:
/// where the codestream is (a raw codestream, ISO/IEC 15444-1 Annex A, or the `jp2c` box of a JP2 file,
/// Annex I) and its SIZ marker segment (§A.5.1). Walks only the given bytes and allocates nothing per box.
public struct JPEG2000Header: Sendable, Hashable {
    public enum Container: Sendable, Hashable {
        /// A JP2 file (signature box, `ftyp`, `jp2h`, `jp2c`).
        case jp2
        /// A bare codestream starting with SOC `FF 4F`.
        case codestream
    }

    public struct Component: Sendable, Hashable {
        /// Bits per sample (Ssiz & 0x7F) + 1.
        public var bitDepth: Int
        public var signed: Bool
        /// XRsiz, YRsiz: horizontal and vertical subsampling.
        public var dx: Int
        public var dy: Int
    }

    public var container: Container
    /// Offset and length of the codestream within the input.
    public var codestreamRange: Range<Int>
    public var width: Int
    public var height: Int
    public var tiles: Int
    public var components: [Component]

    static let signatureBox: [UInt8] = [0x00, 0x00, 0x00, 0x0C, 0x6A, 0x50, 0x20, 0x20, 0x0D, 0x0A, 0x87, 0x0A]

    /// Parses and checks the header against `limits`: positive dimensions, 1–4 components of 1–16 bits with
    /// subsampling 1–4, at most `limits.maxTiles` tiles.
    public init(_ b: [UInt8], limits: ImageLimits = .standard) throws(ImageCodecError) {
        let f = CodecFormat.jpeg2000
        if b.count >= 2, b[0] == 0xFF, b[1] == 0x4F {
            container = .codestream
            codestreamRange = 0..<b.count
        } else if b.count >= 12, Array(b[0..<12]) == Self.signatureBox {
            container = .jp2
            codestreamRange = try Self.findCodestream(b)
        } else {
            throw ImageCodecError(.unrecognisedFormat, f, "no JP2 signature box and no SOC marker")
        }
        // SOC, then SIZ: FF51 Lsiz(2) Rsiz(2) Xsiz YOsiz… (4 each) Csiz(2) {Ssiz XRsiz YRsiz}×Csiz
        let s = codestreamRange.lowerBound
        guard codestreamRange.count >= 2 + 40, b[s] == 0xFF, b[s + 1] == 0x4F, b[s + 2] == 0xFF, b[s + 3] == 0x51 else {
            throw ImageCodecError(.malformedHeader, f, "the codestream does not start with SOC and SIZ")
        }
        func u16(_ i: Int) -> Int { Int(b[i]) << 8 | Int(b[i + 1]) }
        func u32(_ i: Int) -> Int { u16(i) << 16 | u16(i + 2) }
        let p = s + 4
        let lsiz = u16(p)
        let csiz = u16(p + 36)
        guard csiz >= 1, lsiz == 38 + 3 * csiz, codestreamRange.count >= 4 + lsiz else {
            throw ImageCodecError(
                .malformedHeader, f, "SIZ length \(lsiz) does not match \(csiz) components or the data")
        }
        let xsiz = u32(p + 4)
        let ysiz = u32(p + 8)
        let xo = u32(p + 12)
        let yo = u32(p + 16)
        let xt = u32(p + 20)
        let yt = u32(p + 24)
        let xto = u32(p + 28)
        let yto = u32(p + 32)
        guard xsiz >= xo, ysiz >= yo else {
            throw ImageCodecError(.malformedHeader, f, "SIZ image offset beyond the image size")
        }
        width = xsiz - xo
        height = ysiz - yo
        try limits.check(width: width, height: height, format: f)
        guard xt > 0, yt > 0, xto <= xo, yto <= yo, xto + xt > xo, yto + yt > yo else {
            throw ImageCodecError(.malformedHeader, f, "SIZ tile grid \(xt) × \(yt) at \(xto),\(yto) is invalid")
        }
        let tilesX = (xsiz - xto + xt - 1) / xt
        let tilesY = (ysiz - yto + yt - 1) / yt
        guard tilesX <= limits.maxTiles, tilesY <= limits.maxTiles, tilesX * tilesY <= limits.maxTiles else {
            throw ImageCodecError(.tooLarge, f, "\(tilesX) × \(tilesY) tiles exceed the limit of \(limits.maxTiles)")
        }
        tiles = tilesX * tilesY
        guard csiz <= 4 else {
            throw ImageCodecError(.unsupported, f, "\(csiz) components (a face has 1 to 4)")
        }
        var comps: [Component] = []
        for c in 0..<csiz {
            let q = p + 38 + 3 * c
            let ssiz = Int(b[q])
            let dx = Int(b[q + 1])
            let dy = Int(b[q + 2])
            let depth = (ssiz & 0x7F) + 1
            guard depth <= 16 else {
                throw ImageCodecError(.unsupported, f, "component \(c) has \(depth) bits per sample")
            }
            guard (1...4).contains(dx), (1...4).contains(dy) else {
                throw ImageCodecError(.unsupported, f, "component \(c) subsampling \(dx) × \(dy)")
            }
            comps.append(Component(bitDepth: depth, signed: ssiz & 0x80 != 0, dx: dx, dy: dy))
        }
        components = comps
    }

    /// The contents of the first top-level `jp2c` box (15444-1 §I.5.4), boxes with 4- and 8-byte lengths.
    public static func findCodestream(_ b: [UInt8]) throws(ImageCodecError) -> Range<Int> {
        let f = CodecFormat.jpeg2000
        var i = 0
        while i + 8 <= b.count {
            var length = 0
            for k in 0..<4 { length = length << 8 | Int(b[i + k]) }
            let type = Array(b[i + 4..<i + 8])
            var header = 8
            if length == 1 {
                guard i + 16 <= b.count else { break }
                var l64: UInt64 = 0
                for k in 8..<16 { l64 = l64 << 8 | UInt64(b[i + k]) }
                guard l64 <= UInt64(b.count - i) else {
                    throw ImageCodecError(.malformedHeader, f, "box at offset \(i) is longer than the data")
                }
                length = Int(l64)
                header = 16
            } else if length == 0 {
                length = b.count - i  // last box: to the end
            }
            guard length >= header, length <= b.count - i else {
                throw ImageCodecError(
                    .malformedHeader, f, "box at offset \(i) has length \(length) (\(b.count - i) bytes left)")
            }
            if type == Array("jp2c".utf8) { return (i + header)..<(i + length) }
            i += length
        }
        throw ImageCodecError(.malformedHeader, f, "no contiguous codestream box (jp2c)")
    }
}
