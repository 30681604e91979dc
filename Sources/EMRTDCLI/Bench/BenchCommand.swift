import Foundation

/// `emrtd bench`: APDUs, bytes, CPU and modelled reading time per profile and phase, against the floor
/// (issue 7). Runs entirely in process against the virtual chip; never a timed test.
public func runBenchCommand(arguments: [String]) async -> Int32 {
    let settings: BenchSettings
    switch BenchSettings.parse(arguments) {
    case .help:
        Console.out(BenchSettings.help)
        return ExitCode.ok
    case .failure(let message):
        Console.err("emrtd bench: \(message) (see emrtd bench --help)")
        return ExitCode.usage
    case .settings(let s):
        settings = s
    }
    do {
        let quiet = settings.json
        let log: @Sendable (String) -> Void = { line in if !quiet { Console.err(line) } }
        let report = try await BenchRunner(settings: settings, log: log).run()
        Console.out(settings.json ? report.jsonText() : report.text())
        return ExitCode.ok
    } catch {
        Console.err("emrtd bench: \(error)")
        return ExitCode.transport
    }
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

    static let allProfiles = ["bac", "pace-gm-brainpool-aes128", "pace-gm-p256-aes256", "pace-im-ecdh", "pace-cam", "pace-gm-dh-3des"]

    enum Parsed {
        case help
        case failure(String)
        case settings(BenchSettings)
    }

    static let spec = OptionSpec(valued: ["runs", "link-kbps", "apdu-ms", "chip-ms-per-sm-apdu", "reads", "masterlists", "profile"],
                                 flags: ["json", "quick", "trust-only"])

    static func parse(_ args: [String]) -> Parsed {
        let a: ParsedArguments
        do { a = try spec.parse(args) } catch { return .failure(error.message) }
        if a.flag("help") { return .help }
        var s = BenchSettings()
        s.json = a.flag("json")
        if a.flag("quick") {
            s.quick = true
            s.runs = 3
            s.loopReads = 100
            s.dg2Sizes = [15_000]
        }
        func number(_ name: String, _ range: ClosedRange<Double>) -> Result<Double?, UsageError> {
            guard let v = a.value(name) else { return .success(nil) }
            guard let d = Double(v), d.isFinite, range.contains(d) else {
                return .failure(UsageError("--\(name) must be a number in \(range.lowerBound)...\(range.upperBound), not '\(v)'"))
            }
            return .success(d)
        }
        do {
            if let v = try number("runs", 1...1000).get() {
                guard v == v.rounded() else { return .failure("--runs must be a whole number") }
                s.runs = Int(v)
            }
            if let v = try number("reads", 1...100_000).get() {
                guard v == v.rounded() else { return .failure("--reads must be a whole number") }
                s.loopReads = Int(v)
            }
            if let v = try number("link-kbps", 1...100_000).get() { s.link.kbps = v }
            if let v = try number("apdu-ms", 0...10_000).get() { s.link.apduMs = v }
            if let v = try number("chip-ms-per-sm-apdu", 0...10_000).get() { s.link.chipMsPerSMAPDU = v }
        } catch {
            return .failure(error.message)
        }
        s.masterLists = a.value("masterlists")
        if a.flag("trust-only") {
            s.trustOnly = true
            s.profiles = []
        }
        let chosen = a.all("profile")
        if !chosen.isEmpty {
            for p in chosen where !allProfiles.contains(p) {
                return .failure("--profile must be one of \(allProfiles.joined(separator: ", ")), not '\(p)'")
            }
            s.profiles = chosen
        }
        return .settings(s)
    }

    static let help = """
    emrtd bench — where the time of a read goes: APDUs, bytes, CPU and modelled link time per profile and
    phase, each beside its floor (issue 7). Reads the virtual passport in process; build in release mode:

        swift run -c release emrtd bench [--json] [--runs N] [--quick]

    Matrix: BAC/3DES, PACE-GM-ECDH brainpoolP256r1/AES-128, PACE-GM-ECDH P-256/AES-256, PACE-IM, PACE-CAM,
    PACE-GM-DH/3DES × short APDUs only / extended length × DG2 of 15 KB / 60 KB. Also: the cost of the
    OpenSSL primitives each phase needs, the German and Dutch master lists loaded and compared with
    `openssl cms -verify`, hostile inputs refused beside genuine ones of the same kind (issue 11), peak memory,
    and RSS before/after 1,000 consecutive reads.

    Options:
      --json                      one JSON object (rows, link, primitives, trustStore, hostileInput, memory, acceptance)
      --runs N                    reads per matrix cell (median and spread; default 5, --quick 3)
      --quick                     DG2 15 KB only, 3 runs, 100 reads in the memory loop
      --link-kbps K               air data rate in kbit/s (default 424)
      --apdu-ms MS                reader + chip turnaround per APDU (default 4)
      --chip-ms-per-sm-apdu MS    the chip's crypto per secure-messaging APDU (default 0: inside the turnaround)
      --reads N                   consecutive reads in the memory-growth loop (default 1000)
      --profile NAME              only this profile (repeatable)
      --trust-only                only the trust-store and hostile-input workloads (no read matrix, no memory loop)
      --masterlists DIR           folder with DE_ML_*.ml, DE_ROOT_CA_CSCA07.cer, NL_ML_*.ml, NL_ROOT_CA.cer
                                  (default: shared/fixtures/masterlists in this folder or an ancestor)
    CPU is process CPU time (CLOCK_PROCESS_CPUTIME_ID) with the virtual chip's own time measured inside a
    wrapper around VirtualChip.process and reported apart.
    """
}
