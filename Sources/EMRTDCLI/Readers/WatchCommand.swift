import Dispatch
import Foundation
import ISO7816
import PCSCTransport
#if canImport(Glibc)
import Glibc
#endif

/// `emrtd watch [--reader NAME] [--json] [--timeout SECONDS]` (DESIGN.md §4.1): prints reader
/// and card events (insert, remove, reader plugged/unplugged) as they happen, until interrupted
/// (Ctrl-C / SIGINT / SIGTERM end it cleanly with status 0) or the optional timeout passes.
///
/// Exit status: 0 ended normally; 2 usage; 3 pcscd unreachable or lost.
public func runWatchCommand(arguments: [String]) async -> Int32 {
    var reader: String? = nil
    var json = false
    var timeout: Double? = nil
    var i = 0
    while i < arguments.count {
        let a = arguments[i]
        switch a {
        case "--help", "-h":
            print(watchHelp)
            return 0
        case "--json":
            json = true
        case "--reader":
            guard i + 1 < arguments.count, !arguments[i + 1].isEmpty else {
                return PCSCCommandOutput.usage("watch", "--reader needs a reader name (see emrtd readers)")
            }
            i += 1
            reader = arguments[i]
        case "--timeout":
            guard i + 1 < arguments.count, let t = Double(arguments[i + 1]), t > 0, t.isFinite else {
                return PCSCCommandOutput.usage("watch", "--timeout needs a positive number of seconds")
            }
            i += 1
            timeout = t
        default:
            return PCSCCommandOutput.usage("watch", "unknown option '\(a)' (see emrtd watch --help)")
        }
        i += 1
    }

    // Fail early, with the usual message, when pcscd is not there.
    do {
        let context = try await PCSCContext.establish()
        if let reader {
            let names = try await context.readerNames()
            if !names.contains(where: { $0 == reader || $0.lowercased().contains(reader.lowercased()) }) {
                PCSCCommandOutput.error("watch", "no reader matches \"\(reader)\" yet; waiting for one to be plugged in")
            }
        }
    } catch {
        return PCSCCommandOutput.failure("watch", error)
    }

    let watcher = Task { () -> Int32 in
        do {
            for try await event in PCSCContext.events(reader: reader) {
                if json {
                    print(PCSCCommandOutput.compactJSON(WatchEventJSON(event)))
                } else {
                    print("\(PCSCCommandOutput.timestamp()) \(event)")
                }
                fflush(nil) // all streams: a line per event even when piped
            }
            return 0
        } catch {
            if Task.isCancelled { return 0 }
            return PCSCCommandOutput.failure("watch", error)
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

let watchHelp = """
Usage: emrtd watch [--reader NAME] [--json] [--timeout SECONDS]

Print PC/SC reader and card events as they happen — reader plugged in or removed, card put
on or taken off (with its ATR), card mute — until interrupted with Ctrl-C. The first lines
describe what is already there. Readers plugged in later are watched too.

Options:
  --reader NAME       only events of readers whose name is NAME or contains it (any case)
  --json              one JSON object per line: {"time","event","reader","atr"}
  --timeout SECONDS   stop after this long (exit 0)
  -h, --help          show this help

Exit status: 0 ended (interrupted or timeout), 2 usage error, 3 pcscd not reachable or lost.
"""

struct WatchEventJSON: Encodable {
    let time: String
    let event: String
    let reader: String
    let atr: String?

    init(_ e: PCSCEvent) {
        time = PCSCCommandOutput.timestamp()
        reader = e.reader
        switch e {
        case .readerAdded: event = "readerAdded"; atr = nil
        case .readerRemoved: event = "readerRemoved"; atr = nil
        case .cardInserted(_, let a): event = "cardInserted"; atr = PCSCCommandOutput.hex(a)
        case .cardRemoved: event = "cardRemoved"; atr = nil
        case .cardMute: event = "cardMute"; atr = nil
        }
    }

    enum CodingKeys: String, CodingKey { case time, event, reader, atr }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(time, forKey: .time)
        try c.encode(event, forKey: .event)
        try c.encode(reader, forKey: .reader)
        try c.encode(atr, forKey: .atr)
    }
}
