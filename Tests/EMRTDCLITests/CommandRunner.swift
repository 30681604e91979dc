import Foundation
import MRTDTestSupport

/// Runs the built `emrtd` executable as a separate process (as a kiosk integrator would).
struct CommandResult {
    var status: Int32
    var stdout: String
    var stderr: String
}

enum Emrtd {
    /// The `emrtd` binary next to the test bundle in the build folder.
    static var executable: URL {
        var dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        // swift test runs .build/<triple>/debug/EMRTDKitPackageTests.xctest
        if dir.lastPathComponent.hasSuffix(".xctest") { dir = dir.deletingLastPathComponent() }
        return dir.appendingPathComponent("emrtd")
    }

    static func run(_ args: [String], stdin: String? = nil, environment: [String: String]? = nil, timeout: Double = 60)
        throws -> CommandResult
    {
        let r = try ChildProcess.run(
            executable, args, stdin: stdin.map { Data($0.utf8) }, environment: environment, timeout: timeout)
        return CommandResult(status: r.status, stdout: r.stdout, stderr: r.stderr)
    }

    static func json(_ s: String) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(s.utf8))) as? [String: Any]
    }

    static func temporaryDirectory() -> URL { TemporaryFolder.make("cli") }
}
