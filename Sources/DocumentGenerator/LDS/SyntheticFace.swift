/// Draws the synthetic specimen face: background, hair, an oval face, eyes, nose, mouth, shoulders.
/// Geometry scales with the image size; no real person is depicted.
public enum SyntheticFace {
    public static func pixels(width: Int, height: Int) -> [UInt8] {
        let w = Double(width)
        let h = Double(height)
        func inEllipse(_ x: Double, _ y: Double, _ cx: Double, _ cy: Double, _ rx: Double, _ ry: Double) -> Bool {
            let dx = (x - cx) / rx
            let dy = (y - cy) / ry
            return dx * dx + dy * dy <= 1
        }
        var out = [UInt8](repeating: 0, count: width * height)
        for j in 0..<height {
            for i in 0..<width {
                let x = Double(i) + 0.5
                let y = Double(j) + 0.5
                var v = 215.0 - 20 * y / h  // background with a soft gradient
                if y > h * 0.80 || inEllipse(x, y, w * 0.5, h * 1.05, w * 0.48, h * 0.25) { v = 70 }  // shoulders
                if inEllipse(x, y, w * 0.5, h * 0.76, w * 0.11, h * 0.12) { v = 150 }  // neck
                if inEllipse(x, y, w * 0.5, h * 0.40, w * 0.33, h * 0.33) { v = 45 }  // hair
                if inEllipse(x, y, w * 0.5, h * 0.47, w * 0.27, h * 0.33) {
                    // face, lightly shaded towards the edges
                    let dx = (x - w * 0.5) / (w * 0.27)
                    v = 185 - 25 * dx * dx
                }
                for side in [-1.0, 1.0] {
                    let ex = w * 0.5 + side * w * 0.11
                    let ey = h * 0.42
                    if inEllipse(x, y, ex, ey - h * 0.045, w * 0.06, h * 0.008) { v = 60 }  // brow
                    if inEllipse(x, y, ex, ey, w * 0.055, h * 0.022) { v = 235 }  // eye white
                    if inEllipse(x, y, ex, ey, w * 0.022, h * 0.02) { v = 30 }  // iris
                }
                if abs(x - w * 0.5) < w * 0.012 && y > h * 0.45 && y < h * 0.55 { v = 140 }  // nose ridge
                if inEllipse(x, y, w * 0.5, h * 0.555, w * 0.04, h * 0.012) { v = 120 }  // nostrils
                if inEllipse(x, y, w * 0.5, h * 0.635, w * 0.09, h * 0.018) { v = 95 }  // mouth
                out[j * width + i] = UInt8(max(0, min(255, v)))
            }
        }
        return out
    }

    /// The same face in colour (interleaved RGB): a blue-grey background, skin tones, dark brown hair and
    /// clothes, with a fixed pseudo-random grain of ±`grain` levels so that it compresses like a photograph
    /// rather than a drawing. Deterministic.
    public static func rgbPixels(width: Int, height: Int, grain: Int = 6) -> [UInt8] {
        let gray = pixels(width: width, height: height)
        var out = [UInt8](repeating: 0, count: width * height * 3)
        var state: UInt32 = 0x2545_F491
        for (i, v8) in gray.enumerated() {
            let v = Int(v8)
            var (r, g, b): (Int, Int, Int)
            switch v {
            case 195...: (r, g, b) = (v - 25, v - 10, v + 10)  // background, eye whites
            case 135..<195: (r, g, b) = (v + 45, v + 5, v - 25)  // skin
            default: (r, g, b) = (v + 20, v + 5, v - 5)  // hair, brows, clothes, mouth
            }
            if grain > 0 {
                state ^= state << 13
                state ^= state >> 17
                state ^= state << 5  // xorshift32
                let n = Int(state % UInt32(2 * grain + 1)) - grain
                r += n
                g += n
                b += n
            }
            out[3 * i] = UInt8(clamping: r)
            out[3 * i + 1] = UInt8(clamping: g)
            out[3 * i + 2] = UInt8(clamping: b)
        }
        return out
    }
}
