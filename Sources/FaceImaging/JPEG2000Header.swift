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
    /// Components the decoder hands back: `components.count`, or with a JP2 palette (`pclr` with a component
    /// mapping `cmap`, §I.5.3.4–5) the palette's column count, which OpenJPEG expands every sample into.
    public var outputComponents: Int
    /// The fewest wavelet decomposition levels of any tile-component (COD/COC in the main header and every
    /// tile-part header): how far the decoder can reduce the resolution.
    public var minDecompositionLevels: Int
    /// Code-blocks and precincts the decoder sets up, counted per tile, component, resolution and band with the
    /// smallest code-block and precinct sizes any COD/COC declares (an upper bound of what OpenJPEG allocates).
    public var codeBlocks: Int
    /// Packets: quality layers × precincts (the packet headers the decoder reads).
    public var packets: Int
    /// Tile-parts in the codestream.
    public var tileParts: Int

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
            throw ImageCodecError(
                .tooLarge, f,
                "\(tilesX) × \(tilesY) tiles exceed the limit of \(limits.maxTiles) (ImageLimits.maxTiles)")
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
        var palette = 0
        if container == .jp2 { palette = try Self.paletteColumns(b, limits: limits) }
        outputComponents = max(csiz, palette)
        guard outputComponents <= limits.maxComponents else {
            throw ImageCodecError(
                .tooLarge, f,
                "a palette expands \(csiz) component(s) to \(outputComponents) (ImageLimits.maxComponents: \(limits.maxComponents))"
            )
        }
        let coding = try Self.codingStyles(
            b, from: p + lsiz, end: codestreamRange.upperBound, components: csiz, limits: limits)
        minDecompositionLevels = coding.minLevels
        tileParts = coding.tileParts
        // Count with the worst style seen: the most levels, the smallest code-blocks and precincts, the most layers.
        var blocks = 0
        var precincts = 0
        for ty in 0..<tilesY {
            for tx in 0..<tilesX {
                let x0 = max(xto + tx * xt, xo)
                let x1 = min(xto + (tx + 1) * xt, xsiz)
                let y0 = max(yto + ty * yt, yo)
                let y1 = min(yto + (ty + 1) * yt, ysiz)
                for c in comps {
                    let cx0 = (x0 + c.dx - 1) / c.dx
                    let cx1 = (x1 + c.dx - 1) / c.dx
                    let cy0 = (y0 + c.dy - 1) / c.dy
                    let cy1 = (y1 + c.dy - 1) / c.dy
                    let levels = coding.maxLevels
                    for r in 0...levels {
                        let n = levels - r
                        let rx0 = Self.ceilShift(cx0, n)
                        let rx1 = Self.ceilShift(cx1, n)
                        let ry0 = Self.ceilShift(cy0, n)
                        let ry1 = Self.ceilShift(cy1, n)
                        let ppx = r == 0 ? coding.minPrecinctExponentAtLowest : coding.minPrecinctExponent
                        precincts += Self.cells(rx0, rx1, ppx) * Self.cells(ry0, ry1, ppx)
                        // code-blocks never cross a precinct: at r > 0 a band's precinct is half the resolution's
                        let xe = max(0, min(coding.minCodeBlockExponent, r == 0 ? ppx : ppx - 1))
                        let bx0 = r == 0 ? rx0 : Self.ceilShift(cx0, n + 1)
                        let bx1 = r == 0 ? rx1 : Self.ceilShift(cx1, n + 1)
                        let by0 = r == 0 ? ry0 : Self.ceilShift(cy0, n + 1)
                        let by1 = r == 0 ? ry1 : Self.ceilShift(cy1, n + 1)
                        blocks += (r == 0 ? 1 : 3) * Self.cells(bx0, bx1, xe) * Self.cells(by0, by1, xe)
                        guard blocks + precincts <= limits.maxCodeBlocks else {
                            throw ImageCodecError(
                                .tooLarge, f,
                                "more than \(limits.maxCodeBlocks) code-blocks and precincts (ImageLimits.maxCodeBlocks; code-blocks of "
                                    + "\(1 << coding.minCodeBlockExponent) samples a side, \(levels) levels, "
                                    + "\(tiles) tile(s))")
                        }
                    }
                }
            }
        }
        codeBlocks = blocks + precincts
        packets = precincts * coding.maxLayers
        guard packets <= limits.maxPackets else {
            throw ImageCodecError(
                .tooLarge, f,
                "\(coding.maxLayers) quality layers × \(precincts) precincts exceed \(limits.maxPackets) packets (ImageLimits.maxPackets)"
            )
        }
    }

    static func ceilShift(_ v: Int, _ n: Int) -> Int { (v + (1 << n) - 1) >> n }

    /// How many cells of 2^e samples the interval [a, b) touches on a grid anchored at 0.
    static func cells(_ a: Int, _ b: Int, _ e: Int) -> Int {
        guard b > a else { return 0 }
        return ((b - 1) >> e) - (a >> e) + 1
    }

    /// What the coding style segments (COD, COC; §A.6.1–2) of the main header and of every tile-part header
    /// declare at worst, walking the marker segments by their lengths and the tile-parts by Psot (§A.4.2).
    struct CodingStyles {
        var minLevels = Int.max
        var maxLevels = 0
        var minCodeBlockExponent = Int.max
        var minPrecinctExponent = 15
        var minPrecinctExponentAtLowest = 15
        var maxLayers = 1
        var tileParts = 0
        var seenCOD = false

        mutating func add(levels: Int, xcb: Int, ycb: Int, precincts: ArraySlice<UInt8>?) {
            minLevels = min(minLevels, levels)
            maxLevels = max(maxLevels, levels)
            minCodeBlockExponent = min(minCodeBlockExponent, xcb + 2, ycb + 2)
            if let precincts {
                for (r, byte) in precincts.enumerated() {
                    let e = min(Int(byte & 0x0F), Int(byte >> 4))
                    if r == 0 {
                        minPrecinctExponentAtLowest = min(minPrecinctExponentAtLowest, e)
                    } else {
                        minPrecinctExponent = min(minPrecinctExponent, e)
                    }
                }
            }
        }
    }

    static func codingStyles(_ b: [UInt8], from start: Int, end: Int, components: Int, limits: ImageLimits)
        throws(ImageCodecError) -> CodingStyles
    {
        let f = CodecFormat.jpeg2000
        var styles = CodingStyles()
        func u16(_ i: Int) -> Int { Int(b[i]) << 8 | Int(b[i + 1]) }
        /// Reads the COD/COC segments from `i` until `stop` (SOT for the main header, SOD for a tile-part).
        func segments(_ i: inout Int, stop: UInt8) throws(ImageCodecError) {
            while true {
                guard i + 2 <= end, b[i] == 0xFF else {
                    throw ImageCodecError(.malformedHeader, f, "no marker at offset \(i) of the codestream header")
                }
                let marker = b[i + 1]
                if marker == stop { return }
                guard i + 4 <= end else { throw ImageCodecError(.malformedHeader, f, "truncated marker segment") }
                let length = u16(i + 2)
                guard length >= 2, i + 2 + length <= end else {
                    throw ImageCodecError(.malformedHeader, f, "marker segment at offset \(i) overruns the data")
                }
                let d = i + 4
                let n = length - 2
                switch marker {
                case 0x52:  // COD: Scod, SGcod (progression, layers ×2, MCT), SPcod
                    guard n >= 10 else { throw ImageCodecError(.malformedHeader, f, "COD too short") }
                    let scod = b[d]
                    let levels = Int(b[d + 5])
                    let precincts = scod & 1 != 0 ? n - 10 : 0
                    guard levels <= 32, precincts == 0 || precincts >= levels + 1 else {
                        throw ImageCodecError(.malformedHeader, f, "COD declares \(levels) levels")
                    }
                    styles.maxLayers = max(styles.maxLayers, u16(d + 2))
                    styles.add(
                        levels: levels, xcb: Int(b[d + 6]), ycb: Int(b[d + 7]),
                        precincts: precincts > 0 ? b[(d + 10)..<(d + 11 + levels)] : nil)
                    styles.seenCOD = true
                case 0x53:  // COC: Ccoc (one byte below 257 components), Scoc, SPcoc
                    guard n >= 7 else { throw ImageCodecError(.malformedHeader, f, "COC too short") }
                    let scoc = b[d + 1]
                    let levels = Int(b[d + 2])
                    let precincts = scoc & 1 != 0 ? n - 7 : 0
                    guard levels <= 32, precincts == 0 || precincts >= levels + 1 else {
                        throw ImageCodecError(.malformedHeader, f, "COC declares \(levels) levels")
                    }
                    styles.add(
                        levels: levels, xcb: Int(b[d + 3]), ycb: Int(b[d + 4]),
                        precincts: precincts > 0 ? b[(d + 7)..<(d + 8 + levels)] : nil)
                default: break
                }
                i += 2 + length
            }
        }
        var i = start
        try segments(&i, stop: 0x90)
        guard styles.seenCOD else { throw ImageCodecError(.malformedHeader, f, "no COD in the main header") }
        // tile-parts: SOT Lsot=10 Isot(2) Psot(4) TPsot TNsot, header segments, SOD, data; Psot 0: to the end
        while i + 2 <= end, b[i] == 0xFF, b[i + 1] == 0x90 {
            styles.tileParts += 1
            guard styles.tileParts <= limits.maxTiles * 4 else {
                throw ImageCodecError(.tooLarge, f, "more than \(limits.maxTiles * 4) tile-parts")
            }
            guard i + 12 <= end, u16(i + 2) == 10 else { throw ImageCodecError(.malformedHeader, f, "bad SOT") }
            let psot = u16(i + 6) << 16 | u16(i + 8)
            var j = i + 12
            try segments(&j, stop: 0x93)
            if psot == 0 { break }
            guard psot >= 14, psot <= end - i else {
                throw ImageCodecError(.malformedHeader, f, "tile-part length \(psot) at offset \(i) is invalid")
            }
            i += psot
        }
        if styles.minCodeBlockExponent == Int.max { styles.minCodeBlockExponent = 6 }
        return styles
    }

    /// The column count of a JP2 palette that is applied (a `pclr` box with a `cmap` box in the top-level `jp2h`,
    /// §I.5.3.4–5); 0 without one. OpenJPEG ignores a palette without a component mapping.
    static func paletteColumns(_ b: [UInt8], limits: ImageLimits) throws(ImageCodecError) -> Int {
        var columns = 0
        var mapped = false
        for header in boxes(b, in: 0..<b.count) where header.type == "jp2h" {
            for box in boxes(b, in: header.contents) {
                if box.type == "pclr" {
                    guard box.contents.count >= 3 else {
                        throw ImageCodecError(.malformedHeader, .jpeg2000, "pclr box too short")
                    }
                    columns = max(columns, Int(b[box.contents.lowerBound + 2]))
                } else if box.type == "cmap" {
                    mapped = true
                }
            }
        }
        return mapped ? columns : 0
    }

    /// The boxes in `range` (4- and 8-byte lengths), as far as they are well formed.
    public static func boxes(_ b: [UInt8], in range: Range<Int>) -> [(type: String, contents: Range<Int>)] {
        var out: [(type: String, contents: Range<Int>)] = []
        var i = range.lowerBound
        while i + 8 <= range.upperBound {
            var length = 0
            for k in 0..<4 { length = length << 8 | Int(b[i + k]) }
            var header = 8
            if length == 1 {
                guard i + 16 <= range.upperBound else { break }
                var l64: UInt64 = 0
                for k in 8..<16 { l64 = l64 << 8 | UInt64(b[i + k]) }
                guard l64 <= UInt64(range.upperBound - i) else { break }
                length = Int(l64)
                header = 16
            } else if length == 0 {
                length = range.upperBound - i
            }
            guard length >= header, length <= range.upperBound - i else { break }
            let type = String(decoding: b[(i + 4)..<(i + 8)], as: UTF8.self)
            out.append((type, (i + header)..<(i + length)))
            i += length
        }
        return out
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
