import Foundation
import ISO7816
import MRTDReader
import MRTDTrust
import MRTDAccessControl
import VirtualChip

/// `emrtd demo`: the whole job on the embedded virtual passport, in process — exactly the read and
/// verification a real reader gets, over `LocalCardTransport` instead of PC/SC.
enum DemoCommand {
    static let spec = OptionSpec(valued: ["profile", "out", "trace"], flags: ["json", "can", "list-profiles", "quiet"])

    static func run(_ args: [String]) async -> Int32 {
        let a: ParsedArguments
        do { a = try spec.parse(args) } catch { return usage(error.message) }
        if a.flag("help") { Console.out(Help.demo); return ExitCode.ok }
        if a.flag("list-profiles") {
            for s in ProfileSpec.builtIn { Console.out("\(Presentation.pad(s.name, 26)) \(s.summary)") }
            return ExitCode.ok
        }
        let name = a.value("profile") ?? SpecimenGenerator.defaultProfileName
        let generated: GeneratedDocument
        do { generated = try SpecimenGenerator.generate(named: name) } catch {
            return usage("--profile: \(error.description)")
        }
        var store = TrustStore()
        do {
            _ = try store.addCertificate(der: generated.cscaCertificate, source: "generated test CSCA")
            if !generated.crl.isEmpty { _ = try store.addCRL(der: generated.crl, source: "generated test CRL") }
        } catch {
            Console.err("emrtd: the generated trust anchor is unusable: \(error)")
            return ExitCode.trust
        }
        let profile = generated.profile
        let key: AccessKey
        if a.flag("can") {
            key = .can(profile.can)
        } else {
            do { key = .mrz(try MRZKey(mrz: profile.mrz)) } catch {
                Console.err("emrtd: the virtual document's MRZ is unusable: \(error.reason)")
                return ExitCode.usage
            }
        }
        let chip = VirtualChip(profile: profile)
        let transport = LocalCardTransport(emulator: chip, name: "virtual chip (\(profile.name))",
                                           capabilities: profile.link.extendedLength ? .extended : .shortOnly)
        let flow = ReadFlow(json: a.flag("json"), outDirectory: a.value("out"), tracePath: a.value("trace"), quiet: a.flag("quiet"))
        if !a.flag("quiet") { Console.err("emrtd demo: virtual document '\(profile.name)' (Utopia specimen, generated test PKI)") }
        switch await flow.run(transport: transport, options: ReadOptions(accessKey: key), trustStore: store) {
        case .failure(let f):
            Console.err("emrtd: \(f.message)")
            return f.code
        case .success(let o):
            if let dir = o.bundle {
                // The generated test CSCA, so that `emrtd verify DIR --trust DIR/test-csca.cer` can re-check the bundle.
                try? Data(generated.cscaCertificate).write(to: dir.appendingPathComponent("test-csca.cer"))
            }
            flow.print(o)
            return ReadFlow.exitCode(for: o.verification.status)
        }
    }

    static func usage(_ message: String) -> Int32 {
        Console.err("emrtd demo: \(message) (see emrtd demo --help)")
        return ExitCode.usage
    }
}
