import Foundation
import MRTDCrypto
import MRTDDocument
import MRTDReader
import MRTDTrust

/// Targets whose input reaches the library as a file: the evidence bundle's clone-detection record and trust
/// material files. Each process writes the input to a folder of its own and loads it through the public API, so the
/// real file checks, the real limits and the real decoding run (nothing is reimplemented here). The folder is in
/// RAM (`/dev/shm`) when there is one, and the input is written with plain `write(2)` into the one file that changes
/// (the bundle's DG1 is written once): `Data.write(to:)` syncs the file to the disk, which cost more than the parse.
enum FileTargets {
    /// The process's scratch folder: a bundle folder holding one small DG1 (a bundle needs an LDS file) and the
    /// fuzzed `clone-detection.json`, and the fuzzed trust file.
    static let scratch: URL = {
        var isDir: ObjCBool = false
        let ram = FileManager.default.fileExists(atPath: "/dev/shm", isDirectory: &isDir) && isDir.boolValue
        let dir = (ram ? URL(fileURLWithPath: "/dev/shm") : FileManager.default.temporaryDirectory)
            .appendingPathComponent("emrtd-fuzz-\(ProcessInfo.processInfo.processIdentifier)")
        let bundle = dir.appendingPathComponent("bundle")
        try? FileManager.default.createDirectory(at: bundle, withIntermediateDirectories: true)
        _ = write([0x61, 0x03, 0x5F, 0x1F, 0x00], to: bundle.appendingPathComponent(LDSFile.dg1.bundleFileName))
        atexit { try? FileManager.default.removeItem(at: FileTargets.scratch) }  // libFuzzer ends with exit()
        return dir
    }()

    /// Replaces the file's content with `bytes` (truncating it), without syncing it to the disk.
    static func write(_ bytes: [UInt8], to url: URL) -> Bool {
        let fd = open(url.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { Foundation.write(fd, $0.baseAddress! + done, bytes.count - done) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { return false }
            done += n
        }
        return true
    }

    /// `EvidenceBundle.load` on a bundle whose `clone-detection.json` is the input, then what `verify` reads of the
    /// evidence: the quoted outcomes and access control, and the Active Authentication key imported.
    static func cloneDetection(_ bytes: [UInt8]) {
        let bundle = scratch.appendingPathComponent("bundle")
        guard write(bytes, to: bundle.appendingPathComponent(EvidenceBundle.cloneDetectionFile)) else { return }
        guard let (files, evidence) = try? EvidenceBundle.load(from: bundle) else { return }
        touch(files.count)
        touch(evidence.chipAuthentication)
        touch(evidence.accessControl)
        touch(evidence.activeAuthenticationFailure)
        touch(evidence.activeAuthenticationNotPerformed)
        touch(evidence.chipAuthenticationMappingRecorded)
        if let aa = evidence.activeAuthentication {
            touch(aa.challenge.count + aa.signature.count)
            touch(aa.signatureAlgorithm)
            _ = try? PublicKey(subjectPublicKeyInfo: aa.publicKeyInfo)
        }
    }

    /// A trust file through `TrustMaterialFiles(paths:)`: the regular-file read within `TrustLimits.maxFileBytes`,
    /// the PEM limits (bytes, blocks), the split into DER blocks, each block's kind and its per-kind size limit; then
    /// each certificate block decoded as the store would.
    static func pem(_ bytes: [UInt8]) {
        let path = scratch.appendingPathComponent("trust.pem")
        guard write(bytes, to: path) else { return }
        guard let files = try? TrustMaterialFiles(paths: [path.path]) else { return }
        for r in files.refusals { touch(r.description) }
        for (kind, blocks) in files.byKind {
            touch(kind)
            for b in blocks where kind == .certificate { touch(try? Certificate(der: b.der)) }
        }
    }
}
