import Foundation
import ISO7816
import MRTDReader
import MRTDTrust
import MRTDDocument
import ASN1TLV

/// The part of `demo`, `read` and `stepup run` that is the same: read, verify, write the bundle, report.
struct ReadFlow {
    var json: Bool
    var outDirectory: String?
    var tracePath: String?
    var quiet = false

    struct Outcome {
        var report: ReadReport
        var result: ReadResult
        var verification: VerificationOutcome
        var bundle: URL?
    }

    /// Runs the read and verification; on failure prints one line and returns the exit status.
    func run(transport: any CardTransport, options: ReadOptions, trustStore: TrustStore,
             validationTime: ASN1Time = .now) async -> Result<Outcome, ExitFailure> {
        let trace = tracePath == nil ? nil : APDUTrace()
        let reader = DocumentReader(transport: transport, options: options, trace: trace)
        let result: ReadResult
        do {
            result = try await reader.read(progress: Presentation.progressPrinter(quiet: quiet))
        } catch {
            Console.endLive()
            writeTrace(trace)
            switch error {
            case .transport: return .failure(ExitFailure(code: ExitCode.transport, message: error.description))
            case .accessControl(let e):
                var m = error.description
                if e.code == .wrongPassword { m += " — check the MRZ/CAN" }
                return .failure(ExitFailure(code: ExitCode.accessControl, message: m))
            case .chip: return .failure(ExitFailure(code: ExitCode.transport, message: error.description))
            }
        }
        writeTrace(trace)
        let verification = DocumentVerifier.verify(result, trustStore: trustStore, validationTime: validationTime)
        var facePath: String? = nil
        var bundle: URL? = nil
        if let out = outDirectory {
            let dir = URL(fileURLWithPath: out)
            do {
                try EvidenceBundle.write(result, to: dir)
                if let face = result.document.faceImage {
                    facePath = dir.appendingPathComponent(EvidenceBundle.faceImageName(face.format)).path
                }
                bundle = dir
            } catch {
                return .failure(ExitFailure(code: ExitCode.usage, message: "cannot write the evidence bundle to \(out): \(error)"))
            }
        }
        let report = ReportBuilder.report(for: result, verification: verification, faceImagePath: facePath)
        if let bundle {
            do { try EvidenceBundle.writeReport(report, to: bundle) } catch {
                return .failure(ExitFailure(code: ExitCode.usage, message: "cannot write report.json: \(error)"))
            }
        }
        return .success(Outcome(report: report, result: result, verification: verification, bundle: bundle))
    }

    func print(_ o: Outcome) {
        Console.out(json ? Presentation.json(o.report) : Presentation.text(o.report))
    }

    func writeTrace(_ trace: APDUTrace?) {
        guard let trace, let path = tracePath else { return }
        let enc = JSONEncoder()
        enc.outputFormatting = [.prettyPrinted]
        if let data = try? enc.encode(trace.all) {
            do { try data.write(to: URL(fileURLWithPath: path)) } catch { Console.err("emrtd: cannot write the trace to \(path): \(error)") }
        }
    }

    static func exitCode(for status: VerificationOutcome.Status) -> Int32 {
        switch status {
        case .accepted: return ExitCode.accepted
        case .inconclusive: return ExitCode.inconclusive
        case .rejected: return ExitCode.rejected
        }
    }
}

struct ExitFailure: Error {
    var code: Int32
    var message: String
}
