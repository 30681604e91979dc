import Foundation
import ISO7816
import MRTDReader
import MRTDTrust
import MRTDDocument
import MRTDAccessControl
import PCSCTransport
import VirtualChip
import ASN1TLV

/// Options shared by `read` and `stepup run`.
enum ReadSetup {
    static let valued: Set<String> = AccessOptions.valued.union(TrustOptions.valued)
        .union(["reader", "files", "out", "trace", "aa-challenge", "timeout", "virtual"])
    static let flags: Set<String> = ["json", "allow-bac-fallback", "no-bac-fallback", "quiet"]

    static func files(_ text: String?) throws(UsageError) -> Set<LDSFile>? {
        guard let text else { return nil }
        var out = Set<LDSFile>()
        for part in text.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !part.isEmpty {
            let name = part.uppercased().hasPrefix("EF.") ? String(part.dropFirst(3)) : part
            guard let f = LDSFile.allCases.first(where: { $0.rawValue.uppercased() == name.uppercased() }) else {
                throw UsageError("--files: unknown file '\(part)' (use COM, SOD, DG1…DG16, CardAccess, CardSecurity)")
            }
            out.insert(f)
        }
        guard !out.isEmpty else { throw UsageError("--files is empty") }
        return out
    }

    static func options(_ a: ParsedArguments, key: AccessKey) throws(UsageError) -> ReadOptions {
        if a.flag("allow-bac-fallback") && a.flag("no-bac-fallback") {
            throw UsageError("--allow-bac-fallback and --no-bac-fallback exclude each other")
        }
        var o = ReadOptions(accessKey: key, files: try files(a.value("files")),
                            allowBACFallback: !a.flag("no-bac-fallback"))
        if let c = a.value("aa-challenge") {
            guard let b = Hex.decode(c), b.count == 8 else { throw UsageError("--aa-challenge must be 8 bytes in hex (16 hex digits)") }
            o.activeAuthenticationChallenge = b
        }
        o.representTimeout = try timeout(a)
        return o
    }

    static func timeout(_ a: ParsedArguments) throws(UsageError) -> Double {
        guard let t = a.value("timeout") else { return 30 }
        guard let v = Double(t), v > 0, v <= 3600 else { throw UsageError("--timeout must be a number of seconds between 0 and 3600") }
        return v
    }

    /// The transport: a PC/SC reader (waiting for a card), or the in-process virtual chip with `--virtual`.
    /// Returns the transport and, for `--virtual`, the generated document's trust anchor.
    static func transport(_ a: ParsedArguments) async -> Result<(any CardTransport, GeneratedDocument?), ExitFailure> {
        if let profile = a.value("virtual") {
            let folder = URL(fileURLWithPath: profile)
            if ProfileStore.isProfileDirectory(folder) {
                // a saved profile (emrtd simulate --save DIR): its own trust files are not trusted implicitly
                do {
                    let p = try ProfileStore.load(from: folder)
                    let t = LocalCardTransport(emulator: VirtualChip(profile: p), name: "virtual chip (\(p.name))",
                                               capabilities: p.link.extendedLength ? .extended : .shortOnly)
                    return .success((t, nil))
                } catch {
                    return .failure(ExitFailure(code: ExitCode.usage, message: "--virtual: \(error.description)"))
                }
            }
            do {
                let g = try SpecimenGenerator.generate(named: profile)
                let t = LocalCardTransport(emulator: VirtualChip(profile: g.profile), name: "virtual chip (\(g.profile.name))",
                                           capabilities: g.profile.link.extendedLength ? .extended : .shortOnly)
                return .success((t, g))
            } catch {
                return .failure(ExitFailure(code: ExitCode.usage, message: "--virtual: \(error.description)"))
            }
        }
        let timeout = (try? ReadSetup.timeout(a)) ?? 30
        do {
            if !a.flag("quiet") {
                Console.err("Waiting for a document\(a.value("reader").map { " on \($0)" } ?? "") (up to \(Int(timeout)) s)…")
            }
            let t = try await PCSCCardTransport.connectWhenPresented(readerQuery: a.value("reader"), timeout: timeout)
            return .success((t, nil))
        } catch let e as TransportError {
            return .failure(ExitFailure(code: ExitCode.transport, message: "\(e.function): \(e.message)"))
        } catch {
            return .failure(ExitFailure(code: ExitCode.transport, message: "\(error)"))
        }
    }

    /// Trust store from the options; with `--virtual` and no `--trust`, the generated CSCA.
    static func trust(_ a: ParsedArguments, generated: GeneratedDocument?) -> Result<TrustStore, ExitFailure> {
        do {
            var (store, refused) = try TrustOptions.store(from: a)
            for r in refused { Console.err("emrtd: trust: refused \(r)") }
            if let g = generated, a.all("trust").isEmpty {
                _ = try? store.addCertificate(der: g.cscaCertificate, source: "generated test CSCA")
                if !g.crl.isEmpty { _ = try? store.addCRL(der: g.crl, source: "generated test CRL") }
            }
            if !a.all("trust").isEmpty && !store.hasCSCAs {
                return .failure(ExitFailure(code: ExitCode.trust, message: "no usable CSCA certificate in the --trust material"))
            }
            return .success(store)
        } catch {
            return .failure(ExitFailure(code: ExitCode.trust, message: error.message))
        }
    }
}

/// `emrtd read`: wait for a document, read it, verify it.
enum ReadCommand {
    static let spec = OptionSpec(valued: ReadSetup.valued, flags: ReadSetup.flags)

    static func run(_ args: [String]) async -> Int32 {
        let a: ParsedArguments
        let key: AccessKey
        let options: ReadOptions
        do {
            a = try spec.parse(args)
            if a.flag("help") { Console.out(Help.read); return ExitCode.ok }
            key = try AccessOptions.key(from: a)
            options = try ReadSetup.options(a, key: key)
        } catch {
            Console.err("emrtd read: \(error.message) (see emrtd read --help)")
            return ExitCode.usage
        }
        let transport: any CardTransport
        let generated: GeneratedDocument?
        switch await ReadSetup.transport(a) {
        case .failure(let f): Console.err("emrtd: \(f.message)"); return f.code
        case .success(let (t, g)): transport = t; generated = g
        }
        let store: TrustStore
        switch ReadSetup.trust(a, generated: generated) {
        case .failure(let f): Console.err("emrtd: \(f.message)"); return f.code
        case .success(let s): store = s
        }
        if store.isEmpty && !a.flag("quiet") {
            Console.err("emrtd: no --trust given: the document cannot be anchored to a CSCA and will be rejected")
        }
        let flow = ReadFlow(json: a.flag("json"), outDirectory: a.value("out"), tracePath: a.value("trace"), quiet: a.flag("quiet"))
        switch await flow.run(transport: transport, options: options, trustStore: store) {
        case .failure(let f):
            Console.err("emrtd: \(f.message)")
            return f.code
        case .success(let o):
            flow.print(o)
            return ReadFlow.exitCode(for: o.verification.status)
        }
    }
}
