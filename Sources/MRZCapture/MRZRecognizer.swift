internal import CLeptonica
import Foundation
public import MRTDDocument

/// An MRZ read from an image, every check digit holding.
public struct MRZRecognition: Sendable, CustomStringConvertible {
    public let mrz: MRZ
    /// Tesseract's mean character confidence over the zone, 0…1.
    public let confidence: Double
    /// Characters changed from what OCR read (digit/letter confusions in fields of one kind, fillers).
    public let corrections: Int

    /// Redacted: the MRZ is an access key.
    public var description: String {
        "MRZRecognition(\(mrz.format.rawValue), confidence \(Int(confidence * 100)) %, \(corrections) corrections)"
    }
}

/// Finds the machine-readable zone in a photo or scan (JPEG, PNG or PGM/PPM) and reads it (ICAO 9303-3 §4):
///
/// 1. the header is checked against `MRZCaptureLimits` before anything is decoded;
/// 2. the image is reduced to grey at about 1,200 pixels, dark detail is lifted out of uneven light (black
///    top-hat), its skew is measured (±12°) and undone;
/// 3. text lines are merged into bars; the MRZ is the widest group of 2 or 3 equally long, left-aligned bars at
///    the line spacing of the zone;
/// 4. each line is cut from the full-resolution image, scaled to a 34-pixel character height and read by Tesseract
///    (LSTM, `eng`, whitelist `A–Z 0–9 <`, one line, no dictionaries); OCR-B is monospaced, so each character is put
///    in its column by position, which fixes the count of long filler runs;
/// 5. `MRZCorrection` returns an MRZ only when every check digit holds, resolving a confusion only when one
///    reading alone makes them hold.
///
/// Images live in memory only: every Leptonica image is overwritten before it is freed. One recognizer holds one
/// Tesseract engine (about 100 ms to load); calls on it are serialised.
public final class MRZRecognizer: @unchecked Sendable {
    public let limits: MRZCaptureLimits
    private let engine: TesseractEngine
    private let lock = NSLock()

    /// `dataPath`: the folder holding `eng.traineddata` (nil: Tesseract's own default or `TESSDATA_PREFIX`).
    public init(limits: MRZCaptureLimits = .standard, dataPath: String? = nil) throws(MRZCaptureError) {
        LeptonicaSetup.quiet
        self.limits = limits
        engine = try TesseractEngine(dataPath: dataPath)
    }

    /// The image formats accepted, by their leading bytes.
    public enum ImageFormat: String, Sendable { case jpeg, png, pnm }

    /// The declared format and size, checked against `limits`; nothing is decoded.
    public static func checkHeader(_ bytes: [UInt8], limits: MRZCaptureLimits = .standard) throws(MRZCaptureError)
        -> (format: ImageFormat, width: Int, height: Int)
    {
        LeptonicaSetup.quiet
        guard bytes.count <= limits.maxInputBytes else {
            throw MRZCaptureError(.tooLarge, "\(bytes.count) bytes exceed the limit of \(limits.maxInputBytes)")
        }
        let format: ImageFormat
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) {
            format = .jpeg
        } else if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            format = .png
        } else if bytes.count >= 3, bytes[0] == UInt8(ascii: "P"),
            (UInt8(ascii: "1")...UInt8(ascii: "6")).contains(bytes[1]),
            [0x20, 0x09, 0x0A, 0x0D].contains(bytes[2])
        {
            format = .pnm
        } else {
            throw MRZCaptureError(.notAnImage, "not a JPEG, PNG or PGM/PPM image")
        }
        var f: Int32 = 0
        var w: Int32 = 0
        var h: Int32 = 0
        var bps: Int32 = 0
        var spp: Int32 = 0
        var cmap: Int32 = 0
        let status = bytes.withUnsafeBufferPointer { b in
            pixReadHeaderMem(b.baseAddress, b.count, &f, &w, &h, &bps, &spp, &cmap)
        }
        guard status == 0, w > 0, h > 0 else {
            throw MRZCaptureError(.decodeFailed, "the \(format.rawValue) header could not be read")
        }
        guard Int(w) <= limits.maxSide, Int(h) <= limits.maxSide, Int(w) * Int(h) <= limits.maxPixels else {
            throw MRZCaptureError(
                .tooLarge,
                "\(w) × \(h) pixels exceed the limit (\(limits.maxSide) per side, \(limits.maxPixels) in all)")
        }
        return (format, Int(w), Int(h))
    }

    /// Reads the MRZ in `bytes`.
    public func recognize(_ bytes: [UInt8]) throws(MRZCaptureError) -> MRZRecognition {
        let gray = try decode(bytes)
        lock.lock()
        defer { lock.unlock() }
        return try read(gray)
    }

    /// The image in `bytes` as 8-bit grey, its header checked first.
    func decode(_ bytes: [UInt8]) throws(MRZCaptureError) -> PixImage {
        let header = try Self.checkHeader(bytes, limits: limits)
        let decoded = try bytes.withUnsafeBufferPointer { b throws(MRZCaptureError) in
            try PixImage.checked(pixReadMem(b.baseAddress, b.count), "decoding the \(header.format.rawValue) image")
        }
        guard decoded.width == header.width, decoded.height == header.height else {
            throw MRZCaptureError(.decodeFailed, "the decoded size differs from the header's")
        }
        return try PixImage.checked(pixConvertTo8(decoded.pix, 0), "pixConvertTo8")
    }

    // MARK: - Steps

    /// A line of the zone in the deskewed full-resolution image.
    struct LineBox {
        var x: Double
        var y: Double
        var w: Double
        var h: Double
    }

    func read(_ gray: PixImage) throws(MRZCaptureError) -> MRZRecognition {
        let (format, scores, lines) = try cellScores(gray)
        // Tesseract, a second opinion where a name, code or sex cell is close between two glyphs: it reads that
        // line once, and the cell stands only if it names the same glyph
        var opinions: [Int: [Character?]] = [:]
        let secondOpinion = { (l: Int, i: Int, best: Character) -> Bool in
            if opinions[l] == nil { opinions[l] = self.tesseractColumns(lines[l].image, lines[l].cells) }
            guard let c = opinions[l]?[i] else { return false }
            return (MRZCorrection.digitAsLetter[c] ?? c) == best
        }
        guard
            let (mrz, changes, confidence) = MRZCorrection.decide(scores, format: format, secondOpinion: secondOpinion)
        else {
            throw MRZCaptureError(.unreadable, "the \(format.rawValue) zone could not be read unambiguously")
        }
        return MRZRecognition(mrz: mrz, confidence: min(1, confidence), corrections: changes)
    }

    /// Tesseract's reading of a line, each character put in the cell its centre falls in (nil: none there).
    func tesseractColumns(_ line: LineImage, _ cells: [CellGeometry.Cell]) -> [Character?] {
        var out: [(Character, Double)?] = Array(repeating: nil, count: cells.count)
        for s in engine.read(line.image) {
            let centre = Double(s.left) + Double(s.right - s.left) * (Double(s.index) + 0.5) / Double(s.of)
            guard let i = cells.indices.min(by: { abs(cells[$0].x - centre) < abs(cells[$1].x - centre) }) else {
                continue
            }
            let pitch = cells.count > 1 ? abs(cells[cells.count - 1].x - cells[0].x) / Double(cells.count - 1) : 0
            guard abs(cells[i].x - centre) <= 0.5 * pitch else { continue }
            if let other = out[i], other.1 >= s.confidence { continue }
            out[i] = (s.character, s.confidence)
        }
        return out.map { $0?.0 }
    }

    /// The zone's format; for each line and cell, the classifier's score of every OCR-B glyph; each line's image and
    /// cells.
    func cellScores(_ gray: PixImage) throws(MRZCaptureError)
        -> (MRZFormat, [[[Float]]], [(image: LineImage, cells: [CellGeometry.Cell])])
    {
        let (angle, lines) = try locate(gray)
        let upright = abs(angle) > 0.15 ? try gray.rotated(angle * Double.pi / 180) : gray
        var images: [LineImage] = []
        for box in lines { images.append(try lineImage(upright, box, height: 34, clean: true)) }
        let format: MRZFormat
        if lines.count == 3 {
            format = .td1
        } else {
            // a TD3 line holds 44 cells, a TD2 line 36: the line's length over its pitch tells them apart
            let counts = images.map { ($0.right - $0.left) / Self.pitch($0) + 0.3 }
            format = counts.reduce(0, +) / Double(counts.count) > 40 ? .td3 : .td2
        }
        var scores: [[[Float]]] = []
        var placed: [(image: LineImage, cells: [CellGeometry.Cell])] = []
        for (i, line) in images.enumerated() {
            guard let (cells, ink) = CellGeometry.cells(line, count: format.lineLength) else {
                throw MRZCaptureError(.unreadable, "line \(i + 1) of the zone could not be divided into cells")
            }
            let first = cells.map { OCRBClassifier.scores(Self.sample(line, $0)) }
            // the cells read with confidence place the cap line and baseline; then every cell is read again
            let readings = first.map { s -> Int? in
                let best = s.indices.max { s[$0] < s[$1] }!
                return s[best] >= 0.75 ? best : nil
            }
            guard let refined = CellGeometry.refined(cells, ink: ink, readings: readings) else {
                scores.append(first)
                placed.append((line, cells))
                continue
            }
            placed.append((line, refined))
            // the lean of the glyphs' verticals (a page seen at an angle): the one under which every third cell
            // reads best
            var lean = (shear: 0.0, score: -Float.infinity)
            for shear in [-0.08, -0.04, 0, 0.04, 0.08] {
                let probe = stride(from: 0, to: refined.count, by: 3).map {
                    OCRBClassifier.scores(Self.sample(line, refined[$0], shear: shear)).max()!
                }
                let mean = probe.reduce(0, +) / Float(probe.count)
                if mean > lean.score { lean = (shear, mean) }
            }
            scores.append(refined.map { OCRBClassifier.scores(Self.sample(line, $0, shear: lean.shear)) })
        }
        return (format, scores, placed)
    }

    /// The line's pitch: the shift, between half and one and a half character heights, at which its column ink
    /// profile best matches itself (the glyphs repeat at the pitch).
    static func pitch(_ line: LineImage) -> Double {
        let a = Int(line.left)
        let b = Int(line.right)
        let v = line.columnInk[a..<b].map(Double.init)
        let mean = v.reduce(0, +) / Double(max(1, v.count))
        let c = v.map { $0 - mean }
        var best = (lag: 1, score: -Double.infinity)
        for lag in max(2, line.inkHeight / 2)...max(3, line.inkHeight * 3 / 2) where lag < c.count / 2 {
            var sum = 0.0
            for i in 0..<(c.count - lag) { sum += c[i] * c[i + lag] }
            let score = sum / Double(c.count - lag)
            if score > best.score { best = (lag, score) }
        }
        // refine the peak between its neighbours (a parabola through three points)
        func at(_ lag: Int) -> Double {
            guard lag > 0, lag < c.count else { return 0 }
            var sum = 0.0
            for i in 0..<(c.count - lag) { sum += c[i] * c[i + lag] }
            return sum / Double(c.count - lag)
        }
        let (l, m, r) = (at(best.lag - 1), at(best.lag), at(best.lag + 1))
        let d = l - 2 * m + r
        return Double(best.lag) + (d < 0 ? max(-0.5, min(0.5, 0.5 * (l - r) / d)) : 0)
    }

    /// A cell of a line image on the classifier's grid (ink from the grey, bilinear).
    static func sample(_ line: LineImage, _ cell: CellGeometry.Cell, shear: Double = 0) -> [Float] {
        let w = line.width
        let h = line.height
        return line.gray.withUnsafeBufferPointer { g in
            OCRBClassifier.sample(
                margin: OCRBClassifier.margin, centreX: cell.x, capLine: cell.capLine, baseline: cell.baseline,
                slope: cell.slope, shear: shear
            ) { x, y in
                let fx = x - 0.5
                let fy = y - 0.5
                let x0 = Int(fx.rounded(.down))
                let y0 = Int(fy.rounded(.down))
                guard x0 >= 0, y0 >= 0, x0 + 1 < w, y0 + 1 < h else { return 0 }
                let ax = fx - Double(x0)
                let ay = fy - Double(y0)
                let i = y0 * w + x0
                let top = Double(g[i]) * (1 - ax) + Double(g[i + 1]) * ax
                let bottom = Double(g[i + w]) * (1 - ax) + Double(g[i + w + 1]) * ax
                return 1 - (top * (1 - ay) + bottom * ay) / 255
            }
        }
    }

    /// The skew in degrees and the zone's lines in the deskewed full-resolution image.
    func locate(_ gray: PixImage) throws(MRZCaptureError) -> (Double, [LineBox]) {
        let (angle, s, boxes) = try bars(gray)
        guard let group = Self.zone(boxes) else {
            throw MRZCaptureError(.noMRZFound, "no band of 2 or 3 machine-readable lines was found")
        }
        return (angle, group.map { LineBox(x: $0.x / s, y: $0.y / s, w: $0.w / s, h: $0.h / s) })
    }

    /// The skew, the working scale and the text-line bars of the working image.
    func bars(_ gray: PixImage) throws(MRZCaptureError) -> (Double, Double, [LineBox]) {
        let s = min(1, 1200 / Double(max(gray.width, gray.height)))
        let work = s < 1 ? try gray.scaled(s) : gray
        let kernel = max(9, Int(Double(max(work.width, work.height)) / 70))
        let text = try work.smoothed(1).textOnWhite(kernel: kernel)
        let threshold = 200
        let angle = try text.binary(below: threshold).skew(range: 12) ?? 0
        let upright = abs(angle) > 0.15 ? try text.rotated(angle * Double.pi / 180) : text
        let bars = try upright.binary(below: threshold).opened(1, 2).closedHorizontally(
            max(7, Int(Double(max(work.width, work.height)) / 40)))
        let boxes = bars.components().filter { b in
            b.h >= 5 && b.w >= 6 * b.h && Double(b.w) >= 0.12 * Double(work.width)
        }
        return (angle, s, boxes.map { LineBox(x: Double($0.x), y: Double($0.y), w: Double($0.w), h: Double($0.h)) })
    }

    /// The widest group of 2 or 3 bars of equal length, left-aligned, at the zone's line spacing (4.23 mm for a
    /// 2.4 mm character height: 1.2–2.8 heights), top to bottom.
    static func zone(_ bars: [LineBox]) -> [LineBox]? {
        let sorted = bars.sorted { $0.y < $1.y }
        func follows(_ a: LineBox, _ b: LineBox) -> Bool {
            let wmax = max(a.w, b.w)
            let hmean = (a.h + b.h) / 2
            let dy = (b.y + b.h / 2) - (a.y + a.h / 2)
            return abs(a.w - b.w) <= 0.07 * wmax && abs(a.x - b.x) <= 0.05 * wmax
                && max(a.h, b.h) <= 1.6 * min(a.h, b.h) && dy >= 1.2 * hmean && dy <= 2.8 * hmean
        }
        var best: [LineBox]?
        for i in sorted.indices {
            for j in sorted.indices where j > i && follows(sorted[i], sorted[j]) {
                var group = [sorted[i], sorted[j]]
                if let k = sorted.indices.first(where: { $0 > j && follows(sorted[j], sorted[$0]) }) {
                    group.append(sorted[k])
                }
                let better: Bool
                if let b = best {
                    better =
                        group.count > b.count || (group.count == b.count && group[0].w > b[0].w * 1.02)
                        || (group.count == b.count && abs(group[0].w - b[0].w) <= b[0].w * 0.02 && group[0].y > b[0].y)
                } else {
                    better = true
                }
                if better { best = group }
            }
        }
        return best
    }

    /// One line cut from the deskewed image, scaled to a 34-pixel character height, as dark text on white; with the
    /// horizontal extent of its ink.
    struct LineImage {
        let image: PixImage
        /// The ink's horizontal extent.
        let left: Double
        let right: Double
        /// Dark pixels per column, and the height of the ink (the character height).
        let columnInk: [Int]
        let inkHeight: Int
        /// 1 where a pixel is ink, rows top to bottom.
        let mask: [UInt8]
        /// The grey pixels, rows top to bottom.
        let gray: [UInt8]
        let width: Int
        let height: Int
    }

    func lineImage(_ image: PixImage, _ box: LineBox, height: Double, clean useTopHat: Bool) throws(MRZCaptureError)
        -> LineImage
    {
        let mx = box.h * 0.8
        let my = box.h * 0.3
        let x0 = max(0, Int(box.x - mx))
        let y0 = max(0, Int(box.y - my))
        let x1 = min(image.width, Int(box.x + box.w + mx))
        let y1 = min(image.height, Int(box.y + box.h + my))
        guard x1 - x0 > 8, y1 - y0 > 4 else { throw MRZCaptureError(.noMRZFound, "the zone lies outside the image") }
        let crop = try image.clipped(x: x0, y: y0, w: x1 - x0, h: y1 - y0)
        let f = height / box.h
        let scaled = try crop.scaled(f)
        let clean = useTopHat ? try scaled.textOnWhite(kernel: Int(height * 1.2)) : scaled
        // The ink's extent: columns holding at least two dark pixels.
        let px = clean.grayBytes()
        let w = clean.width
        let h = clean.height
        var first = -1
        var last = -1
        var ink = [Int](repeating: 0, count: w)
        var rows = [Int](repeating: 0, count: h)
        var mask = [UInt8](repeating: 0, count: w * h)
        px.withUnsafeBufferPointer { p in
            for y in 0..<h {
                for x in 0..<w where p[y * w + x] < 140 {
                    ink[x] += 1
                    rows[y] += 1
                    mask[y * w + x] = 1
                }
            }
        }
        for x in 0..<w where ink[x] >= 2 {
            if first < 0 { first = x }
            last = x
        }
        guard first >= 0 else { throw MRZCaptureError(.unreadable, "a line of the zone holds no ink") }
        let minRow = max(3, (last - first) / 60)
        let top = rows.firstIndex { $0 >= minRow } ?? 0
        let bottom = rows.lastIndex { $0 >= minRow } ?? h - 1
        return LineImage(
            image: clean, left: Double(first), right: Double(last + 1), columnInk: ink, inkHeight: bottom - top + 1,
            mask: mask, gray: px, width: w, height: h)
    }
}
