import CanonicalJSON
import Foundation
import MRTDReader

/// Human-readable rendering of a report, and the progress line.
enum Presentation {
    static func json(_ report: ReadReport) -> String {
        CanonicalJSON.string(report)
    }

    static func text(_ r: ReadReport) -> String {
        var out: [String] = []
        if let v = r.verification {
            out.append(
                "VERDICT: \(v.status.uppercased())  (chip verification \(v.chipVerification), clone detection \(v.chipCloneDetection))"
            )
            if let why = v.reason, !why.isEmpty { out.append("         \(HTMLReport.sentence(status: v.status, why))") }
        }
        if let d = r.document {
            out.append("")
            out.append("Document     \(d.documentCode) \(d.issuingState) \(d.documentNumber)")
            out.append("Name         \(d.surname), \(d.givenNames)")
            out.append(
                "Nationality  \(d.nationality)   Sex \(d.sex)   Born \(d.dateOfBirth)   Expires \(d.dateOfExpiry)")
            if let p = d.personalNumber { out.append("Personal no. \(p)") }
            out += PersonalDataPresentation.lines(d)
        }
        if let ac = r.accessControl { out.append("Access       \(ac.summary)") }
        if let f = r.faceImage {
            let shown =
                f.error.map { " — cannot be shown: \($0)" }
                ?? (f.format == "jpeg" ? "" : " (shown as \(f.deliveredFormat ?? "jpeg"))")
            out.append("Face image   \(f.format) \(f.width)×\(f.height)\(shown)\(f.path.map { " → \($0)" } ?? "")")
        }
        if !r.files.isEmpty {
            out.append("")
            out.append("Files")
            for f in r.files {
                out.append(
                    "  \(pad(f.name, 13)) \(pad(String(f.size), 7, right: true)) bytes  \(pad(String(f.apdus), 4, right: true)) APDUs\(f.resumed > 0 ? "  (resumed)" : "")"
                )
            }
        }
        for (name, why) in r.unreadFiles.sorted(by: { $0.key < $1.key }) {
            out.append("  \(pad(name, 13)) not read: \(why)")
        }
        if let v = r.verification {
            out.append("")
            out.append("Checks")
            for c in v.checks {
                let mark: String
                switch c.status {
                case "passed": mark = "ok  "
                case "failed": mark = "FAIL"
                case "notPresent": mark = "n/a "
                default: mark = "--  "
                }
                out.append("  [\(mark)] \(c.title)")
                out.append("         \(c.detail)")
            }
        }
        if let t = r.transport {
            out.append("")
            out.append(
                "Transport    \(t.apdus) APDUs, \(t.bytesSent) bytes sent, \(t.bytesReceived) received, \(String(format: "%.0f", t.elapsedMs)) ms"
            )
        }
        for w in r.warnings { out.append("warning: \(w)") }
        return out.joined(separator: "\n")
    }

    /// ISO 8601 UTC with milliseconds.
    static func timestamp(_ date: Date) -> String { ReadReport.timestamp(date) }

    static func pad(_ s: String, _ n: Int, right: Bool = false) -> String {
        let p = String(repeating: " ", count: max(0, n - s.count))
        return right ? p + s : s + p
    }

    /// A progress sink writing to stderr: a live line on a terminal, plain lines otherwise.
    static func progressPrinter(quiet: Bool) -> @Sendable (ReadEvent) -> Void {
        { e in
            if quiet { return }
            var s = e.message
            if let total = e.bytesTotal, total > 0 { s += " \(e.bytesDone)/\(total)" }
            if e.phase == .done || e.phase == .verifying {  // the read is over: the report follows
                Console.endLive()
                return
            }
            if e.phase == .resuming {
                Console.endLive()
                Console.err("… \(s)")
                return
            }
            if Console.stderrIsTerminal {
                Console.live(s)
            } else if e.phase != .reading || e.bytesTotal != nil && e.bytesDone == e.bytesTotal {
                Console.err(s)
            }
        }
    }
}
