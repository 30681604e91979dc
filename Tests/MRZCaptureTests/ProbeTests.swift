import Foundation
import MRZCapture
import SpecimenImages
import Testing
import VirtualChip

struct ProbeTests {
    @Test func probe() throws {
        guard let n = ProcessInfo.processInfo.environment["MRZ_PROBE"].flatMap(Int.init) else { return }
        let font = try OCRBFont()
        let r = try MRZRecognizer()
        var ok = 0
        var wrong = 0
        for i in 0..<n {
            let kind = Distortion.allCases[i % Distortion.allCases.count]
            let format: Specimen.Format = [.td1, .td2, .td3][(i / 8) % 3]
            let t0 = Date()
            let s = try Capture.sample(format, kind, seed: UInt64(1000 + i), font: font)
            let t1 = Date()
            if i < 8 { try Data(s.bytes).write(to: URL(fileURLWithPath: "/tmp/mrzprobe-\(i).jpg")) }
            do {
                let m = try r.recognize(s.bytes)
                let good = m.mrz.lines.joined(separator: "\n") == s.mrz
                if good { ok += 1 } else { wrong += 1 }
                print("\(i) \(format) \(kind) \(good ? "OK" : "WRONG") conf \(m.confidence) corr \(m.corrections) gen \(t1.timeIntervalSince(t0)) ocr \(Date().timeIntervalSince(t1))")
                if !good { print(s.mrz); print(m.mrz.lines.joined(separator: "\n")) }
            } catch {
                print("\(i) \(format) \(kind) FAIL \(error)")
            }
        }
        print("ok \(ok) wrong \(wrong) of \(n)")
    }
}
