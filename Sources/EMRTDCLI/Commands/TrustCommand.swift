import Foundation
import MRTDTrust
import MRTDReader
import ASN1TLV

/// `emrtd trust`: what a trust configuration yields.
enum TrustCommand {
    static let spec = OptionSpec(valued: TrustOptions.valued, flags: ["json"])

    static func run(_ args: [String]) async -> Int32 {
        let a: ParsedArguments
        do { a = try spec.parse(args) } catch {
            Console.err("emrtd trust: \(error.message) (see emrtd trust --help)")
            return ExitCode.usage
        }
        if a.flag("help") { Console.out(Help.trust); return ExitCode.ok }
        guard !a.all("trust").isEmpty else {
            Console.err("emrtd trust: give at least one --trust PATH")
            return ExitCode.usage
        }
        let store: TrustStore
        do { (store, _) = try TrustOptions.store(from: a) } catch {
            Console.err("emrtd trust: \(error.message)")
            return ExitCode.trust
        }
        let summary = store.summary(at: .now)
        if a.flag("json") {
            let enc = JSONEncoder()
            enc.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            Console.out(String(decoding: (try? enc.encode(summary)) ?? Data(), as: UTF8.self))
        } else {
            Console.out(summary.text)
        }
        return store.hasCSCAs ? ExitCode.ok : ExitCode.trust
    }
}
