import FaceImaging
import Foundation
import MRTDDocument
import MRTDReader
import Testing

/// The HTML report: one self-contained page with every field of the report.
/// `EMRTD_HTML_REPORT_OUT=/path/report.html swift test --filter HTMLReportTests` also writes the page of the
/// generated Utopia specimen there (docs/report-example.png shows such a page, taken by KioskBrowserTests).
@Suite struct HTMLReportTests {
    static func page() async throws -> (
        html: String, report: ReadReport, face: HTMLReport.Image, images: [HTMLReport.Image]
    ) {
        let (report, result) = try await PersonalDataReportTests.Cache.shared.get()
        let stored = try #require(result.document.faceImage)
        // the face as the command line delivers it: JPEG (the generated specimen stores JPEG 2000)
        let face = HTMLReport.Image(
            label: "Face (DG2)", bytes: try DisplayImage.displayJPEG(from: stored.imageData), mimeType: "image/jpeg")
        let images = HTMLReport.documentImages(result.document)
        let html = HTMLReport.render(report, face: face, images: images)
        if let out = ProcessInfo.processInfo.environment["EMRTD_HTML_REPORT_OUT"] {
            try Data(html.utf8).write(to: URL(fileURLWithPath: out))
        }
        return (html, report, face, images)
    }

    @Test func everyFieldOfTheReportIsOnThePage() async throws {
        let (html, r, _, _) = try await Self.page()
        let d = try #require(r.document)
        for v in [
            d.surname, d.givenNames, d.documentNumber, d.issuingState, d.nationality, d.dateOfBirth, d.dateOfExpiry,
            d.sex,
        ] {
            #expect(html.contains(HTMLReport.escape(v)), "\(v) missing")
        }
        for line in d.mrz.split(separator: "\n") { #expect(html.contains(HTMLReport.escape(String(line)))) }
        let sections = PersonalDataSection.sections(of: d)
        #expect(
            sections.map(\.title) == [
                "Displayed portrait (DG5)", "Displayed signature or usual mark (DG7)",
                "Additional personal details (DG11)", "Additional document details (DG12)",
                "Persons to notify (DG16)",
            ])
        // every DG11, DG12 and DG16 element of the specimen has its row
        let tags = Set(sections.flatMap { $0.rows.map(\.tag) })
        #expect(
            tags == [
                "5F40", "5F43", "5F0E", "5F0F", "5F10", "5F2B", "5F11", "5F42", "5F12", "5F13", "5F14", "5F15", "5F16",
                "5F17", "5F18", "5F19", "5F26", "5F1A", "5F1B", "5F1C", "5F1D", "5F1E", "5F55", "5F56", "5F50",
                "5F51", "5F52", "5F53",
            ])
        for s in sections {
            #expect(html.contains(HTMLReport.escape(s.title)))
            for row in s.rows {
                #expect(
                    html.contains(
                        "<th scope=\"row\">\(HTMLReport.escape(row.label))</th><td>\(HTMLReport.escape(row.value))</td>"
                    ),
                    "\(row.label) missing")
            }
        }
        #expect(html.contains("1974-08-12") && html.contains("ZENITH, UTOPIA") && html.contains("ERIKSSON, EVA MARIA"))
        let v = try #require(r.verification)
        #expect(v.checks.count >= 5)
        for c in v.checks {
            // the check's title for people, its code as the row's tooltip
            #expect(
                html.contains(
                    "<th scope=\"row\" title=\"\(HTMLReport.escape(c.name))\">\(HTMLReport.escape(c.title))</th>"),
                "\(c.name) missing")
            #expect(html.contains(HTMLReport.escape(c.detail)), "\(c.name) detail missing")
            #expect(html.contains("<td class=\"status\">\(HTMLReport.escape(c.statusText))</td>"))
        }
        let ac = try #require(r.accessControl)
        #expect(html.contains("\(ac.protocol) with \(ac.password)") && html.contains(ac.cipher))
        #expect(html.contains(HTMLReport.escape(try #require(r.reader).name)))
        #expect(html.contains("\(try #require(r.transport).apdus) APDUs"))
        #expect(html.contains("emrtd \(EMRTDKitVersion.string)"))
        #expect(html.contains("validated at \(try #require(v.validationTime))"))
        for f in r.files { #expect(html.contains("<th scope=\"row\">\(f.name)</th>")) }
    }

    @Test func verdictIsAWordAndASymbolNotOnlyAColour() async throws {
        var (_, r, face, _) = try await Self.page()
        for (status, word, symbol) in [
            ("accepted", "ACCEPTED", "✓"), ("inconclusive", "INCONCLUSIVE", "!"), ("rejected", "REJECTED", "✗"),
        ] {
            r.verification?.status = status
            let html = HTMLReport.render(r, face: face)
            #expect(html.contains("<header id=\"verdict\" class=\"banner \(status)\" role=\"status\">"))
            #expect(html.contains("<span class=\"word\">\(word)</span>") && html.contains(">\(symbol)</span>"))
            #expect(html.contains(".banner.\(status){background:"))
        }
        // a check's status is a word and a symbol as well
        let statuses = ["passed", "failed", "notPresent", "notChecked"].map {
            ReadReport.Check(name: "x", status: $0, detail: "").statusText
        }
        #expect(statuses == ["✓ passed", "✗ FAILED", "– not present", "– not checked"])
        r.verification = nil
        #expect(HTMLReport.render(r, face: nil).contains("<span class=\"word\">NOT VERIFIED</span>"))
    }

    /// Nothing is fetched: no URL other than data: URIs, no script, no link, a CSP that forbids the rest.
    @Test func noExternalResource() async throws {
        let (html, _, _, _) = try await Self.page()
        let lower = html.lowercased()
        for bad in [
            "http:", "https:", "href=", "<link", "<script", "@import", "url(", "src=\"//", "src='//", "<iframe",
            "<object",
        ] {
            #expect(!lower.contains(bad), "\(bad) found")
        }
        #expect(html.contains("default-src 'none'; img-src data:"))
        let sources = html.components(separatedBy: "src=\"").dropFirst().map { String($0.prefix { $0 != "\"" }) }
        #expect(sources.count == 6)  // face, DG5, DG7, DG11 proof of citizenship, DG12 front and rear
        for s in sources { #expect(s.hasPrefix("data:image/")) }
    }

    /// Each embedded image decodes, and its bytes are what its MIME type says.
    @Test func imagesDecodeAsTheirMIMETypeSays() async throws {
        let (html, _, face, images) = try await Self.page()
        let sources = html.components(separatedBy: "src=\"").dropFirst().map { String($0.prefix { $0 != "\"" }) }
        var decoded: [[UInt8]] = []
        for s in sources {
            let parts = s.dropFirst("data:".count).split(separator: ",", maxSplits: 1)
            let mime = String(try #require(parts.first).split(separator: ";").first ?? "")
            #expect(parts.first?.hasSuffix(";base64") == true)
            let bytes = [UInt8](try #require(Data(base64Encoded: String(parts[1]))))
            let format = ImageFormat.detect(bytes)
            #expect(HTMLReport.mimeType(format) == mime, "\(mime) holds \(format)")
            #expect(ImageFormat.dimensions(bytes) != nil)
            decoded.append(bytes)
        }
        #expect(decoded.first == face.bytes)
        #expect(Array(decoded.dropFirst()) == images.map(\.bytes))
    }

    /// A JPEG 2000 image is not embedded (browsers do not show it): the page says so instead.
    @Test func jpeg2000IsNamedNotEmbedded() async throws {
        let (_, r, _, _) = try await Self.page()
        let jp2: [UInt8] = [0x00, 0x00, 0x00, 0x0C, 0x6A, 0x50, 0x20, 0x20, 0x0D, 0x0A, 0x87, 0x0A, 0, 0, 0, 0]
        let html = HTMLReport.render(
            r, face: HTMLReport.Image(label: "Face (DG2)", bytes: jp2, mimeType: HTMLReport.mimeType(.jpeg2000)))
        #expect(!html.contains("src=\""))
        #expect(html.contains("<div class=\"noimage\" id=\"face\">Stored as image/jp2; a browser cannot show it</div>"))
    }

    /// Everything that comes from the document or the chip is escaped.
    @Test func hostileTextIsEscaped() async throws {
        var (_, r, face, _) = try await Self.page()
        let evil = "<script>alert('x')</script>\"><img src=x onerror=alert(1)>&amp;"
        r.document?.surname = evil
        r.document?.additionalPersonalDetails?.address = [evil]
        r.document?.personsToNotify?[0].telephone = evil
        r.verification?.checks[0].detail = evil
        r.reader?.name = evil
        r.warnings = [evil + "\u{07}\u{1B}[31m"]
        let html = HTMLReport.render(r, face: HTMLReport.Image(label: evil, bytes: face.bytes, mimeType: face.mimeType))
        #expect(!html.contains("<script") && !html.contains("<img src=x") && !html.contains("'x'"))
        #expect(!html.contains("\u{07}") && !html.contains("\u{1B}"))
        #expect(
            html.contains(
                "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&quot;&gt;&lt;img src=x onerror=alert(1)&gt;&amp;amp;"))
        #expect(html.components(separatedBy: "&lt;script&gt;").count - 1 >= 6)
    }

    @Test func printStyleFitsA4() async throws {
        let (html, _, _, _) = try await Self.page()
        #expect(html.contains("@page{size:A4;margin:10mm}") && html.contains("@media print{"))
        #expect(html.contains("<html lang=\"en\">") && html.contains("<meta charset=\"utf-8\">"))
    }
}

/// The document's other images as a browser can show them (the HTML report and the kiosk's result).
@Suite("HTML report: displayable images")
struct DisplayableImageTests {
    @Test func aJPEG2000ImageIsShownAsJPEGAndABrokenOneIsNamed() async throws {
        // a JPEG 2000 face from the virtual passport stands for a JPEG 2000 DG5 portrait
        let result = try await VirtualDocument("pace-gm-brainpool-aes128").read()
        let jp2 = try #require(result.document.faceImage).imageData
        #expect(ImageFormat.detect(jp2) == .jpeg2000)
        let broken = Array(jp2.prefix(40))
        let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0]
        let shown = HTMLReport.displayable([
            HTMLReport.Image(label: "Displayed portrait (DG5)", bytes: jp2, mimeType: "image/jp2"),
            HTMLReport.Image(label: "Broken (DG5)", bytes: broken, mimeType: "image/jp2"),
            HTMLReport.Image(label: "Displayed signature (DG7)", bytes: jpeg, mimeType: "image/jpeg"),
        ])
        #expect(shown[0].mimeType == "image/jpeg" && shown[0].label == "Displayed portrait (DG5), shown as JPEG")
        #expect(Array(shown[0].bytes.prefix(3)) == [0xFF, 0xD8, 0xFF])
        #expect(shown[1].mimeType == "image/jp2" && shown[1].bytes == broken, "kept, and named as not showable")
        #expect(shown[2].bytes == jpeg && shown[2].mimeType == "image/jpeg")
        let report = ReportBuilder.report(for: result, verification: nil)
        let fragment = HTMLReport.fragment(report, faceAlt: nil, images: shown)
        #expect(fragment.contains("alt=\"Displayed portrait (DG5), shown as JPEG\""))
        #expect(fragment.contains("Stored as image/jp2; a browser cannot show it"))
    }
}
