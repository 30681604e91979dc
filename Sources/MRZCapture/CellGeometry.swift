import Foundation

/// Where the cells of one MRZ line are in its line image. OCR-B is printed at a fixed pitch, each glyph centred in
/// its cell and standing on a common baseline (ICAO 9303-3 §4.3), so the cell centres lie on a smooth curve of the
/// cell index (a straight line, bent slightly by perspective) and the cap line and baseline on straight lines. Each
/// cell's ink is measured, the curves are fitted to the measurements (outliers dropped), and the cells are placed
/// on the fitted curves: a cell whose own ink is odd (a filler, a speck, a broken stroke) still gets the position of
/// its neighbours.
struct CellGeometry {
    /// The cell's centre, cap line and baseline in the line image.
    struct Cell {
        var x: Double
        var capLine: Double
        var baseline: Double
        /// The baseline's rise per pixel along the line.
        var slope = 0.0
    }

    /// The `n` cells of `line` and the ink's top and bottom measured in each (nil where a cell held too little),
    /// or nil when too few cells hold ink that fits one pitch.
    static func cells(_ line: MRZRecognizer.LineImage, count n: Int) -> (cells: [Cell], ink: [(Double, Double)?])? {
        let w = line.width
        let h = line.height
        let m = line.mask
        // first guess: the ink's extent spans n − 1 pitches and one glyph (about 0.7 pitch)
        var pitch = (line.right - line.left) / (Double(n) - 0.3)
        let tracked = track(line, count: n, pitch: pitch)
        var centre: (Int) -> Double = { tracked[$0] }
        var fitted: [Cell] = []
        var ink: [(Double, Double)?] = []
        for _ in 0..<2 {
            ink = Array(repeating: nil, count: n)
            var xs: [(Double, Double)] = []
            var tops: [(Double, Double, Double)] = []
            for i in 0..<n {
                let c = centre(i)
                let a = max(0, Int((c - 0.5 * pitch).rounded()))
                let b = min(w, Int((c + 0.5 * pitch).rounded()))
                guard a < b else { continue }
                var xmin = Int.max
                var xmax = -1
                var ymin = Int.max
                var ymax = -1
                for x in a..<b {
                    var count = 0
                    var y0 = -1
                    var y1 = -1
                    for y in 0..<h where m[y * w + x] != 0 {
                        count += 1
                        if y0 < 0 { y0 = y }
                        y1 = y
                    }
                    guard count >= 2 else { continue }
                    xmin = min(xmin, x)
                    xmax = max(xmax, x)
                    ymin = min(ymin, y0)
                    ymax = max(ymax, y1)
                }
                guard xmax >= xmin, Double(xmax - xmin + 1) >= 0.25 * pitch else { continue }
                xs.append((Double(i), Double(xmin + xmax + 1) / 2))
                tops.append((Double(i), Double(ymin), Double(ymax + 1)))
                ink[i] = (Double(ymin), Double(ymax + 1))
            }
            guard xs.count >= n / 2, let fx = fit(xs, degree: 3, tolerance: 0.2 * pitch) else { return nil }
            let heights = tops.map { $0.2 - $0.1 }.sorted()
            let tall = heights[min(heights.count - 1, heights.count * 9 / 10)]
            let full = tops.filter { $0.2 - $0.1 >= 0.85 * tall && $0.2 - $0.1 <= 1.1 * tall }
            guard full.count >= 4, tall >= 6,
                let ft = fit(full.map { ($0.0, $0.1) }, degree: 1, tolerance: 0.08 * tall),
                let fb = fit(full.map { ($0.0, $0.2) }, degree: 1, tolerance: 0.08 * tall)
            else { return nil }
            func value(_ p: [Double], _ i: Int) -> Double {
                p.enumerated().reduce(0) { $0 + $1.element * pow(Double(i), Double($1.offset)) }
            }
            fitted = (0..<n).map { Cell(x: value(fx, $0), capLine: value(ft, $0), baseline: value(fb, $0)) }
            guard plausible(fitted, maxHeight: 2 * Double(line.height)) else { return nil }
            pitch = (fitted[n - 1].x - fitted[0].x) / Double(n - 1)
            guard pitch > 3 else { return nil }
            let f = fitted
            centre = { f[$0].x }
        }
        return (fitted, ink)
    }

    /// The cap line and baseline refitted from what each cell was read as: OCR-B's digits stand taller than its
    /// capitals and round letters overshoot, so the ink's top is the cap line only for some glyphs. Each cell
    /// read with `confident` glyph `c` gives its own cap line and baseline from the ink it holds and where `c`'s
    /// ink lies on the grid (`OCRBClassifier.inkRows`); straight lines are fitted through them.
    static func refined(_ cells: [Cell], ink: [(Double, Double)?], readings: [Int?]) -> [Cell]? {
        var caps: [(Double, Double)] = []
        var bases: [(Double, Double)] = []
        for (i, c) in readings.enumerated() {
            guard let c, let (top, bottom) = ink[i] else { continue }
            let rows = OCRBClassifier.inkRows[c]
            let t = rows.top - OCRBClassifier.capTop
            let b = rows.bottom - OCRBClassifier.capTop
            guard b - t >= 8 else { continue }
            let s = (bottom - top) / (b - t)
            let cap = top - t * s
            caps.append((Double(i), cap))
            bases.append((Double(i), cap + OCRBClassifier.capRows * s))
        }
        guard caps.count >= 4 else { return nil }
        let h = (cells.map { $0.baseline - $0.capLine }.sorted())[cells.count / 2]
        guard let fc = fit(caps, degree: 1, tolerance: 0.06 * h), let fb = fit(bases, degree: 1, tolerance: 0.06 * h)
        else { return nil }
        let out = cells.enumerated().map { i, cell in
            let a = cells[max(0, i - 1)].x
            let b = cells[min(cells.count - 1, i + 1)].x
            let step = (b - a) / Double(min(cells.count - 1, i + 1) - max(0, i - 1))
            return Cell(
                x: cell.x, capLine: fc[0] + fc[1] * Double(i), baseline: fb[0] + fb[1] * Double(i),
                slope: step > 0 ? fb[1] / step : 0)
        }
        return plausible(out, maxHeight: 2 * h) ? out : nil
    }

    /// Fitted cells a line image could hold: increasing centres, a cap height from 6 pixels to `maxHeight`, a slope
    /// under 1 in 4. A fit through hostile or broken ink can be anything; these bounds also bound what sampling the
    /// cells costs.
    static func plausible(_ cells: [Cell], maxHeight: Double) -> Bool {
        for (i, c) in cells.enumerated() {
            let h = c.baseline - c.capLine
            guard c.x.isFinite, h.isFinite, h >= 6, h <= maxHeight, abs(c.slope) < 0.25 else { return false }
            if i > 0 && c.x <= cells[i - 1].x { return false }
        }
        return true
    }

    /// A first guess of the cell centres that follows a pitch changing along the line (a page seen at an angle):
    /// from the left, each centre is the previous one plus the pitch so far, moved onto the run of ink columns
    /// found there (a run no wider than a glyph), the pitch updated from what was found.
    static func track(_ line: MRZRecognizer.LineImage, count n: Int, pitch p0: Double) -> [Double] {
        var runs: [(a: Int, b: Int)] = []
        var start: Int?
        for x in Int(line.left)...Int(line.right) {
            let inked = x < line.width && line.columnInk[x] >= 2
            if inked, start == nil { start = x }
            if !inked, let s = start {
                runs.append((s, x))
                start = nil
            }
        }
        var out: [Double] = []
        var pitch = p0
        var previous = line.left + 0.35 * p0 - p0
        for i in 0..<n {
            let predicted = previous + pitch
            let near = runs.filter { r in
                Double(r.b - r.a) <= 1.05 * pitch && abs(Double(r.a + r.b) / 2 - predicted) <= 0.35 * pitch
            }
            let found = near.min { abs(Double($0.a + $0.b) / 2 - predicted) < abs(Double($1.a + $1.b) / 2 - predicted) }
            let c = found.map { Double($0.a + $0.b) / 2 } ?? predicted
            if i > 0, found != nil { pitch = 0.7 * pitch + 0.3 * (c - previous) }
            out.append(c)
            previous = c
        }
        return out
    }

    /// A least-squares polynomial of `degree` through the points, refitted once without the points further than
    /// `tolerance` from the first fit; coefficients from the constant up.
    static func fit(_ points: [(Double, Double)], degree: Int, tolerance: Double) -> [Double]? {
        func solve(_ pts: [(Double, Double)]) -> [Double]? {
            let k = degree + 1
            guard pts.count >= k + 1 else { return nil }
            var a = [[Double]](repeating: [Double](repeating: 0, count: k + 1), count: k)
            for (x, y) in pts {
                var powers = [Double](repeating: 1, count: 2 * k)
                for j in 1..<(2 * k) { powers[j] = powers[j - 1] * x }
                for r in 0..<k {
                    for c in 0..<k { a[r][c] += powers[r + c] }
                    a[r][k] += powers[r] * y
                }
            }
            for col in 0..<k {
                guard let pivot = (col..<k).max(by: { abs(a[$0][col]) < abs(a[$1][col]) }), abs(a[pivot][col]) > 1e-12
                else { return nil }
                a.swapAt(col, pivot)
                for r in 0..<k where r != col {
                    let f = a[r][col] / a[col][col]
                    for c in col...k { a[r][c] -= f * a[col][c] }
                }
            }
            return (0..<k).map { a[$0][k] / a[$0][$0] }
        }
        guard let first = solve(points) else { return nil }
        func value(_ x: Double, _ p: [Double]) -> Double {
            p.enumerated().reduce(0) { $0 + $1.element * pow(x, Double($1.offset)) }
        }
        let kept = points.filter { abs(value($0.0, first) - $0.1) <= tolerance }
        return kept.count == points.count ? first : solve(kept)
    }
}
