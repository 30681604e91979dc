import Testing

@testable import MRZCapture

/// Cell placement: a fit through broken or hostile ink is refused before it is sampled, and sampling a cell costs
/// a bounded number of reads however large the cell.
struct CellGeometryTests {
    static func cells(height: Double, step: Double = 30, slope: Double = 0) -> [CellGeometry.Cell] {
        (0..<30).map { CellGeometry.Cell(x: 20 + Double($0) * step, capLine: 10, baseline: 10 + height, slope: slope) }
    }

    @Test func implausibleFitsAreRefused() {
        #expect(CellGeometry.plausible(Self.cells(height: 28), maxHeight: 80))
        #expect(!CellGeometry.plausible(Self.cells(height: 2), maxHeight: 80))
        #expect(!CellGeometry.plausible(Self.cells(height: 1e9), maxHeight: 80))
        #expect(!CellGeometry.plausible(Self.cells(height: .nan), maxHeight: 80))
        #expect(!CellGeometry.plausible(Self.cells(height: 28, step: -3), maxHeight: 80))
        #expect(!CellGeometry.plausible(Self.cells(height: 28, slope: 0.5), maxHeight: 80))
    }

    @Test func sampleReadsAreBoundedForAHugeCell() {
        var reads = 0
        let grid = OCRBClassifier.sample(margin: 1, centreX: 0, capLine: 0, baseline: 1e6) { _, _ in
            reads += 1
            return 0
        }
        #expect(grid.count == (OCRBClassifier.width + 2) * (OCRBClassifier.height + 2))
        #expect(reads == grid.count * 36)
    }

    @Test func trackingFollowsAPitchThatChangesAlongTheLine() throws {
        // 30 glyph-wide ink runs whose pitch grows from 27 to 32 pixels, as on a page seen at an angle
        var centres: [Double] = []
        var x = 40.0
        for i in 0..<30 {
            centres.append(x)
            x += 27 + 5 * Double(i) / 29
        }
        let width = Int(x) + 40
        var ink = [Int](repeating: 0, count: width)
        for c in centres { for dx in -9...9 { ink[Int(c) + dx] = 20 } }
        let line = MRZRecognizer.LineImage(
            image: try PixImage.gray(width: 8, height: 8, bytes: [UInt8](repeating: 255, count: 64)),
            left: centres[0] - 9, right: centres[29] + 10, columnInk: ink, inkHeight: 28,
            mask: [], gray: [], width: width, height: 40)
        let tracked = CellGeometry.track(line, count: 30, pitch: (line.right - line.left) / 29.7)
        for (t, c) in zip(tracked, centres) { #expect(abs(t - c) <= 1, "\(t) for \(c)") }
    }
}
