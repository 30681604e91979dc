import Foundation
import Testing

/// `--html FILE` on demo, verify (and, through the shared read flow, read and stepup run): one self-contained
/// page with the verdict word and a face every browser shows, private, and refused before the read when the
/// file cannot be written.
@Suite struct HTMLOutputTests {
    static func page(_ url: URL) throws -> String { try String(contentsOf: url, encoding: .utf8) }

    @Test(arguments: [("pace-gm-brainpool-aes128", "accepted"), ("bac+dg-modified", "rejected")])
    func demoAndVerifyWriteTheReportAsOnePage(profile: String, verdict: String) throws {
        let dir = Emrtd.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let bundle = dir.appendingPathComponent("bundle")
        let html = dir.appendingPathComponent("read.html")
        let r = try Emrtd.run(["demo", "--profile", profile, "--quiet", "--out", bundle.path, "--html", html.path])
        #expect(r.status == (verdict == "accepted" ? 0 : 11), "\(r.stderr)")
        let text = try Self.page(html)
        #expect(text.hasPrefix("<!DOCTYPE html>"))
        #expect(text.contains(verdict.uppercased()), "the verdict word is on the page")
        #expect(text.contains("ERIKSSON"))
        // the face: a JPEG data URI (the default profile stores JPEG 2000, converted for the browser)
        #expect(text.contains("data:image/jpeg;base64,"))
        for external in ["src=\"http", "href=\"http", "src=\"//", "url(http"] { #expect(!text.contains(external)) }
        let mode = try FileManager.default.attributesOfItem(atPath: html.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        // verify --html writes the same kind of page from the bundle, with the same verdict
        let offline = dir.appendingPathComponent("verify.html")
        let v = try Emrtd.run([
            "verify", bundle.path, "--trust", bundle.appendingPathComponent("test-csca.cer").path,
            "--html", offline.path,
        ])
        #expect(v.status == r.status, "\(v.stderr)")
        let offlineText = try Self.page(offline)
        #expect(offlineText.contains(verdict.uppercased()) && offlineText.contains("data:image/jpeg;base64,"))
    }

    @Test func anUnwritableHTMLFileIsRefusedBeforeTheRead() throws {
        let dir = Emrtd.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        for bad in ["/nonexistent-folder/read.html", dir.path, ""] {
            let r = try Emrtd.run(["demo", "--html", bad, "--json"])
            #expect(r.status == 2, "\(bad): \(r.stderr)")
            let error = Emrtd.json(r.stdout)?["error"] as? [String: Any]
            #expect(error?["code"] as? String == "output-not-usable", "\(bad): \(r.stdout)")
            // refused before anything was read: no report on stdout, only the error
            #expect(Emrtd.json(r.stdout)?["verification"] == nil)
        }
    }
}
