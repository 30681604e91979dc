import Foundation
import MRTDTestSupport
import Testing

/// Rules about the repository's own text that no compiler checks: a code comment says its reason in words (an
/// issue number means nothing to a reader without the tracker), and the architecture's module table names the
/// targets Package.swift declares.
struct RepositoryHygieneTests {
    /// The comment part of one Swift line: from the first `//` outside a string literal, or nil.
    static func comment(of line: Substring) -> Substring? {
        var inString = false
        var previous: Character = " "
        var index = line.startIndex
        while index < line.endIndex {
            let c = line[index]
            if c == "\"" && previous != "\\" { inString.toggle() }
            if !inString && c == "/" && previous == "/" { return line[line.index(before: index)...] }
            previous = c
            index = line.index(after: index)
        }
        return nil
    }

    /// Issue references in one comment: the word issue (or issues) followed by a number, or a bare number sign
    /// before digits that follows no word (so the PKCS standards and HTML character references are no references).
    /// The examples below spell the space and the number sign as escapes so that a grep for references does not
    /// find this file.
    static func issueReferences(in comment: Substring) -> [String] {
        let text = String(comment)
        let ns = text as NSString
        let patterns = [#"(?i)\bissues?\s+#?[0-9]+"#, #"(?<![A-Za-z0-9&])(?<!PKCS )#[0-9]+\b"#]
        return patterns.flatMap { pattern -> [String] in
            guard let regex = try? NSRegularExpression(pattern: pattern) else { return ["bad pattern \(pattern)"] }
            return regex.matches(in: text, range: NSRange(location: 0, length: ns.length)).map {
                ns.substring(with: $0.range)
            }
        }
    }

    @Test(
        "the issue-reference finder flags tracker numbers and nothing else",
        arguments: [
            ("// a read (issue\u{20}14) that", ["issue\u{20}14"]),
            ("/// Issue\u{20}11 W1: clone detection", ["Issue\u{20}11"]),
            ("// see issue\u{20}13 and \u{23}7", ["issue\u{20}13", "\u{23}7"]),
            ("// the remaining bullets of issues\u{20}2", ["issues\u{20}2"]),
            ("/// RSA PKCS\u{23}1 v1.5 and PKCS \u{23}8 keys", []),
            ("// \"&\u{23}39;\" is the apostrophe", []),
            ("// the issuing state's CSCA", []),
        ])
    func finderFlagsReferences(comment: String, expected: [String]) {
        #expect(Self.issueReferences(in: Substring(comment)) == expected)
    }

    @Test("comments find their reason in words: the comment finder skips string literals")
    func commentFinderSkipsStrings() {
        #expect(Self.comment(of: "let url = \"http://x\" // issue\u{20}3") == "// issue\u{20}3")
        #expect(Self.comment(of: "let s = \"a // b \u{23}12\"") == nil)
        #expect(Self.comment(of: "    /// doc") == "/// doc")
    }

    @Test("no code comment in Sources, Tests, Fuzz or Package.swift refers to an issue number")
    func noIssueNumbersInComments() throws {
        let root = RepositoryPaths.root
        var files = [root.appendingPathComponent("Package.swift"), root.appendingPathComponent("Fuzz/Package.swift")]
        for folder in ["Sources", "Tests", "Fuzz/Sources"] {
            let dir = root.appendingPathComponent(folder)
            guard let walker = FileManager.default.enumerator(at: dir, includingPropertiesForKeys: nil) else {
                Issue.record("\(folder) cannot be listed")
                continue
            }
            for case let url as URL in walker where url.pathExtension == "swift" { files.append(url) }
        }
        #expect(files.count > 100, "the Swift files were not found under \(root.path)")
        var found: [String] = []
        for url in files where FileManager.default.fileExists(atPath: url.path) {
            let text = try String(contentsOf: url, encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                guard let comment = Self.comment(of: line) else { continue }
                for reference in Self.issueReferences(in: comment) {
                    let path = url.path.replacingOccurrences(of: root.path + "/", with: "")
                    found.append("\(path):\(number + 1): \"\(reference)\"")
                }
            }
        }
        #expect(found.isEmpty, "say the reason instead of the issue number:\n\(found.joined(separator: "\n"))")
    }

    /// The backticked names in the first column of docs/architecture.md's module table, except the pkg-config
    /// names written after "pkg-config".
    static func architectureTableTargets() throws -> [String] {
        let text = try String(
            contentsOf: RepositoryPaths.root.appendingPathComponent("docs/architecture.md"), encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard let header = lines.firstIndex(where: { $0.hasPrefix("| Target | Owns |") }) else { return [] }
        let regex = try NSRegularExpression(pattern: #"(pkg-config\s+)?`([^`]+)`"#)
        var names: [String] = []
        for line in lines[(header + 2)...] {
            guard line.hasPrefix("|") else { break }
            let cell = String(line.dropFirst().prefix { $0 != "|" })
            let ns = cell as NSString
            for m in regex.matches(in: cell, range: NSRange(location: 0, length: ns.length))
            where m.range(at: 1).location == NSNotFound {
                names.append(ns.substring(with: m.range(at: 2)))
            }
        }
        return names
    }

    @Test("every target docs/architecture.md §2's module table names exists in Package.swift, and vice versa")
    func architectureTableNamesRealTargets() throws {
        let documented = try Self.architectureTableTargets()
        #expect(documented.count > 20, "docs/architecture.md's module table was not found")
        let declared = Set(try ManifestTests.manifestTargets().filter { $0.kind != "testTarget" }.map(\.name))
        for name in documented where !declared.contains(name) {
            Issue.record("docs/architecture.md's module table names `\(name)`, which Package.swift does not declare")
        }
        for name in declared.subtracting(documented).sorted() {
            Issue.record("Package.swift declares \(name), which docs/architecture.md's module table does not name")
        }
    }
}
