import ASN1TLV
import Foundation
import MRTDReader
import MRTDTrust

/// `emrtd trust`: what a trust configuration yields.
enum TrustCommand {
    static let command = CommandDecl(
        "trust", summary: "show what a trust configuration (CSCAs, master lists, CRLs) yields",
        discussion: """
            Shows what a trust configuration yields: CSCAs per country with validity, master lists with their signer and
            verification result, CRLs, and every refused entry with its reason. At least one --trust is needed.
            """,
        options: Options.trust + [Options.json],
        schema: "emrtd.trust/1", exits: [.ok, .usage, .trust],
        run: { try await run($0) })

    static func run(_ inv: Invocation) async throws -> Int32 {
        let a = inv.arguments
        guard !a.all("trust").isEmpty else {
            throw CLIError(.missingArgument, "give at least one --trust PATH (see emrtd trust --help)", status: .usage)
        }
        let (store, _) = try TrustOptions.store(from: a)
        // CSCAs given with --trust also verify master lists, but the summary lists them as CSCAs; its signer roots
        // are only the certificates pinned with --ml-signer-root.
        let summary = store.summary(at: .now)
        if a.flag("json") {
            Console.out(JSONText.addingSchema("emrtd.trust/1", to: JSONText.encode(summary)))
        } else {
            Console.out(summary.text)
        }
        return store.hasCSCAs ? ExitStatus.ok.rawValue : ExitStatus.trust.rawValue
    }
}
