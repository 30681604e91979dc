/// Help texts generated from the declarations (docs/cli.md): `emrtd --help`, `emrtd help CMD`, `emrtd CMD --help`
/// and the synopsis that the README's command block repeats.
public enum Help {
    static let width = 100

    /// `emrtd --help`.
    public static var main: String {
        var out = [
            "emrtd — read and verify ICAO 9303 ePassports and eID cards over PC/SC", "",
            "USAGE: emrtd <command> [options]", "", "COMMANDS:",
        ]
        let shown = EMRTDCommand.commands
        let w = (shown.map(\.name.count).max() ?? 8) + 3
        for c in shown { out.append("  " + c.name.padding(toLength: w, withPad: " ", startingAt: 0) + c.summary) }
        out += [
            "", "GLOBAL OPTIONS:", "  -h, --help     show this help", "  -V, --version  print the version", "",
            "Run `emrtd help <command>` or `emrtd <command> --help` for the options of a command.", "",
            "EXIT STATUS:",
        ]
        out += ExitStatus.table.map { "  " + $0 }
        return out.joined(separator: "\n")
    }

    /// `emrtd CMD --help` / `emrtd help CMD`. `path` is e.g. "stepup run".
    public static func text(for c: CommandDecl, path: String) -> String {
        var out = ["OVERVIEW: \(c.summary)", ""]
        if c.subcommands.isEmpty {
            out.append(contentsOf: wrap(synopsis(c, path: path), prefix: "USAGE: ", indent: 7))
        } else {
            out.append("USAGE: emrtd \(path) <subcommand> [options]")
        }
        if !c.discussion.isEmpty {
            out += [""] + c.discussion.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        }
        if !c.subcommands.isEmpty {
            out += ["", "SUBCOMMANDS:"]
            let w = (c.subcommands.map(\.name.count).max() ?? 6) + 3
            for s in c.subcommands {
                out.append("  " + s.name.padding(toLength: w, withPad: " ", startingAt: 0) + s.summary)
            }
            out += ["", "Run `emrtd \(path) <subcommand> --help` for its options."]
        }
        if !c.arguments.isEmpty {
            out += ["", "ARGUMENTS:"]
            out += table(c.arguments.map { ($0.name, $0.help) })
        }
        if !c.options.isEmpty || c.subcommands.isEmpty {
            out += ["", "OPTIONS:"]
            out += table(
                c.allOptions.map { o in
                    var h = o.help
                    if let d = o.defaultText { h += " (default: \(d))" }
                    if o.repeatable { h += "; repeatable" }
                    let conflicts = o.conflicts.filter { c.option($0) != nil }
                    if !conflicts.isEmpty { h += "; not with " + conflicts.map { "--\($0)" }.joined(separator: ", ") }
                    return (o.label, h)
                })
        }
        if let s = c.schema {
            out += ["", "JSON: schema \(s); on failure {\"schema\": \"\(ErrorOutput.schema)\", \"error\": {…}}"]
        }
        out += ["", "EXIT STATUS:"]
        out += c.exits.map {
            "  \(String($0.rawValue).padding(toLength: 3, withPad: " ", startingAt: 0)) \($0.meaning)"
        }
        return out.joined(separator: "\n")
    }

    /// `emrtd read [--reader NAME] …` on one line (wrapped by the callers).
    public static func synopsis(_ c: CommandDecl, path: String) -> String {
        var parts = ["emrtd", path]
        for a in c.arguments { parts.append(a.optional ? "[\(a.name)]" : a.name) }
        for o in c.options {
            var p = "[\(o.usage)]"
            if o.repeatable { p += "..." }
            parts.append(p)
        }
        return parts.joined(separator: " ")
    }

    /// Every command's synopsis, wrapped: the README's command block.
    public static var synopses: String {
        var out: [String] = []
        for c in EMRTDCommand.commands {
            if c.subcommands.isEmpty {
                out += wrap(synopsis(c, path: c.name), prefix: "", indent: 4)
            } else {
                for s in c.subcommands { out += wrap(synopsis(s, path: "\(c.name) \(s.name)"), prefix: "", indent: 4) }
            }
        }
        return out.joined(separator: "\n")
    }

    static func table(_ rows: [(String, String)]) -> [String] {
        let w = min(30, (rows.map(\.0.count).max() ?? 10) + 2)
        var out: [String] = []
        for (left, right) in rows {
            let lines = wrapWords(right, width: width - w - 2)
            if left.count + 2 > w {
                out.append("  " + left)
                out += lines.map { String(repeating: " ", count: w + 2) + $0 }
            } else {
                out.append("  " + left.padding(toLength: w, withPad: " ", startingAt: 0) + (lines.first ?? ""))
                out += lines.dropFirst().map { String(repeating: " ", count: w + 2) + $0 }
            }
        }
        return out
    }

    /// Wraps a synopsis between its bracketed parts.
    static func wrap(_ text: String, prefix: String, indent: Int) -> [String] {
        let lines = wrapWords(text, width: width - prefix.count, keepBrackets: true)
        return lines.enumerated().map { i, l in
            (i == 0 ? prefix : String(repeating: " ", count: prefix.count + indent)) + l
        }
    }

    static func wrapWords(_ text: String, width: Int, keepBrackets: Bool = false) -> [String] {
        // Tokens: words, or with keepBrackets whole "[--x VALUE]..." groups.
        var tokens: [String] = []
        var current = ""
        var depth = 0
        for ch in text {
            if ch == "[" { depth += 1 }
            if ch == "]" { depth -= 1 }
            if ch == " " && (!keepBrackets || depth == 0) {
                if !current.isEmpty { tokens.append(current) }
                current = ""
            } else {
                current.append(ch)
            }
        }
        if !current.isEmpty { tokens.append(current) }
        var lines: [String] = []
        var line = ""
        for t in tokens {
            if line.isEmpty {
                line = t
            } else if line.count + 1 + t.count <= width {
                line += " " + t
            } else {
                lines.append(line)
                line = t
            }
        }
        if !line.isEmpty { lines.append(line) }
        return lines
    }
}
