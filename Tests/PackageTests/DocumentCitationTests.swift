import Foundation
import MRTDTestSupport
import Testing

/// No document in the repository cites a file outside it, since its readers have nothing else: the design lives
/// in docs/architecture.md, vectors name their published sources, and every relative link of a Markdown page
/// opens a file of the repository. Public inputs the tests read in place (the `shared/fixtures` folder beside the
/// checkout) are named as inputs, not cited as documents.
struct DocumentCitationTests {
    /// Names of the project's original brief and of the shared folders beside the checkout that are documents,
    /// not inputs. Built from parts so that this file does not match itself.
    static let outsideNames = [
        "DESIGN" + ".md", "STEPUP" + ".md", "PROVENANCE" + ".md", "shared/" + "docs", "shared/" + "seeds",
        "shared/" + "vectors", "../" + "shared",
    ]

    static let textExtensions: Set<String> = [
        "md", "json", "swift", "py", "sh", "txt", "yml", "yaml", "css", "js", "html", "c", "h", "modulemap", "",
    ]

    /// Every text file of the repository (outside build products and git's own folder).
    static func repositoryTextFiles() -> [URL] {
        let root = RepositoryPaths.root
        guard
            let walker = FileManager.default.enumerator(
                at: root, includingPropertiesForKeys: [.isRegularFileKey, .fileSizeKey],
                options: [.skipsPackageDescendants])
        else { return [] }
        var files: [URL] = []
        for case let url as URL in walker {
            let name = url.lastPathComponent
            if [".build", ".git", ".work", ".swiftpm", "node_modules"].contains(name) {
                walker.skipDescendants()
                continue
            }
            let values = try? url.resourceValues(forKeys: [.isRegularFileKey, .fileSizeKey])
            guard values?.isRegularFile == true, (values?.fileSize ?? 0) < 4_000_000,
                Self.textExtensions.contains(url.pathExtension)
            else { continue }
            files.append(url)
        }
        return files
    }

    @Test func noFileCitesTheOutsideBriefOrSharedDocuments() throws {
        let files = Self.repositoryTextFiles()
        #expect(files.count > 100, "the walk found \(files.count) files")
        for file in files {
            guard let text = try? String(contentsOf: file, encoding: .utf8) else { continue }
            for name in Self.outsideNames where text.contains(name) {
                Issue.record("\(file.path.dropFirst(RepositoryPaths.root.path.count)) cites \(name)")
            }
        }
    }

    @Test func everyRelativeMarkdownLinkOpensAFileOfTheRepository() throws {
        let root = RepositoryPaths.root.standardizedFileURL.path
        let link = try Regex(#"\]\(([^)\s]+)\)"#)
        var checked = 0
        for file in Self.repositoryTextFiles() where file.pathExtension == "md" {
            let text = try String(contentsOf: file, encoding: .utf8)
            for match in text.matches(of: link) {
                guard let target = match.output[1].substring.map(String.init),
                    !target.contains("://"), !target.hasPrefix("mailto:"), !target.hasPrefix("#")
                else { continue }
                let path = String(target.split(separator: "#", maxSplits: 1)[0])
                let resolved = file.deletingLastPathComponent().appendingPathComponent(path).standardizedFileURL.path
                checked += 1
                #expect(resolved.hasPrefix(root + "/"), "\(file.lastPathComponent) links outside: \(target)")
                #expect(
                    FileManager.default.fileExists(atPath: resolved), "\(file.lastPathComponent) links to \(target)")
            }
        }
        #expect(checked > 0, "no relative link found: the pattern is broken")
    }
}
