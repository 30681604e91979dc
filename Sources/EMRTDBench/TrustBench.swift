import ASN1TLV
import Foundation
import MRTDReader
import MRTDTrust

/// Results of the trust-store workloads (docs/performance.md).
struct TrustBenchReport: Sendable, Codable {
    struct OpenSSLRun: Sendable, Codable {
        /// The command line (paths shortened to file names).
        var command: String
        /// Median wall-clock milliseconds of the whole command (process start included).
        var wallMs: Double
        var exitStatus: Int32
        /// First line of its stderr/stdout (e.g. "Verification successful" or why it refused).
        var message: String
    }

    struct MasterListLoad: Sendable, Codable {
        var country: String
        var file: String
        var root: String
        var bytes: Int
        /// Verified to the pinned root and taken in.
        var verified: Bool
        var refusal: String?
        var certificates: Int
        /// Ours: pin the root and `TrustStore.load(path:)` (read, parse, verify signature and signer chain, add every CSCA).
        var loadMs: Double
        var loadCpuMs: Double
        /// Where our load time goes: `CSCAMasterList(bytes:)` (CMS and every certificate parsed),
        /// `verify(signerRoots:)` (signature and signer chain), and the rest (file read, indexing the store).
        var parseMs: Double?
        var verifyMs: Double?
        /// Adding the parsed certificates to an empty store (`TrustStore.add(_:source:asCSCA:)`, indexing).
        var addMs: Double?
        var opensslFull: OpenSSLRun?
        var opensslSignatureOnly: OpenSSLRun?
        /// Ours / the openssl run that does comparable work (full when openssl accepts the list, else -noverify).
        var ratio: Double?
        var comparedWith: String?
    }

    struct PassiveAuthentication: Sendable, Codable {
        var document: String
        var storeCertificates: Int
        /// `DocumentVerifier.verify` against the store with both master lists and the generated CSCA.
        var verifyMs: Double
        var verifyMsMin: Double
        var verifyMsMax: Double
        var status: String
        var opensslFull: OpenSSLRun?
        var opensslSignatureOnly: OpenSSLRun?
        var ratio: Double?
        var comparedWith: String?
    }

    var available: Bool
    var notes: [String] = []
    /// `openssl version` — the fixed cost of starting the command.
    var opensslStartupMs: Double?
    var opensslVersion: String?
    var masterLists: [MasterListLoad] = []
    /// Both lists in one store: wall ms and peak resident memory of that workload.
    var bothListsLoadMs: Double?
    var bothListsPeakMB: Double?
    var passiveAuthentication: PassiveAuthentication?
}

enum TrustBench {
    /// Finds `shared/fixtures/masterlists` in the current folder or an ancestor (the repository sits beside `shared`).
    static func masterListFolder(explicit: String?) -> String? {
        if let explicit { return FileManager.default.fileExists(atPath: explicit) ? explicit : nil }
        var dir = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        for _ in 0..<6 {
            let candidate = dir.appendingPathComponent("shared/fixtures/masterlists").path
            if FileManager.default.fileExists(atPath: candidate) { return candidate }
            let parent = dir.deletingLastPathComponent()
            if parent.path == dir.path { break }
            dir = parent
        }
        return nil
    }

    static func findOpenSSL() -> String? {
        for p in ["/usr/bin/openssl", "/usr/local/bin/openssl", "/bin/openssl"]
        where FileManager.default.isExecutableFile(atPath: p) { return p }
        return nil
    }

    /// Runs a command, returns (exit status, first output line, wall ns).
    static func run(_ exe: String, _ args: [String]) -> (Int32, String, UInt64)? {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: exe)
        p.arguments = args
        let out = Pipe()
        p.standardOutput = out
        p.standardError = out
        let start = BenchClock.wallNanoseconds()
        do { try p.run() } catch { return nil }
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        let ns = BenchClock.wallNanoseconds() &- start
        let line = String(decoding: data, as: UTF8.self).split(separator: "\n").first.map(String.init) ?? ""
        return (p.terminationStatus, line, ns)
    }

    static func openssl(_ exe: String, _ args: [String], runs: Int) -> TrustBenchReport.OpenSSLRun? {
        var times: [Double] = []
        var last: (Int32, String, UInt64)? = nil
        for _ in 0..<max(1, runs) {
            guard let r = run(exe, args) else { return nil }
            times.append(Double(r.2) / 1e6)
            last = r
        }
        let shown = args.map { $0.hasPrefix("/") ? URL(fileURLWithPath: $0).lastPathComponent : $0 }
        return TrustBenchReport.OpenSSLRun(
            command: "openssl " + shown.joined(separator: " "), wallMs: r3(Spread(times).median),
            exitStatus: last!.0, message: last!.1)
    }

    static func run(folder explicit: String?, runs: Int, document: PreparedDocument, result: ReadResult)
        -> TrustBenchReport
    {
        var report = TrustBenchReport(available: false)
        guard let folder = masterListFolder(explicit: explicit) else {
            report.notes.append(
                "master-list fixtures not found (looked for shared/fixtures/masterlists in the current folder and its ancestors): trust-store workloads skipped"
            )
            return report
        }
        let files = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        let lists: [(country: String, ml: String, root: String)] = [
            ("DE", "DE_ML_", "DE_ROOT_CA_CSCA07.cer"), ("NL", "NL_ML_", "NL_ROOT_CA.cer"),
        ].compactMap { c in
            guard let ml = files.filter({ $0.hasPrefix(c.1) && $0.hasSuffix(".ml") }).sorted().last else {
                report.notes.append("\(c.0): no \(c.1)*.ml in \(folder)")
                return nil
            }
            guard files.contains(c.2) else {
                report.notes.append("\(c.0): root \(c.2) missing in \(folder)")
                return nil
            }
            return (c.0, folder + "/" + ml, folder + "/" + c.2)
        }
        report.available = !lists.isEmpty
        let opensslPath = findOpenSSL()
        if opensslPath == nil { report.notes.append("openssl command not found: no side-by-side comparison") }
        let tmp = FileManager.default.temporaryDirectory.appendingPathComponent("emrtd-bench-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: tmp, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: tmp) }

        if let exe = opensslPath, let v = run(exe, ["version"]) {
            report.opensslVersion = v.1
            report.opensslStartupMs = openssl(exe, ["version"], runs: runs)?.wallMs
        }

        // Each list alone.
        for l in lists {
            var times: [Double] = []
            var cpus: [Double] = []
            var store = TrustStore()
            var refusal: String? = nil
            for _ in 0..<max(1, runs) {
                store = TrustStore()  // the previous run's store is freed before the clock starts
                let w0 = BenchClock.wallNanoseconds()
                let c0 = BenchClock.cpuNanoseconds()
                do {
                    try store.pinMasterListSignerRoot(path: l.root)
                    let refused = try store.load(path: l.ml, directCSCAsSignMasterLists: false)
                    refusal = refused.first.map { $0.error.description }
                } catch {
                    refusal = error.description
                }
                times.append(Double(BenchClock.wallNanoseconds() &- w0) / 1e6)
                cpus.append(Double(BenchClock.cpuNanoseconds() &- c0) / 1e6)
            }
            let record = store.masterLists.first
            var parseTimes: [Double] = []
            var verifyTimes: [Double] = []
            var addTimes: [Double] = []
            if let bytes = FileManager.default.contents(atPath: l.ml),
                let rootBytes = FileManager.default.contents(atPath: l.root),
                let root = try? Certificate(der: [UInt8](rootBytes))
            {
                for _ in 0..<max(1, runs) {
                    let c0 = BenchClock.cpuNanoseconds()
                    guard let list = try? CSCAMasterList(bytes: [UInt8](bytes)) else { break }
                    let c1 = BenchClock.cpuNanoseconds()
                    _ = try? list.verify(signerRoots: [root])
                    let c2 = BenchClock.cpuNanoseconds()
                    var empty = TrustStore()
                    for c in list.certificates { empty.add(c, source: "master list", asCSCA: true) }
                    let c3 = BenchClock.cpuNanoseconds()
                    parseTimes.append(Double(c1 &- c0) / 1e6)
                    verifyTimes.append(Double(c2 &- c1) / 1e6)
                    addTimes.append(Double(c3 &- c2) / 1e6)
                }
            }
            var load = TrustBenchReport.MasterListLoad(
                country: l.country, file: URL(fileURLWithPath: l.ml).lastPathComponent,
                root: URL(fileURLWithPath: l.root).lastPathComponent,
                bytes: (try? FileManager.default.attributesOfItem(atPath: l.ml)[.size] as? Int) ?? 0,
                verified: record != nil, refusal: refusal, certificates: record?.certificateCount ?? 0,
                loadMs: r3(Spread(times).median), loadCpuMs: r3(Spread(cpus).median),
                parseMs: parseTimes.isEmpty ? nil : r3(Spread(parseTimes).median),
                verifyMs: verifyTimes.isEmpty ? nil : r3(Spread(verifyTimes).median),
                addMs: addTimes.isEmpty ? nil : r3(Spread(addTimes).median))
            if let exe = opensslPath {
                let pem = tmp.appendingPathComponent("\(l.country)-root.pem").path
                if let conv = run(exe, ["x509", "-inform", "DER", "-in", l.root, "-out", pem]), conv.0 == 0 {
                    load.opensslFull = openssl(
                        exe,
                        [
                            "cms", "-verify", "-inform", "DER", "-in", l.ml, "-CAfile", pem, "-purpose", "any", "-out",
                            "/dev/null",
                        ], runs: runs)
                    load.opensslSignatureOnly = openssl(
                        exe,
                        [
                            "cms", "-verify", "-inform", "DER", "-in", l.ml, "-CAfile", pem, "-noverify", "-out",
                            "/dev/null",
                        ], runs: runs)
                    if let full = load.opensslFull, full.exitStatus == 0 {
                        load.ratio = r3(load.loadMs / full.wallMs)
                        load.comparedWith = "openssl cms -verify (signature and signer chain)"
                    } else if let sig = load.opensslSignatureOnly, sig.exitStatus == 0 {
                        load.ratio = r3(load.loadMs / sig.wallMs)
                        load.comparedWith =
                            "openssl cms -verify -noverify (signature only: openssl refused the signer chain)"
                    }
                } else {
                    report.notes.append("\(l.country): openssl x509 could not convert the root to PEM")
                }
            }
            report.masterLists.append(load)
        }

        // Both lists in one store, with the peak resident memory of that workload, then passive authentication against it.
        var big = TrustStore()
        ProcessMemory.resetPeak()
        let w0 = BenchClock.wallNanoseconds()
        for l in lists {
            try? big.pinMasterListSignerRoot(path: l.root)
            _ = try? big.load(path: l.ml, directCSCAsSignMasterLists: false)
        }
        if !lists.isEmpty {
            report.bothListsLoadMs = r3(Double(BenchClock.wallNanoseconds() &- w0) / 1e6)
            report.bothListsPeakMB = ProcessMemory.peakMB.map(r3)
        }
        _ = try? big.addCertificate(der: document.generated.cscaCertificate, source: "generated test CSCA")
        if !document.generated.crl.isEmpty {
            _ = try? big.addCRL(der: document.generated.crl, source: "generated test CRL")
        }

        var times: [Double] = []
        var status = ""
        for _ in 0..<max(3, runs) {
            let c0 = BenchClock.cpuNanoseconds()
            let v = DocumentVerifier.verify(result, trustStore: big, validationTime: .now)
            times.append(Double(BenchClock.cpuNanoseconds() &- c0) / 1e6)
            status = v.status.rawValue
        }
        let s = Spread(times)
        var pa = TrustBenchReport.PassiveAuthentication(
            document: document.benchCase.label, storeCertificates: big.certificates.count,
            verifyMs: r3(s.median), verifyMsMin: r3(s.min), verifyMsMax: r3(s.max), status: status)
        if let exe = opensslPath, let sod = result.files[.sod],
            let node = try? TLVParser.parse(sod, rules: .ber), let contentInfo = node.children.first?.encoded
        {
            let sodPath = tmp.appendingPathComponent("sod.p7").path
            let cscaDer = tmp.appendingPathComponent("csca.der").path
            let cscaPem = tmp.appendingPathComponent("csca.pem").path
            _ = FileManager.default.createFile(atPath: sodPath, contents: Data(contentInfo))
            _ = FileManager.default.createFile(atPath: cscaDer, contents: Data(document.generated.cscaCertificate))
            if let conv = run(exe, ["x509", "-inform", "DER", "-in", cscaDer, "-out", cscaPem]), conv.0 == 0 {
                pa.opensslFull = openssl(
                    exe,
                    [
                        "cms", "-verify", "-inform", "DER", "-in", sodPath, "-CAfile", cscaPem, "-purpose", "any",
                        "-binary", "-out", "/dev/null",
                    ], runs: runs)
                pa.opensslSignatureOnly = openssl(
                    exe,
                    [
                        "cms", "-verify", "-inform", "DER", "-in", sodPath, "-CAfile", cscaPem, "-noverify", "-binary",
                        "-out", "/dev/null",
                    ], runs: runs)
                if let full = pa.opensslFull, full.exitStatus == 0 {
                    pa.ratio = r3(pa.verifyMs / full.wallMs)
                    pa.comparedWith =
                        "openssl cms -verify of EF.SOD's SignedData with the CSCA (signature and chain; openssl checks no data-group hash)"
                } else if let sig = pa.opensslSignatureOnly, sig.exitStatus == 0 {
                    pa.ratio = r3(pa.verifyMs / sig.wallMs)
                    pa.comparedWith = "openssl cms -verify -noverify of EF.SOD (signature only)"
                }
            }
        }
        report.passiveAuthentication = pa
        return report
    }
}
