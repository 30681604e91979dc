import MRTDReader

/// `emrtd help`, `version`, `completion` and `man`: generated from the declarations.
enum MetaCommands {
    static var versionText: String { "emrtd \(EMRTDKitVersion.string)" }

    static let help = CommandDecl(
        "help", summary: "show the help of emrtd or of one command",
        arguments: [
            ArgumentDecl("COMMAND", help: "the command (and subcommand) to explain", optional: true),
            ArgumentDecl("SUBCOMMAND", help: "a subcommand of COMMAND (stepup)", optional: true),
        ],
        options: [OptionDecl("synopsis", help: "print every command's synopsis (the README's command block)")],
        run: { inv in
            if inv.arguments.flag("synopsis") {
                inv.context.stdout(Help.synopses)
                return ExitStatus.ok.rawValue
            }
            let words = inv.arguments.positionals
            guard let first = words.first else {
                inv.context.stdout(Help.main)
                return ExitStatus.ok.rawValue
            }
            guard let c = EMRTDCommand.commands.first(where: { $0.name == first }) else {
                throw EMRTDCommand.unknownCommand(first, among: EMRTDCommand.commands.map(\.name), path: nil)
            }
            guard words.count > 1 else {
                inv.context.stdout(Help.text(for: c, path: c.name))
                return ExitStatus.ok.rawValue
            }
            guard let s = c.subcommands.first(where: { $0.name == words[1] }) else {
                throw EMRTDCommand.unknownCommand(words[1], among: c.subcommands.map(\.name), path: c.name)
            }
            inv.context.stdout(Help.text(for: s, path: "\(c.name) \(s.name)"))
            return ExitStatus.ok.rawValue
        })

    static let version = CommandDecl(
        "version", summary: "print the version",
        run: { _ in
            Console.out(versionText)
            return ExitStatus.ok.rawValue
        })

    static let completion = CommandDecl(
        "completion", summary: "print a shell completion script (bash, zsh or fish)",
        discussion: """
            bash: emrtd completion bash > ~/.local/share/bash-completion/completions/emrtd
            zsh:  emrtd completion zsh > ~/.zfunc/_emrtd   (with fpath+=~/.zfunc before compinit)
            fish: emrtd completion fish > ~/.config/fish/completions/emrtd.fish
            """,
        arguments: [ArgumentDecl("SHELL", help: "bash, zsh or fish", kind: .choice(["bash", "zsh", "fish"]))],
        run: { inv in
            guard let shell = inv.arguments.positionals.first else {
                throw CLIError(
                    .missingArgument, "give the shell: bash, zsh or fish (see emrtd completion --help)", status: .usage)
            }
            switch shell {
            case "bash": Console.out(Completion.bash())
            case "zsh": Console.out(Completion.zsh())
            case "fish": Console.out(Completion.fish())
            default:
                throw CLIError(
                    .badValue, "the shell must be bash, zsh or fish (see emrtd completion --help)", status: .usage)
            }
            return ExitStatus.ok.rawValue
        })

    static let man = CommandDecl(
        "man", summary: "print the emrtd(1) manual page (roff)",
        discussion: "View it with: emrtd man | man -l -",
        run: { _ in
            Console.out(ManPage.render())
            return ExitStatus.ok.rawValue
        })
}
