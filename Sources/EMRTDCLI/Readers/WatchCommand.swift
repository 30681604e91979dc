import Dispatch
import Foundation
import ISO7816
import PCSCTransport

#if canImport(Glibc)
    import Glibc
#endif

/// `emrtd watch` (docs/cli.md): prints reader and card events (insert, remove, reader plugged/unplugged) as they
/// happen, until interrupted (Ctrl-C / SIGINT / SIGTERM end it cleanly with status 0) or the optional timeout passes.
enum WatchCommand {
    static let command = CommandDecl(
        "watch", summary: "print card insert/remove events",
        discussion: """
            Prints PC/SC reader and card events as they happen — reader plugged in or removed, card put on or taken
            off (with its ATR), card mute — until interrupted with Ctrl-C. The first lines describe what is already
            there. Readers plugged in later are watched too.
            """,
        options: [
            OptionDecl(
                "reader", value: "NAME", help: "only events of readers whose name is NAME or contains it (any case)"),
            OptionDecl(
                "json",
                help: "one JSON object per line: {\"schema\", \"time\", \"event\", \"reader\", \"atr\", \"profile\"}"),
            OptionDecl(
                "timeout", value: "SECONDS", help: "stop after this long (exit 0)", default: "none: until interrupted",
                number: .seconds(
                    upTo: .greatestFiniteMagnitude, message: "--timeout needs a positive number of seconds")),
            OptionDecl(
                "profiles", value: "FILE", kind: .file,
                help:
                    "reader profiles (schema emrtd.readers/1) to name each reader's profile, instead of the built-in copy"
            ),
        ],
        schema: "emrtd.event/1", exits: [.ok, .usage, .transport],
        run: { try await run($0) })

    static func run(_ inv: Invocation) async throws -> Int32 {
        let a = inv.arguments
        let reader = a.value("reader")
        let json = a.flag("json")
        let timeout = a.number("timeout")
        if reader?.isEmpty == true {
            throw CLIError(.badValue, "--reader needs a reader name (see emrtd readers)", status: .usage)
        }
        let profiles = try ReadSetup.readerProfiles(a)
        return try await watch(reader: reader, json: json, timeout: timeout, profiles: profiles)
    }

    static func watch(reader: String?, json: Bool, timeout: Double?, profiles: ReaderProfiles) async throws(CLIError)
        -> Int32
    {
        // Fail early, with the usual message, when pcscd is not there.
        do {
            let context = try await PCSCContext.establish()
            if let reader {
                let names = try await context.readerNames()
                if !names.contains(where: { $0 == reader || $0.lowercased().contains(reader.lowercased()) }) {
                    PCSCCommandOutput.error(
                        "watch", "no reader matches \"\(reader)\" yet; waiting for one to be plugged in")
                }
            }
        } catch {
            throw PCSCCommandOutput.cliError(error)
        }

        let watcher = Task { () -> Int32 in
            do {
                for try await event in PCSCContext.events(reader: reader) {
                    if json {
                        print(
                            PCSCCommandOutput.compactJSON(
                                WatchEventJSON(event, profile: profiles.profile(forReader: event.reader)?.id)))
                    } else {
                        print("\(PCSCCommandOutput.timestamp()) \(event)")
                    }
                    fflush(nil)  // all streams: a line per event even when piped
                }
                return 0
            } catch {
                if Task.isCancelled { return 0 }
                // A failure after the first events: the error line, and under --json one more line, the error object.
                let e = PCSCCommandOutput.cliError(error)
                PCSCCommandOutput.error("watch", e.message)
                if json { print(ErrorOutput.json(e, command: "watch", pretty: false)) }
                return e.status.rawValue
            }
        }

        // SIGINT/SIGTERM end the watch cleanly (the stream's SCardGetStatusChange is cancelled).
        let signalQueue = DispatchQueue(label: "emrtd-watch-signals")
        var sources: [any DispatchSourceSignal] = []
        for sig in [SIGINT, SIGTERM] {
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: signalQueue)
            source.setEventHandler { watcher.cancel() }
            source.resume()
            sources.append(source)
        }
        let timer: Task<Void, Never>? = timeout.map { t in
            Task {
                try? await Task.sleep(for: .milliseconds(Int(t * 1000)))
                watcher.cancel()
            }
        }
        let status = await watcher.value
        timer?.cancel()
        for s in sources { s.cancel() }
        for sig in [SIGINT, SIGTERM] { signal(sig, SIG_DFL) }
        return status
    }
}

struct WatchEventJSON: Encodable {
    let schema = WatchCommand.command.schema!
    let time: String
    let event: String
    let reader: String
    let atr: String?
    /// The reader profile matching the reader's name, if any.
    let profile: String?

    init(_ e: PCSCEvent, profile: String? = nil) {
        self.profile = profile
        time = PCSCCommandOutput.timestamp()
        reader = e.reader
        switch e {
        case .readerAdded:
            event = "readerAdded"
            atr = nil
        case .readerRemoved:
            event = "readerRemoved"
            atr = nil
        case .cardInserted(_, let a):
            event = "cardInserted"
            atr = PCSCCommandOutput.hex(a)
        case .cardRemoved:
            event = "cardRemoved"
            atr = nil
        case .cardMute:
            event = "cardMute"
            atr = nil
        }
    }

    enum CodingKeys: String, CodingKey { case schema, time, event, reader, atr, profile }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(schema, forKey: .schema)
        try c.encode(time, forKey: .time)
        try c.encode(event, forKey: .event)
        try c.encode(reader, forKey: .reader)
        try c.encode(atr, forKey: .atr)
        try c.encode(profile, forKey: .profile)
    }
}
