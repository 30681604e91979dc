import Foundation

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
        let p = Process()
        p.executableURL = executable
        p.arguments = args
        if let environment { p.environment = environment }
        let out = Pipe()
        let err = Pipe()
        p.standardOutput = out
        p.standardError = err
        let input = Pipe()
        p.standardInput = input
        try p.run()
        if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
        try? input.fileHandleForWriting.close()
        // read both pipes concurrently so a full pipe cannot block the child
        final class Box: @unchecked Sendable { var data = Data() }
        let o = Box()
        let e = Box()
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async {
            o.data = out.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
        group.enter()
        DispatchQueue.global().async {
            e.data = err.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
        let deadline = Date().addingTimeInterval(timeout)
        while p.isRunning && Date() < deadline { usleep(10_000) }
        if p.isRunning { p.terminate() }
        p.waitUntilExit()
        group.wait()
        return CommandResult(
            status: p.terminationStatus, stdout: String(decoding: o.data, as: UTF8.self),
            stderr: String(decoding: e.data, as: UTF8.self))
    }

    static func json(_ s: String) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(s.utf8))) as? [String: Any]
    }

    static func temporaryDirectory() -> URL {
        let u = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("emrtd-cli-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: u, withIntermediateDirectories: true)
        return u
    }
}
