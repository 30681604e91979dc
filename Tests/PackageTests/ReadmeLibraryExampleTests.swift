import EMRTDKit
import Foundation
import MRTDTestSupport
import Testing

/// The README's library example (the first Swift block under "## Use it as a library") compiles against this
/// checkout's `EMRTDKit` module with one `import`, and the one-call virtual read it shows reads and verifies the
/// specimen. `.ci/consumer-package` runs the same block from a package that depends on EMRTDKit by version.
struct ReadmeLibraryExampleTests {
    static func example() throws -> String {
        let readme = try String(contentsOf: RepositoryPaths.root.appendingPathComponent("README.md"), encoding: .utf8)
        let section = try #require(readme.components(separatedBy: "## Use it as a library").dropFirst().first)
        return try #require(
            section.components(separatedBy: "```swift\n").dropFirst().first?.components(separatedBy: "```").first)
    }

    /// The folder of the modules this test run was built with (the test bundle sits beside `Modules`).
    static var buildFolder: URL {
        var dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        if dir.lastPathComponent.hasSuffix(".xctest") { dir = dir.deletingLastPathComponent() }
        return dir
    }

    /// Type-checks `source` as a program's main file against the built modules; the compiler's diagnostics, or nil.
    static func typecheck(_ source: String) throws -> String? {
        let folder = TemporaryFolder.make("readme")
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("main.swift")
        try Data(source.utf8).write(to: file)
        let root = RepositoryPaths.root.path
        var arguments = ["-typecheck", "-I", buildFolder.appendingPathComponent("Modules").path]
        // the C modules the re-exported modules import internally: their module maps and headers
        let sources = try FileManager.default.contentsOfDirectory(atPath: root + "/Sources").filter {
            $0.hasPrefix("C")
        }
        for name in sources.sorted() {
            for map in ["\(root)/Sources/\(name)/module.modulemap", "\(root)/Sources/\(name)/include/module.modulemap"]
            where FileManager.default.fileExists(atPath: map) {
                arguments += ["-Xcc", "-fmodule-map-file=\(map)"]
            }
            if FileManager.default.fileExists(atPath: "\(root)/Sources/\(name)/include") {
                arguments += ["-Xcc", "-I\(root)/Sources/\(name)/include"]
            }
        }
        arguments += ["-Xcc", "-I/usr/include/PCSC", "-Xcc", "-I/usr/include/openjpeg-2.5", file.path]
        let swiftc = ProcessInfo.processInfo.environment["SWIFTC"] ?? "swiftc"
        let r = try ChildProcess.run(URL(fileURLWithPath: "/usr/bin/env"), [swiftc] + arguments, timeout: 300)
        return r.status == 0 ? nil : r.stdout + r.stderr
    }

    @Test func theExampleUsesOneImportAndCompiles() throws {
        let source = try Self.example()
        let imports = source.split(separator: "\n").filter { $0.hasPrefix("import ") }
        #expect(imports == ["import EMRTDKit"])
        #expect(source.contains("EMRTD.readAndVerifyVirtual("), "the example shows the virtual read")
        #expect(source.contains("EMRTD.readAndVerify(access:"), "the example shows the read on a reader")
        let diagnostics = try Self.typecheck(source)
        #expect(diagnostics == nil, "\(diagnostics ?? "")")
    }

    /// The check above can fail: a block that calls what EMRTDKit does not have does not compile.
    @Test func aBrokenExampleDoesNotCompile() throws {
        let broken = try Self.example().replacingOccurrences(
            of: "readAndVerifyVirtual(", with: "readAndVerifyVirtually(")
        #expect(try Self.typecheck(broken) != nil)
    }

    @Test func theVirtualReadInOneCallIsAccepted() async throws {
        let read = try await EMRTD.readAndVerifyVirtual()
        #expect(read.verification.status == .accepted)
        #expect(read.report.verification?.status == "accepted")
        #expect(read.report.readAt != nil)
    }
}
