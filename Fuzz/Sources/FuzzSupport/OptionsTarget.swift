import EMRTDCLI
import Foundation

/// The `emrtd` command line: `EMRTDCommand.resolve` (command and subcommand words, `--help`/`--version`, then the
/// command declaration's parse: options, values, `--name=value`, short options, `--`, positionals, repeats, conflicts,
/// refused options) on words taken from the input. Parse only: no command runs, no file is opened, no reader is asked.
///
/// Input format: the words, separated by NUL bytes when the input holds one, else by line breaks (bytes that are
/// not UTF-8 become U+FFFD, as in a command line decoded by the runtime).
///
/// Besides traps, the target checks two rules of the parser and stops (a crash the fuzzer records) when one breaks:
/// a failure message never quotes a word that looks like access data — any word (or value after `=`) of at least 8
/// characters with an ASCII digit and an uppercase letter, the shape of a document number, an MRZ or a token —
/// since messages are written never to echo a value; and a parsed command holds only its declared options, with no
/// more positionals than it declares.
enum OptionsTarget {
    static func run(_ bytes: [UInt8]) {
        let words = self.words(bytes)
        switch EMRTDCommand.resolve(words) {
        case .output(let text), .noCommand(let text):
            touch(text.utf8.count)
        case .failure(let e, let command, let json, let secrets):
            for w in words {
                for part in [w] + (w.firstIndex(of: "=").map { [String(w[w.index(after: $0)...])] } ?? [])
                where looksLikeAccessData(part) && e.message.contains(part) {
                    fatalError("a usage failure of 'emrtd \(command)' quotes a word given on the command line")
                }
            }
            touch(e.code)
            touch(json)
            touch(secrets.count)
        case .run(let command, let path, let parsed, let words):
            let declared = Set(command.allOptions.map(\.name))
            for name in Set(parsed.values.keys).union(parsed.flags) where !declared.contains(name) {
                fatalError("'emrtd \(path)' parsed an option it does not declare")
            }
            guard parsed.positionals.count <= command.arguments.count else {
                fatalError("'emrtd \(path)' took more positionals than it declares")
            }
            for o in command.allOptions {
                touch(parsed.value(o.name))
                touch(parsed.all(o.name).count)
            }
            touch(parsed.words(for: declared).count)
            touch(words.count)
        }
    }

    static func words(_ bytes: [UInt8]) -> [String] {
        let separator: UInt8 = bytes.contains(0) ? 0 : 0x0A
        return bytes.split(separator: separator, omittingEmptySubsequences: false).map {
            String(decoding: $0, as: UTF8.self)
        }
    }

    static func looksLikeAccessData(_ word: String) -> Bool {
        word.count >= 8 && word.contains { $0.isASCII && $0.isNumber } && word.contains { $0.isASCII && $0.isUppercase }
    }

    /// Seeds: every documented command line (lines of the README's and docs/'s code blocks that start with `emrtd`,
    /// split like a shell splits them: spaces, single and double quotes), and for every command and subcommand of
    /// the declarations — what the manual page and `emrtd help` print — one line giving each of its options with a
    /// sample value, and its help.
    static func seeds(checkout: URL?) -> [(String, [UInt8])] {
        var out: [(String, [UInt8])] = []
        func add(_ name: String, _ words: [String]) { out.append((name, Array(words.joined(separator: "\n").utf8))) }
        if let checkout {
            var files = [checkout.appendingPathComponent("README.md")]
            let docs = checkout.appendingPathComponent("docs")
            for f in (try? FileManager.default.contentsOfDirectory(atPath: docs.path).sorted()) ?? []
            where f.hasSuffix(".md") {
                files.append(docs.appendingPathComponent(f))
            }
            for file in files {
                guard let text = try? String(contentsOf: file, encoding: .utf8) else { continue }
                var inBlock = false
                var n = 0
                for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
                    if line.hasPrefix("```") {
                        inBlock.toggle()
                        continue
                    }
                    guard inBlock, let r = line.range(of: "emrtd ") else { continue }
                    guard r.lowerBound == line.startIndex || line[line.index(before: r.lowerBound)] == " " else {
                        continue
                    }
                    var words = shellWords(String(line[r.upperBound...]))
                    if let end = words.firstIndex(where: { ["#", "|", "&", ">", "&&", ";"].contains($0) }) {
                        words = Array(words[..<end])
                    }
                    guard let first = words.first, EMRTDCommand.commands.contains(where: { $0.name == first }) else {
                        continue
                    }
                    n += 1
                    add("doc-\(file.deletingPathExtension().lastPathComponent)-\(n)", words)
                }
            }
        }
        for c in EMRTDCommand.commands {
            let leaves = c.subcommands.isEmpty ? [([c.name], c)] : c.subcommands.map { ([c.name, $0.name], $0) }
            for (path, d) in leaves {
                var words = path
                for o in d.options {
                    words.append("--" + o.name)
                    if !o.isFlag { words.append(sample(o)) }
                }
                for a in d.arguments { words.append(a.name.lowercased()) }
                add("decl-" + path.joined(separator: "-"), words)
                add("decl-" + path.joined(separator: "-") + "-help", path + ["--help"])
            }
        }
        add("version", ["--version"])
        add("help", ["help", "read"])
        return out
    }

    static func sample(_ o: OptionDecl) -> String {
        switch o.kind {
        case .number: return "30"
        case .file, .path: return "trust.pem"
        case .directory: return "out"
        case .choice(let words): return words.first ?? "x"
        case .text: return o.secret ? "L898902C3" : "value"
        }
    }

    /// A line split into words as a POSIX shell splits it (no expansions): blanks separate, quotes group.
    static func shellWords(_ line: String) -> [String] {
        var words: [String] = []
        var current = ""
        var inWord = false
        var quote: Character? = nil
        for c in line {
            if let q = quote {
                if c == q { quote = nil } else { current.append(c) }
            } else if c == "'" || c == "\"" {
                quote = c
                inWord = true
            } else if c == " " || c == "\t" {
                if inWord { words.append(current) }
                current = ""
                inWord = false
            } else {
                current.append(c)
                inWord = true
            }
        }
        if inWord { words.append(current) }
        return words
    }
}
