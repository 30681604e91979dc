import Foundation
import ISO7816
import MRTDDocument
import MRTDReader
import MRTDTrust
import PCSCTransport
import StepUp
import VirtualChip

/// The ReadID branch's chip read (`emrtd stepup run`), implemented with `DocumentReader`: the reader
/// arguments after the operation context are the ACCESS and reader options of `emrtd read`.
struct StepUpChipReader: ReadIDChipReader {
    struct Failure: StepUpExitCoded {
        var stepUpExitCode: Int32
        var stepUpReason: String
    }

    /// The reader options `stepup run` hands on (declared in `StepUpCommand.run`).
    static let decl = CommandDecl(
        "stepup run", summary: "",
        options: StepUpCommand.readerOptions + [
            OptionDecl("card-timeout", value: "SECONDS", kind: .number, help: "")
        ])

    func read(_ plan: ReadIDPlan) async throws -> ReadIDChipResult {
        let a: ParsedArguments
        var options: ReadOptions
        do {
            a = try Self.decl.parse(plan.readerArguments)
            options = try ReadSetup.options(a, key: try AccessOptions.key(from: a), timeoutOption: "card-timeout")
        } catch {
            throw Failure(stepUpExitCode: ExitCode.usage, stepUpReason: error.message)
        }
        var files = Set<LDSFile>()
        for f in plan.files { if let l = LDSFile(rawValue: f.rawValue) { files.insert(l) } }
        if options.files == nil { options.files = files }
        if let c = plan.activeAuthenticationChallenge, a.value("aa-challenge") == nil {
            options.activeAuthenticationChallenge = c
            // Active Authentication verifies with DG15's key: a bound challenge needs it read.
            options.files?.insert(.dg15)
        }
        let out: URL?
        let html: String?
        let profiles: ReaderProfiles
        var store: TrustStore
        let virtual: (DocumentProfile, GeneratedDocument?)?
        do {
            out = try OutputFolder.prepare(a.value("out"), command: "stepup run")
            html = try HTMLOutput.prepare(a.value("html"), command: "stepup run")
            profiles = try ReadSetup.readerProfiles(a)
            store = try ReadSetup.trust(a)
            virtual = try ReadSetup.virtualDocument(a)
        } catch {
            throw Failure(stepUpExitCode: error.status.rawValue, stepUpReason: error.message)
        }
        ReadSetup.addGenerated(virtual?.1, to: &store, a)
        let transport: any CardTransport
        do {
            transport = try await ReadSetup.transport(
                a, virtual: virtual?.0, profiles: profiles, timeout: options.representTimeout)
        } catch {
            throw Failure(stepUpExitCode: error.status.rawValue, stepUpReason: error.message)
        }
        let flow = ReadFlow(json: true, out: out, tracePath: a.value("trace"), htmlPath: html, quiet: a.flag("quiet"))
        let o: ReadFlow.Outcome
        do { o = try await flow.run(transport: transport, options: options, trustStore: store) } catch {
            throw Failure(stepUpExitCode: error.status.rawValue, stepUpReason: error.message)
        }
        return ReadIDChipResult(report: o.report, verification: o.verification, bundle: o.bundle)
    }
}
