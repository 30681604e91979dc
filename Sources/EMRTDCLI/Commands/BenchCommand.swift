import CanonicalJSON
import EMRTDBench
import Foundation

/// `emrtd bench`: APDUs, bytes, CPU and modelled reading time per profile and phase, against the floor
/// (docs/performance.md). Runs entirely in process against the virtual chip; never a timed test. The benchmark
/// itself is the `EMRTDBench` module; this is its command: the options, checked into `BenchSettings`, and the output.
enum BenchCommand {
    static let command = CommandDecl(
        "bench", summary: "measure APDUs, bytes, CPU and modelled link time per phase (build with -c release)",
        discussion: BenchSettings.discussion,
        options: [
            OptionDecl("json", help: "one JSON object (rows, link, primitives, trustStore, memory, acceptance)"),
            OptionDecl(
                "runs", value: "N", help: "reads per matrix cell (median and spread; --quick: 3)", default: "5",
                number: rule("runs", 1...1000, whole: true)),
            OptionDecl("quick", help: "DG2 15 KB only, 3 runs, 100 reads in the memory loop"),
            OptionDecl(
                "link-kbps", value: "K", help: "air data rate in kbit/s", default: "424",
                number: rule("link-kbps", 1...100_000)),
            OptionDecl(
                "apdu-ms", value: "MS", help: "reader + chip turnaround per APDU", default: "4",
                number: rule("apdu-ms", 0...10_000)),
            OptionDecl(
                "chip-ms-per-sm-apdu", value: "MS", help: "the chip's crypto per secure-messaging APDU",
                default: "0: inside the turnaround", number: rule("chip-ms-per-sm-apdu", 0...10_000)),
            OptionDecl(
                "reads", value: "N", help: "consecutive reads in the memory-growth loop", default: "1000",
                number: rule("reads", 1...100_000, whole: true)),
            OptionDecl(
                "profile", value: "NAME", kind: .choice(BenchSettings.allProfiles), help: "only this profile",
                repeatable: true),
            OptionDecl("trust-only", help: "only the trust-store workloads (no read matrix, no memory loop)"),
            OptionDecl(
                "hostile-images", help: "only the hostile face and document image rows, beside genuine ones"),
            OptionDecl(
                "masterlists", value: "DIR", kind: .directory,
                help: "folder with DE_ML_*.ml, DE_ROOT_CA_CSCA07.cer, NL_ML_*.ml, NL_ROOT_CA.cer",
                default: "shared/fixtures/masterlists in this folder or an ancestor"),
        ],
        schema: "emrtd.bench/1", exits: [.ok, .usage, .transport],
        run: { try await run($0) })

    static func run(_ inv: Invocation) async throws -> Int32 {
        let settings = try settings(inv.arguments)
        do {
            let quiet = settings.json
            let log: @Sendable (String) -> Void = { line in if !quiet { Console.err(line) } }
            if settings.hostileImagesOnly {
                let rows = await HostileBench.run(runs: settings.runs, imagesOnly: true, page: settings.page, log: log)
                let json = CanonicalJSON.string(rows)
                Console.out(settings.json ? json : rows.textLines().joined(separator: "\n"))
                return ExitStatus.ok.rawValue
            }
            let report = try await BenchRunner(settings: settings, log: log).run()
            Console.out(settings.json ? report.jsonText() : report.text())
            return ExitStatus.ok.rawValue
        } catch {
            throw CLIError(
                .internalError,
                "the benchmark failed (\(PlainWords.reason("\(error)", fallback: "see the lines above")))",
                status: .transport)
        }
    }

    static func rule(_ name: String, _ range: ClosedRange<Double>, whole: Bool = false) -> NumberRule {
        let bounds = "from \(Int(range.lowerBound)) to \(Int(range.upperBound))"
        return NumberRule(
            range, whole: whole, message: "--\(name) must be a \(whole ? "whole number" : "number") \(bounds)")
    }

    /// The settings from parsed options; every value checked (and `--masterlists` found) before anything runs.
    static func settings(_ a: ParsedArguments) throws(CLIError) -> BenchSettings {
        var s = BenchSettings(page: HTMLOutput.page)
        s.json = a.flag("json")
        if a.flag("quick") { s.makeQuick() }
        // the numbers were checked against their rules when the command line was parsed
        if let v = a.number("runs") { s.runs = Int(v) }
        if let v = a.number("reads") { s.loopReads = Int(v) }
        if let v = a.number("link-kbps") { s.link.kbps = v }
        if let v = a.number("apdu-ms") { s.link.apduMs = v }
        if let v = a.number("chip-ms-per-sm-apdu") { s.link.chipMsPerSMAPDU = v }
        if let dir = a.value("masterlists") {
            var isDir: ObjCBool = false
            guard FileManager.default.fileExists(atPath: dir, isDirectory: &isDir), isDir.boolValue else {
                throw CLIError(
                    .badValue,
                    "--masterlists \(Shown.path(dir)) is not a folder: give the folder holding the DE and NL master lists",
                    status: .usage)
            }
            s.masterLists = dir
        }
        s.hostileImagesOnly = a.flag("hostile-images")
        if a.flag("trust-only") {
            s.trustOnly = true
            s.profiles = []
        }
        let chosen = a.all("profile")
        if !chosen.isEmpty {
            for p in chosen where !BenchSettings.allProfiles.contains(p) {
                let shown = Shown.name(p)
                throw CLIError(
                    .unknownProfile,
                    "--profile must be one of \(BenchSettings.allProfiles.joined(separator: ", ")), not \(shown)",
                    status: .usage)
            }
            s.profiles = chosen
        }
        return s
    }
}

/// Runs `emrtd bench` with `arguments` (the words after `bench`).
public func runBenchCommand(arguments: [String]) async -> Int32 {
    await EMRTDCommand.run(["bench"] + arguments)
}
