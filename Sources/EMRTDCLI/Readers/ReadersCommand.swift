import Foundation
import ISO7816
import PCSCTransport

/// `emrtd readers [--json] [--profiles PATH]` (DESIGN.md §4.1): lists the PC/SC readers, whether a
/// card is on each, and what each reader path can carry (extended length, sizes) with where that
/// knowledge comes from (driver properties, reader profile, or unknown → the read probes).
///
/// Exit status: 0 listed; 2 usage; 3 pcscd unreachable or no reader connected.
public func runReadersCommand(arguments: [String]) async -> Int32 {
    var json = false
    var verbose = false
    var profilesPath: String? = nil
    var i = 0
    while i < arguments.count {
        let a = arguments[i]
        switch a {
        case "--help", "-h":
            print(readersHelp)
            return 0
        case "--json":
            json = true
        case "--verbose", "-v":
            verbose = true
        case "--profiles":
            guard i + 1 < arguments.count else { return PCSCCommandOutput.usage("readers", "--profiles needs a file path") }
            i += 1
            profilesPath = arguments[i]
        default:
            return PCSCCommandOutput.usage("readers", "unknown option '\(a)' (see emrtd readers --help)")
        }
        i += 1
    }

    let profiles: ReaderProfiles
    if let profilesPath {
        do { profiles = try ReaderProfiles.load(path: profilesPath) } catch {
            return PCSCCommandOutput.usage("readers", error.description)
        }
    } else {
        profiles = .builtIn
    }

    let entries: [ReaderEntry]
    do {
        let context = try await PCSCContext.establish()
        let states = try await context.readerStates()
        var list: [ReaderEntry] = []
        for state in states {
            let report = try await context.capabilityReport(reader: state.reader, profiles: profiles)
            list.append(ReaderEntry(state: state, report: report))
        }
        entries = list
    } catch {
        return PCSCCommandOutput.failure("readers", error)
    }

    if json {
        PCSCCommandOutput.printJSON(ReaderListJSON(readers: entries.map(\.json)))
    } else if entries.isEmpty {
        print("No PC/SC reader is connected.")
    } else {
        for (n, e) in entries.enumerated() {
            if n > 0 { print("") }
            print(e.text(verbose: verbose))
        }
    }
    if entries.isEmpty {
        PCSCCommandOutput.error("readers", "no reader is connected (is it plugged in? `lsusb`, and pcscd's log, tell more)")
        return 3
    }
    return 0
}

let readersHelp = """
Usage: emrtd readers [--json] [--verbose] [--profiles PATH]

List the PC/SC readers pcscd knows, whether a card is on each, and what each reader path
can carry: extended-length APDUs or not, the largest command and response, and where that
comes from (the driver's PC/SC part 10 properties, a reader profile, both, or unknown — then
`emrtd read` probes with a safe extended-length command first).

Options:
  --json            print one JSON object {"readers": [...]} instead of text
  -v, --verbose     also describe each known quirk and its workaround, and how the
                    capabilities were decided
  --profiles PATH   use this readers file (schema emrtd.readers/1) instead of the built-in
                    copy of hardware/readers.json
  -h, --help        show this help

Exit status: 0 listed, 2 usage error, 3 pcscd not reachable or no reader connected.
"""

/// One reader of the listing.
struct ReaderEntry {
    let state: PCSCReaderState
    let report: ReaderCapabilityReport

    var json: ReaderJSON {
        let caps = report.capabilities
        return ReaderJSON(
            name: state.reader,
            cardPresent: state.isCardPresent,
            cardMute: state.isCardMute,
            atr: state.isCardPresent ? PCSCCommandOutput.hex(state.atr) : nil,
            extendedLength: caps.supportsExtendedLength,
            maxCommandSize: caps.maxCommandSize,
            maxResponseSize: caps.maxResponseSize,
            capabilitiesKnown: caps.isKnown,
            capabilitySource: report.source,
            profile: report.profile.map { ProfileJSON(id: $0.id, model: "\($0.vendor) \($0.model)", status: $0.status,
                                                       quirks: $0.quirks.map(\.id)) },
            driver: DriverJSON(maxAPDUDataSize: report.properties.maxAPDUDataSize,
                               maxInput: report.properties.maxInput,
                               vendorName: report.properties.vendorName,
                               firmware: report.properties.firmwareID),
            notes: report.notes)
    }

    func text(verbose: Bool) -> String {
        let caps = report.capabilities
        var lines = [state.reader]
        if state.isCardPresent {
            lines.append("  card:            present, ATR \(PCSCCommandOutput.hex(state.atr))")
        } else if state.isCardMute {
            lines.append("  card:            present but mute (no answer to reset)")
        } else {
            lines.append("  card:            none")
        }
        let ext: String
        if !caps.isKnown {
            ext = "unknown (the read will probe)"
        } else if caps.supportsExtendedLength {
            ext = "yes, commands up to \(caps.maxCommandSize) bytes, responses up to \(caps.maxResponseSize) bytes"
        } else {
            ext = "no (short APDUs only)"
        }
        lines.append("  extended length: \(ext)")
        lines.append("  learnt from:     \(report.source)")
        if let p = report.profile {
            lines.append("  profile:         \(p.id) (\(p.status))")
            if !p.quirks.isEmpty && !verbose {
                lines.append("  quirks:          \(p.quirks.map(\.id).joined(separator: ", ")) (--verbose for details)")
            }
            if verbose {
                for q in p.quirks {
                    lines.append("    quirk \(q.id): \(q.description)")
                    if let w = q.workaround { lines.append("      workaround: \(w)") }
                }
            }
        } else {
            lines.append("  profile:         none (add one: see hardware/README.md)")
        }
        if verbose {
            for note in report.notes { lines.append("  · \(note)") }
        }
        return lines.joined(separator: "\n")
    }
}

struct ReaderListJSON: Encodable {
    let readers: [ReaderJSON]
}

struct ReaderJSON: Encodable {
    let name: String
    let cardPresent: Bool
    let cardMute: Bool
    let atr: String?
    let extendedLength: Bool
    let maxCommandSize: Int
    let maxResponseSize: Int
    let capabilitiesKnown: Bool
    let capabilitySource: String
    let profile: ProfileJSON?
    let driver: DriverJSON
    let notes: [String]

    enum CodingKeys: String, CodingKey {
        case name, cardPresent, cardMute, atr, extendedLength, maxCommandSize, maxResponseSize
        case capabilitiesKnown, capabilitySource, profile, driver, notes
    }

    // Explicit nulls for absent optionals, so consumers see every field.
    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(name, forKey: .name)
        try c.encode(cardPresent, forKey: .cardPresent)
        try c.encode(cardMute, forKey: .cardMute)
        try c.encode(atr, forKey: .atr)
        try c.encode(extendedLength, forKey: .extendedLength)
        try c.encode(maxCommandSize, forKey: .maxCommandSize)
        try c.encode(maxResponseSize, forKey: .maxResponseSize)
        try c.encode(capabilitiesKnown, forKey: .capabilitiesKnown)
        try c.encode(capabilitySource, forKey: .capabilitySource)
        try c.encode(profile, forKey: .profile)
        try c.encode(driver, forKey: .driver)
        try c.encode(notes, forKey: .notes)
    }
}

struct ProfileJSON: Encodable {
    let id: String
    let model: String
    let status: String
    let quirks: [String]
}

struct DriverJSON: Encodable {
    let maxAPDUDataSize: UInt64?
    let maxInput: UInt64?
    let vendorName: String?
    let firmware: String?

    enum CodingKeys: String, CodingKey { case maxAPDUDataSize, maxInput, vendorName, firmware }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(maxAPDUDataSize, forKey: .maxAPDUDataSize)
        try c.encode(maxInput, forKey: .maxInput)
        try c.encode(vendorName, forKey: .vendorName)
        try c.encode(firmware, forKey: .firmware)
    }
}
