import FaceImaging
import Foundation
public import MRTDDocument

/// The report as one self-contained HTML page (docs/report.md "HTML report"): a verdict banner
/// (word, symbol and colour — never colour alone), the face, every data field of the report, each check with
/// its status and detail, access control and transport facts, the tool version and the validation time.
///
/// Nothing is fetched: styles are inline, images are `data:` URIs, and a Content-Security-Policy forbids any
/// other source. Every text from the document or the report is HTML-escaped. The print style sheet lays the
/// page out on one A4 sheet.
public enum HTMLReport {
    /// An image to show: its bytes and MIME type. The face is passed by the caller (who may have converted a
    /// JPEG 2000 face to JPEG); only types a browser shows are embedded, others are named in a caption.
    public struct Image: Sendable, Hashable {
        public var label: String
        public var bytes: [UInt8]
        public var mimeType: String
        public init(label: String, bytes: [UInt8], mimeType: String) {
            self.label = label
            self.bytes = bytes
            self.mimeType = mimeType
        }
    }

    /// MIME types embedded as `data:` URIs (those every current browser shows).
    public static let displayableTypes: Set<String> = ["image/jpeg", "image/png"]

    public static func mimeType(_ format: ImageFormat) -> String {
        switch format {
        case .jpeg: return "image/jpeg"
        case .jpeg2000: return "image/jp2"
        case .png: return "image/png"
        case .unknown: return "application/octet-stream"
        }
    }

    /// The images a document stores besides the face, with the MIME type their signature says: DG5 portraits,
    /// DG7 signatures, DG11 proof of citizenship, DG12 front and rear of the document.
    public static func documentImages(_ lds: LDSDocument) -> [Image] {
        var out: [Image] = []
        func add(_ label: String, _ bytes: [UInt8]?) {
            guard let bytes, !bytes.isEmpty else { return }
            out.append(Image(label: label, bytes: bytes, mimeType: mimeType(ImageFormat.detect(bytes))))
        }
        for (f, label) in [(LDSFile.dg5, "Displayed portrait (DG5)"), (.dg7, "Displayed signature (DG7)")] {
            guard case .displayedImage(let g)? = lds.contents[f] else { continue }
            let shown = DocumentImageBudget.maxImagesPerDataGroup
            for i in g.images.prefix(shown) { add(label, i.data) }
            if g.images.count > shown {
                // named, not shown: a caption without bytes (`figure`)
                out.append(
                    Image(
                        label:
                            "\(g.images.count - shown) more in \(f.rawValue), not shown (at most \(shown) per data group)",
                        bytes: [], mimeType: leftOutType))
            }
        }
        add("Proof of citizenship (DG11)", lds.dg11?.proofOfCitizenship)
        add("Front of the document (DG12)", lds.dg12?.imageOfFront)
        add("Rear of the document (DG12)", lds.dg12?.imageOfRear)
        return out
    }

    /// `images` as a browser can show them: a JPEG 2000 image that decodes is re-encoded as JPEG (the label says
    /// so); anything else is kept as it is (`figure` names a type a browser cannot show instead of embedding it).
    /// All conversions of one call share one `DocumentImageBudget`: pass one document's images at a time.
    public static func displayable(_ images: [Image]) -> [Image] {
        var budget = DocumentImageBudget()
        return images.map { image in
            guard image.mimeType == mimeType(.jpeg2000), let jpeg = try? budget.displayJPEG(from: image.bytes)
            else { return image }
            return Image(label: image.label + ", shown as JPEG", bytes: jpeg, mimeType: "image/jpeg")
        }
    }

    /// The type of the caption `documentImages` adds for images it leaves out.
    static let leftOutType = "text/x-left-out"

    /// The page. `face` is the display image of DG2 (nil: none read or none displayable).
    public static func render(_ r: ReadReport, face: Image?, images: [Image] = []) -> String {
        var h = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        h +=
            "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; img-src data:; style-src 'unsafe-inline'\">\n"
        h += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        h += "<title>\(escape(title(r)))</title>\n<style>\(style)</style>\n</head>\n<body>\n"
        h += banner(r.verification)
        h += "<main>\n" + content(r, faceFigure: figure(face, id: "face", missing: "No face image"), images: images)
        h += "</main>\n"
        h += footer(r)
        h += "</body>\n</html>\n"
        return h
    }

    /// What `render` shows below the banner: the face figure (given as HTML), the MRZ data, every personal data
    /// section, the stored images, the checks, access control and transport facts, and the files.
    static func content(_ r: ReadReport, faceFigure: String, images: [Image]) -> String {
        var h = "<div class=\"top\">\n<figure class=\"face\">" + faceFigure + "</figure>\n"
        h += "<div class=\"data\">\n"
        if let d = r.document {
            h += documentTable(d)
        } else {
            h += "<p class=\"note\">No data group 1 (MRZ) could be read.</p>\n"
        }
        h += "</div>\n</div>\n<div class=\"columns\">\n"
        if let d = r.document {
            for s in PersonalDataSection.sections(of: d) {
                h += table(s.title, s.rows.map { ($0.label, $0.value) })
            }
        }
        if !images.isEmpty {
            h += "<section><h2>Images stored in the document</h2><div class=\"images\">"
            for i in images { h += "<figure>" + figure(i, id: nil, missing: "") + "</figure>" }
            h += "</div></section>\n"
        }
        h += checks(r.verification)
        h += accessAndTransport(r)
        h += files(r)
        return h + "</div>\n"
    }

    /// The report without the page around it, for a page that shows it inside its own and styles it with
    /// `style` (the kiosk page of `emrtd serve`, docs/kiosk.md): the same banner, figure, sections and footer as
    /// `render`, except that the banner's word is the verdict as the report spells it (`accepted`,
    /// `inconclusive`, `rejected`) in an element with id `verdict`, and the face is an empty `<img id="face">`
    /// that the page fills (nil `faceAlt`: no face image was read, a placeholder says so).
    /// `images`: the document's other images (DG5, DG7, DG11, DG12), embedded as `data:` URIs like `render`'s.
    public static func fragment(_ r: ReadReport, faceAlt: String?, images: [Image] = []) -> String {
        let faceFigure =
            faceAlt.map { "<img id=\"face\" alt=\"\(escape($0))\">" }
            ?? "<div class=\"noimage\">No face image</div>"
        return banner(r.verification, embedded: true) + "<main>\n"
            + content(r, faceFigure: faceFigure, images: images) + "</main>\n" + footer(r)
    }

    // MARK: parts

    static func title(_ r: ReadReport) -> String {
        guard let d = r.document else { return "eMRTD report" }
        return "eMRTD report — \(d.documentCode) \(d.issuingState) \(d.documentNumber)"
    }

    static func banner(_ v: ReadReport.Verification?, embedded: Bool = false) -> String {
        let status = v?.status ?? "notVerified"
        let (symbol, word, explain): (String, String, String)
        switch status {
        case "accepted":
            (symbol, word, explain) = (
                "✓", "ACCEPTED", "the chip's data is signed by a trusted issuer and the chip is genuine"
            )
        case "inconclusive":
            (symbol, word, explain) = (
                "!", "INCONCLUSIVE", "the data is authentic but the chip could not be shown genuine"
            )
        case "rejected": (symbol, word, explain) = ("✗", "REJECTED", "the data could not be shown authentic")
        default: (symbol, word, explain) = ("?", "NOT VERIFIED", "no verification was run")
        }
        var h = "<header id=\"\(embedded ? "banner" : "verdict")\" class=\"banner \(escape(status))\" role=\"status\">"
        h += "<span class=\"symbol\" aria-hidden=\"true\">\(symbol)</span>"
        h +=
            embedded
            ? "<span class=\"word\" id=\"verdict\">\(escape(status))</span>" : "<span class=\"word\">\(word)</span>"
        // why, in one sentence: the verification's reason (a report without one: the generic explanation)
        let why = v?.reason.flatMap { $0.isEmpty ? nil : $0 } ?? explain
        h += "<span class=\"explain\">\(escape(sentence(status: status, why)))"
        if let v {
            h += " — chip verification \(escape(v.chipVerification)), clone detection \(escape(v.chipCloneDetection))"
        }
        return h + "</span></header>\n"
    }

    /// "Rejected: the data group 2 hash does not match the signed one." — the verdict word and the reason.
    public static func sentence(status: String, _ reason: String) -> String {
        let word: String
        switch status {
        case "accepted": word = "Accepted"
        case "inconclusive": word = "Inconclusive"
        case "rejected": word = "Rejected"
        default: word = "Not verified"
        }
        return "\(word): \(reason)."
    }

    static func figure(_ image: Image?, id: String?, missing: String) -> String {
        let idAttr = id.map { " id=\"\(escape($0))\"" } ?? ""
        guard let image else { return "<div class=\"noimage\"\(idAttr)>\(escape(missing))</div>" }
        if image.mimeType == leftOutType { return "<div class=\"noimage\"\(idAttr)>\(escape(image.label))</div>" }
        let caption =
            "<figcaption>\(escape(image.label)) · \(escape(image.mimeType)) · \(image.bytes.count) bytes</figcaption>"
        guard displayableTypes.contains(image.mimeType) else {
            return "<div class=\"noimage\"\(idAttr)>Stored as \(escape(image.mimeType)); a browser cannot show it</div>"
                + caption
        }
        let uri = "data:\(image.mimeType);base64," + Data(image.bytes).base64EncodedString()
        return "<img\(idAttr) src=\"\(uri)\" alt=\"\(escape(image.label))\">" + caption
    }

    static func documentTable(_ d: ReadReport.Document) -> String {
        var rows: [(String, String)] = [
            ("Surname", d.surname), ("Given names", d.givenNames),
            ("Document", "\(d.documentCode) \(d.documentNumber)"),
            ("Issuing state", d.issuingState), ("Nationality", d.nationality), ("Date of birth", d.dateOfBirth),
            ("Sex", d.sex),
            ("Date of expiry", d.dateOfExpiry),
        ]
        if !d.optionalData.isEmpty { rows.append(("Optional data", d.optionalData)) }
        if let p = d.personalNumber { rows.append(("Personal number", p)) }
        var h = table("Machine readable zone (DG1)", rows)
        h += "<pre class=\"mrz\" aria-label=\"MRZ\">\(escape(d.mrz))</pre>\n"
        return h
    }

    static func table(_ title: String, _ rows: [(String, String)]) -> String {
        var h = "<section><h2>\(escape(title))</h2><table>"
        for (k, v) in rows { h += "<tr><th scope=\"row\">\(escape(k))</th><td>\(escape(v))</td></tr>" }
        return h + "</table></section>\n"
    }

    static func checks(_ v: ReadReport.Verification?) -> String {
        guard let v else { return "" }
        var h = "<section class=\"wide\"><h2>Checks</h2><table class=\"checks\">"
        for c in v.checks {
            h +=
                "<tr class=\"\(escape(c.status))\"><th scope=\"row\" title=\"\(escape(c.name))\">\(escape(c.title))</th><td class=\"status\">\(escape(c.statusText))</td>"
            h += "<td>\(escape(c.detail))</td></tr>"
        }
        return h + "</table></section>\n"
    }

    static func accessAndTransport(_ r: ReadReport) -> String {
        var rows: [(String, String)] = []
        if let ac = r.accessControl { rows.append(("Access control", ac.summary)) }
        if let rd = r.reader {
            rows.append(("Reader", rd.name))
            rows.append(
                (
                    "APDU sizes",
                    "\(rd.extendedLength ? "extended" : "short") length, command ≤ \(rd.maxCommandSize), response ≤ \(rd.maxResponseSize) bytes"
                ))
        }
        if let t = r.transport {
            rows.append(
                (
                    "Transport",
                    "\(t.apdus) APDUs, \(t.bytesSent) bytes sent, \(t.bytesReceived) received, \(Int(t.elapsedMs.rounded())) ms"
                ))
        }
        if let f = r.faceImage {
            rows.append(("Face image", "\(f.format), \(f.width)×\(f.height)"))
        }
        guard !rows.isEmpty else { return "" }
        return table("Access and transport", rows)
    }

    static func files(_ r: ReadReport) -> String {
        guard !r.files.isEmpty || !r.unreadFiles.isEmpty || !r.warnings.isEmpty else { return "" }
        var h = "<section><h2>Files</h2><table class=\"files\">"
        for f in r.files {
            h += "<tr><th scope=\"row\">\(escape(f.name))</th><td>\(f.size) bytes<span class=\"sha\">, SHA-256 "
            h += "\(escape(String(f.sha256.prefix(16))))…</span></td></tr>"
        }
        let rest =
            r.unreadFiles.sorted(by: { $0.key < $1.key }).map { ($0.key, "not read: \($0.value)") }
            + r.warnings.map { ("Warning", $0) }
        for (k, v) in rest { h += "<tr><th scope=\"row\">\(escape(k))</th><td>\(escape(v))</td></tr>" }
        return h + "</table></section>\n"
    }

    static func footer(_ r: ReadReport) -> String {
        var s = "\(r.tool.name) \(r.tool.version) · report schema \(r.schema)"
        if let t = r.verification?.validationTime { s += " · validated at \(t)" }
        return "<footer>\(escape(s))</footer>\n"
    }

    /// HTML escaping for text and attribute values.
    public static func escape(_ s: String) -> String {
        var out = ""
        out.reserveCapacity(s.utf8.count)
        for c in s.unicodeScalars {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default:
                // Control characters other than tab and newline have no business in a page.
                if c.value < 0x20 && c != "\t" && c != "\n" || (0x7F...0x9F).contains(c.value) {
                    out += "\u{FFFD}"
                } else {
                    out.unicodeScalars.append(c)
                }
            }
        }
        return out
    }

    /// The report's style sheet (screen and A4 print), also the kiosk page's base style.
    public static let style = """
        :root{--ok:#0b6b2b;--warn:#8a5a00;--bad:#a30d0d;--none:#4a4a4a;--line:#ccc}
        *{box-sizing:border-box}
        body{font:14px/1.35 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;color:#111;margin:0;background:#fff}
        .banner{display:flex;align-items:center;gap:.6em;padding:.6em 1em;color:#fff;font-size:1.1em}
        .banner .symbol{font-size:1.8em;font-weight:700;line-height:1}
        .banner .word{font-size:1.6em;font-weight:800;letter-spacing:.06em}
        .banner.accepted{background:var(--ok)}.banner.inconclusive{background:var(--warn)}
        .banner.rejected{background:var(--bad)}.banner.notVerified{background:var(--none)}
        main{padding:.8em 1em}
        .top{display:flex;gap:1em;align-items:flex-start}
        .face{margin:0;flex:0 0 12em}
        .face img,.face .noimage{width:12em;border:1px solid var(--line)}
        .noimage{display:flex;align-items:center;justify-content:center;min-height:6em;padding:.5em;background:#f2f2f2;color:#444;text-align:center;font-size:.85em}
        .face .noimage{height:16em}
        figcaption{font-size:.75em;color:#444;margin-top:.2em;overflow-wrap:anywhere}
        .data{flex:1;min-width:0}
        .columns{columns:2 22em;column-gap:1.2em;margin-top:.6em}
        section{break-inside:avoid;margin:0 0 .7em}
        section.wide{column-span:all}
        h2{font-size:.95em;margin:0 0 .25em;padding-bottom:.1em;border-bottom:2px solid #333}
        table{border-collapse:collapse;width:100%}
        th,td{text-align:left;vertical-align:top;padding:.12em .4em .12em 0;border-bottom:1px solid #e3e3e3;overflow-wrap:anywhere}
        th{font-weight:600;width:38%;color:#333}
        .checks th{width:1%;white-space:nowrap;overflow-wrap:normal}.checks td.status{width:1%;white-space:nowrap;font-weight:700;padding-right:.8em}
        tr.passed td.status{color:var(--ok)}tr.failed td.status{color:var(--bad)}tr.notPresent td.status,tr.notChecked td.status{color:var(--none)}
        .mrz{font:13px/1.3 "OCR B","DejaVu Sans Mono",monospace;background:#f6f6f6;padding:.3em .5em;margin:.4em 0 0;white-space:pre-wrap;overflow-wrap:anywhere}
        .images{display:flex;flex-wrap:wrap;gap:.6em}.images figure{margin:0;width:10em}.images img{max-width:10em;max-height:8em;border:1px solid var(--line)}
        .note{color:#444}
        footer{padding:.4em 1em;font-size:.8em;color:#444;border-top:1px solid var(--line)}
        @page{size:A4;margin:10mm}
        @media print{
          body{font-size:7pt;line-height:1.2;-webkit-print-color-adjust:exact;print-color-adjust:exact}
          .banner{padding:.3em .8em;font-size:1em}
          main{padding:.3em 0}
          .top{gap:4mm}
          .face{flex-basis:27mm}.face img,.face .noimage{width:27mm}.face .noimage{height:36mm}
          th,td{padding:0 .3em 0 0}
          h2{font-size:7.5pt;border-bottom-width:1px;margin-bottom:.1em}
          section{margin-bottom:.35em}
          .columns{columns:3;column-gap:4mm;margin-top:.3em}
          .mrz{font-size:7pt;padding:.15em .4em;margin-top:.2em}
          .checks td{font-size:6.5pt}
          .images{gap:2mm}.images figure{width:19mm}.images img{max-width:19mm;max-height:12mm}
          .images figcaption{font-size:5pt}
          .files .sha{display:none}
          footer{padding:.2em 0;font-size:6.5pt}
        }
        """
}
