public import Foundation
import MRTDCrypto

/// What a command talks to besides its words: the environment, the two output streams (the dispatcher's help and
/// error output goes through them too), and the seams of the commands that reach outside the process (the step-up
/// commands' standard input, files, HTTP transport, sleep, chip read and SHA-256). `standard()` in the product;
/// tests replace parts of it to run a command in process.
public struct CommandContext: Sendable {
    public var environment: [String: String]
    public var stdout: @Sendable (String) -> Void
    public var stderr: @Sendable (String) -> Void
    public var stepUp: StepUpCommandIO

    public init(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        stdout: @escaping @Sendable (String) -> Void = { Console.out($0) },
        stderr: @escaping @Sendable (String) -> Void = { Console.err($0) },
        stepUp: StepUpCommandIO = .standard()
    ) {
        self.environment = environment
        self.stdout = stdout
        self.stderr = stderr
        self.stepUp = stepUp
    }

    /// The process's environment and streams, URLSession, the configured reader, OpenSSL's SHA-256.
    public static func standard() -> CommandContext { CommandContext() }
}

extension StepUpCommandIO {
    /// The process's standard input and files, URLSession, the reader the ACCESS and reader options configure,
    /// OpenSSL's SHA-256 (for `--bind-process-id`).
    public static func standard() -> StepUpCommandIO {
        StepUpCommandIO(
            readStdin: { FileHandle.standardInput.readDataToEndOfFile() }, sha256: { HashAlgorithm.sha256.hash($0) })
    }
}
