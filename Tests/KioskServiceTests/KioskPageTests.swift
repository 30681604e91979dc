import Foundation
import KioskService
import MRTDTestSupport
import Testing

/// The kiosk page's files as `emrtd serve` delivers them (docs/kiosk.md): behind the token, a strict
/// Content-Security-Policy, nothing fetched from elsewhere, the stable ids, the idle time from `--kiosk-idle`.
/// What the page does is tested in a browser (KioskBrowserTests).
@Suite("emrtd serve: the kiosk page's files", .serialized, .timeLimit(.minutes(2)))
struct KioskPageTests {
    func withService(_ extra: [String] = [], _ body: (Service) async throws -> Void) async throws {
        try await Service.withTemporary(extra, body)
    }

    static let ids = [
        "mrz", "document-number", "date-of-birth", "date-of-expiry", "can", "start", "progress", "error", "next",
        "scan", "camera", "camera-view", "scan-stop",
    ]

    @Test func thePageItsStyleAndItsScriptNeedTheTokenAndCarryThePolicy() async throws {
        try await withService { s in
            for path in ["/", "/kiosk.css", "/kiosk.js"] {
                #expect(try s.http.request("GET", path, token: nil).status == 401, "\(path)")
                #expect(try s.http.request("GET", path, token: String(repeating: "0", count: 64)).status == 403)
                #expect(try s.http.request("POST", path, token: s.token).status == 405)
            }
            let page = try s.http.request("GET", "/", token: s.token)
            #expect(page.status == 200)
            #expect(page.headers["content-type"] == "text/html; charset=utf-8")
            let csp = try #require(page.headers["content-security-policy"])
            #expect(csp == KioskPage.contentSecurityPolicy)
            #expect(
                csp.hasPrefix("default-src 'self'; img-src 'self' data: blob:; script-src 'self'; style-src 'self'"))
            #expect(
                !csp.contains("unsafe") && csp.contains("frame-ancestors 'none'") && csp.contains("form-action 'none'"))
            #expect(page.headers["x-content-type-options"] == "nosniff" && page.headers["cache-control"] == "no-store")
            let css = try s.http.request("GET", "/kiosk.css", token: s.token)
            #expect(css.status == 200 && css.headers["content-type"] == "text/css; charset=utf-8")
            let js = try s.http.request("GET", "/kiosk.js", token: s.token)
            #expect(js.status == 200 && js.headers["content-type"] == "text/javascript; charset=utf-8")
            #expect(js.text == KioskPage.script && css.text == KioskPage.css)
            #expect(try s.http.request("GET", "/kiosk.txt", token: s.token).status == 404)
        }
    }

    /// A person who opens the page without its sign-in link sees a page that says what to do, not the API's JSON.
    @Test func withoutSignInTheBrowserGetsAPageThatSaysWhatToDo() async throws {
        try await withService { s in
            for (path, token, status) in [
                ("/", nil, 401), ("/", String(repeating: "0", count: 64), 403), ("/login?token=wrong", nil, 403),
                ("/login", nil, 401),
            ] as [(String, String?, Int)] {
                let r = try s.http.request("GET", path, token: token)
                #expect(r.status == status, "\(path)")
                #expect(r.headers["content-type"] == "text/html; charset=utf-8", "\(path)")
                #expect(r.text.contains("id=\"signin\"") && r.text.contains("/login?token="), "\(path)")
                #expect(r.headers["content-security-policy"] == KioskPage.contentSecurityPolicy)
                let lower = r.text.lowercased()
                for bad in ["<script", "style=", "<style", s.token.lowercased()] { #expect(!lower.contains(bad)) }
            }
            // the API and the page's own files keep their JSON errors
            for path in ["/kiosk.js", "/v1/readers"] {
                let r = try s.http.request("GET", path, token: nil)
                #expect(r.status == 401 && r.headers["content-type"] == "application/json", "\(path)")
            }
        }
    }

    @Test func thePageHasTheStableIDsAndNothingInlineOrExternal() async throws {
        try await withService { s in
            let html = try s.http.request("GET", "/", token: s.token).text
            #expect(html.contains("<html lang=\"en\">"))
            for id in Self.ids { #expect(html.contains("id=\"\(id)\""), "#\(id) missing") }
            #expect(html.contains("<progress id=\"progress\""))
            #expect(html.contains("<script src=\"/kiosk.js\" defer></script>"))
            #expect(html.contains("<link rel=\"stylesheet\" href=\"/kiosk.css\">"))
            // the only script is /kiosk.js: no inline script, no event-handler attribute, no inline style
            #expect(html.components(separatedBy: "<script").count == 2)
            let lower = html.lowercased()
            for bad in [" onclick=", " onload=", " oninput=", " onerror=", "style=", "<style", "http:", "https:", "//"]
            {
                #expect(!lower.contains(bad), "\(bad) found")
            }
            #expect(html.contains("data-idle-seconds=\"60\""))
            // the style sheet is the HTML report's, then the page's own rules
            let css = try s.http.request("GET", "/kiosk.css", token: s.token).text
            #expect(css.contains(".banner.accepted{background:var(--ok)}") && css.contains("@media print{"))
            #expect(
                !css.contains("http:") && !css.contains("https:") && !css.contains("@import") && !css.contains("url("))
        }
    }

    /// The script keeps access data out of storage, the console and URLs; it talks to the service only.
    @Test func theScriptUsesNoStorageNoConsoleAndOnlyTheService() async throws {
        let js = KioskPage.script
        for bad in [
            "localStorage", "sessionStorage", "indexedDB", "console.", "document.cookie", "eval(", "http:", "https:",
        ] {
            #expect(!js.contains(bad), "\(bad) found")
        }
        // the access-data rules are the service's (POST /v1/access-data/check): no check-digit rules here
        #expect(!js.contains("[7, 3, 1]") && !js.contains("checkDigit"))
        #expect(js.contains("\"/v1/access-data/check\"") && js.contains("\"/v1/mrz\""))
        // every request goes to the service's own paths
        let fetched = js.components(separatedBy: "fetch(").dropFirst().map { String($0.prefix(12)) }
        #expect(!fetched.isEmpty)
        for f in fetched { #expect(f.hasPrefix("\"/v1/"), "\(f)") }
        for f in js.components(separatedBy: "EventSource(").dropFirst().map({ String($0.prefix(12)) }) {
            #expect(f.hasPrefix("\"/v1/"), "\(f)")
        }
    }

    @Test func kioskIdleSetsThePagesIdleTimeAndIsBounded() async throws {
        try await withService(["--kiosk-idle", "90"]) { s in
            let page = try s.http.request("GET", "/", token: s.token)
            #expect(page.text.contains("data-idle-seconds=\"90\""))
        }
        for bad in ["2", "4000", "soon"] {
            let dir = Harness.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: dir) }
            let r = try Harness.run([
                "serve", "--listen", "127.0.0.1:0", "--token-file", dir.appendingPathComponent("t").path,
                "--kiosk-idle", bad,
            ])
            #expect(r.status == 2, "--kiosk-idle \(bad)")
            #expect(r.stderr.contains("--kiosk-idle"))
        }
    }

    @Test func resultFragmentOfAnUnknownReadIs404() async throws {
        try await withService { s in
            let r = try s.http.request("GET", "/v1/reads/0123456789abcdef/result.html", token: s.token)
            #expect(r.status == 404 && r.errorCode == "not_found")
            #expect(try s.http.request("GET", "/v1/reads/x/result.html", token: nil).status == 401)
        }
    }
}

/// `GET /v1/reads/{id}/result.html` of a read that has no result yet: 409, nothing of the person.
@Suite(
    "emrtd serve: the result fragment before the result", .serialized, .timeLimit(.minutes(20)),
    .enabled(
        if: PCSCTestEnvironment.isAvailable,
        Comment(rawValue: PCSCTestEnvironment.unavailableReason ?? "pcscd/vpcd available")))
struct ResultFragmentBeforeTheResultTests {
    @Test func aWaitingReadHasNoResultFragment() async throws {
        let slot = try await VPCDSlotLock.acquire()  // no simulated card on the reader meanwhile
        defer { _ = slot }
        try await Service.withTemporary { s in
            let id = try s.startRead([
                "reader": Harness.reader0, "waitSeconds": 30,
                "access": ["documentNumber": "AB1234567", "dateOfBirth": "800101", "dateOfExpiry": "300101"],
            ])
            let r = try s.http.request("GET", "/v1/reads/\(id)/result.html", token: s.token)
            #expect(r.status == 409 && r.errorCode == "no_result", "\(r.status) \(r.text)")
            #expect(!r.text.contains("AB1234567"))
            #expect(try s.http.request("DELETE", "/v1/reads/\(id)", token: s.token).status == 204)
        }
    }
}
