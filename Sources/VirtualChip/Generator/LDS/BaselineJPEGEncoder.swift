import Foundation

/// A small baseline sequential JPEG encoder (ITU-T T.81 / ISO/IEC 10918-1) for 8-bit grayscale images:
/// level shift, 8×8 forward DCT (T.81 §A.3.3), quantization with the Annex K.1 luminance table scaled to a
/// quality factor, zig-zag order (Figure A.6), DC difference and AC run-length coding with the Annex K.3 / K.5
/// typical luminance Huffman tables (§F.1.2), byte stuffing (§F.1.2.3). Output: SOI, APP0 (JFIF 1.01), optional
/// COM segments, DQT, SOF0, DHT ×2, SOS, entropy-coded data, EOI.
///
/// It exists so that the generated specimen carries a real, decodable face image without any image library.
public enum BaselineJPEGEncoder {
    /// T.81 Annex K, Table K.1 — luminance quantization table, natural (row-major) order.
    static let luminanceQuantization: [Int] = [
        16, 11, 10, 16, 24, 40, 51, 61,
        12, 12, 14, 19, 26, 58, 60, 55,
        14, 13, 16, 24, 40, 57, 69, 56,
        14, 17, 22, 29, 51, 87, 80, 62,
        18, 22, 37, 56, 68, 109, 103, 77,
        24, 35, 55, 64, 81, 104, 113, 92,
        49, 64, 78, 87, 103, 121, 120, 101,
        72, 92, 95, 98, 112, 100, 103, 99,
    ]

    /// T.81 Figure A.6 — zig-zag index → natural index.
    static let zigzag: [Int] = [
        0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5,
        12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6, 7, 14, 21, 28,
        35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51,
        58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63,
    ]

    /// T.81 Table K.3 — luminance DC: code counts per length 1…16, then the symbols.
    static let dcBits: [UInt8] = [0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0]
    static let dcValues: [UInt8] = Array(0...11)

    /// T.81 Table K.5 — luminance AC.
    static let acBits: [UInt8] = [0, 2, 1, 3, 3, 2, 4, 3, 5, 5, 4, 4, 0, 0, 1, 0x7D]
    static let acValues: [UInt8] = [
        0x01, 0x02, 0x03, 0x00, 0x04, 0x11, 0x05, 0x12, 0x21, 0x31, 0x41, 0x06, 0x13, 0x51, 0x61, 0x07,
        0x22, 0x71, 0x14, 0x32, 0x81, 0x91, 0xA1, 0x08, 0x23, 0x42, 0xB1, 0xC1, 0x15, 0x52, 0xD1, 0xF0,
        0x24, 0x33, 0x62, 0x72, 0x82, 0x09, 0x0A, 0x16, 0x17, 0x18, 0x19, 0x1A, 0x25, 0x26, 0x27, 0x28,
        0x29, 0x2A, 0x34, 0x35, 0x36, 0x37, 0x38, 0x39, 0x3A, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x49,
        0x4A, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58, 0x59, 0x5A, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68, 0x69,
        0x6A, 0x73, 0x74, 0x75, 0x76, 0x77, 0x78, 0x79, 0x7A, 0x83, 0x84, 0x85, 0x86, 0x87, 0x88, 0x89,
        0x8A, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97, 0x98, 0x99, 0x9A, 0xA2, 0xA3, 0xA4, 0xA5, 0xA6, 0xA7,
        0xA8, 0xA9, 0xAA, 0xB2, 0xB3, 0xB4, 0xB5, 0xB6, 0xB7, 0xB8, 0xB9, 0xBA, 0xC2, 0xC3, 0xC4, 0xC5,
        0xC6, 0xC7, 0xC8, 0xC9, 0xCA, 0xD2, 0xD3, 0xD4, 0xD5, 0xD6, 0xD7, 0xD8, 0xD9, 0xDA, 0xE1, 0xE2,
        0xE3, 0xE4, 0xE5, 0xE6, 0xE7, 0xE8, 0xE9, 0xEA, 0xF1, 0xF2, 0xF3, 0xF4, 0xF5, 0xF6, 0xF7, 0xF8,
        0xF9, 0xFA,
    ]

    /// Canonical Huffman codes from counts and symbols (T.81 Annex C): symbol → (code, length).
    static func huffmanCodes(bits: [UInt8], values: [UInt8]) -> [UInt8: (code: UInt32, length: Int)] {
        var table: [UInt8: (UInt32, Int)] = [:]
        var code: UInt32 = 0
        var k = 0
        for length in 1...16 {
            for _ in 0..<Int(bits[length - 1]) {
                table[values[k]] = (code, length)
                code += 1
                k += 1
            }
            code <<= 1
        }
        return table.mapValues { (code: $0.0, length: $0.1) }
    }

    /// The quantization table (natural order) for a quality factor 1…100 (the IJG scaling of Table K.1).
    public static func quantizationTable(quality: Int) -> [Int] {
        let q = min(max(quality, 1), 100)
        let scale = q < 50 ? 5000 / q : 200 - 2 * q
        return luminanceQuantization.map { min(max(($0 * scale + 50) / 100, 1), 255) }
    }

    /// Encodes `pixels` (row-major, `width × height` 8-bit luminance samples).
    /// - Parameter comments: contents of COM segments (each ≤ 65533 bytes) placed after APP0.
    public static func encode(width: Int, height: Int, pixels: [UInt8], quality: Int = 75,
                              comments: [[UInt8]] = []) -> [UInt8] {
        precondition(width > 0 && height > 0 && width <= 65535 && height <= 65535 && pixels.count == width * height)
        let qt = quantizationTable(quality: quality)
        var out: [UInt8] = [0xFF, 0xD8]
        // APP0 JFIF 1.01, aspect ratio 1:1, no thumbnail.
        out += [0xFF, 0xE0, 0x00, 0x10, 0x4A, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00]
        for c in comments {
            precondition(c.count <= 65533)
            out += [0xFF, 0xFE] + be16(c.count + 2) + c
        }
        // DQT (B.2.4.1): Pq=0, Tq=0, 64 values in zig-zag order.
        out += [0xFF, 0xDB, 0x00, 0x43, 0x00] + zigzag.map { UInt8(qt[$0]) }
        // SOF0 (B.2.2): P=8, Y, X, Nf=1, component 1 with H=V=1, Tq=0.
        out += [0xFF, 0xC0, 0x00, 0x0B, 0x08] + be16(height) + be16(width) + [0x01, 0x01, 0x11, 0x00]
        // DHT (B.2.4.2): DC table 0 and AC table 0.
        out += [0xFF, 0xC4] + be16(2 + 1 + 16 + dcValues.count) + [0x00] + dcBits + dcValues
        out += [0xFF, 0xC4] + be16(2 + 1 + 16 + acValues.count) + [0x10] + acBits + acValues
        // SOS (B.2.3): Ns=1, component 1 uses DC 0 / AC 0, Ss=0, Se=63, Ah=Al=0.
        out += [0xFF, 0xDA, 0x00, 0x08, 0x01, 0x01, 0x00, 0x00, 0x3F, 0x00]
        out += entropyCoded(width: width, height: height, pixels: pixels, qt: qt)
        out += [0xFF, 0xD9]
        return out
    }

    static func be16(_ v: Int) -> [UInt8] { [UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }

    /// DCT basis c[u][x] = C(u)/2 · cos((2x+1)uπ/16), C(0) = 1/√2 (T.81 §A.3.3), flattened as [u * 8 + x].
    static let basis: [Double] = (0..<64).map { (i: Int) -> Double in
        let u = i / 8, x = i % 8
        let cu: Double = u == 0 ? 1.0 / 2.0.squareRoot() : 1.0
        let angle: Double = Double(2 * x + 1) * Double(u) * Double.pi / 16.0
        return cu / 2.0 * cos(angle)
    }

    static func entropyCoded(width: Int, height: Int, pixels: [UInt8], qt: [Int]) -> [UInt8] {
        let dc = huffmanCodes(bits: dcBits, values: dcValues)
        let ac = huffmanCodes(bits: acBits, values: acValues)
        var writer = BitWriter()
        var previousDC = 0
        var block = [Double](repeating: 0, count: 64)
        var tmp = [Double](repeating: 0, count: 64)
        var coefficients = [Int](repeating: 0, count: 64)
        let reciprocal = qt.map { 1.0 / Double($0) }
        for by in stride(from: 0, to: height, by: 8) {
            for bx in stride(from: 0, to: width, by: 8) {
                pixels.withUnsafeBufferPointer { px in
                    block.withUnsafeMutableBufferPointer { f in
                        for y in 0..<8 {
                            let row = min(by + y, height - 1) * width
                            for x in 0..<8 { f[y * 8 + x] = Double(px[row + min(bx + x, width - 1)]) - 128 }
                        }
                    }
                }
                // Rows then columns: tmp[y][u] = Σx c[u][x] f[y][x]; F[v][u] = Σy c[v][y] tmp[y][u].
                basis.withUnsafeBufferPointer { c in
                    block.withUnsafeBufferPointer { f in
                        tmp.withUnsafeMutableBufferPointer { t in
                            for y in 0..<8 {
                                for u in 0..<8 {
                                    var s = 0.0
                                    for x in 0..<8 { s += c[u * 8 + x] * f[y * 8 + x] }
                                    t[y * 8 + u] = s
                                }
                            }
                        }
                    }
                    tmp.withUnsafeBufferPointer { t in
                        coefficients.withUnsafeMutableBufferPointer { out in
                            for v in 0..<8 {
                                for u in 0..<8 {
                                    var s = 0.0
                                    for y in 0..<8 { s += c[v * 8 + y] * t[y * 8 + u] }
                                    out[v * 8 + u] = Int((s * reciprocal[v * 8 + u]).rounded())
                                }
                            }
                        }
                    }
                }
                // DC difference (F.1.2.1).
                let diff = coefficients[0] - previousDC
                previousDC = coefficients[0]
                let dcCategory = magnitudeCategory(diff)
                writer.write(dc[UInt8(dcCategory)]!)
                if dcCategory > 0 { writer.write(additionalBits(diff, dcCategory), dcCategory) }
                // AC run-length coding (F.1.2.2).
                var run = 0
                for k in 1..<64 {
                    let value = coefficients[zigzag[k]]
                    if value == 0 { run += 1; continue }
                    while run > 15 { writer.write(ac[0xF0]!); run -= 16 }
                    let category = magnitudeCategory(value)
                    writer.write(ac[UInt8(run << 4 | category)]!)
                    writer.write(additionalBits(value, category), category)
                    run = 0
                }
                if run > 0 { writer.write(ac[0x00]!) }
            }
        }
        writer.flush()
        return writer.bytes
    }

    /// SSSS: the number of bits of |v| (T.81 Table F.1/F.2).
    static func magnitudeCategory(_ v: Int) -> Int {
        var m = abs(v), n = 0
        while m > 0 { n += 1; m >>= 1 }
        return n
    }

    /// The low `n` bits appended after the Huffman code: v for v > 0, v − 1 (two's complement) for v < 0 (F.1.2.1).
    static func additionalBits(_ v: Int, _ n: Int) -> UInt32 {
        UInt32(truncatingIfNeeded: (v >= 0 ? v : v + (1 << n) - 1)) & ((1 << UInt32(n)) - 1)
    }

    struct BitWriter {
        var bytes: [UInt8] = []
        var accumulator: UInt32 = 0
        var count = 0

        mutating func write(_ code: (code: UInt32, length: Int)) { write(code.code, code.length) }

        mutating func write(_ value: UInt32, _ length: Int) {
            for i in stride(from: length - 1, through: 0, by: -1) {
                accumulator = accumulator << 1 | (value >> UInt32(i) & 1)
                count += 1
                if count == 8 { emit() }
            }
        }

        mutating func emit() {
            let b = UInt8(accumulator & 0xFF)
            bytes.append(b)
            if b == 0xFF { bytes.append(0x00) } // byte stuffing (F.1.2.3)
            accumulator = 0
            count = 0
        }

        /// Pads the last byte with 1-bits (F.1.2.3).
        mutating func flush() {
            while count != 0 { write(1, 1) }
        }
    }
}

/// Draws the synthetic specimen face: background, hair, an oval face, eyes, nose, mouth, shoulders.
/// Geometry scales with the image size; no real person is depicted.
public enum SyntheticFace {
    public static func pixels(width: Int, height: Int) -> [UInt8] {
        let w = Double(width), h = Double(height)
        func inEllipse(_ x: Double, _ y: Double, _ cx: Double, _ cy: Double, _ rx: Double, _ ry: Double) -> Bool {
            let dx = (x - cx) / rx, dy = (y - cy) / ry
            return dx * dx + dy * dy <= 1
        }
        var out = [UInt8](repeating: 0, count: width * height)
        for j in 0..<height {
            for i in 0..<width {
                let x = Double(i) + 0.5, y = Double(j) + 0.5
                var v = 215.0 - 20 * y / h // background with a soft gradient
                if y > h * 0.80 || inEllipse(x, y, w * 0.5, h * 1.05, w * 0.48, h * 0.25) { v = 70 } // shoulders
                if inEllipse(x, y, w * 0.5, h * 0.76, w * 0.11, h * 0.12) { v = 150 } // neck
                if inEllipse(x, y, w * 0.5, h * 0.40, w * 0.33, h * 0.33) { v = 45 } // hair
                if inEllipse(x, y, w * 0.5, h * 0.47, w * 0.27, h * 0.33) {
                    // face, lightly shaded towards the edges
                    let dx = (x - w * 0.5) / (w * 0.27)
                    v = 185 - 25 * dx * dx
                }
                for side in [-1.0, 1.0] {
                    let ex = w * 0.5 + side * w * 0.11, ey = h * 0.42
                    if inEllipse(x, y, ex, ey - h * 0.045, w * 0.06, h * 0.008) { v = 60 } // brow
                    if inEllipse(x, y, ex, ey, w * 0.055, h * 0.022) { v = 235 } // eye white
                    if inEllipse(x, y, ex, ey, w * 0.022, h * 0.02) { v = 30 } // iris
                }
                if abs(x - w * 0.5) < w * 0.012 && y > h * 0.45 && y < h * 0.55 { v = 140 } // nose ridge
                if inEllipse(x, y, w * 0.5, h * 0.555, w * 0.04, h * 0.012) { v = 120 } // nostrils
                if inEllipse(x, y, w * 0.5, h * 0.635, w * 0.09, h * 0.018) { v = 95 } // mouth
                out[j * width + i] = UInt8(max(0, min(255, v)))
            }
        }
        return out
    }
}
