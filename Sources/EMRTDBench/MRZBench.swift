import DocumentGenerator
import Foundation
import MRZCapture
import SpecimenImages

/// The MRZ row of `emrtd bench` (docs/mrz.md, docs/performance.md): generated specimen data pages (TD1, TD2, TD3)
/// photographed onto 1600 × 1200 frames with each distortion, read by `MRZRecognizer`; the time per image (from
/// the encoded bytes to the checked MRZ) and the share read exactly, per distortion.
struct MRZBenchReport: Sendable, Codable {
    struct Distortion: Sendable, Codable {
        var name: String
        var images: Int
        var exact: Int
        /// An MRZ that passed its check digits but differs from the one printed: must stay 0.
        var wrong: Int
    }
    var frame: String
    var images: Int
    /// Wall clock and process CPU per image (median, p95).
    var wallMs: Double
    var wallMsP95: Double
    var cpuMs: Double
    var distortions: [Distortion]
    var error: String?
}

enum MRZBench {
    static let limitMs = 300.0

    static func run(perCell: Int) -> MRZBenchReport {
        var report = MRZBenchReport(frame: "1600×1200", images: 0, wallMs: 0, wallMsP95: 0, cpuMs: 0, distortions: [])
        do {
            let font = try OCRBFont()
            let recognizer = try MRZRecognizer()
            var wall: [Double] = []
            var cpu: [Double] = []
            for d in SpecimenImages.Distortion.allCases {
                var row = MRZBenchReport.Distortion(name: d.rawValue, images: 0, exact: 0, wrong: 0)
                for (f, format) in [Specimen.Format.td1, .td2, .td3].enumerated() {
                    for i in 0..<perCell {
                        let seed = UInt64(
                            900_000 + f * 1000 + i * 10 + SpecimenImages.Distortion.allCases.firstIndex(of: d)!)
                        let sample = try Capture.sample(
                            format, d, seed: seed, font: font, canvas: (1600, 1200))
                        let w0 = BenchClock.wallNanoseconds()
                        let c0 = BenchClock.cpuNanoseconds()
                        let result = try? recognizer.recognize(sample.bytes)
                        cpu.append(Double(BenchClock.cpuNanoseconds() &- c0) / 1e6)
                        wall.append(Double(BenchClock.wallNanoseconds() &- w0) / 1e6)
                        row.images += 1
                        if let result {
                            if result.mrz.lines.joined(separator: "\n") == sample.mrz {
                                row.exact += 1
                            } else {
                                row.wrong += 1
                            }
                        }
                    }
                }
                report.distortions.append(row)
            }
            report.images = wall.count
            let sorted = wall.sorted()
            report.wallMs = r3(Spread(wall).median)
            report.wallMsP95 = r3(sorted[min(sorted.count - 1, sorted.count * 95 / 100)])
            report.cpuMs = r3(Spread(cpu).median)
        } catch {
            report.error = "\(error)"
        }
        return report
    }

    static func acceptance(_ m: MRZBenchReport) -> BenchReport.Acceptance {
        let exact = m.distortions.reduce(0) { $0 + $1.exact }
        let wrong = m.distortions.reduce(0) { $0 + $1.wrong }
        return .init(
            criterion: "an MRZ read from a 1600×1200 image in ≤ 300 ms (median, release build), no wrong MRZ",
            met: m.error != nil ? false : (m.wallMs <= limitMs && wrong == 0),
            detail: m.error
                ?? "\(m.images) images: \(m.wallMs) ms median wall (p95 \(m.wallMsP95)), \(m.cpuMs) ms CPU; \(exact) exact, \(wrong) wrong"
        )
    }

    static func text(_ m: MRZBenchReport) -> [String] {
        var out = ["", "== MRZ from an image (\(m.frame), generated specimen pages)"]
        if let e = m.error {
            out.append("  FAILED: \(e)")
            return out
        }
        out.append(
            "  \(m.images) images: wall \(String(format: "%.1f", m.wallMs)) ms median, p95 \(String(format: "%.1f", m.wallMsP95)) ms; CPU \(String(format: "%.1f", m.cpuMs)) ms median"
        )
        for d in m.distortions {
            out.append(
                "  \(d.name.padding(toLength: 16, withPad: " ", startingAt: 0)) \(d.exact)/\(d.images) exact, \(d.wrong) wrong"
            )
        }
        return out
    }
}
