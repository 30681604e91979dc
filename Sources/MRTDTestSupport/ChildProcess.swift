public import Foundation

/// Runs a program to completion as a separate process, as the tests run `emrtd`: its exit status and both output
/// streams (read concurrently, so a full pipe cannot block the child), terminated when `timeout` seconds pass.
public enum ChildProcess {
    public struct Result: Sendable {
        public var status: Int32
        public var stdout: String
        public var stderr: String
    }

    /// `environment` nil inherits this process's; `stdin` nil gives the child an empty standard input.
    public static func run(
        _ executable: URL, _ args: [String], stdin: Data? = nil, environment: [String: String]? = nil,
        timeout: Double = 60
    ) throws -> Result {
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
        if let stdin { input.fileHandleForWriting.write(stdin) }
        try? input.fileHandleForWriting.close()
        final class Box: @unchecked Sendable { var data = Data() }
        let o = Box()
        let e = Box()
        let group = DispatchGroup()
        for (pipe, box) in [(out, o), (err, e)] {
            group.enter()
            DispatchQueue.global().async {
                box.data = pipe.fileHandleForReading.readDataToEndOfFile()
                group.leave()
            }
        }
        let deadline = Date().addingTimeInterval(timeout)
        while p.isRunning && Date() < deadline { usleep(10_000) }
        if p.isRunning { p.terminate() }
        p.waitUntilExit()
        group.wait()
        return Result(
            status: p.terminationStatus, stdout: String(decoding: o.data, as: UTF8.self),
            stderr: String(decoding: e.data, as: UTF8.self))
    }
}
