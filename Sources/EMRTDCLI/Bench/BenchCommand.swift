import CanonicalJSON
import Foundation

/// `emrtd bench`: APDUs, bytes, CPU and modelled reading time per profile and phase, against the floor
/// (docs/performance.md). Runs entirely in process against the virtual chip; never a timed test.
enum BenchCommand {
    static let command = CommandDecl(
        "bench", summary: "measure APDUs, bytes, CPU and modelled link time per phase (build with -c release)",
        discussion: BenchSettings.discussion,
        options: [
            OptionDecl("json", help: "one JSON object (rows, link, primitives, trustStore, memory, acceptance)"),
            OptionDecl(
                "runs", value: "N", kind: .number, help: "reads per matrix cell (median and spread; --quick: 3)",
                default: "5"),
            OptionDecl("quick", help: "DG2 15 KB only, 3 runs, 100 reads in the memory loop"),
            OptionDecl("link-kbps", value: "K", kind: .number, help: "air data rate in kbit/s", default: "424"),
            OptionDecl("apdu-ms", value: "MS", kind: .number, help: "reader + chip turnaround per APDU", default: "4"),
            OptionDecl(
                "chip-ms-per-sm-apdu", value: "MS", kind: .number, help: "the chip's crypto per secure-messaging APDU",
                default: "0: inside the turnaround"),
            OptionDecl(
                "reads", value: "N", kind: .number, help: "consecutive reads in the memory-growth loop", default: "1000"
            ),
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
        let settings = try BenchSettings.settings(inv.arguments)
        do {
            let quiet = settings.json
            let log: @Sendable (String) -> Void = { line in if !quiet { Console.err(line) } }
            if settings.hostileImagesOnly {
                let rows = await HostileBench.run(runs: settings.runs, imagesOnly: true, log: log)
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
}

/// Runs `emrtd bench` with `arguments` (the words after `bench`).
public func runBenchCommand(arguments: [String]) async -> Int32 {
    await EMRTDCommand.run(["bench"] + arguments)
}

/// What `emrtd bench` was asked to do.
struct BenchSettings: Sendable {
    var json = false
    var runs = 5
    var quick = false
    var link = LinkModel()
    /// Consecutive reads for the memory-growth check.
    var loopReads = 1000
    var masterLists: String? = nil
    var profiles: [String] = BenchSettings.allProfiles
    var dg2Sizes: [Int] = [15_000, 60_000]
    var modes: [Bool] = [false, true]
    /// Only the trust-store workloads (master lists, passive authentication): for working on them.
    var trustOnly = false
    /// Only the hostile image rows (`--hostile-images`).
    var hostileImagesOnly = false

    static let allProfiles = [
        "bac", "pace-gm-brainpool-aes128", "pace-gm-p256-aes256", "pace-im-ecdh", "pace-cam", "pace-gm-dh-3des",
    ]

    /// The settings from parsed options; every value checked (and `--masterlists` found) before anything runs.
    static func settings(_ a: ParsedArguments) throws(CLIError) -> BenchSettings {
        var s = BenchSettings()
        s.json = a.flag("json")
        if a.flag("quick") {
            s.quick = true
            s.runs = 3
            s.loopReads = 100
            s.dg2Sizes = [15_000]
        }
        func number(_ name: String, _ range: ClosedRange<Double>, whole: Bool = false) throws(CLIError) -> Double? {
            guard let v = a.value(name) else { return nil }
            guard let d = Double(v), d.isFinite, range.contains(d), !whole || d == d.rounded() else {
                let lo = Int(range.lowerBound)
                let hi = Int(range.upperBound)
                throw CLIError(
                    .badValue, "--\(name) must be a \(whole ? "whole number" : "number") from \(lo) to \(hi)",
                    status: .usage)
            }
            return d
        }
        if let v = try number("runs", 1...1000, whole: true) { s.runs = Int(v) }
        if let v = try number("reads", 1...100_000, whole: true) { s.loopReads = Int(v) }
        if let v = try number("link-kbps", 1...100_000) { s.link.kbps = v }
        if let v = try number("apdu-ms", 0...10_000) { s.link.apduMs = v }
        if let v = try number("chip-ms-per-sm-apdu", 0...10_000) { s.link.chipMsPerSMAPDU = v }
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
            for p in chosen where !allProfiles.contains(p) {
                let shown = Shown.name(p)
                throw CLIError(
                    .unknownProfile, "--profile must be one of \(allProfiles.joined(separator: ", ")), not \(shown)",
                    status: .usage)
            }
            s.profiles = chosen
        }
        return s
    }

    static let discussion = """
        Where the time of a read goes: APDUs, bytes, CPU and modelled link time per profile and
        phase, each beside its floor (docs/performance.md). Reads the virtual passport in process; build in release mode:

            swift run -c release emrtd bench [--json] [--runs N] [--quick]

        Matrix: BAC/3DES, PACE-GM-ECDH brainpoolP256r1/AES-128, PACE-GM-ECDH P-256/AES-256, PACE-IM, PACE-CAM,
        PACE-GM-DH/3DES × short APDUs only / extended length × DG2 of 15 KB / 60 KB. Also: the cost of the
        OpenSSL primitives each phase needs, the German and Dutch master lists loaded and compared with
        `openssl cms -verify`, hostile inputs refused beside genuine ones of the same kind, peak memory,
        and RSS before/after 1,000 consecutive reads.

        CPU is process CPU time (CLOCK_PROCESS_CPUTIME_ID) with the virtual chip's own time measured inside a
        wrapper around VirtualChip.process and reported apart.
        """
}
