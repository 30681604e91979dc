import Foundation
import ISO7816
import MRTDDocument
import MRTDReader
import MRTDTrust
import PCSCTransport
import StepUp

/// The ReadID branch's chip read (`emrtd stepup run`), implemented with `DocumentReader` and configured with the
/// ACCESS and reader options `stepup run` parsed (those of `emrtd read`, `--card-timeout` for its `--timeout`).
/// Its failures are `CLIError`s with their own exit status (access control 4, trust 5, transport 3, bad options 2);
/// `StepUpRunner` hands them back unchanged.
struct StepUpChipReader: ReadIDChipReader {
    let arguments: ParsedArguments

    /// What the read of `plan` is asked to do: the options of `emrtd read` (`--card-timeout` as its card wait),
    /// the plan's files unless `--files` chose, and the plan's AA challenge unless `--aa-challenge` gave one.
    func readOptions(for plan: ReadIDPlan) throws(CLIError) -> ReadOptions {
        let a = arguments
        var options: ReadOptions
        do {
            options = try ReadSetup.options(a, key: try AccessOptions.key(from: a), timeoutOption: "card-timeout")
        } catch { throw CLIError(error) }
        var files = Set<LDSFile>()
        for f in plan.files { if let l = LDSFile(rawValue: f.rawValue) { files.insert(l) } }
        if options.files == nil { options.files = files }
        if let c = plan.activeAuthenticationChallenge, a.value("aa-challenge") == nil {
            options.activeAuthenticationChallenge = c
            // Active Authentication verifies with DG15's key: a bound challenge needs it read.
            options.files?.insert(.dg15)
        }
        return options
    }

    func read(_ plan: ReadIDPlan) async throws(CLIError) -> ReadIDChipResult {
        let a = arguments
        let command = "stepup run"
        let options = try readOptions(for: plan)
        let out = try OutputFolder.prepare(a.value("out"), command: command)
        let html = try HTMLOutput.prepare(a.value("html"), command: command)
        let tracePath = try ReadFlow.prepareTrace(a.value("trace"))
        let profiles = try ReadSetup.readerProfiles(a)
        var store = try ReadSetup.trust(a, command: command)
        let virtual = try ReadSetup.virtualDocument(a)
        ReadSetup.addGenerated(virtual?.1, to: &store, a)
        let transport = try await ReadSetup.transport(
            a, virtual: virtual?.0, profiles: profiles, timeout: options.representTimeout, timeoutOption: "card-timeout"
        )
        let flow = ReadFlow(json: true, out: out, tracePath: tracePath, htmlPath: html, quiet: a.flag("quiet"))
        let o = try await flow.run(transport: transport, options: options, trustStore: store)
        return ReadIDChipResult(report: o.report, verification: o.verification, bundle: o.bundle)
    }
}
