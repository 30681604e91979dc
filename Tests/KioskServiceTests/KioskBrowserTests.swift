import DocumentGenerator
import Foundation
import MRTDTestSupport
import SpecimenImages
import Testing

/// The kiosk page at `/` in a real browser: headless Chromium driven by Selenium
/// (`Browser/kiosk_browser.py`, Debian's `chromium`, `chromium-driver` and `python3-selenium`) against `emrtd serve`
/// and `emrtd simulate` through pcscd and vpcd. Skipped, with the reason shown, where pcscd/vpcd or the browser is
/// missing — except under CI (`CI=true`), where a missing browser fails the test instead of skipping it.
/// The time limit covers the wait for the vpcd slot lock (other suites may hold it for minutes); the browser
/// session itself takes about 30 s.
///
/// The camera: Chromium runs with a fake camera playing a generated data page of the chip's document
/// (`cameraFile(for:in:)`); "Scan with camera" must fill the MRZ from it through `POST /v1/mrz` and the read end
/// accepted.
///
/// `EMRTD_KIOSK_SCREENSHOTS=DIR swift test --filter KioskBrowserTests` also saves `kiosk-example.png` and
/// `report-example.png` in DIR (how the screenshots in docs/ are made).
@Suite(
    "the kiosk page in headless Chromium", .serialized, .timeLimit(.minutes(20)),
    .enabled(
        if: PCSCTestEnvironment.isAvailable,
        Comment(rawValue: PCSCTestEnvironment.unavailableReason ?? "pcscd/vpcd available")),
    .enabled(
        if: BrowserTooling.missing == nil || BrowserTooling.underCI,
        Comment(rawValue: BrowserTooling.missing ?? "Chromium, chromedriver and Selenium available")))
struct KioskBrowserTests {
    /// Short enough to test, long enough for the checks on a shown result to finish first.
    static let idleSeconds = 15

    static var script: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Browser/kiosk_browser.py")
    }

    @Test func mrzEntryProgressVerdictFaceErrorsNextAndIdleInChromium() async throws {
        // under CI a missing browser is a failure, not a skip
        if let missing = BrowserTooling.missing {
            Issue.record("CI=true and \(missing)")
            return
        }
        let slot = try await VPCDSlotLock.acquire()
        defer { _ = slot }
        let dir = Harness.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let good = try Harness.document(ServeThroughPCSCTests.profile, in: dir)
        let forged = try Harness.document(ServeThroughPCSCTests.profile + "+dg-modified", in: dir)
        // the camera: the good document's data page, as Chromium's fake camera plays it
        let camera = try Self.cameraFile(for: good, in: dir)
        let service = try Service(
            dir: dir, trust: good.trust, extra: ["--trust", forged.trust, "--kiosk-idle", String(Self.idleSeconds)])
        defer { service.stop() }

        var input: [String: Any] = [
            "base": "http://127.0.0.1:\(service.port)", "token": service.token, "emrtd": Harness.executable.path,
            "reader": Harness.reader0, "idleSeconds": Self.idleSeconds,
            "servePid": Int(service.process.processIdentifier),
            "good": ["folder": good.folder, "mrz": good.mrz, "trust": good.trust],
            "forged": ["folder": forged.folder, "mrz": forged.mrz, "trust": forged.trust],
            "camera": camera.path,
        ]
        if let shots = ProcessInfo.processInfo.environment["EMRTD_KIOSK_SCREENSHOTS"] { input["screenshots"] = shots }
        let result = try Harness.run(
            [Self.script.path], program: URL(fileURLWithPath: BrowserTooling.python),
            input: try JSONSerialization.data(withJSONObject: input), timeout: 150)
        let summary = result.stdout.split(separator: "\n").last.map(String.init) ?? ""
        #expect(
            result.status == 0,
            "the browser script failed (exit \(result.status)):\n\(result.stdout.suffix(3000))\n\(result.stderr.suffix(4000))"
        )
        print(summary)
        // the script's own count: a script that stopped early cannot pass
        let count = Int(summary.split(separator: " ").dropFirst(3).first ?? "") ?? 0
        #expect(summary.hasPrefix("kiosk browser test:") && count >= 70, "\(summary)")
    }

    /// The frames Chromium's fake camera plays (`--use-file-for-fake-video-capture`): the data page of the chip's
    /// document (the Utopia passport specimen, whose MRZ the chip's is — checked), clean (`Distortion.clean`: straight,
    /// evenly lit, turned by up to 2°) at 300 dpi, on a 1600 × 1200 frame: the size the recogniser reads reliably
    /// (the 125 mm page is about 1,480 pixels wide). YUV4MPEG2, 4:2:0: the grey image as Y, U = V = 128; 3 frames.
    static func cameraFile(for document: Harness.Document, in dir: URL) throws -> URL {
        let specimen = Specimen.utopiaPassport
        try #require(specimen.mrz == document.mrz, "the chip's document is not the Utopia passport specimen")
        let font = try #require(try? OCRBFont(), "the OCR-B font (Debian package fonts-ocr-b) is missing")
        let (w, h) = (1600, 1200)
        let page = try Capture.sample(of: specimen, .clean, seed: 1, font: font, canvas: (w, h), encoding: .pgm)
        try #require(page.width == w && page.height == h && page.bytes.count >= w * h)
        let luma = page.bytes.suffix(w * h)  // after the PGM header
        var y4m = Data("YUV4MPEG2 W\(w) H\(h) F5:1 Ip A1:1 C420jpeg\n".utf8)
        let chroma = Data(repeating: 128, count: 2 * (w / 2) * (h / 2))
        for _ in 0..<3 {
            y4m.append(Data("FRAME\n".utf8))
            y4m.append(contentsOf: luma)
            y4m.append(chroma)
        }
        let file = dir.appendingPathComponent("camera.y4m")
        try y4m.write(to: file)
        return file
    }
}

/// Debian's Chromium, chromedriver and Selenium, as the browser test uses them.
enum BrowserTooling {
    static let python = "/usr/bin/python3"
    static let chromedriver = "/usr/bin/chromedriver"
    static let chromium = "/usr/bin/chromium"

    static var underCI: Bool { ProcessInfo.processInfo.environment["CI"] == "true" }

    /// nil when the browser tooling is there; else what is missing (printed: never a silent skip).
    static let missing: String? = {
        var missing: [String] = []
        for (path, package) in [(python, "python3"), (chromium, "chromium"), (chromedriver, "chromium-driver")]
        where !FileManager.default.isExecutableFile(atPath: path) {
            missing.append("\(path) (Debian package \(package))")
        }
        if missing.isEmpty {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: python)
            p.arguments = ["-c", "import selenium"]
            p.standardOutput = FileHandle.nullDevice
            p.standardError = FileHandle.nullDevice
            if (try? p.run()) == nil {
                missing.append("a runnable \(python)")
            } else {
                p.waitUntilExit()
                if p.terminationStatus != 0 { missing.append("the selenium module (Debian package python3-selenium)") }
            }
        }
        guard !missing.isEmpty else { return nil }
        let reason = "the kiosk browser test needs " + missing.joined(separator: ", ")
        FileHandle.standardError.write(Data("SKIPPING \(reason)\n".utf8))
        return reason
    }()
}
