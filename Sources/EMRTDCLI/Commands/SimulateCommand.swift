import DocumentGenerator
import Foundation
import ISO7816
import VPCDBridge
import VirtualChip

/// `emrtd simulate`: serves the virtual chip to pcscd through vsmartcard's vpcd, so that `emrtd read
/// --reader 'Virtual PCD 00 00'` goes through libpcsclite, pcscd and the driver exactly as with a USB reader.
enum SimulateCommand {
    static let command = CommandDecl(
        "simulate", summary: "serve the virtual chip to pcscd through vpcd (virtual reader)",
        discussion: """
            Serves the virtual chip to pcscd through vsmartcard's vpcd driver (reader "Virtual PCD 00 00" on port
            35963, "Virtual PCD 00 01" on 35964). Prints the access data (MRZ, CAN) of the simulated specimen document
            and the path of its trust anchor.
            """,
        options: [
            OptionDecl(
                "profile", value: "NAME|DIR", kind: .path,
                help: "a built-in profile (demo --list-profiles) or a saved profile folder",
                default: SpecimenGenerator.defaultProfileName),
            OptionDecl("vpcd", value: "HOST:PORT", help: "where vpcd listens", default: "127.0.0.1:35963"),
            OptionDecl(
                "save", value: "DIR", kind: .directory,
                help: "save the generated document (files, keys, CSCA) to DIR and exit"),
            OptionDecl(
                "pull-after", value: "N",
                help: "drop the card after N APDUs (tests the resume path), then present it again",
                number: NumberRule(
                    0...Double(Int32.max), whole: true, message: "--pull-after takes a whole number of APDUs")),
            OptionDecl(
                "sessions", value: "N", help: "serve this many card sessions", default: "1",
                number: NumberRule(
                    1...Double(Int32.max), whole: true, message: "--sessions takes a whole number of 1 or more")),
            Options.quiet,
        ],
        exits: [.ok, .usage, .transport],
        run: { try await run($0) })

    static func run(_ inv: Invocation) async throws -> Int32 {
        let a = inv.arguments
        var host = "127.0.0.1"
        var port: UInt16 = 35963
        if let v = a.value("vpcd") {
            let parts = v.split(separator: ":")
            guard parts.count == 2, let p = UInt16(parts[1]) else {
                throw CLIError(.badValue, "--vpcd must be HOST:PORT, e.g. 127.0.0.1:35963", status: .usage)
            }
            host = String(parts[0])
            port = p
        }
        let pullAfter = a.number("pull-after").map { Int($0) }
        let sessions = a.number("sessions").map { Int($0) } ?? 1
        // The document: a saved profile folder, or a built-in profile generated now and saved so that
        // its test CSCA can be given to `emrtd read --trust`.
        let save = try OutputFolder.prepare(a.value("save"), option: "--save", command: inv.command)
        let name = a.value("profile") ?? SpecimenGenerator.defaultProfileName
        let profile: DocumentProfile
        let folder: URL
        let candidate = URL(fileURLWithPath: name)
        if ProfileStore.isProfileDirectory(candidate) {
            do { profile = try ProfileStore.load(from: candidate) } catch {
                throw CLIError(
                    .unknownProfile,
                    "--profile \(name): the saved profile folder cannot be loaded (\(PlainWords.reason(error.description, fallback: "damaged", hiding: [name])))",
                    status: .usage)
            }
            folder = candidate
        } else {
            let g = try VirtualProfiles.generate(name, option: "--profile")
            folder = save ?? URL(fileURLWithPath: NSTemporaryDirectory() + "emrtd-simulate-\(getpid())")
            do { try ProfileStore.save(g, to: folder) } catch {
                throw CLIError(
                    .cannotWrite,
                    "could not save the profile to \(folder.path) (a file could not be written there) — pick another --save folder",
                    status: .usage)
            }
            profile = g.profile
        }
        let trust = (try? ProfileStore.trustFiles(in: folder))?.csca?.path ?? "(none)"
        // Access data of a specimen document (Utopia test data, not personal data): printed so the tester can type it.
        Console.out("profile: \(profile.name)")
        Console.out("folder: \(folder.path)")
        Console.out("mrz: \(profile.mrz)")
        Console.out("can: \(profile.can)")
        Console.out("trust: \(trust)")
        if a.value("save") != nil { return ExitStatus.ok.rawValue }
        Console.out("vpcd: \(host):\(port)")
        let chip = VirtualChip(profile: profile)
        var first = true
        for i in 0..<sessions {
            let bridge = VPCDBridge(
                emulator: chip, host: host, port: port, removeCardAfterAPDUs: first ? pullAfter : nil,
                connectTimeout: 10)
            first = false
            do {
                let reason = try await bridge.run()
                if !a.flag("quiet") {
                    Console.err(
                        "emrtd simulate: session \(i + 1) ended (\(reason.rawValue)) after \(bridge.apduCount) APDUs")
                }
                if reason == .closedByVPCD { return ExitStatus.ok.rawValue }
            } catch {
                throw CLIError(
                    .transport,
                    "\(PlainWords.reason("\(error)", fallback: "vpcd is not reachable")) — is pcscd running with the vpcd driver (package vsmartcard-vpcd)?",
                    status: .transport)
            }
        }
        return ExitStatus.ok.rawValue
    }
}
