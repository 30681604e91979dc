import Foundation
import MRTDTestSupport
import Testing

/// The README's two commands stay true: together they install exactly the Debian packages `.ci/run` installs,
/// the second ends in the very test command `.ci/run` runs, and the README's package table names each of them.
struct ReadmeCommandsTests {
    static func text(_ path: String) throws -> String {
        try String(contentsOf: RepositoryPaths.root.appendingPathComponent(path), encoding: .utf8)
    }

    /// The package names after `apt-get install -y` on `line`, up to `&&`.
    static func installed(_ line: String) -> [String] {
        guard let r = line.range(of: "apt-get install -y ") else { return [] }
        let rest = line[r.upperBound...].components(separatedBy: "&&")[0]
        return rest.split(separator: " ").map(String.init).filter { !$0.isEmpty }
    }

    @Test func theTwoCommandsInstallWhatCIInstallsAndRunItsTestCommand() throws {
        let readme = try Self.text("README.md")
        let ci = try Self.text(".ci/run")
        let block = try #require(
            readme.components(separatedBy: "```sh\n").dropFirst().first?.components(
                separatedBy: "```"
            ).first)
        let commands = block.split(separator: "\n").filter { !$0.hasPrefix("#") }.map(String.init)
        #expect(commands.count == 2, "\(commands)")
        let readmePackages = Set(commands.flatMap(Self.installed))

        let listLine = try #require(ci.split(separator: "\n").first { $0.hasPrefix("packages=(") })
        let ciPackages = Set(listLine.dropFirst("packages=(".count).dropLast().split(separator: " ").map(String.init))
        #expect(readmePackages == ciPackages, "README \(readmePackages.sorted()) vs .ci/run \(ciPackages.sorted())")

        let testCommand = try #require(commands.last?.components(separatedBy: "&& ").last)
        let ciLines = ci.split(separator: "\n").map(String.init)
        let marker = try #require(ciLines.firstIndex { $0.contains("The README's test command, exactly") })
        #expect(ciLines[marker + 1] == testCommand, "\(ciLines[marker + 1]) vs \(testCommand)")

        for p in ciPackages { #expect(readme.contains("`\(p)`"), "README's package table lacks \(p)") }
        #expect(commands.first?.hasSuffix("swift run emrtd demo") == true)
    }
}
