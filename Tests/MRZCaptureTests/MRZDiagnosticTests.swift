import Foundation
import MRTDDocument
import SpecimenImages
import Testing
import VirtualChip

@testable import MRZCapture

/// Where the image set's refusals come from (run with MRZ_DIAG=1).
@Suite(.enabled(if: ProcessInfo.processInfo.environment["MRZ_DIAG"] != nil))
struct MRZDiagnosticTests {
    @Test func diagnose() throws {
        let font = try OCRBFont()
        let recognizer = try MRZRecognizer()
        let seeds = Int(ProcessInfo.processInfo.environment["MRZ_DIAG"] ?? "3") ?? 3
        var stages: [String: Int] = [:]
        var margins: [(Float, String)] = []
        var wrongBest: [String] = []
        var trueScores: [Float] = []
        let only = ProcessInfo.processInfo.environment["MRZ_DIAG_ONLY"]
        for d in Distortion.allCases where only == nil || only == d.rawValue {
            for (f, format) in [Specimen.Format.td1, .td2, .td3].enumerated() {
                for i in 0..<seeds {
                    let seed = UInt64(f * 10_000 + i * 100 + Distortion.allCases.firstIndex(of: d)!)
                    let sample = try Capture.sample(
                        format, d, seed: seed, font: font, encoding: i == 0 ? .pgm : .jpeg)
                    let truth: [[Character]] = sample.specimen.mrzLines.map { Array($0) }
                    let gray = try recognizer.decode(sample.bytes)
                    let fmt: MRZFormat
                    let scores: [[[Float]]]
                    do { (fmt, scores) = try recognizer.cellScores(gray) } catch {
                        stages["\(d) \(error.code)", default: 0] += 1
                        continue
                    }
                    guard fmt.lineLength == truth[0].count, fmt.lineCount == truth.count else {
                        stages["\(d) format", default: 0] += 1
                        print("FORMAT \(d) \(format) s\(seed) read as \(fmt)")
                        let (_, _, bars) = try recognizer.bars(gray)
                        for b in bars.sorted(by: { $0.y < $1.y }) {
                            print("  BAR \(Int(b.x)) \(Int(b.y)) \(Int(b.w)) \(Int(b.h))")
                        }
                        continue
                    }
                    let kinds = MRZCorrection.layout(fmt)
                    for l in truth.indices {
                        for (k, c) in truth[l].enumerated() {
                            let s = scores[l][k]
                            let ti = OCRBClassifier.classIndex[c]!
                            let others = MRZCorrection.allowed(kinds[l][k]).filter { $0 != ti }
                            let bo = others.min {
                                OCRBClassifier.separation(s, ti, $0) < OCRBClassifier.separation(s, ti, $1)
                            }!
                            let m = OCRBClassifier.separation(s, ti, bo)
                            trueScores.append(s[ti])
                            margins.append(
                                (m, "\(d) \(format) s\(seed) L\(l)C\(k) \(c)→\(OCRBClassifier.classes[bo]) t=\(s[ti])"))
                            if m < 0 { wrongBest.append(margins.last!.1 + " m=\(m)") }
                        }
                    }
                    if let r = MRZCorrection.decide(scores, format: fmt) {
                        let ok = r.mrz.lines == sample.specimen.mrzLines
                        stages["\(d) \(ok ? "exact" : "WRONG")", default: 0] += 1
                    } else {
                        stages["\(d) refused-decide", default: 0] += 1
                        var low = 0
                        var amb: [String] = []
                        for l in scores.indices {
                            for k in scores[l].indices {
                                let s = scores[l][k]
                                let ranked = MRZCorrection.allowed(kinds[l][k]).sorted { s[$0] > s[$1] }
                                if s[ranked[0]] < 0.55 { low += 1 }
                                if OCRBClassifier.separation(s, ranked[0], ranked[1]) < 0.3 {
                                    amb.append(
                                        "\(kinds[l][k])\(truth[l][k])/\(OCRBClassifier.classes[ranked[0]])\(OCRBClassifier.classes[ranked[1]])"
                                    )
                                }
                            }
                        }
                        print("REFUSED \(d) \(format) s\(seed): low \(low) ambiguous \(amb.count)")
                        let (angle, _, bars) = try recognizer.bars(gray)
                        print("  angle \(angle)")
                        for b in bars.sorted(by: { $0.y < $1.y }) {
                            print("  BAR \(Int(b.x)) \(Int(b.y)) \(Int(b.w)) \(Int(b.h))")
                        }
                        let (_, zone) = try recognizer.locate(gray)
                        let up = abs(angle) > 0.15 ? try gray.rotated(angle * Double.pi / 180) : gray
                        for (zi, b) in zone.enumerated() {
                            let li = try recognizer.lineImage(up, b, height: 34, clean: true)
                            let pgm = Array("P5\n\(li.width) \(li.height)\n255\n".utf8) + li.gray
                            if let (cells, ink) = CellGeometry.cells(li, count: fmt.lineLength) {
                                print("  LINE \(zi) left \(li.left) right \(li.right) inkH \(li.inkHeight)")
                                print(
                                    "  X "
                                        + cells.map { "\(Int($0.x))/\(Int($0.capLine))-\(Int($0.baseline))" }.joined(
                                            separator: " "))
                                let readings = cells.map { c -> Int? in
                                    let sc = OCRBClassifier.scores(MRZRecognizer.sample(li, c))
                                    let b = sc.indices.max { sc[$0] < sc[$1] }!
                                    return sc[b] >= 0.75 ? b : nil
                                }
                                print(
                                    "  READ1 "
                                        + readings.map { $0.map { String(OCRBClassifier.classes[$0]) } ?? "?" }.joined()
                                )
                                if let r = CellGeometry.refined(cells, ink: ink, readings: readings) {
                                    for sh in [-0.08, 0, 0.08] {
                                        let b = r.map {
                                            OCRBClassifier.scores(MRZRecognizer.sample(li, $0, shear: sh)).max()!
                                        }
                                        print("  SHEAR \(sh) " + b.map { String(Int($0 * 100)) }.joined(separator: " "))
                                    }
                                    print(
                                        "  R "
                                            + r.map { "\(Int($0.x))/\(Int($0.capLine))-\(Int($0.baseline))" }.joined(
                                                separator: " "))
                                }
                                print(
                                    "  INK "
                                        + ink.map { $0.map { "\(Int($0.0))-\(Int($0.1))" } ?? "nil" }.joined(
                                            separator: " "))
                            }
                            try Data(pgm).write(to: URL(fileURLWithPath: "/tmp/ocr-line-\(seed)-\(zi).pgm"))
                        }
                        for b in zone { print("  ZONE \(Int(b.x)) \(Int(b.y)) \(Int(b.w)) \(Int(b.h))") }
                    }
                }
            }
        }
        for m in margins where m.1.hasPrefix("clean") && m.0 < 0.3 { print("CLEANLOW \(m.0) \(m.1)") }
        for (k, v) in stages.sorted(by: { $0.key < $1.key }) { print("STAGE \(k): \(v)") }
        let sorted = margins.sorted { $0.0 < $1.0 }
        for m in sorted.prefix(15) { print("LOW \(m.0) \(m.1)") }
        print("cells \(margins.count), true not best \(wrongBest.count)")
        let low = margins.filter { $0.0 < 0.08 }.count
        print("margin<0.08: \(low)")
        var pairs: [String: Int] = [:]
        for m in margins where m.0 < 0.3 && m.0 > -0.2 {
            let parts = m.1.split(separator: " ")
            pairs[String(parts[4]), default: 0] += 1
        }
        print(
            "PAIRS",
            pairs.sorted { $0.value > $1.value }.prefix(40).map { "\($0.key):\($0.value)" }.joined(separator: " "))
        let ts = trueScores.sorted()
        let ms = margins.map(\.0).sorted()
        for q in [0.01, 0.05, 0.1, 0.25, 0.5] {
            print("q\(q): true score \(ts[Int(Double(ts.count) * q)]) margin \(ms[Int(Double(ms.count) * q)])")
        }
    }
}
