import Foundation

/// Reads one MRZ character cell by comparing it with the 37 OCR-B glyphs of the zone (ICAO 9303-3 §4.3: A–Z, 0–9
/// and `<`, one fixed typeface at a fixed pitch).
///
/// A cell is sampled onto a small grid in the glyph's own frame: horizontally centred on the cell, vertically from
/// the cap line to the baseline, at one scale for both axes. The same sampling turns the font's glyphs into the
/// reference table (`OCRBGlyphs`, generated from the font and checked against it by a test), so a cell and its
/// glyph differ only by what the capture did to it. Both are lightly smoothed and compared by normalised
/// correlation at the nine one-pixel shifts; the score of a class is its best correlation.
enum OCRBClassifier {
    /// The grid: 20 × 28 samples, the cap height 24 samples from row 2.
    static let width = 20
    static let height = 28
    static let capTop = 2.0
    static let capRows = 24.0
    /// Extra samples around a cell's grid, for the shifts.
    static let margin = 1

    /// The classes in score order: digits, letters, filler.
    static let classes: [Character] = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ<")
    static let classIndex: [Character: Int] = Dictionary(
        uniqueKeysWithValues: classes.enumerated().map { ($1, $0) })

    /// Samples a cell onto the grid (with `margin` extra samples on each side): `ink(x, y)` is the ink, 0…1, at a
    /// point of the source; `centreX` the cell's centre, `capLine` and `baseline` the zone's cap line and baseline
    /// at that centre, all in source coordinates. Each sample averages k × k points of its square.
    ///
    /// `slope` is the line's rise per pixel along it and `shear` how far the glyph's verticals lean (horizontal
    /// pixels per vertical one, about mid-height): a page seen at an angle turns and leans its lines a little.
    static func sample(
        margin m: Int, centreX: Double, capLine: Double, baseline: Double, slope: Double = 0, shear: Double = 0,
        ink: (Double, Double) -> Double
    ) -> [Float] {
        let s = (baseline - capLine) / capRows
        // k × k points per sample; capped, so a cell however large costs at most 36 reads per sample
        let k = min(6, max(2, Int(s.rounded(.up))))
        let gw = width + 2 * m
        let gh = height + 2 * m
        var out = [Float](repeating: 0, count: gw * gh)
        let step = s / Double(k)
        let mid = capRows / 2 * s
        for gy in 0..<gh {
            let v0 = (Double(gy - m) - capTop) * s + step / 2
            for gx in 0..<gw {
                let u0 = (Double(gx - m) - Double(width) / 2) * s + step / 2
                var sum = 0.0
                for a in 0..<k {
                    let v = v0 + Double(a) * step
                    for b in 0..<k {
                        let u = u0 + Double(b) * step
                        sum += ink(centreX + u + shear * (v - mid), capLine + v + slope * u)
                    }
                }
                out[gy * gw + gx] = Float(sum / Double(k * k))
            }
        }
        return out
    }

    /// A 3 × 3 mean of a w × h grid (outside counts as no ink): a blurred capture and a sharp glyph then meet half
    /// way, and a one-pixel misplacement costs less.
    static func smoothed(_ v: [Float], w: Int, h: Int) -> [Float] {
        var out = [Float](repeating: 0, count: v.count)
        for y in 0..<h {
            for x in 0..<w {
                var s: Float = 0
                for dy in -1...1 where y + dy >= 0 && y + dy < h {
                    for dx in -1...1 where x + dx >= 0 && x + dx < w { s += v[(y + dy) * w + x + dx] }
                }
                out[y * w + x] = s / 9
            }
        }
        return out
    }

    /// The reference glyphs, smoothed, zero-mean and of unit norm, in `classes` order.
    static let templates: [[Float]] = classes.map { c in
        let raw = OCRBGlyphs.grid(c)
        let smooth = smoothed(raw, w: width, h: height)
        let mean = smooth.reduce(0, +) / Float(smooth.count)
        let centred = smooth.map { $0 - mean }
        let norm = max(1e-6, (centred.reduce(0) { $0 + $1 * $1 }).squareRoot())
        return centred.map { $0 / norm }
    }

    /// The rows of the grid each glyph's ink spans (samples of at least 45 % ink, as the line image's mask counts
    /// ink), top inclusive, bottom exclusive.
    static let inkRows: [(top: Double, bottom: Double)] = classes.map { c in
        let g = OCRBGlyphs.grid(c)
        let rows = (0..<height).filter { y in (0..<width).contains { g[y * width + $0] >= 0.45 } }
        return (Double(rows.first ?? 0), Double((rows.last ?? 0) + 1))
    }

    /// How alike two glyphs are: the score glyph `b` gets for a perfect print of glyph `a` (1 on the diagonal).
    /// O and D share most of their ink, so a cell that is an O scores high as a D too: the gap between two scores
    /// means something only against the gap a perfect print would show (`separation`).
    static let similarity: [[Float]] = classes.indices.map { a in
        var cell = [Float](repeating: 0, count: (width + 2 * margin) * (height + 2 * margin))
        let g = OCRBGlyphs.grid(classes[a])
        for y in 0..<height {
            for x in 0..<width { cell[(y + margin) * (width + 2 * margin) + x + margin] = g[y * width + x] }
        }
        return scores(cell)
    }

    /// How far a cell's reading as `a` is ahead of its reading as `b`, as a share of how far a perfect print of `a`
    /// would be: 1 for a perfect `a`, 0 when the two score alike, negative when `b` scores higher.
    static func separation(_ s: [Float], _ a: Int, _ b: Int) -> Float {
        (s[a] - s[b]) / max(0.02, similarity[a][a] - similarity[a][b])
    }

    /// The score of every class (in `classes` order) for a cell sampled with `margin`: the best normalised
    /// correlation over the nine one-sample shifts, −1…1 (kept at 0 or above). Every glyph is compared unshifted; the
    /// eight best are then also compared at the eight shifts (the others stay far behind). A cell without contrast
    /// scores 0 everywhere.
    static func scores(_ cell: [Float]) -> [Float] {
        let gw = width + 2 * margin
        let gh = height + 2 * margin
        let v = smoothed(cell, w: gw, h: gh)
        var best = [Float](repeating: -1, count: classes.count)
        let n = Float(width * height)
        v.withUnsafeBufferPointer { v in
            func compare(_ dx: Int, _ dy: Int, _ which: [Int]) {
                let ox = margin + dx
                let oy = margin + dy
                var sum: Float = 0
                var sq: Float = 0
                for y in 0..<height {
                    let row = (y + oy) * gw + ox
                    for x in 0..<width {
                        let p = v[row + x]
                        sum += p
                        sq += p * p
                    }
                }
                let variance = sq - sum * sum / n
                guard variance > 1e-4 else { return }
                let norm = variance.squareRoot()
                for c in which {
                    var dot: Float = 0
                    templates[c].withUnsafeBufferPointer { t in
                        for y in 0..<height {
                            let row = (y + oy) * gw + ox
                            let trow = y * width
                            for x in 0..<width { dot += v[row + x] * t[trow + x] }
                        }
                    }
                    best[c] = max(best[c], dot / norm)
                }
            }
            compare(0, 0, Array(classes.indices))
            let top = Array(classes.indices.sorted { best[$0] > best[$1] }.prefix(8))
            for dy in -margin...margin {
                for dx in -margin...margin where dx != 0 || dy != 0 { compare(dx, dy, top) }
            }
        }
        return best.map { max(0, $0) }
    }
}
