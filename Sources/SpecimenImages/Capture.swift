public import DocumentGenerator
import Foundation

/// How a generated data page is "photographed": each kind stresses one thing a kiosk camera or scanner does to
/// the zone. Every kind also turns the page by up to ±2° and places it on a darker desk.
public enum Distortion: String, Sendable, Hashable, CaseIterable, Codable {
    /// Scanner-like: straight, sharp, evenly lit.
    case clean
    /// Turned by up to ±10°.
    case rotation
    /// Seen at an angle: each corner moved by up to 4 % of the page width.
    case perspective
    /// Out of focus: a blur of 1–2 pixels.
    case blur
    /// Sensor noise: Gaussian, σ 8–16 grey levels.
    case noise
    /// Uneven light: a brightness gradient down to 55 % and a glare spot.
    case unevenLight
    /// Half the resolution: the page at 150 dpi.
    case lowResolution
    /// Heavy JPEG compression (quality 20–35).
    case jpegArtefacts

    /// The resolution the page is rendered at for this kind.
    public var dpi: Int { self == .lowResolution ? 150 : 300 }
}

/// A generated capture: the image bytes and the MRZ they show.
public struct CaptureSample: Sendable {
    public let specimen: Specimen
    public let distortion: Distortion
    /// The encoded image (JPEG, or PGM when asked).
    public let bytes: [UInt8]
    public let width: Int
    public let height: Int
    /// The MRZ as printed, lines joined with "\n".
    public var mrz: String { specimen.mrzLines.joined(separator: "\n") }
}

public enum Capture {
    /// The encodings a sample can be written in.
    public enum Encoding: Sendable { case jpeg, pgm }

    /// A random specimen of `format`, rendered and photographed with `distortion` onto a canvas of `canvas` pixels
    /// (nil: the turned page's bounding box and a margin, the smallest realistic frame).
    public static func sample(
        _ format: Specimen.Format, _ distortion: Distortion, seed: UInt64, font: OCRBFont,
        canvas: (width: Int, height: Int)? = nil, encoding: Encoding = .jpeg
    ) throws -> CaptureSample {
        var rng = SeededGenerator(seed: seed)
        let specimen = DataPage.randomSpecimen(format, using: &rng)
        return try sample(of: specimen, distortion, rng: &rng, font: font, canvas: canvas, encoding: encoding)
    }

    /// `specimen`'s data page, photographed with `distortion`.
    public static func sample(
        of specimen: Specimen, _ distortion: Distortion, seed: UInt64, font: OCRBFont,
        canvas: (width: Int, height: Int)? = nil, encoding: Encoding = .jpeg
    ) throws -> CaptureSample {
        var rng = SeededGenerator(seed: seed)
        return try sample(of: specimen, distortion, rng: &rng, font: font, canvas: canvas, encoding: encoding)
    }

    static func sample(
        of specimen: Specimen, _ distortion: Distortion, rng: inout SeededGenerator, font: OCRBFont,
        canvas: (width: Int, height: Int)?, encoding: Encoding
    ) throws -> CaptureSample {
        let page = DataPage.canvas(specimen, dpi: distortion.dpi, font: font, using: &rng)
        let shot = photograph(page, distortion, canvas: canvas, using: &rng)
        let image = shot.image
        let bytes: [UInt8]
        switch encoding {
        case .pgm: bytes = image.pgm
        case .jpeg:
            let q = distortion == .jpegArtefacts ? Int.random(in: 20...35, using: &rng) : 90
            bytes = try image.jpeg(quality: q)
        }
        return CaptureSample(
            specimen: specimen, distortion: distortion, bytes: bytes, width: image.width, height: image.height)
    }

    static func photograph(
        _ page: Canvas, _ distortion: Distortion, canvas size: (width: Int, height: Int)?,
        using rng: inout SeededGenerator
    ) -> Canvas {
        let pw = Double(page.width)
        let ph = Double(page.height)
        let maxAngle = distortion == .rotation ? 10.0 : 2.0
        let angle = rng.double(-maxAngle...maxAngle) * Double.pi / 180
        let bw = pw * abs(cos(angle)) + ph * abs(sin(angle))
        let bh = pw * abs(sin(angle)) + ph * abs(cos(angle))
        let (cw, ch): (Int, Int)
        if let size {
            let f = Double(distortion.dpi) / 300
            (cw, ch) = (Int(Double(size.width) * f), Int(Double(size.height) * f))
        } else {
            (cw, ch) = (Int(bw * 1.08) + 40, Int(bh * 1.08) + 40)
        }
        let s = min(1, Double(cw) * 0.97 / bw, Double(ch) * 0.97 / bh)
        let cx = Double(cw) / 2 + rng.double(-0.01...0.01) * Double(cw)
        let cy = Double(ch) / 2 + rng.double(-0.01...0.01) * Double(ch)
        let jitter = distortion == .perspective ? 0.04 * pw * s : 0
        let corners = [(0.0, 0.0), (pw, 0.0), (pw, ph), (0.0, ph)]
        let placed = corners.map { (x, y) -> (Double, Double) in
            let dx = (x - pw / 2) * s
            let dy = (y - ph / 2) * s
            return (
                cx + dx * cos(angle) - dy * sin(angle) + rng.double(-1...1) * jitter,
                cy + dx * sin(angle) + dy * cos(angle) + rng.double(-1...1) * jitter
            )
        }
        // Canvas → page: the homography taking the placed quadrilateral back to the page rectangle.
        let h = homography(from: placed, to: corners)
        var out = Canvas(width: cw, height: ch, fill: 0)
        let deskA = Float(rng.double(60...100))
        let (pwi, phi) = (page.width, page.height)
        let (maxX, maxY) = (Float(pwi - 1), Float(phi - 1))
        out.v.withUnsafeMutableBufferPointer { v in
            page.v.withUnsafeBufferPointer { p in
                for y in 0..<ch {
                    let Y = Double(y)
                    let desk = deskA + 12 * cos(Float(y) * 0.011)
                    for x in 0..<cw {
                        let X = Double(x)
                        let w = h[6] * X + h[7] * Y + 1
                        let u = Float((h[0] * X + h[1] * Y + h[2]) / w)
                        let t = Float((h[3] * X + h[4] * Y + h[5]) / w)
                        guard u >= 0, t >= 0, u < maxX, t < maxY else {
                            v[y * cw + x] = desk
                            continue
                        }
                        let x0 = Int(u)
                        let y0 = Int(t)
                        let fx = u - Float(x0)
                        let fy = t - Float(y0)
                        let i = y0 * pwi + x0
                        let top = p[i] * (1 - fx) + p[i + 1] * fx
                        let bottom = p[i + pwi] * (1 - fx) + p[i + pwi + 1] * fx
                        v[y * cw + x] = top * (1 - fy) + bottom * fy
                    }
                }
            }
        }
        switch distortion {
        case .blur:
            let r = Int.random(in: 1...2, using: &rng)
            boxBlur(&out, radius: r)
            boxBlur(&out, radius: r)
        case .noise:
            let sigma = Float(rng.double(8...16))
            addNoise(&out, sigma: sigma, using: &rng)
        case .unevenLight:
            let dir = rng.double(0...(2 * Double.pi))
            let gx = Float(cos(dir))
            let gy = Float(sin(dir))
            let low = Float(rng.double(0.55...0.7))
            let spotX = Float(rng.double(0.2...0.8)) * Float(cw)
            let spotY = Float(rng.double(0.2...0.8)) * Float(ch)
            let sigma = Float(cw) * Float(rng.double(0.08...0.15))
            let glare = Float(rng.double(40...70))
            let half = Float(max(cw, ch)) / 2
            out.v.withUnsafeMutableBufferPointer { v in
                for y in 0..<ch {
                    for x in 0..<cw {
                        let p = ((Float(x) - Float(cw) / 2) * gx + (Float(y) - Float(ch) / 2) * gy) / half
                        let light = low + (1 - low) * (p + 1) / 2
                        let dx = Float(x) - spotX
                        let dy = Float(y) - spotY
                        let spot = glare * exp(-(dx * dx + dy * dy) / (2 * sigma * sigma))
                        v[y * cw + x] = v[y * cw + x] * light + spot
                    }
                }
            }
        default: break
        }
        // Every camera adds a little noise.
        if distortion != .noise {
            addNoise(&out, sigma: 2, using: &rng)
        }
        return out
    }

    /// Gaussian noise of `sigma` grey levels (a table of 4,096 draws, cycled with a random stride, keeps it fast).
    static func addNoise(_ c: inout Canvas, sigma: Float, using rng: inout SeededGenerator) {
        let table = (0..<4096).map { _ in sigma * Float(rng.gaussian()) }
        var k = Int.random(in: 0..<4096, using: &rng)
        let stride = 2 * Int.random(in: 1..<1000, using: &rng) + 1
        c.v.withUnsafeMutableBufferPointer { v in
            for i in 0..<v.count {
                v[i] += table[k]
                k = (k + stride) & 4095
            }
        }
    }

    /// A separable box blur of `radius` pixels.
    static func boxBlur(_ c: inout Canvas, radius r: Int) {
        let w = c.width
        let h = c.height
        var tmp = c.v
        let n = Float(2 * r + 1)
        c.v.withUnsafeMutableBufferPointer { v in
            tmp.withUnsafeMutableBufferPointer { t in
                for y in 0..<h {
                    for x in 0..<w {
                        var s: Float = 0
                        for k in -r...r { s += v[y * w + min(w - 1, max(0, x + k))] }
                        t[y * w + x] = s / n
                    }
                }
                for y in 0..<h {
                    for x in 0..<w {
                        var s: Float = 0
                        for k in -r...r { s += t[min(h - 1, max(0, y + k)) * w + x] }
                        v[y * w + x] = s / n
                    }
                }
            }
        }
    }

    /// The 3 × 3 homography (h33 = 1, as 8 values) mapping each of four points onto its partner (Hartley and
    /// Zisserman, "Multiple View Geometry", §4.1, the direct linear transformation with four correspondences).
    static func homography(from a: [(Double, Double)], to b: [(Double, Double)]) -> [Double] {
        var m = [[Double]](repeating: [Double](repeating: 0, count: 9), count: 8)
        for i in 0..<4 {
            let (x, y) = a[i]
            let (u, v) = b[i]
            m[2 * i] = [x, y, 1, 0, 0, 0, -u * x, -u * y, u]
            m[2 * i + 1] = [0, 0, 0, x, y, 1, -v * x, -v * y, v]
        }
        // Gaussian elimination with partial pivoting.
        for col in 0..<8 {
            let pivot = (col..<8).max { abs(m[$0][col]) < abs(m[$1][col]) }!
            m.swapAt(col, pivot)
            let p = m[col][col]
            for k in col..<9 { m[col][k] /= p }
            for r in 0..<8 where r != col {
                let f = m[r][col]
                if f != 0 { for k in col..<9 { m[r][k] -= f * m[col][k] } }
            }
        }
        return (0..<8).map { m[$0][8] }
    }
}
