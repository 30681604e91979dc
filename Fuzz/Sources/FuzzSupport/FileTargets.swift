import Foundation
import MRTDCrypto
import MRTDDocument
import MRTDReader
import MRTDTrust

/// Targets whose input reaches the library as a file: the evidence bundle's clone-detection record and trust
/// material files. Each process writes the input to a folder of its own under the temporary directory and loads it
/// through the public API, so the real limits and the real decoding run (nothing is reimplemented here).
enum FileTargets {
    /// The process's scratch folder: a bundle folder holding one small DG1 (a bundle needs an LDS file) and the
    /// fuzzed `clone-detection.json`, and the fuzzed trust file.
    static let scratch: URL = {
        let dir = FileManager.default.temporaryDirectory
            .appendingPathComponent("emrtd-fuzz-\(ProcessInfo.processInfo.processIdentifier)")
        let bundle = dir.appendingPathComponent("bundle")
        try? FileManager.default.createDirectory(at: bundle, withIntermediateDirectories: true)
        try? Data([0x61, 0x03, 0x5F, 0x1F, 0x00]).write(to: bundle.appendingPathComponent(LDSFile.dg1.bundleFileName))
        return dir
    }()

    /// `EvidenceBundle.load` on a bundle whose `clone-detection.json` is the input, then what `verify` reads of the
    /// evidence: the quoted outcomes and access control, and the Active Authentication key imported.
    static func cloneDetection(_ bytes: [UInt8]) {
        let bundle = scratch.appendingPathComponent("bundle")
        guard (try? Data(bytes).write(to: bundle.appendingPathComponent(EvidenceBundle.cloneDetectionFile))) != nil
        else { return }
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
        guard (try? Data(bytes).write(to: path)) != nil else { return }
        guard let files = try? TrustMaterialFiles(paths: [path.path]) else { return }
        for r in files.refusals { touch(r.description) }
        for (kind, blocks) in files.byKind {
            touch(kind)
            for b in blocks where kind == .certificate { touch(try? Certificate(der: b.der)) }
        }
    }
}
