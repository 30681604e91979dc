import ASN1TLV
import Foundation
import MRTDDocument
import MRTDReader
import MRTDTrust

/// `emrtd verify DIR`: re-verifies an evidence bundle offline.
enum VerifyCommand {
    static let command = CommandDecl(
        "verify", summary: "verify a saved read (evidence bundle) offline",
        discussion: """
            Verifies a saved read (the evidence bundle written by --out) offline and prints the verdict. Live parts
            whose transcript is missing are marked notChecked. Anchors inside the bundle are never trusted implicitly.
            """,
        arguments: [ArgumentDecl("DIR", help: "the bundle folder written by read/demo --out", kind: .directory)],
        options: Options.trust + [
            OptionDecl(
                "at", value: "TIME",
                help:
                    "validate certificates and the document's expiry at this time: 2026-11-29 or 2026-11-29T12:00:00Z",
                default: "now"),
            Options.allowExpired, Options.json, HTMLOutput.option,
        ],
        schema: "emrtd.report/1", exits: [.ok, .usage, .trust, .inconclusive, .rejected],
        // the face decoded once for the report, the check of the bundle's face.jpg and the page
        run: { inv in try await HTMLOutput.decodingOnce { try await run(inv) } })

    static func run(_ inv: Invocation) async throws -> Int32 {
        let a = inv.arguments
        guard let dir = a.positionals.first else {
            throw CLIError(.missingArgument, "give the bundle folder (see emrtd verify --help)", status: .usage)
        }
        var at = ASN1Time.now
        if let t = a.value("at") {
            guard let parsed = parseISO(t) else {
                throw CLIError(
                    .badValue,
                    "--at must be a real date or time in ISO 8601, such as 2026-11-29 or 2026-11-29T12:00:00Z",
                    status: .usage)
            }
            at = parsed
        }
        let html = try HTMLOutput.prepare(a.value("html"), command: inv.command)
        let (store, refused) = try TrustOptions.store(from: a)
        for r in refused { Console.err(TrustOptions.refusalLine(r, command: inv.command)) }
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: dir, isDirectory: &isFolder) else {
            throw CLIError(
                .badBundle, "\(Shown.path(dir)) does not exist — give a folder written by emrtd read --out",
                status: .usage)
        }
        guard isFolder.boolValue else {
            throw CLIError(
                .badBundle, "\(Shown.path(dir)) is a file, not a folder — give a folder written by emrtd read --out",
                status: .usage)
        }
        let url = URL(fileURLWithPath: dir)
        let loaded: (files: [LDSFile: [UInt8]], evidence: CloneDetectionEvidence)
        do { loaded = try EvidenceBundle.load(from: url) } catch {
            throw CLIError(
                .badBundle,
                "\(Shown.path(dir)) is not a readable evidence bundle (\(PlainWords.reason("\(error)", fallback: "files missing or damaged", hiding: [dir]))) — give a folder written by emrtd read --out",
                status: .usage)
        }
        if a.all("trust").isEmpty {
            // Never trust anchors found inside the bundle implicitly: a bundle could carry its own CSCA.
            var hint = "give --trust (CSCA certificates or master lists)"
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("test-csca.cer").path) {
                hint +=
                    "; this bundle comes from a virtual document: its test CSCA is \(url.appendingPathComponent("test-csca.cer").path)"
            }
            Console.err("emrtd verify: no trust anchor: the verdict is at best inconclusive (\(hint))")
        }
        let outcome = DocumentVerifier.verify(
            files: loaded.files, evidence: loaded.evidence, trustStore: store, validationTime: at,
            allowExpired: a.flag("allow-expired"))
        var report = ReadReport()
        ReportBuilder.fill(&report, files: loaded.files, facts: [:], reference: at, faceImagePath: nil)
        report.verification = ReportBuilder.reportVerification(outcome)
        // face.jpg / face.jp2 are shown nowhere by verify (the face comes from DG2); one that is not DG2's is named
        report.warnings += EvidenceBundle.faceFileProblems(in: url, files: loaded.files)
        if let html { try HTMLOutput.write(report, files: loaded.files, to: html) }
        Console.out(a.flag("json") ? Presentation.json(report) : Presentation.text(report))
        return ReadFlow.exitCode(for: outcome.status)
    }

    /// `YYYY-MM-DD` or `YYYY-MM-DDTHH:MM:SSZ` (also without separators), refusing dates that do not exist.
    static func parseISO(_ s: String) -> ASN1Time? {
        let allowed = Set("0123456789-:TZ")
        guard s.allSatisfy({ allowed.contains($0) }) else { return nil }
        let digits = s.filter { $0.isNumber }
        guard digits.count == 14 || digits.count == 8 else { return nil }
        let t = digits.count == 8 ? digits + "000000" : digits
        let n = t.map { Int(String($0))! }
        func num(_ r: Range<Int>) -> Int { n[r].reduce(0) { $0 * 10 + $1 } }
        let year = num(0..<4)
        let month = num(4..<6)
        let day = num(6..<8)
        let hour = num(8..<10)
        let minute = num(10..<12)
        let second = num(12..<14)
        guard (1...12).contains(month), hour < 24, minute < 60, second < 60 else { return nil }
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
        guard (1...days).contains(day) else { return nil }
        return try? ASN1Time(generalizedTime: t + "Z")
    }
}
