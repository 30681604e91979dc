import Foundation
import MRTDTestSupport
import Testing

/// The kiosk page at `/` in a real browser: headless Chromium driven by Selenium
/// (`Browser/kiosk_browser.py`, Debian's `chromium`, `chromium-driver` and `python3-selenium`) against `emrtd serve`
/// and `emrtd simulate` through pcscd and vpcd. Skipped, with the reason shown, where pcscd/vpcd or the browser is
/// missing — except under CI (`CI=true`), where a missing browser fails the test instead of skipping it.
/// The time limit covers the wait for the vpcd slot lock (other suites may hold it for minutes); the browser
/// session itself takes about 30 s.
///
/// `EMRTD_KIOSK_SCREENSHOTS=DIR swift test --filter KioskBrowserTests` also saves `kiosk-example.png` and
/// `report-example.png` in DIR (how the screenshots in docs/ are made).
@Suite(
    "the kiosk page in headless Chromium", .serialized, .timeLimit(.minutes(6)),
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
        let service = try Service(
            dir: dir, trust: good.trust, extra: ["--trust", forged.trust, "--kiosk-idle", String(Self.idleSeconds)])
        defer { service.stop() }

        var input: [String: Any] = [
            "base": "http://127.0.0.1:\(service.port)", "token": service.token, "emrtd": Harness.executable.path,
            "reader": Harness.reader0, "idleSeconds": Self.idleSeconds,
            "servePid": Int(service.process.processIdentifier),
            "good": ["folder": good.folder, "mrz": good.mrz, "trust": good.trust],
            "forged": ["folder": forged.folder, "mrz": forged.mrz, "trust": forged.trust],
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
        #expect(summary.hasPrefix("kiosk browser test:") && count >= 60, "\(summary)")
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
