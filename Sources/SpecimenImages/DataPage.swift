public import DocumentGenerator
import Foundation

/// A specimen document's data page as a scanner at `dpi` would see it: a textured background, a photo area, the
/// visual inspection zone, and the machine-readable zone in OCR-B at its ICAO 9303-3 §4.3 size (10 characters per
/// inch, 2.54 mm pitch) and position (centred, at the bottom edge).
public enum DataPage {
    /// The document size in millimetres (ICAO 9303-3 §3.3: ID-1 85.60 × 53.98, ID-2 105 × 74, ID-3 125 × 88).
    public static func size(of format: Specimen.Format) -> (width: Double, height: Double) {
        switch format {
        case .td1: return (85.6, 53.98)
        case .td2: return (105, 74)
        case .td3: return (125, 88)
        }
    }

    /// ICAO 9303-3 §4.3: 10 characters per inch.
    static let mrzPitchMM = 2.54
    /// Six lines per inch.
    static let mrzLineSpacingMM = 4.23
    /// OCR-B at 10 points has the 2.4 mm capital height the zone is specified for.
    static let mrzPoints = 10.0

    /// A random specimen of `format` (UTO, generated names and numbers; no real person's data).
    public static func randomSpecimen(_ format: Specimen.Format, using rng: inout SeededGenerator) -> Specimen {
        var s = Specimen.utopiaPassport
        s.format = format
        let syllables = [
            "AN", "ER", "IK", "SO", "LA", "MA", "RI", "TO", "VE", "NU", "KA", "DE", "LI", "PO", "SA", "UT", "OR", "EN",
            "BA", "ZE", "GO", "WY", "HE", "QU", "JO", "FI", "XA", "CK",
        ]
        func word(_ n: ClosedRange<Int>) -> String {
            (0..<Int.random(in: n, using: &rng)).map { _ in syllables.randomElement(using: &rng)! }.joined()
        }
        let alnum = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        let digits = Array("0123456789")
        func code(_ n: Int, letters: Int) -> String {
            String(
                (0..<n).map { i in
                    i < letters
                        ? alnum[Int.random(in: 0..<26, using: &rng)]
                        : (Bool.random(using: &rng) && i % 3 == 0
                            ? alnum.randomElement(using: &rng)! : digits.randomElement(using: &rng)!)
                })
        }
        func date(_ years: ClosedRange<Int>) -> String {
            let y = Int.random(in: years, using: &rng) % 100
            let m = Int.random(in: 1...12, using: &rng)
            let d = Int.random(in: 1...28, using: &rng)
            return String(format: "%02d%02d%02d", y, m, d)
        }
        s.surname = Int.random(in: 0..<5, using: &rng) == 0 ? word(1...2) + " " + word(2...3) : word(2...4)
        s.givenNames = (0..<Int.random(in: 1...2, using: &rng)).map { _ in word(1...3) }.joined(separator: " ")
        s.documentNumber = code(
            Int.random(in: 0..<6, using: &rng) == 0 ? 8 : 9, letters: Int.random(in: 0...2, using: &rng))
        s.dateOfBirth = date(1940...2008)
        s.dateOfExpiry = date(2026...2036)
        s.sex = ["M", "F", "<"][Int.random(in: 0..<3, using: &rng)]
        s.issuingState = "UTO"
        s.nationality = "UTO"
        let hasOptional = Bool.random(using: &rng)
        switch format {
        case .td3:
            s.documentCode = "P"
            s.optionalData = hasOptional ? code(Int.random(in: 6...14, using: &rng), letters: 2) : ""
            s.optionalData2 = ""
        case .td1:
            s.documentCode = Bool.random(using: &rng) ? "I" : "ID"
            s.optionalData = hasOptional ? code(Int.random(in: 4...15, using: &rng), letters: 1) : ""
            s.optionalData2 = Bool.random(using: &rng) ? code(Int.random(in: 3...11, using: &rng), letters: 0) : ""
        case .td2:
            s.documentCode = Bool.random(using: &rng) ? "I" : "IR"
            s.optionalData = hasOptional ? code(Int.random(in: 2...7, using: &rng), letters: 1) : ""
            s.optionalData2 = ""
        }
        return s
    }

    /// Renders `specimen`'s data page at `dpi`.
    public static func render(
        _ specimen: Specimen, dpi: Int, font: OCRBFont, using rng: inout SeededGenerator
    ) -> GrayImage {
        canvas(specimen, dpi: dpi, font: font, using: &rng).image
    }

    static func canvas(_ specimen: Specimen, dpi: Int, font: OCRBFont, using rng: inout SeededGenerator) -> Canvas {
        let (wMM, hMM) = size(of: specimen.format)
        let px = Double(dpi) / 25.4
        var c = Canvas(width: Int(wMM * px), height: Int(hMM * px), fill: 235)
        // A guilloche-like security background: two interfering wave fields and a faint grain.
        let a = Float(rng.double(0...Double.pi))
        let f1 = Float(rng.double(1.2...2.2))
        let f2 = Float(rng.double(0.25...0.45))
        let scale = Float(1 / px)
        // sin(a + b) = sin a cos b + cos a sin b: each wave is a product of per-column and per-row tables.
        let xs = (0..<c.width).map { Float($0) * scale }
        let ys = (0..<c.height).map { Float($0) * scale }
        let wx = xs.map { f1 * $0 * cos(a) }
        let wy = ys.map { f1 * $0 * sin(a) + 2 * sin(f2 * $0) }
        let (sWx, cWx, sWy, cWy) = (wx.map(sin), wx.map(cos), wy.map(sin), wy.map(cos))
        let (sTx, cTx) = (xs.map { sin(0.08 * $0) }, xs.map { cos(0.08 * $0) })
        let (sTy, cTy) = (ys.map { sin(0.05 * $0) }, ys.map { cos(0.05 * $0) })
        let width = c.width
        c.v.withUnsafeMutableBufferPointer { v in
            sWx.withUnsafeBufferPointer { sWx in
                cWx.withUnsafeBufferPointer { cWx in
                    sTx.withUnsafeBufferPointer { sTx in
                        cTx.withUnsafeBufferPointer { cTx in
                            for y in 0..<c.height {
                                let (sy, cy, ty, tcy) = (sWy[y], cWy[y], sTy[y], cTy[y])
                                for x in 0..<width {
                                    let wave = sWx[x] * cy + cWx[x] * sy
                                    let tone = sTx[x] * tcy + cTx[x] * ty
                                    v[y * width + x] = 228 + 9 * wave + 8 * tone
                                }
                            }
                        }
                    }
                }
            }
        }
        let k = wMM / 125
        // Photo area.
        fill(&c, x: 5 * k * px, y: 17 * k * px, w: 33 * k * px, h: 43 * k * px, value: 150)
        // Visual inspection zone: a title and labelled fields in smaller OCR-B.
        let mrzLines = specimen.mrzLines
        let mrzBottomBaseline = hMM - (specimen.format == .td1 ? 3.2 : 4.5)
        let mrzTopCap = mrzBottomBaseline - Double(mrzLines.count - 1) * mrzLineSpacingMM - 2.6
        draw(
            &c, specimen.format == .td3 ? "UTOPIA PASSPORT" : "UTOPIA IDENTITY CARD", font: font, points: 11 * k,
            dpi: dpi, xMM: 42 * k, baselineMM: 10 * k, pitchMM: nil, ink: 45)
        let fields: [(String, String)] = [
            ("SURNAME", specimen.surname), ("GIVEN NAMES", specimen.givenNames),
            ("NATIONALITY", specimen.nationality), ("DATE OF BIRTH", specimen.dateOfBirth),
            ("SEX", specimen.sex), ("DATE OF EXPIRY", specimen.dateOfExpiry), ("DOCUMENT NO", specimen.documentNumber),
        ]
        var baseline = 18 * k
        for (label, value) in fields {
            guard baseline + 4 * k < mrzTopCap - 2 else { break }
            draw(
                &c, label, font: font, points: 5 * k, dpi: dpi, xMM: 42 * k, baselineMM: baseline, pitchMM: nil,
                ink: 110)
            draw(
                &c, value, font: font, points: 8 * k, dpi: dpi, xMM: 42 * k, baselineMM: baseline + 3.6 * k,
                pitchMM: nil, ink: 40)
            baseline += 7 * k
        }
        // The machine-readable zone.
        let lineWidth = Double(mrzLines[0].count) * mrzPitchMM
        let left = (wMM - lineWidth) / 2
        for (i, line) in mrzLines.enumerated() {
            let b = mrzBottomBaseline - Double(mrzLines.count - 1 - i) * mrzLineSpacingMM
            draw(
                &c, line, font: font, points: mrzPoints, dpi: dpi, xMM: left, baselineMM: b, pitchMM: mrzPitchMM,
                ink: 25)
        }
        return c
    }

    static func fill(_ c: inout Canvas, x: Double, y: Double, w: Double, h: Double, value: Float) {
        let x0 = max(0, Int(x))
        let y0 = max(0, Int(y))
        let x1 = min(c.width, Int(x + w))
        let y1 = min(c.height, Int(y + h))
        guard x0 < x1, y0 < y1 else { return }
        for yy in y0..<y1 {
            for xx in x0..<x1 { c.v[yy * c.width + xx] = value + Float(yy - y0) * 0.08 }
        }
    }

    /// Draws `text` with its first cell at `xMM`; with `pitchMM` each character is centred in its cell (the MRZ's
    /// fixed pitch), otherwise characters follow at 0.62 em.
    static func draw(
        _ c: inout Canvas, _ text: String, font: OCRBFont, points: Double, dpi: Int, xMM: Double, baselineMM: Double,
        pitchMM: Double?, ink: Float
    ) {
        let px = Double(dpi) / 25.4
        let pitch = (pitchMM ?? points * 0.62 * 25.4 / 72) * px
        let baseline = Int((baselineMM * px).rounded())
        let width = c.width
        let height = c.height
        c.v.withUnsafeMutableBufferPointer { v in
            for (i, ch) in text.enumerated() where ch != " " {
                guard let g = font.glyph(ch, points: points, dpi: dpi) else { continue }
                let cell = xMM * px + Double(i) * pitch
                let x0 = Int((cell + (pitch - Double(g.width)) / 2).rounded())
                let y0 = baseline - g.top
                for gy in 0..<g.rows {
                    let y = y0 + gy
                    guard y >= 0, y < height else { continue }
                    for gx in 0..<g.width {
                        let x = x0 + gx
                        guard x >= 0, x < width else { continue }
                        let a = Float(g.coverage[gy * g.width + gx]) / 255
                        if a > 0 { v[y * width + x] = v[y * width + x] * (1 - a) + ink * a }
                    }
                }
            }
        }
    }
}
