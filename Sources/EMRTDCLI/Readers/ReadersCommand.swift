import Foundation
import ISO7816
import PCSCTransport

/// `emrtd readers` (docs/cli.md): lists the PC/SC readers, whether a card is on each, and what each reader
/// path can carry (extended length, sizes) with where that knowledge comes from (driver properties, reader
/// profile, or unknown → the read probes).
enum ReadersCommand {
    static let command = CommandDecl(
        "readers", summary: "list PC/SC readers and their capabilities",
        discussion: """
            Lists the PC/SC readers pcscd knows, whether a card is on each, and what each reader path can carry:
            extended-length APDUs or not, the largest command and response, and where that comes from (the driver's
            PC/SC part 10 properties, a reader profile, both, or unknown — then `emrtd read` probes with a safe
            extended-length command first).
            """,
        options: [
            OptionDecl("json", help: "print one JSON object {\"schema\", \"readers\": [...]} instead of text"),
            OptionDecl(
                "verbose", short: "v",
                help:
                    "also describe each known quirk and its workaround (also in JSON), and how the capabilities were decided"
            ),
            OptionDecl(
                "profiles", value: "FILE", kind: .file,
                help:
                    "use this readers file (schema emrtd.readers/1) instead of the built-in copy of hardware/readers.json"
            ),
        ],
        schema: "emrtd.reader-list/1", exits: [.ok, .usage, .transport],
        run: { try await run($0) })

    static func run(_ inv: Invocation) async throws -> Int32 {
        let a = inv.arguments
        let verbose = a.flag("verbose")
        let profiles = try ReadSetup.readerProfiles(a)
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
            throw PCSCCommandOutput.cliError(error)
        }
        if entries.isEmpty {
            throw CLIError(
                .noReader, "no reader is connected (is it plugged in? `lsusb`, and pcscd's log, tell more)",
                status: .transport)
        }
        if a.flag("json") {
            Console.out(JSONText.encode(ReaderListJSON(readers: entries.map { $0.json(verbose: verbose) })))
        } else {
            for (n, e) in entries.enumerated() {
                if n > 0 { Console.out("") }
                Console.out(e.text(verbose: verbose))
            }
        }
        return ExitStatus.ok.rawValue
    }
}

/// One reader of the listing.
struct ReaderEntry {
    let state: PCSCReaderState
    let report: ReaderCapabilityReport

    func json(verbose: Bool) -> ReaderJSON {
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
            profile: report.profile.map {
                ProfileJSON(
                    id: $0.id, model: "\($0.vendor) \($0.model)", status: $0.status,
                    quirks: $0.quirks.map(\.id),
                    quirkDetails: verbose
                        ? $0.quirks.map { QuirkJSON(id: $0.id, description: $0.description, workaround: $0.workaround) }
                        : nil)
            },
            driver: DriverJSON(
                maxAPDUDataSize: report.properties.maxAPDUDataSize,
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
    var schema = ReadersCommand.command.schema!
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
    /// With --verbose: what each quirk is and its workaround (hardware/README.md asks users to record these).
    let quirkDetails: [QuirkJSON]?
}

struct QuirkJSON: Encodable {
    let id: String
    let description: String
    let workaround: String?
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
