import DocumentGenerator
import FaceImaging
import Foundation

/// The face row of `emrtd bench`: a typical passport face — a colour JPEG 2000 (JP2) file of about
/// 20 KB, as DG2 stores it — decoded with OpenJPEG and re-encoded as JPEG with libjpeg-turbo, the work
/// `--out`, the HTML report and `emrtd serve`'s face endpoint do per read. The image is the generator's
/// synthetic specimen face (with grain, so that it compresses like a photograph), 480 × 600.
struct FaceBenchReport: Sendable, Codable {
    var image: String
    var width: Int
    var height: Int
    var storedBytes: Int
    var jpegBytes: Int
    var runs: Int
    /// Process CPU per decode + encode (median, min, max), the criterion's measure.
    var cpuMs: Double
    var cpuMsMin: Double
    var cpuMsMax: Double
    /// Of which decoding (median).
    var decodeCpuMs: Double
    /// Wall clock per decode + encode (median; other processes on the machine inflate it).
    var wallMs: Double
    /// Resident memory before, and the peak while decoding and encoding (VmHWM reset first).
    var rssBeforeMB: Double?
    var peakMB: Double?
    var peakResetSupported: Bool
    var error: String?
}

enum FaceBench {
    static let width = 480, height = 600, targetBytes = 20_000
    static let limitMs = 50.0

    static func run(runs: Int) -> FaceBenchReport {
        var report = FaceBenchReport(
            image: "synthetic specimen face, JP2, RGB 8-bit", width: width, height: height,
            storedBytes: 0, jpegBytes: 0, runs: runs, cpuMs: 0, cpuMsMin: 0, cpuMsMax: 0,
            decodeCpuMs: 0, wallMs: 0, rssBeforeMB: nil, peakMB: nil, peakResetSupported: false)
        guard
            let raster = Raster(
                width: width, height: height, channels: 3,
                pixels: SyntheticFace.rgbPixels(width: width, height: height))
        else {
            report.error = "could not build the raster"
            return report
        }
        let stored: [UInt8]
        do { stored = try JPEG2000Codec.encode(raster, container: .jp2, targetBytes: targetBytes) } catch {
            report.error = "encoding the JPEG 2000 sample: \(error)"
            return report
        }
        report.storedBytes = stored.count
        do {
            report.jpegBytes = try DisplayImage.displayJPEG(from: stored).count  // warm-up
            report.rssBeforeMB = ProcessMemory.rssMB.map(r3)
            report.peakResetSupported = ProcessMemory.resetPeak()
            var cpu: [Double] = []
            var decode: [Double] = []
            var wall: [Double] = []
            for _ in 0..<max(1, runs) {
                let w0 = BenchClock.wallNanoseconds()
                let c0 = BenchClock.cpuNanoseconds()
                let decoded = try JPEG2000Codec.decode(stored)
                let c1 = BenchClock.cpuNanoseconds()
                let jpeg = try JPEGCodec.encode(decoded, quality: DisplayImage.jpegQuality)
                let c2 = BenchClock.cpuNanoseconds()
                let w1 = BenchClock.wallNanoseconds()
                guard jpeg.count == report.jpegBytes else {
                    report.error = "the JPEG differed between runs"
                    break
                }
                cpu.append(Double(c2 &- c0) / 1e6)
                decode.append(Double(c1 &- c0) / 1e6)
                wall.append(Double(w1 &- w0) / 1e6)
            }
            report.peakMB = ProcessMemory.peakMB.map(r3)
            let s = Spread(cpu)
            report.cpuMs = r3(s.median)
            report.cpuMsMin = r3(s.min)
            report.cpuMsMax = r3(s.max)
            report.decodeCpuMs = r3(Spread(decode).median)
            report.wallMs = r3(Spread(wall).median)
        } catch {
            report.error = "\(error)"
        }
        return report
    }

    static func acceptance(_ f: FaceBenchReport) -> BenchReport.Acceptance {
        let sized = (15_000...25_000).contains(f.storedBytes)
        return .init(
            criterion: "a typical 15–25 KB JPEG 2000 face decoded and re-encoded as JPEG in ≤ 50 ms (release build)",
            met: f.error != nil ? false : (sized ? f.cpuMs <= limitMs : nil),
            detail: f.error ?? "\(f.width)×\(f.height) JP2 of \(f.storedBytes) bytes → JPEG of \(f.jpegBytes) bytes: "
                + "\(f.cpuMs) ms CPU [\(f.cpuMsMin)–\(f.cpuMsMax)] (decode \(f.decodeCpuMs) ms), \(f.wallMs) ms wall; "
                + "peak RSS \(f.peakMB.map { "\($0)" } ?? "?") MB from \(f.rssBeforeMB.map { "\($0)" } ?? "?") MB")
    }

    static func text(_ f: FaceBenchReport) -> [String] {
        var out = ["", "== face image (JPEG 2000 → JPEG)"]
        if let e = f.error {
            out.append("  FAILED: \(e)")
            return out
        }
        out.append(
            "  \(f.image) \(f.width)×\(f.height), \(f.storedBytes) bytes → JPEG \(f.jpegBytes) bytes, \(f.runs) runs")
        out.append(
            "  CPU \(String(format: "%.2f", f.cpuMs)) ms [\(String(format: "%.2f", f.cpuMsMin))–\(String(format: "%.2f", f.cpuMsMax))]"
                + " (decode \(String(format: "%.2f", f.decodeCpuMs)) ms), wall \(String(format: "%.2f", f.wallMs)) ms")
        out.append(
            "  RSS \(f.rssBeforeMB.map { String(format: "%.1f", $0) } ?? "?") MB before, peak \(f.peakMB.map { String(format: "%.1f", $0) } ?? "?") MB"
                + (f.peakResetSupported ? "" : " (peak not reset: process peak so far)"))
        return out
    }
}
