import Foundation
import MRTDReader
import MRTDTrust
import ASN1TLV
import MRTDDocument

/// `emrtd verify DIR`: re-verifies an evidence bundle offline.
enum VerifyCommand {
    static let spec = OptionSpec(valued: TrustOptions.valued.union(["at"]), flags: ["json"], maxPositionals: 1)

    static func run(_ args: [String]) async -> Int32 {
        let a: ParsedArguments
        do { a = try spec.parse(args) } catch {
            Console.err("emrtd verify: \(error.message) (see emrtd verify --help)")
            return ExitCode.usage
        }
        if a.flag("help") { Console.out(Help.verify); return ExitCode.ok }
        guard let dir = a.positionals.first else {
            Console.err("emrtd verify: give the bundle folder (see emrtd verify --help)")
            return ExitCode.usage
        }
        var at = ASN1Time.now
        if let t = a.value("at") {
            guard let parsed = parseISO(t) else {
                Console.err("emrtd verify: --at must be an ISO 8601 time such as 2026-11-29T12:00:00Z")
                return ExitCode.usage
            }
            at = parsed
        }
        let url = URL(fileURLWithPath: dir)
        let loaded: (files: [LDSFile: [UInt8]], evidence: CloneDetectionEvidence)
        do { loaded = try EvidenceBundle.load(from: url) } catch {
            Console.err("emrtd verify: \(error)")
            return ExitCode.usage
        }
        var store: TrustStore
        do {
            var refused: [TrustStore.Refusal]
            (store, refused) = try TrustOptions.store(from: a)
            for r in refused { Console.err("emrtd: trust: refused \(r)") }
        } catch {
            Console.err("emrtd verify: \(error.message)")
            return ExitCode.trust
        }
        if a.all("trust").isEmpty {
            // Never trust anchors found inside the bundle implicitly: a bundle could carry its own CSCA.
            var hint = "give --trust (CSCA certificates or master lists)"
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("test-csca.cer").path) {
                hint += "; this bundle comes from a virtual document: its test CSCA is \(url.appendingPathComponent("test-csca.cer").path)"
            }
            Console.err("emrtd verify: no trust anchor: the document will be rejected (\(hint))")
        }
        let outcome = DocumentVerifier.verify(files: loaded.files, evidence: loaded.evidence, trustStore: store, validationTime: at)
        var report = ReadReport()
        ReportBuilder.fill(&report, files: loaded.files, facts: [:], reference: at, faceImagePath: nil)
        report.verification = ReportBuilder.reportVerification(outcome)
        Console.out(a.flag("json") ? Presentation.json(report) : Presentation.text(report))
        return ReadFlow.exitCode(for: outcome.status)
    }

    static func parseISO(_ s: String) -> ASN1Time? {
        let digits = s.filter { $0.isNumber }
        guard digits.count == 14 || digits.count == 8 else { return nil }
        let t = digits.count == 8 ? digits + "000000" : digits
        return try? ASN1Time(generalizedTime: t + "Z")
    }
}
