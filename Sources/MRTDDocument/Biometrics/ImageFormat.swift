/// The encoding of a face or displayed image (ICAO 9303-10 §4.7.2: JPEG or JPEG 2000).
public enum ImageFormat: String, Sendable, Hashable, Codable {
    case jpeg
    case jpeg2000
    case png
    case unknown

    /// The format recognised from the first bytes: JPEG SOI `FF D8 FF`; JPEG 2000 file signature box
    /// `00 00 00 0C 6A 50 20 20 0D 0A 87 0A` (ISO/IEC 15444-1 Annex I) or codestream SOC+SIZ `FF 4F FF 51`.
    public static func detect(_ bytes: some Collection<UInt8>) -> ImageFormat {
        let b = Array(bytes.prefix(12))
        if b.count >= 3, b[0] == 0xFF, b[1] == 0xD8, b[2] == 0xFF { return .jpeg }
        if b.count >= 12, b == [0x00, 0x00, 0x00, 0x0C, 0x6A, 0x50, 0x20, 0x20, 0x0D, 0x0A, 0x87, 0x0A] {
            return .jpeg2000
        }
        if b.count >= 4, b[0] == 0xFF, b[1] == 0x4F, b[2] == 0xFF, b[3] == 0x51 { return .jpeg2000 }
        if b.count >= 8, b[0..<8] == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] { return .png }
        return .unknown
    }

    /// Width and height read from the image's own header: a JPEG SOFn segment (ITU-T T.81 §B.2.2), a JPEG 2000
    /// `ihdr` box (15444-1 §I.5.3.1) or SIZ marker segment (§A.5.1), a PNG IHDR chunk. nil when absent or
    /// malformed. Bounded: walks at most the given bytes, never allocates.
    public static func dimensions(_ bytes: [UInt8]) -> (width: Int, height: Int)? {
        switch detect(bytes) {
        case .jpeg: return jpegDimensions(bytes)
        case .jpeg2000:
            if bytes.count >= 4, bytes[0] == 0xFF, bytes[1] == 0x4F { return sizDimensions(bytes, at: 2) }
            return jp2Dimensions(bytes, from: 0, to: bytes.count, depth: 0)
        case .png:
            guard bytes.count >= 24 else { return nil }
            return (be(bytes, 16, 4), be(bytes, 20, 4))
        case .unknown: return nil
        }
    }

    static func be(_ b: [UInt8], _ i: Int, _ n: Int) -> Int {
        var v = 0
        for k in 0..<n { v = v << 8 | Int(b[i + k]) }
        return v
    }

    static func jpegDimensions(_ b: [UInt8]) -> (width: Int, height: Int)? {
        var i = 2
        while i + 3 < b.count {
            guard b[i] == 0xFF else { return nil }
            let marker = b[i + 1]
            if marker == 0xFF {
                i += 1
                continue
            }  // fill byte
            if marker == 0x01 || (0xD0...0xD7).contains(marker) {
                i += 2
                continue
            }
            if marker == 0xD9 || marker == 0xDA { return nil }  // EOI / SOS before any SOF
            let length = be(b, i + 2, 2)
            guard length >= 2 else { return nil }
            if (0xC0...0xCF).contains(marker), marker != 0xC4, marker != 0xC8, marker != 0xCC {
                guard i + 9 <= b.count else { return nil }
                return (be(b, i + 7, 2), be(b, i + 5, 2))
            }
            i += 2 + length
        }
        return nil
    }

    static func sizDimensions(_ b: [UInt8], at i: Int) -> (width: Int, height: Int)? {
        // FF51 Lsiz(2) Rsiz(2) Xsiz(4) Ysiz(4) XOsiz(4) YOsiz(4)
        guard i + 22 <= b.count, b[i] == 0xFF, b[i + 1] == 0x51 else { return nil }
        let x = be(b, i + 6, 4)
        let y = be(b, i + 10, 4)
        let xo = be(b, i + 14, 4)
        let yo = be(b, i + 18, 4)
        guard x >= xo, y >= yo else { return nil }
        return (x - xo, y - yo)
    }

    static func jp2Dimensions(_ b: [UInt8], from start: Int, to end: Int, depth: Int) -> (width: Int, height: Int)? {
        guard depth < 4 else { return nil }
        var i = start
        while i + 8 <= end {
            var length = be(b, i, 4)
            let type = be(b, i + 4, 4)
            var header = 8
            if length == 1 {
                guard i + 16 <= end else { return nil }
                let high = be(b, i + 8, 4)
                guard high == 0 else { return nil }
                length = be(b, i + 12, 4)
                header = 16
            } else if length == 0 {
                length = end - i
            }
            guard length >= header, length <= end - i else { return nil }
            switch type {
            case 0x6A70_3268:  // 'jp2h' superbox
                return jp2Dimensions(b, from: i + header, to: i + length, depth: depth + 1)
            case 0x6968_6472:  // 'ihdr': HEIGHT(4) WIDTH(4)
                guard length - header >= 8 else { return nil }
                return (be(b, i + header + 4, 4), be(b, i + header, 4))
            case 0x6A70_3263:  // 'jp2c' codestream
                guard i + header + 2 <= end else { return nil }
                return sizDimensions(b, at: i + header + 2)
            default:
                i += length
            }
        }
        return nil
    }
}
