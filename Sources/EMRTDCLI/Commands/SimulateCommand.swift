import Foundation
import ISO7816
import VirtualChip

/// `emrtd simulate`: serves the virtual chip to pcscd through vsmartcard's vpcd, so that `emrtd read
/// --reader 'Virtual PCD 00 00'` goes through libpcsclite, pcscd and the driver exactly as with a USB reader.
enum SimulateCommand {
    static let spec = OptionSpec(valued: ["profile", "vpcd", "save", "pull-after", "sessions"], flags: ["quiet"])

    static func run(_ args: [String]) async -> Int32 {
        let a: ParsedArguments
        do { a = try spec.parse(args) } catch {
            Console.err("emrtd simulate: \(error.message) (see emrtd simulate --help)")
            return ExitCode.usage
        }
        if a.flag("help") { Console.out(Help.simulate); return ExitCode.ok }
        var host = "127.0.0.1"
        var port: UInt16 = 35963
        if let v = a.value("vpcd") {
            let parts = v.split(separator: ":")
            guard parts.count == 2, let p = UInt16(parts[1]) else {
                Console.err("emrtd simulate: --vpcd must be HOST:PORT, e.g. 127.0.0.1:35963")
                return ExitCode.usage
            }
            host = String(parts[0]); port = p
        }
        var pullAfter: Int? = nil
        if let n = a.value("pull-after") {
            guard let v = Int(n), v >= 0 else { Console.err("emrtd simulate: --pull-after takes a number of APDUs"); return ExitCode.usage }
            pullAfter = v
        }
        var sessions = 1
        if let n = a.value("sessions") {
            guard let v = Int(n), v >= 1 else { Console.err("emrtd simulate: --sessions takes a positive number"); return ExitCode.usage }
            sessions = v
        }
        // The document: a saved profile folder, or a built-in profile generated now and saved so that
        // its test CSCA can be given to `emrtd read --trust`.
        let name = a.value("profile") ?? SpecimenGenerator.defaultProfileName
        let profile: DocumentProfile
        let folder: URL
        let candidate = URL(fileURLWithPath: name)
        if ProfileStore.isProfileDirectory(candidate) {
            do { profile = try ProfileStore.load(from: candidate) } catch {
                Console.err("emrtd simulate: \(error.description)")
                return ExitCode.usage
            }
            folder = candidate
        } else {
            let g: GeneratedDocument
            do { g = try SpecimenGenerator.generate(named: name) } catch {
                Console.err("emrtd simulate: --profile: \(error.description)")
                return ExitCode.usage
            }
            folder = URL(fileURLWithPath: a.value("save") ?? NSTemporaryDirectory() + "emrtd-simulate-\(getpid())")
            do { try ProfileStore.save(g, to: folder) } catch {
                Console.err("emrtd simulate: cannot save the profile: \(error.description)")
                return ExitCode.usage
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
        if a.value("save") != nil { return ExitCode.ok }
        Console.out("vpcd: \(host):\(port)")
        let chip = VirtualChip(profile: profile)
        var first = true
        for i in 0..<sessions {
            let bridge = VPCDBridge(emulator: chip, host: host, port: port, removeCardAfterAPDUs: first ? pullAfter : nil,
                                    connectTimeout: 10)
            first = false
            do {
                let reason = try await bridge.run()
                if !a.flag("quiet") { Console.err("emrtd simulate: session \(i + 1) ended (\(reason.rawValue)) after \(bridge.apduCount) APDUs") }
                if reason == .closedByVPCD { return ExitCode.ok }
            } catch {
                Console.err("emrtd simulate: \(error) — is pcscd running with the vpcd driver (package vsmartcard-vpcd)?")
                return ExitCode.transport
            }
        }
        return ExitCode.ok
    }
}
