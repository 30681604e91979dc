import ASN1TLV
import DocumentGenerator
import Foundation
import MRTDCrypto
import MRTDDocument
import MRTDTrust

/// What refusing a hostile input costs beside what a genuine input of the same kind costs
/// (docs/reliability.md "Limits"). Goal: at most 3× the genuine cost and never more than 100 MB. Every
/// hostile input is the worst case reported from the field, generated here (nothing big is kept on disk after
/// the run); each is run through the same entry point as its genuine counterpart.
public struct HostileBenchReport: Sendable, Codable {
    struct Row: Sendable, Codable {
        /// The kind of input and the entry point both sides go through.
        var kind: String
        var hostile: String
        var genuine: String
        /// Median CPU milliseconds over the runs.
        var hostileMs: Double
        var genuineMs: Double
        /// hostileMs / genuineMs.
        var ratio: Double?
        /// Resident memory the workload added at its peak (VmHWM after − VmRSS before), MB.
        var hostilePeakMB: Double?
        var genuinePeakMB: Double?
        /// Whether the hostile input was refused, and the refusal as reported.
        var refused: Bool
        var refusal: String
        /// ratio ≤ 3 and hostilePeakMB ≤ 100 (nil when a figure is missing).
        var goalMet: Bool?
    }

    var rows: [Row] = []
    var notes: [String] = []
}

public enum HostileBench {
    /// One side of a row: the work, returning the refusal (nil when accepted).
    typealias Work = () async -> String?

    /// `imagesOnly`: only the face and document image rows (`emrtd bench --hostile-images`).
    public static func run(
        runs: Int, imagesOnly: Bool = false, page: @escaping BenchSettings.PageRenderer, log: @Sendable (String) -> Void
    ) async -> HostileBenchReport {
        var report = HostileBenchReport()
        // a folder of its own (mkdtemp), never shared with another run or another bench in the same process
        var template = Array((NSTemporaryDirectory() + "/emrtd-hostile-bench-XXXXXX").utf8CString)
        let made: String? = template.withUnsafeMutableBufferPointer { buffer in
            mkdtemp(buffer.baseAddress!).map { String(cString: $0) }
        }
        guard let made else {
            report.notes.append("hostile-input rows skipped: no temporary folder (errno \(errno))")
            return report
        }
        let dir = URL(fileURLWithPath: made)
        defer { try? FileManager.default.removeItem(at: dir) }
        do {
            try await runRows(into: &report, dir: dir, runs: runs, imagesOnly: imagesOnly, page: page, log: log)
        } catch {
            report.notes.append("hostile-input rows stopped: \(error)")
        }
        return report
    }

    static func runRows(
        into report: inout HostileBenchReport, dir: URL, runs: Int, imagesOnly: Bool,
        page: @escaping BenchSettings.PageRenderer,
        log: @Sendable (String) -> Void
    ) async throws {
        var rows: [HostileBenchReport.Row] = []
        func row(_ kind: String, hostile: String, genuine: String, _ h: Work, _ g: Work) async {
            log("bench: hostile input: \(kind): \(hostile)")
            let (gMs, gPeak, _) = await measure(runs: runs, g)
            let (hMs, hPeak, refusal) = await measure(runs: runs, h)
            let ratio = gMs > 0 ? r3(hMs / gMs) : nil
            let met: Bool? = ratio.flatMap { r in hPeak.map { r <= 3 && $0 <= 100 } }
            rows.append(
                .init(
                    kind: kind, hostile: hostile, genuine: genuine, hostileMs: r3(hMs), genuineMs: r3(gMs),
                    ratio: ratio,
                    hostilePeakMB: hPeak.map(r3), genuinePeakMB: gPeak.map(r3), refused: refusal != nil,
                    refusal: String((refusal ?? "ACCEPTED").prefix(400)), goalMet: met))
        }

        // --- trust material (TrustStore.load(path:), as `--trust PATH`)
        defer { report.rows = rows }
        // --- face and document images (ImageHostileBench.swift)
        try await imageRows(row, page: page)
        guard !imagesOnly else { return }
        guard let folder = TrustBench.masterListFolder(explicit: nil),
            let mlName = (try? FileManager.default.contentsOfDirectory(atPath: folder))?.first(where: {
                $0.hasPrefix("DE_ML_")
            })
        else {
            report.notes.append("master-list fixtures not found: trust-material rows skipped")
            try await documentRows(row)
            return
        }
        let rootPath = folder + "/DE_ROOT_CA_CSCA07.cer"
        let mlPath = folder + "/" + mlName
        let rootDER = try [UInt8](Data(contentsOf: URL(fileURLWithPath: rootPath)))
        let root = try Certificate(der: rootDER)
        func load(_ path: String, pin: Bool = false) -> Work {
            return {
                var store = TrustStore()
                if pin { store.pinMasterListSignerRoot(root) }
                do {
                    let refused = try store.load(path: path, directCSCAsSignMasterLists: false)
                    return refused.first.map { "\($0.error)" }
                } catch {
                    return "\(error)"
                }
            }
        }
        let sparse = dir.appendingPathComponent("sparse.cer").path
        let zeros = dir.appendingPathComponent("zeros.ml").path
        let fifo = dir.appendingPathComponent("fifo.pem").path
        for (path, size) in [(sparse, 64 << 30), (zeros, 100_000_000)] {
            _ = FileManager.default.createFile(atPath: path, contents: nil)
            let fd = open(path, O_WRONLY)
            if fd >= 0 {
                _ = ftruncate(fd, off_t(size))
                close(fd)
            }
        }
        _ = mkfifo(fifo, 0o600)
        let oneCSCA = "one CSCA certificate (DER, 1 KB)"
        await row(
            "--trust file", hostile: "sparse file reporting 64 GiB", genuine: oneCSCA, load(sparse), load(rootPath))
        await row("--trust file", hostile: "100 MB of zeros", genuine: oneCSCA, load(zeros), load(rootPath))
        await row("--trust file", hostile: "a FIFO without writer", genuine: oneCSCA, load(fifo), load(rootPath))

        // PEM bundles: the genuine one is the German master list's CSCAs written out
        let list = try CSCAMasterList(bytes: [UInt8](Data(contentsOf: URL(fileURLWithPath: mlPath))))
        func pem(_ ders: [[UInt8]]) -> String {
            ders.map {
                "-----BEGIN CERTIFICATE-----\n"
                    + Data($0).base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
                    + "\n-----END CERTIFICATE-----\n"
            }.joined()
        }
        let genuinePEM = dir.appendingPathComponent("de-cscas.pem").path
        try pem(list.certificates.map(\.encoded)).write(toFile: genuinePEM, atomically: false, encoding: .utf8)
        let genuinePEMText = "PEM of the German list's \(list.certificates.count) CSCAs"
        for n in [5000, 20_000] {
            let path = dir.appendingPathComponent("\(n).pem").path
            try Data(pem([[UInt8]](repeating: rootDER, count: n)).utf8).write(to: URL(fileURLWithPath: path))
            guard FileManager.default.fileExists(atPath: path) else {
                report.notes.append("--trust PEM: \(path) vanished after it was written (errno \(errno))")
                continue
            }
            await row(
                "--trust PEM", hostile: "\(n) self-signed CSCAs in one PEM", genuine: genuinePEMText, load(path),
                load(genuinePEM))
            try? FileManager.default.removeItem(atPath: path)
        }
        // two 10 MB PEM files in one load: one block of 2-character lines (3.3 million lines to split), and one 10 MB
        // body wrapped at 64 characters (decoded, then no certificate)
        func loadBoth(_ paths: [String]) -> Work {
            return {
                var store = TrustStore()
                do {
                    return try store.load(paths: paths, directCSCAsSignMasterLists: false).first.map { "\($0.error)" }
                } catch {
                    return "\(error)"
                }
            }
        }
        let shortLines =
            "-----BEGIN CERTIFICATE-----\n" + String(repeating: "QU\n", count: 3_300_000)
            + "-----END CERTIFICATE-----\n"
        let bigBody = pem([(0..<7_400_000).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) }])
        let underTheCap = pem(
            [0, 1].map { n in (0..<3_700_000).map { UInt8(truncatingIfNeeded: ($0 + n) &* 2_654_435_761 >> 13) } })
        let bigPEMs = [
            ("10 MB of 2-character lines", shortLines), ("one 10 MB body in 64-character lines", bigBody),
            ("two 5 MB bodies, each under TrustLimits.maxPEMBlockBytes", underTheCap),
        ]
        for (name, text) in bigPEMs {
            let paths = (1...2).map { dir.appendingPathComponent("big\($0).pem").path }
            for path in paths { try Data(text.utf8).write(to: URL(fileURLWithPath: path)) }
            let mb = String(format: "%.1f", Double(text.utf8.count) / 1_000_000)
            await row(
                "--trust PEM", hostile: "two PEM files of \(mb) MB each: \(name)", genuine: genuinePEMText,
                loadBoth(paths), load(genuinePEM))
            for path in paths { try? FileManager.default.removeItem(atPath: path) }
        }

        // master lists: an unsigned 14 MB list beside the genuine German one (root pinned for both)
        var certList: [UInt8] = []
        while certList.count < 14_000_000 { certList += rootDER }
        let content = TLVWriter.encode(0x30, [0x02, 0x01, 0x00] + TLVWriter.encode(0x31, certList))
        let eci = TLVWriter.encode(
            0x30,
            [0x06, 0x06, 0x67, 0x81, 0x08, 0x01, 0x01, 0x02] + TLVWriter.encode(0xA0, TLVWriter.encode(0x04, content)))
        let sd = TLVWriter.encode(
            0x30, [0x02, 0x01, 0x03] + TLVWriter.encode(0x31, []) + eci + TLVWriter.encode(0x31, []))
        let unsigned = TLVWriter.encode(
            0x30, [0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x02] + TLVWriter.encode(0xA0, sd))
        let unsignedPath = dir.appendingPathComponent("unsigned.ml").path
        try Data(unsigned).write(to: URL(fileURLWithPath: unsignedPath))
        await row(
            "--trust master list", hostile: "unsigned 14 MB master list",
            genuine: "German master list (\(list.certificates.count) CSCAs)",
            load(unsignedPath, pin: true), load(mlPath, pin: true))
        try? FileManager.default.removeItem(atPath: unsignedPath)

        try await documentRows(row)
    }

    static func documentRows(_ row: (String, String, String, Work, Work) async -> Void) async throws {
        let g = try SpecimenGenerator.generate(named: "pace-gm-brainpool-aes128")
        let files = g.profile.files
        func tiny(_ tag: UInt32, _ count: Int) -> [UInt8] {
            TLVWriter.encode(tag, (0..<count).map { $0 % 2 == 0 ? UInt8(0x04) : 0 })
        }
        func parse<T>(_ body: @escaping () throws -> T) -> Work {
            return {
                do {
                    _ = try body()
                    return nil
                } catch { return "\(error)" }
            }
        }
        if let sod = files[.sod] {
            let hostile = tiny(0x77, 16 << 20)
            await row(
                "EF.SOD parse", "16 MB EF.SOD of tiny elements", "generated EF.SOD (\(sod.count) bytes)",
                parse { try SODFile(bytes: hostile) }, parse { try SODFile(bytes: sod) })
        }
        if let dg11 = files[.dg11] {
            let hostile = TLVWriter.encode(0x6B, TLVWriter.encode(0x5C, [0x5F, 0x0E]) + tiny(0x5F0E, 10 << 20))
            await row(
                "DG11 parse", "10 MB DG11", "generated DG11 (\(dg11.count) bytes)",
                parse { try DG11File(bytes: hostile) }, parse { try DG11File(bytes: dg11) })
        }
        if let com = files[.com] {
            let versions = TLVWriter.encode(0x5F01, Array("0107".utf8)) + TLVWriter.encode(0x5F36, Array("040000".utf8))
            let hostile = TLVWriter.encode(
                0x60, versions + TLVWriter.encode(0x5C, [UInt8](repeating: 0x61, count: 1 << 20)))
            await row(
                "EF.COM parse", "EF.COM with a 1 MB tag list", "generated EF.COM (\(com.count) bytes)",
                parse { try COMFile(bytes: hostile) }, parse { try COMFile(bytes: com) })
        }

        // live reads (virtual chip, in process): the reader refuses an oversized file after its first chunk
        let genuineRead = try PreparedDocument(
            BenchCase(profile: "pace-gm-brainpool-aes128", extended: true, dg2Size: 15_000))
        func read(_ doc: PreparedDocument) -> Work {
            return {
                do {
                    _ = try await doc.readOnce()
                    return nil
                } catch { return "\(error)" }
            }
        }
        for (file, bytes, what) in [
            (LDSFile.com, TLVWriter.encode(0x60, [UInt8](repeating: 0x5C, count: 1 << 20)), "an EF.COM of 1 MB"),
            (.dg11, TLVWriter.encode(0x6B, [UInt8](repeating: 0x5F, count: 10 << 20)), "a DG11 of 10 MB"),
        ] {
            var hostileRead = genuineRead
            hostileRead.profile.files[file] = bytes
            await row(
                "live read (PACE, extended length)", "chip serving \(what)",
                "the same chip with its genuine files (whole read)",
                read(hostileRead), read(genuineRead))
        }

        // passive authentication of an EF.SOD whose signer certificate carries a 32768-bit RSA key
        var store = TrustStore()
        _ = try store.addCertificate(der: g.cscaCertificate, source: "generated CSCA")
        let time = ASN1Time(year: 2026, month: 11, day: 29)
        var groups: [Int: [UInt8]] = [:]
        for (f, bytes) in files { if let n = f.dataGroupNumber { groups[n] = bytes } }
        let state = "UTO"
        if let sod = files[.sod] {
            let hostileSOD = try sodWithHugeSignerKey(g, groups: groups)
            func pa(_ bytes: [UInt8]) -> Work {
                return {
                    let r = PassiveAuthentication.verify(
                        sodBytes: bytes, dataGroups: groups, issuingState: state, trustStore: store,
                        validationTime: time)
                    return r.hasFailure ? r.checks.first { $0.status == .failed }.map { "\($0)" } : nil
                }
            }
            await row(
                "passive authentication", "EF.SOD signed under a 32768-bit RSA key",
                "generated EF.SOD (ECDSA brainpoolP256r1 signer)",
                pa(hostileSOD), pa(sod))
        }

        // explicit curves: every path that meets one (DG14, PACE-CAM data, a signer's key) builds it here
        let named = ECCurve(named: .brainpoolP256r1)
        let genuineCurve: Work = parse {
            try ECCurve(
                p: named.p, a: named.a, b: named.b, generator: named.generator, order: named.order,
                cofactor: named.cofactor)
        }
        for bits in [16384, 8192] {
            var p = [UInt8](repeating: 0xA5, count: bits / 8)
            p[0] = 0xC5
            p[p.count - 1] |= 1
            let point = [0x04] + [UInt8](repeating: 0x11, count: 2 * p.count)
            await row(
                "explicit EC parameters", "\(bits)-bit explicit curve", "explicit brainpoolP256r1 parameters",
                parse { try ECCurve(p: p, a: [3], b: [7], generator: point, order: p, cofactor: [1]) }, genuineCurve)
        }
        // within the cap: a 1024-bit prime field (RFC 5114's), G = (2, 3) on y² = x³ + x + b, an odd order inside
        // Hasse's bound — a curve that would need every SEC 1 check, refused by the standard-curve lookup instead
        let p1024 = BigNumber(DHGroup(.group1024_160).p)
        let b1024 = BigNumber.modSub(BigNumber(9), BigNumber(8 + 2), p1024)
        let n1024 = p1024 - BigNumber([1] + [UInt8](repeating: 0, count: 50))
        let g1024 = [0x04] + BigNumber(2).bytes(width: p1024.bytes.count) + BigNumber(3).bytes(width: p1024.bytes.count)
        await row(
            "explicit EC parameters", "1024-bit curve that is no standard curve", "explicit brainpoolP256r1 parameters",
            parse {
                try ECCurve(p: p1024.bytes, a: [1], b: b1024.bytes, generator: g1024, order: n1024.bytes, cofactor: [1])
            }, genuineCurve)
        // a valid curve that is no standard curve of ICAO 9303 (secp256k1): refused by the same lookup
        let k1p = hexConstant("FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEFFFFFC2F")
        let k1g = hexConstant(
            "0479BE667EF9DCBBAC55A06295CE870B07029BFCDB2DCE28D959F2815B16F81798483ADA7726A3C4655DA4FBFC0E1108A8FD17B448A68554199C47D08FFB10D4B8"
        )
        let k1n = hexConstant("FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141")
        await row(
            "explicit EC parameters", "secp256k1 written out (valid, but no standard curve)",
            "explicit brainpoolP256r1 parameters",
            parse { try ECCurve(p: k1p, a: [0], b: [7], generator: k1g, order: k1n, cofactor: [1]) }, genuineCurve)
    }

    /// The generated document's security object signed again by its document signer, under a certificate
    /// (issued by the generated CSCA) that names a 32768-bit RSA key instead of the signer's own.
    static func hexConstant(_ text: String) -> [UInt8] { Hex.decode(text) ?? [] }

    static func sodWithHugeSignerKey(_ g: GeneratedDocument, groups: [Int: [UInt8]]) throws -> [UInt8] {
        var n = [UInt8](repeating: 0xA5, count: 4096)
        n[0] = 0xC5
        n[n.count - 1] |= 1
        let rsaKey = TLVWriter.encode(0x30, TLVWriter.encode(0x02, [0] + n) + TLVWriter.encode(0x02, [1, 0, 1]))
        let spki = TLVWriter.encode(
            0x30,
            TLVWriter.encode(0x30, [0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x01, 0x05, 0x00])
                + TLVWriter.encode(0x03, [0] + rsaKey))
        let ds = g.pki.documentSigner
        let builder = CertificateBuilder(
            serialNumber: [0x0B, 0x16], issuer: g.pki.csca.name, subject: ds.name,
            notBefore: ds.info.notBefore, notAfter: ds.info.notAfter, subjectPublicKeyInfo: spki,
            extensions: [
                .authorityKeyIdentifier(g.pki.csca.info.subjectKeyIdentifier ?? []), .keyUsage([.digitalSignature]),
            ])
        let der = try builder.sign(with: g.pki.csca.privateKey, algorithm: g.pki.csca.algorithm.signatureAlgorithm)
        let signer = SignerMaterial(
            certificate: try Certificate(issued: der), privateKey: ds.privateKey,
            signatureAlgorithm: ds.algorithm.signatureAlgorithm)
        let lso = LDSSecurityObjectEncoder.encode(
            hashes: groups.mapValues { HashAlgorithm.sha256.hash($0) }, hashAlgorithm: .sha256)
        return try LDSSecurityObjectEncoder.sod(securityObject: lso, signer: signer, signingTime: g.signingTime)
    }

    /// Median CPU milliseconds over `runs`, the resident memory added at the peak of the first run, and the
    /// refusal of the last run.
    static func measure(runs: Int, _ work: Work) async -> (Double, Double?, String?) {
        let before = ProcessMemory.rssMB
        let reset = ProcessMemory.resetPeak()
        var refusal = await work()
        let peak = reset ? ProcessMemory.peakMB.flatMap { p in before.map { max(0, p - $0) } } : nil
        var samples: [Double] = []
        for _ in 0..<max(1, runs) {
            let t0 = BenchClock.cpuNanoseconds()
            refusal = await work()
            samples.append(Double(BenchClock.cpuNanoseconds() &- t0) / 1e6)
        }
        samples.sort()
        return (samples[samples.count / 2], peak, refusal)
    }
}

extension HostileBenchReport {
    public func textLines() -> [String] {
        func f(_ x: Double) -> String { String(format: "%.3f", x) }
        var out = [
            "== hostile input (refusing costs at most 3× a genuine input of the kind, never more than 100 MB)"
        ]
        for r in rows {
            out.append(
                "  \(r.kind): \(r.hostile) — \(r.refused ? "refused" : "ACCEPTED"): \(f(r.hostileMs)) ms, +\(r.hostilePeakMB.map(f) ?? "?") MB"
                    + " vs \(r.genuine): \(f(r.genuineMs)) ms, +\(r.genuinePeakMB.map(f) ?? "?") MB"
                    + " = \(r.ratio.map { f($0) + "×" } ?? "-") [\(r.goalMet.map { $0 ? "met" : "NOT met" } ?? "?")]")
            out.append("    \(r.refusal)")
        }
        for n in notes { out.append("  note: \(n)") }
        return out
    }
}
