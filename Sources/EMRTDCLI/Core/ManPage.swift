import MRTDReader

/// The emrtd(1) manual page in roff (man macros), generated from the declarations (`emrtd man`).
enum ManPage {
    /// Escapes text for roff: backslashes, hyphens in option names, and a leading dot or quote.
    static func esc(_ s: String) -> String {
        var t = s.replacingOccurrences(of: "\\", with: "\\e").replacingOccurrences(of: "-", with: "\\-")
        t = t.replacingOccurrences(of: "…", with: "\\&...").replacingOccurrences(of: "—", with: "\\(em")
            .replacingOccurrences(of: "–", with: "\\(en").replacingOccurrences(of: "×", with: "x")
        if t.hasPrefix(".") || t.hasPrefix("'") { t = "\\&" + t }
        return t
    }

    static func render() -> String {
        var out = [
            ".TH EMRTD 1 \"\" \"emrtd \(esc(EMRTDKitVersion.string))\" \"User Commands\"",
            ".SH NAME", "emrtd \\- read and verify ICAO 9303 ePassports and eID cards over PC/SC",
            ".SH SYNOPSIS", ".B emrtd", ".I command", "[\\fIoptions\\fR]",
            ".SH DESCRIPTION",
            "emrtd reads the chip of an ePassport or eID card through a PC/SC reader, checks it (passive",
            "authentication against CSCA certificates or master lists, clone detection) and prints a verdict.",
            "Every command takes \\fB\\-h\\fR, \\fB\\-\\-help\\fR; \\fBemrtd \\-V\\fR prints the version.",
            "Values of access options (MRZ, CAN, document number, dates) and step\\-up contexts are never",
            "repeated in any message.",
            ".SH COMMANDS",
        ]
        for c in EMRTDCommand.commands {
            let subs = c.subcommands.isEmpty ? [(c.name, c)] : c.subcommands.map { ("\(c.name) \($0.name)", $0) }
            for (path, d) in subs {
                out.append(".SS \"\(esc(path))\"")
                out.append(".B \(esc(Help.synopsis(d, path: path)))")
                out.append(".PP")
                out.append(esc(d.summary) + ".")
                if !d.discussion.isEmpty {
                    for para in d.discussion.split(separator: "\n", omittingEmptySubsequences: true) {
                        out.append(".PP")
                        out.append(esc(String(para)))
                    }
                }
                for a in d.arguments {
                    out.append(".TP")
                    out.append(".I \(esc(a.name))")
                    out.append(esc(a.help))
                }
                for o in d.allOptions {
                    out.append(".TP")
                    var label = "\\fB\\-\\-\(esc(o.name))\\fR"
                    if let sh = o.short { label = "\\fB\\-\(esc(String(sh)))\\fR, " + label }
                    if let v = o.value { label += " \\fI\(esc(v))\\fR" }
                    out.append(label)
                    var h = o.help
                    if let d = o.defaultText { h += " (default: \(d))" }
                    if o.repeatable { h += "; repeatable" }
                    out.append(esc(h))
                }
            }
        }
        /// A tagged paragraph: the term in bold, then its text.
        func item(_ term: String, _ text: String) -> [String] { [".TP", ".B \(esc(term))", esc(text)] }
        out.append(".SH EXIT STATUS")
        for s in ExitStatus.allCases { out += item(String(s.rawValue), s.meaning) }
        out.append(".SH ERRORS")
        out.append(
            "Under \\fB\\-\\-json\\fR a failing command prints one JSON object with schema \(esc(ErrorOutput.schema)),")
        out.append("holding error.code, error.message and error.exitStatus. The codes:")
        for e in ErrorCode.allCases { out += item(e.rawValue, e.meaning) }
        out.append(".SH SEE ALSO")
        out.append("docs/cli.md, docs/report.md and docs/stepup.md in the EMRTDKit sources.")
        return out.joined(separator: "\n")
    }
}
