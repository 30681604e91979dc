import DocumentGenerator
import Foundation
import ISO7816
import MRTDAccessControl
import MRTDReader
import MRTDTrust
import VirtualChip

/// `emrtd demo`: the whole job on the embedded virtual passport, in process — exactly the read and
/// verification a real reader gets, over `LocalCardTransport` instead of PC/SC.
enum DemoCommand {
    static let command = CommandDecl(
        "demo", summary: "read + verify the embedded virtual passport (no reader needed)",
        discussion: """
            Reads and verifies a generated Utopia specimen document in process, exactly as a real read over a reader
            would, with a freshly generated test PKI as the trust anchor.
            """,
        options: [
            OptionDecl(
                "profile", value: "NAME", kind: .choice(ProfileSpec.builtIn.map(\.name)),
                help: "which virtual document (--list-profiles lists them)",
                default: SpecimenGenerator.defaultProfileName),
            OptionDecl("list-profiles", help: "list the built-in virtual documents with their MRZ and CAN, and exit"),
            OptionDecl("can", help: "use the CAN instead of the MRZ as the PACE password (PACE profiles only)"),
            Options.allowExpired, Options.json, Options.out, Options.trace, HTMLOutput.option, Options.quiet,
        ],
        schema: "emrtd.report/1", exits: [.ok, .usage, .transport, .accessControl, .trust, .inconclusive, .rejected],
        run: { try await run($0) })

    static func run(_ inv: Invocation) async throws -> Int32 {
        let a = inv.arguments
        if a.flag("list-profiles") {
            listProfiles(json: a.flag("json"))
            return ExitStatus.ok.rawValue
        }
        let name = a.value("profile") ?? SpecimenGenerator.defaultProfileName
        let spec = try VirtualProfiles.spec(name, option: "--profile")
        if a.flag("can") && spec.pace == nil {
            throw CLIError(
                .conflictingOptions,
                "--can needs a PACE document, and '\(spec.name)' offers only BAC (pick a PACE profile; emrtd demo --list-profiles)",
                status: .usage)
        }
        let out = try OutputFolder.prepare(a.value("out"), command: inv.command)
        let html = try HTMLOutput.prepare(a.value("html"), command: inv.command)
        let tracePath = try ReadFlow.prepareTrace(a.value("trace"))
        let generated = try VirtualProfiles.generate(name, option: "--profile")
        var store = TrustStore()
        do {
            _ = try store.addCertificate(der: generated.cscaCertificate, source: "generated test CSCA")
            if !generated.crl.isEmpty { _ = try store.addCRL(der: generated.crl, source: "generated test CRL") }
        } catch {
            throw CLIError(.trustMaterial, "the generated trust anchor is unusable; please report it", status: .trust)
        }
        let profile = generated.profile
        let key: AccessKey
        if a.flag("can") {
            key = .can(profile.can)
        } else {
            do { key = .mrz(try MRZKey(mrz: profile.mrz)) } catch {
                throw CLIError(
                    .internalError, "the virtual document's MRZ is unusable; please report it", status: .usage)
            }
        }
        let chip = VirtualChip(profile: profile)
        let transport = LocalCardTransport(
            emulator: chip, name: "virtual chip (\(profile.name))",
            capabilities: profile.link.extendedLength ? .extended : .shortOnly)
        let flow = ReadFlow(
            json: a.flag("json"), out: out, tracePath: tracePath, htmlPath: html, quiet: a.flag("quiet"),
            allowExpired: a.flag("allow-expired"), extraBundleFiles: ["test-csca.cer": generated.cscaCertificate])
        if !a.flag("quiet") {
            Console.err("emrtd demo: virtual document '\(profile.name)' (Utopia specimen, generated test PKI)")
        }
        let o = try await flow.run(transport: transport, options: ReadOptions(accessKey: key), trustStore: store)
        flow.print(o)
        return ReadFlow.exitCode(for: o.verification.status)
    }

    /// The built-in virtual documents with their access data (Utopia specimen data, not personal data), so that
    /// `emrtd read --virtual PROFILE --mrz …` can be tried from the docs alone.
    static func listProfiles(json: Bool) {
        if json {
            let rows: [[String: Any]] = ProfileSpec.builtIn.map {
                [
                    "name": $0.name, "summary": $0.summary, "mrz": $0.specimen.mrz, "can": $0.specimen.can,
                    "pace": $0.pace != nil, "bac": $0.supportsBAC,
                ]
            }
            Console.out(JSONText.render(["schema": "emrtd.profiles/1", "profiles": rows]))
            return
        }
        for s in ProfileSpec.builtIn {
            Console.out("\(Presentation.pad(s.name, 26)) \(s.summary)")
            Console.out("\(Presentation.pad("", 26)) MRZ \(s.specimen.mrz)  CAN \(s.specimen.can)")
        }
    }
}
