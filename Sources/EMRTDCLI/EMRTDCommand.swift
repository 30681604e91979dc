import Foundation
import MRTDReader
import MRTDCrypto

/// The `emrtd` command (DESIGN.md §4.1): dispatches to the subcommands.
public enum EMRTDCommand {
    public static func main() async {
        let args = Array(CommandLine.arguments.dropFirst())
        let code = await run(args)
        // Leave without running atexit handlers: libpcsclite's and libcrypto's cleanup would race with a PC/SC
        // worker thread still unwinding a cancelled wait (seen: a SIGSEGV in libpcsclite after "no card was
        // presented"). Output goes through unbuffered FileHandle writes or stdio, which is flushed here.
        fflush(nil)
        _exit(code)
    }

    public static func run(_ args: [String]) async -> Int32 {
        guard let command = args.first else {
            Console.err(Help.main)
            return ExitCode.usage
        }
        let rest = Array(args.dropFirst())
        switch command {
        case "--help", "-h", "help": Console.out(Help.main); return ExitCode.ok
        case "--version", "version": Console.out("emrtd \(EMRTDKitVersion.string)"); return ExitCode.ok
        case "demo": return await DemoCommand.run(rest)
        case "read": return await ReadCommand.run(rest)
        case "verify": return await VerifyCommand.run(rest)
        case "simulate": return await SimulateCommand.run(rest)
        case "trust": return await TrustCommand.run(rest)
        case "bench": return await runBenchCommand(arguments: rest)
        case "readers": return await runReadersCommand(arguments: rest)
        case "watch": return await runWatchCommand(arguments: rest)
        case "serve": return await ServeCommand.run(rest)
        case "stepup":
            return await runStepUpCommand(arguments: rest, environment: ProcessInfo.processInfo.environment,
                                          chipReader: StepUpChipReader(), sha256: { HashAlgorithm.sha256.hash($0) })
        default:
            Console.err("emrtd: unknown command '\(command)' (see emrtd --help)")
            return ExitCode.usage
        }
    }
}
