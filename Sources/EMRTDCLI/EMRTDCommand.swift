import Foundation
import MRTDCrypto
import MRTDReader

/// The `emrtd` command (docs/cli.md): one declaration per command in `commands`; parsing, help, synopsis,
/// completion, man page and error output all come from those declarations.
public enum EMRTDCommand {
    /// Every command, in the order `emrtd --help` lists them. Adding a command is adding its declaration here.
    public static let commands: [CommandDecl] = [
        DemoCommand.command, ReadersCommand.command, WatchCommand.command, ReadCommand.command,
        VerifyCommand.command, SimulateCommand.command, TrustCommand.command, StepUpCommand.command,
        ServeCommand.command, MRZCommand.command,
        BenchCommand.command, MetaCommands.completion, MetaCommands.man, MetaCommands.help, MetaCommands.version,
    ]

    public static func main() async {
        let args = Array(CommandLine.arguments.dropFirst())
        let code = await run(args)
        // Leave without running atexit handlers: libpcsclite's and libcrypto's cleanup would race with a PC/SC
        // worker thread still unwinding a cancelled wait (seen: a SIGSEGV in libpcsclite after "no card was
        // presented"). Output goes through unbuffered FileHandle writes or stdio, which is flushed here.
        fflush(nil)
        _exit(code)
    }

    /// Runs `emrtd` with `args` (the words after `emrtd`) and returns the exit status.
    public static func run(_ args: [String]) async -> Int32 {
        await run(args, context: .standard())
    }

    /// Runs `emrtd` with `args` in `context` (the environment, output streams and outside seams it uses).
    public static func run(_ args: [String], context: CommandContext) async -> Int32 {
        switch resolve(args) {
        case .output(let text):
            context.stdout(text)
            return ExitStatus.ok.rawValue
        case .noCommand(let text):
            context.stderr(text)
            return ExitStatus.usage.rawValue
        case .failure(let e, let command, let json, let secrets):
            return report(e, command: command, json: json, secrets: secrets, context: context)
        case .run(let command, let path, let parsed, let words):
            return await run(command, path: path, parsed, words: words, context: context)
        }
    }

    /// What a command line asks for, decided from the declarations alone: nothing runs, no file is opened, no
    /// reader is asked. `run` acts on it; the `options` fuzz target (docs/reliability.md) calls only this.
    public enum Resolution: Sendable {
        /// Help or version text for standard output (exit status 0).
        case output(String)
        /// No command at all: the main help for standard error (exit status 2).
        case noCommand(String)
        /// A usage failure, printed by `report` (`command` is the command path or "emrtd"; `secrets` are masked).
        case failure(CLIError, command: String, json: Bool, secrets: [String])
        /// A command to run: its declaration, path ("stepup run"), parsed arguments and the words they came from.
        case run(CommandDecl, path: String, ParsedArguments, words: [String])
    }

    /// Resolves `args` (the words after `emrtd`): the command and subcommand, then the declaration's parse.
    public static func resolve(_ args: [String]) -> Resolution {
        guard let first = args.first else { return .noCommand(Help.main) }
        switch first {
        case "--help", "-h": return .output(Help.main)
        case "--version", "-V": return .output(MetaCommands.versionText)
        default: break
        }
        guard let command = commands.first(where: { $0.name == first }) else {
            let wantsJSON = args.contains { $0 == "--json" }
            return .failure(
                unknownCommand(first, among: commands.map(\.name), path: nil), command: "emrtd", json: wantsJSON,
                secrets: [])
        }
        return resolve(command, path: command.name, Array(args.dropFirst()))
    }

    static func resolve(_ command: CommandDecl, path: String, _ args: [String]) -> Resolution {
        // A program that passes --json reads one JSON object on failure, also from a command without --json (whose
        // failure is then that very option).
        let wantsJSON = command.alwaysJSON || args.contains { $0 == "--json" }
        if !command.subcommands.isEmpty {
            guard let first = args.first else {
                return .failure(
                    CLIError(
                        .missingArgument,
                        "give a subcommand: \(command.subcommands.map(\.name).joined(separator: ", ")) (see emrtd \(path) --help)",
                        status: .usage), command: path, json: wantsJSON, secrets: [])
            }
            if first == "--help" || first == "-h" { return .output(Help.text(for: command, path: path)) }
            guard let sub = command.subcommands.first(where: { $0.name == first }) else {
                return .failure(
                    unknownCommand(first, among: command.subcommands.map(\.name), path: path), command: path,
                    json: wantsJSON, secrets: [])
            }
            return resolve(sub, path: "\(path) \(sub.name)", Array(args.dropFirst()))
        }
        let parsed: ParsedArguments
        do { parsed = try command.parse(args) } catch {
            var e = CLIError(error)
            e.message += " (see emrtd \(path) --help)"
            return .failure(e, command: path, json: wantsJSON, secrets: secretValues(command, args))
        }
        if parsed.flag("help") { return .output(Help.text(for: command, path: path)) }
        return .run(command, path: path, parsed, words: args)
    }

    static func unknownCommand(_ word: String, among names: [String], path: String?) -> CLIError {
        let see = path.map { "emrtd \($0) --help" } ?? "emrtd --help"
        let optionName = String(word.drop { $0 == "-" })
        if path == nil, word.hasPrefix("-"), Shown.isSafeName(optionName) {
            return optionInPlaceOfCommand(word, name: optionName, see: see)
        }
        let looksLikeName = Shown.isSafeName(word)
        var m =
            looksLikeName
            ? "unknown \(path == nil ? "command" : "subcommand") '\(word)'"
            : "an unknown \(path == nil ? "command" : "subcommand")"
        if looksLikeName, let s = Suggest.closest(word, among: names) { m += " — did you mean '\(s)'?" }
        m += " (see \(see))"
        return CLIError(.unknownCommand, m, status: .usage)
    }

    /// `emrtd --jsno`: an option where the command belongs. Named (it looks like an option name, never like access
    /// data), with the closest option of any command and a command that takes it, since options follow the command.
    static func optionInPlaceOfCommand(_ word: String, name: String, see: String) -> CLIError {
        let holders = Completion.leaves.filter { $0.decl.options.contains { $0.name == name } }
        var m: String
        if let holder = holders.first {
            m = "'\(word)' is an option, not a command: put it after the command, as in emrtd \(holder.path) --\(name)"
        } else {
            let names = Set(Completion.leaves.flatMap { $0.decl.options.map(\.name) } + ["help", "version"])
            m = "unknown command '\(word)'"
            if let s = Suggest.closest(name, among: names.sorted()) {
                let holder = Completion.leaves.first { $0.decl.options.contains { $0.name == s } }?.path
                m += " — did you mean --\(s)?"
                if let holder, s != "help", s != "version" {
                    m += " Options come after the command, as in emrtd \(holder) --\(s)"
                }
            }
        }
        m += " (see \(see))"
        return CLIError(.unknownCommand, m, status: .usage)
    }

    static func run(
        _ command: CommandDecl, path: String, _ parsed: ParsedArguments, words args: [String],
        context: CommandContext
    ) async -> Int32 {
        let wantsJSON = command.alwaysJSON || args.contains { $0 == "--json" }
        guard let run = command.run else { return ExitStatus.usage.rawValue }
        do {
            return try await run(Invocation(command: path, arguments: parsed, context: context))
        } catch let e as CLIError {
            return report(e, command: path, json: wantsJSON, secrets: secretValues(command, args), context: context)
        } catch let e as UsageError {
            var c = CLIError(e)
            c.message += " (see emrtd \(path) --help)"
            return report(c, command: path, json: wantsJSON, secrets: secretValues(command, args), context: context)
        } catch {
            return report(
                CLIError(
                    .internalError, "an unexpected failure; please report it, with the command you ran",
                    status: .transport),
                command: path, json: wantsJSON, context: context)
        }
    }

    /// The values given to secret options (and to secret arguments): masked in any message as a second line
    /// of defence — the messages themselves are written never to quote a value.
    static func secretValues(_ command: CommandDecl, _ args: [String]) -> [String] {
        var out: [String] = []
        var i = 0
        while i < args.count {
            let a = args[i]
            i += 1
            if a.hasPrefix("--"), let eq = a.firstIndex(of: "=") {
                let name = String(a[a.index(a.startIndex, offsetBy: 2)..<eq])
                if command.option(name)?.secret == true { out.append(String(a[a.index(after: eq)...])) }
            } else if a.hasPrefix("--"), let o = command.option(String(a.dropFirst(2))), !o.isFlag {
                if o.secret, i < args.count { out.append(args[i]) }
                i += 1
            } else if !a.hasPrefix("-"), command.arguments.contains(where: \.secret) {
                out.append(a)
            }
        }
        return out.filter { $0.count >= 4 }
    }

    /// Prints a failure: one line on stderr, and under `--json` the error object on stdout. Returns its status.
    static func report(
        _ e: CLIError, command: String, json: Bool, secrets: [String] = [], context: CommandContext = .standard()
    ) -> Int32 {
        var e = e
        for s in secrets.sorted(by: { $0.count > $1.count }) {
            e.message = e.message.replacingOccurrences(of: s, with: "<redacted>")
            for part in s.split(whereSeparator: { $0 == "<" || $0.isWhitespace }) where part.count >= 6 {
                e.message = e.message.replacingOccurrences(of: part, with: "<redacted>")
            }
        }
        Console.endLive()
        if !json, let report = e.report { context.stdout(Presentation.text(report)) }
        context.stderr((command == "emrtd" ? "emrtd" : "emrtd \(command)") + ": \(e.message)")
        if json { context.stdout(ErrorOutput.json(e, command: command)) }
        return e.status.rawValue
    }
}
