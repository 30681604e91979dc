import Foundation
import SpecimenImages
import Testing

@testable import MRZCapture

/// The reference glyphs of the per-cell classifier (`OCRBGlyphs`) are generated from the OCR-B font
/// (`fonts-ocr-b`) through `SpecimenImages`, the sampling `OCRBClassifier` applies to a captured cell: this test
/// regenerates them and compares, so the committed table cannot drift from the font. With `MRZ_GLYPHS_OUT=PATH` it
/// writes the regenerated source there.
struct OCRBGlyphsTests {
    /// 10 pt at 1,200 dpi: a cap height of about 115 pixels, so each grid sample averages about 5 × 5 font pixels.
    static let points = 10.0
    static let dpi = 1200

    static func generated() throws -> [Character: [UInt8]] {
        let font: OCRBFont
        do { font = try OCRBFont() } catch {
            if ProcessInfo.processInfo.environment["CI"] == "true" { throw error }
            print("skipped: \(error)")
            return [:]
        }
        let cap = try #require(font.coverage(of: "H", points: points, dpi: dpi)).top
        var out: [Character: [UInt8]] = [:]
        for c in OCRBClassifier.classes {
            let g = try #require(font.coverage(of: c, points: points, dpi: dpi))
            // bitmap rows: the baseline is row `top`, the cap line `top - cap`; the glyph is centred in its cell
            let grid = OCRBClassifier.sample(
                margin: 0, centreX: Double(g.width) / 2, capLine: Double(g.top - cap), baseline: Double(g.top)
            ) { x, y in
                let xi = Int(x.rounded(.down))
                let yi = Int(y.rounded(.down))
                guard xi >= 0, yi >= 0, xi < g.width, yi < g.rows else { return 0 }
                return Double(g.coverage[yi * g.width + xi]) / 255
            }
            out[c] = grid.map { UInt8(min(15, max(0, ($0 * 15).rounded()))) }
        }
        return out
    }

    static func source(_ table: [Character: [UInt8]]) -> String {
        let hex = Array("0123456789ABCDEF")
        var s = """
            /// The 37 OCR-B glyphs of the MRZ on `OCRBClassifier`'s grid (20 × 28 samples, the cap height 24 samples
            /// from row 2), ink 0…F. Generated from the OCR-B font of `fonts-ocr-b` (10 pt at 1,200 dpi) by
            /// `OCRBGlyphsTests`, which regenerates it and compares; do not edit by hand.
            enum OCRBGlyphs {
                /// The glyph of `c` (one of `OCRBClassifier.classes`), ink 0…1, rows top to bottom.
                static func grid(_ c: Character) -> [Float] {
                    guard let rows = table[c] else { return [Float](repeating: 0, count: 20 * 28) }
                    return rows.utf8.compactMap { b -> Float? in
                        switch b {
                        case UInt8(ascii: "0")...UInt8(ascii: "9"): return Float(b - UInt8(ascii: "0")) / 15
                        case UInt8(ascii: "A")...UInt8(ascii: "F"): return Float(b - UInt8(ascii: "A") + 10) / 15
                        default: return nil
                        }
                    }
                }

                static let table: [Character: String] = [

            """
        for c in OCRBClassifier.classes {
            let g = table[c] ?? []
            s += "        \"\(c)\": \"\"\"\n"
            for y in 0..<OCRBClassifier.height {
                let row = (0..<OCRBClassifier.width).map { hex[Int(g[y * OCRBClassifier.width + $0])] }
                s += "            " + String(row) + "\n"
            }
            s += "            \"\"\",\n"
        }
        s += "    ]\n}\n"
        return s
    }

    @Test func theCommittedGlyphsAreTheFontsGlyphs() throws {
        let table = try Self.generated()
        guard !table.isEmpty else { return }
        if let path = ProcessInfo.processInfo.environment["MRZ_GLYPHS_OUT"] {
            try Self.source(table).write(toFile: path, atomically: true, encoding: .utf8)
        }
        for c in OCRBClassifier.classes {
            let committed = OCRBGlyphs.grid(c).map { UInt8(($0 * 15).rounded()) }
            let fresh = try #require(table[c])
            #expect(committed.count == fresh.count, "\(c)")
            // one quantisation step of tolerance for a FreeType version that rounds coverage differently
            let off = zip(committed, fresh).filter { abs(Int($0) - Int($1)) > 1 }.count
            #expect(off == 0, "glyph \(c): \(off) samples differ from the font")
        }
    }

    @Test func everyGlyphIsItsOwnBestMatch() {
        for (i, c) in OCRBClassifier.classes.enumerated() {
            var cell = [Float](
                repeating: 0,
                count: (OCRBClassifier.width + 2) * (OCRBClassifier.height + 2))
            let g = OCRBGlyphs.grid(c)
            for y in 0..<OCRBClassifier.height {
                for x in 0..<OCRBClassifier.width {
                    cell[(y + 1) * (OCRBClassifier.width + 2) + x + 1] = g[y * OCRBClassifier.width + x]
                }
            }
            let scores = OCRBClassifier.scores(cell)
            #expect(scores.firstIndex(of: scores.max()!) == i, "\(c)")
        }
    }
}
