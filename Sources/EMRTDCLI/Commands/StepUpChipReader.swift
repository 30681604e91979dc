import Foundation
import ISO7816
import MRTDReader
import MRTDDocument
import StepUp
import VirtualChip
import MRTDTrust

/// The ReadID branch's chip read (`emrtd stepup run`), implemented with `DocumentReader`: the reader
/// arguments after the operation context are the ACCESS and reader options of `emrtd read`.
struct StepUpChipReader: ReadIDChipReader {
    struct Failure: StepUpExitCoded {
        var stepUpExitCode: Int32
        var stepUpReason: String
    }

    func read(_ plan: ReadIDPlan) async throws -> ReadIDChipResult {
        let a: ParsedArguments
        var options: ReadOptions
        do {
            a = try ReadCommand.spec.parse(plan.readerArguments)
            options = try ReadSetup.options(a, key: try AccessOptions.key(from: a))
        } catch {
            throw Failure(stepUpExitCode: ExitCode.usage, stepUpReason: error.message)
        }
        var files = Set<LDSFile>()
        for f in plan.files { if let l = LDSFile(rawValue: f.rawValue) { files.insert(l) } }
        if options.files == nil { options.files = files }
        if let c = plan.activeAuthenticationChallenge, a.value("aa-challenge") == nil { options.activeAuthenticationChallenge = c }

        let transport: any CardTransport
        let generated: GeneratedDocument?
        switch await ReadSetup.transport(a) {
        case .failure(let f): throw Failure(stepUpExitCode: f.code, stepUpReason: f.message)
        case .success(let (t, g)): transport = t; generated = g
        }
        let store: TrustStore
        switch ReadSetup.trust(a, generated: generated) {
        case .failure(let f): throw Failure(stepUpExitCode: f.code, stepUpReason: f.message)
        case .success(let s): store = s
        }
        let flow = ReadFlow(json: true, outDirectory: a.value("out"), tracePath: a.value("trace"), quiet: a.flag("quiet"))
        switch await flow.run(transport: transport, options: options, trustStore: store) {
        case .failure(let f):
            throw Failure(stepUpExitCode: f.code, stepUpReason: f.message)
        case .success(let o):
            return ReadIDChipResult(report: o.report, verification: o.verification, bundle: o.bundle)
        }
    }
}
