import Foundation
import MRTDReader
import Testing

/// `HTMLReport.fragment`: the report inside another page (the kiosk page of `emrtd serve`, docs/kiosk.md) — the
/// same banner, sections and footer as the standalone page, the verdict word in `#verdict`, an empty `#face`.
@Suite struct HTMLReportFragmentTests {
    @Test func theFragmentIsThePageBodyWithTheKioskIDs() async throws {
        let (page, r, face, _) = try await HTMLReportTests.page()
        let fragment = HTMLReport.fragment(r, faceAlt: "Face (DG2)")
        // no page around it, no style, no script
        for bad in ["<html", "<head>", "<body", "<style", "<script", "<meta", "style=", "http:", "https:"] {
            #expect(!fragment.lowercased().contains(bad), "\(bad) found")
        }
        #expect(fragment.contains("<span class=\"word\" id=\"verdict\">accepted</span>"))
        #expect(fragment.contains("<header id=\"banner\" class=\"banner accepted\" role=\"status\">"))
        #expect(fragment.contains("<figure class=\"face\"><img id=\"face\" alt=\"Face (DG2)\"></figure>"))
        // below the banner, exactly the standalone page's sections (without the stored images, which the page
        // takes from the document, not the report)
        let standalone = HTMLReport.render(r, face: face)
        func after(_ marker: String, _ s: String) -> String {
            String(s[s.range(of: marker)!.upperBound...])
        }
        let faceEnd = "</figure>\n<div class=\"data\">"
        #expect(
            after(faceEnd, fragment)
                == after(faceEnd, standalone).replacingOccurrences(of: "</body>\n</html>\n", with: ""))
        #expect(page.contains(after(faceEnd, fragment).prefix(2000)))
        // the word is the verdict as the report spells it, for each verdict
        var other = r
        for status in ["inconclusive", "rejected"] {
            other.verification?.status = status
            let f = HTMLReport.fragment(other, faceAlt: nil)
            #expect(f.contains("<span class=\"word\" id=\"verdict\">\(status)</span>"))
            #expect(f.contains("class=\"banner \(status)\""))
            #expect(!f.contains("id=\"face\"") && f.contains("<div class=\"noimage\">No face image</div>"))
        }
    }

    @Test func hostileTextIsEscapedInTheFragment() async throws {
        var (_, r, _, _) = try await HTMLReportTests.page()
        let evil = "<script>alert(1)</script><img src=x onerror=alert(2)>"
        r.document?.surname = evil
        r.verification?.status = evil
        let f = HTMLReport.fragment(r, faceAlt: evil)
        #expect(!f.contains("<script") && !f.contains("<img src=x"))
        #expect(f.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
    }
}
