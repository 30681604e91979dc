import Foundation

/// Runs an external tool (openssl, ImageMagick) for cross-checking generated artefacts.
enum ExternalTool {
    struct Result { var status: Int32; var stdout: [UInt8]; var stderr: String }

    /// Absolute path of `name` on PATH (or /usr/local/bin, /usr/bin), nil when absent.
    static func find(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        for dir in path.split(separator: ":").map(String.init) + ["/usr/local/bin", "/usr/bin", "/bin"] {
            let candidate = dir + "/" + name
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    static func run(_ tool: String, _ arguments: [String], stdin: [UInt8] = []) throws -> Result {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: tool)
        p.arguments = arguments
        let inPipe = Pipe(), outPipe = Pipe(), errPipe = Pipe()
        p.standardInput = inPipe; p.standardOutput = outPipe; p.standardError = errPipe
        try p.run()
        inPipe.fileHandleForWriting.write(Data(stdin))
        try inPipe.fileHandleForWriting.close()
        let out = outPipe.fileHandleForReading.readDataToEndOfFile()
        let err = errPipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return Result(status: p.terminationStatus, stdout: [UInt8](out), stderr: String(decoding: err, as: UTF8.self))
    }

    /// A fresh temporary directory.
    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("emrtd-gen-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Prints a visible skip note (Swift Testing has no runtime skip in this toolchain's API we rely on).
    static func skipNote(_ what: String) {
        print("SKIPPED (tool missing): \(what)")
    }
}

/// Writes bytes to a file in `dir`.
@discardableResult
func writeFile(_ dir: URL, _ name: String, _ bytes: [UInt8]) throws -> String {
    let url = dir.appendingPathComponent(name)
    try Data(bytes).write(to: url)
    return url.path
}
