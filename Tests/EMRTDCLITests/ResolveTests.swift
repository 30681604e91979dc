import EMRTDCLI
import Testing

/// `EMRTDCommand.resolve`: the command line decided from the declarations alone (what `run` acts on and the
/// `options` fuzz target calls), with no command run.
@Suite struct ResolveTests {
    @Test func resolvesCommandsSubcommandsHelpAndFailures() {
        guard case .run(_, let path, let parsed, let words) = EMRTDCommand.resolve(["verify", "bundle", "--json"])
        else {
            Issue.record("verify DIR --json is a command to run")
            return
        }
        #expect(path == "verify" && parsed.positionals == ["bundle"] && parsed.flag("json") && words.count == 2)
        guard case .run(_, let sub, _, _) = EMRTDCommand.resolve(["stepup", "decode", "e30"]) else {
            Issue.record("stepup decode CONTEXT is a subcommand to run")
            return
        }
        #expect(sub == "stepup decode")
        guard case .output(let help) = EMRTDCommand.resolve(["read", "--help"]) else {
            Issue.record("read --help is help text")
            return
        }
        #expect(help.contains("USAGE: emrtd read"))
        guard case .noCommand = EMRTDCommand.resolve([]) else {
            Issue.record("no words: the main help on stderr")
            return
        }
        let secret = "L898902C3"
        guard
            case .failure(let e, let command, let json, let secrets) = EMRTDCommand.resolve([
                "read", "--can", secret, "--mrz", secret, "--json",
            ])
        else {
            Issue.record("--can with --mrz is a usage failure")
            return
        }
        #expect(command == "read" && json && e.message.contains("cannot be used together"))
        #expect(!e.message.contains(secret) && secrets.contains(secret))
    }
}
