import Foundation
import MRTDTrust

/// Builds a trust store from `--trust PATH` (repeatable) and `--ml-signer-root PATH` (repeatable).
enum TrustOptions {
    static func store(from a: ParsedArguments) throws(CLIError) -> (TrustStore, [TrustStore.Refusal]) {
        var store = TrustStore()
        for root in a.all("ml-signer-root") {
            guard FileManager.default.fileExists(atPath: root) else {
                throw CLIError(
                    .trustMaterial,
                    "--ml-signer-root \(Shown.path(root)) does not exist — give the DER or PEM certificate of the"
                        + " master-list signer's root",
                    status: .trust)
            }
            do { try store.pinMasterListSignerRoot(path: root) } catch {
                throw CLIError(
                    .trustMaterial,
                    "--ml-signer-root \(Shown.path(root)) cannot be used: \(PlainWords.reason(error.reason, fallback: "not a readable certificate", hiding: [root])) — give the DER or PEM certificate of the master-list signer's root",
                    status: .trust)
            }
        }
        var refused: [TrustStore.Refusal] = []
        let paths = a.all("trust")
        for (index, path) in paths.enumerated() {
            let which = Shown.position(index, of: paths.count, option: "--trust")
            guard FileManager.default.fileExists(atPath: path) else {
                throw CLIError(
                    .trustMaterial,
                    "--trust \(Shown.path(path)) does not exist\(which) — give CSCA certificates, a folder of them, a"
                        + " master list or a CRL",
                    status: .trust)
            }
            do { refused += try store.load(path: path) } catch {
                throw CLIError(
                    .trustMaterial,
                    "--trust \(Shown.path(path))\(which) cannot be used: \(PlainWords.reason(error.reason, fallback: "not readable trust material", hiding: [path])) — give CSCA certificates, a folder of them, a master list or a CRL",
                    status: .trust)
            }
        }
        return (store, refused)
    }

    /// One stderr line per refused entry, in words: which file was not used and why (never the store's internal
    /// error names).
    static func refusalLine(_ r: TrustStore.Refusal, command: String) -> String {
        let what = r.kind.map { " (taken for a \($0.words))" } ?? ""
        let hint = r.kind == .masterList ? " — pin the list signer's root with --ml-signer-root" : ""
        return
            "emrtd \(command): --trust: \(r.source)\(what) was not used: \(PlainWords.reason(r.error.reason, fallback: "not usable trust material"))\(hint)"
    }
}

extension TrustStore.FileKind {
    /// The kind as a person says it.
    var words: String {
        switch self {
        case .certificate: "certificate"
        case .masterList: "master list"
        case .crl: "CRL"
        }
    }
}
