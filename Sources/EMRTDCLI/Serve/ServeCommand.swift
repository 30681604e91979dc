import Dispatch
import Foundation
import HTTPServer
import KioskService
import MRTDReader
import MRTDTrust
import Synchronization

/// `emrtd serve`: the kiosk service (docs/service.md) — a local HTTP API with live events.
enum ServeCommand {
    static let kioskIdleRule = NumberRule(
        KioskPage.Settings.idleRange,
        message:
            "--kiosk-idle must be seconds between \(Int(KioskPage.Settings.idleRange.lowerBound)) and \(Int(KioskPage.Settings.idleRange.upperBound))"
    )

    static let command = CommandDecl(
        "serve", summary: "run the kiosk service: a local HTTP API with live events (docs/service.md)",
        discussion: """
            Runs one long-running service per terminal: a JSON-over-HTTP/1.1 API with Server-Sent Events for a kiosk UI on
            the same machine (docs/service.md), and serves such a UI at / (docs/kiosk.md); a kiosk browser opens
            /login?token=TOKEN. Every /v1 request needs the bearer token of --token-file. Trust material is
            loaded once at start (exit 5 when unusable) and again on SIGHUP; SIGTERM/SIGINT cancel running reads and exit 0.
            """,
        options: [
            OptionDecl(
                "listen", value: "HOST:PORT", help: "address to listen on (port 0: any free port)",
                default: "127.0.0.1:8765", conflicts: ["socket"]),
            OptionDecl(
                "socket", value: "PATH", kind: .file, help: "listen on a Unix-domain socket at PATH instead (mode 0660)"
            ),
            OptionDecl("allow-remote", help: "allow a --listen address other machines can reach"),
            OptionDecl(
                "token-file", value: "PATH", kind: .file,
                help: "the API token (created with a random token, mode 0600, when missing)",
                default: "$STATE_DIRECTORY/token or ~/.local/state/emrtd/token"),
        ] + Options.trust + [
            OptionDecl(
                "retention", value: "SECONDS", help: "how long a finished read is kept", default: "120",
                number: NumberRule(0...86_400, message: "--retention must be seconds between 0 and 86400")),
            OptionDecl(
                "max-finished", value: "N", help: "finished reads kept at most", default: "16",
                number: NumberRule(
                    0...10_000, whole: true, message: "--max-finished must be a number between 0 and 10000")),
            OptionDecl(
                "max-connections", value: "N", help: "open connections at most", default: "100",
                number: NumberRule(
                    4...10_000, whole: true, message: "--max-connections must be a number between 4 and 10000")),
            OptionDecl(
                "kiosk-idle", value: "SECONDS",
                help:
                    "seconds the kiosk page at / keeps a result or typed access data untouched before it clears itself",
                default: "60", number: kioskIdleRule),
            OptionDecl(
                "evidence-dir", value: "DIR", kind: .directory,
                help: "write each finished read's evidence bundle under DIR (folders 0700, files 0600)"),
            Options.quiet,
        ],
        exits: [.ok, .usage, .trust],
        run: { try await run($0) })

    struct Settings {
        var address: HTTPListenAddress
        var tokenFile: String
        var retention: Double = 120
        var maxFinished = 16
        var maxConnections = 100
        var evidenceDir: URL?
        var kioskIdle = KioskPage.Settings.defaultIdleSeconds
        var allowRemote = false
        var quiet = false
    }

    static func settings(_ a: ParsedArguments, environment: [String: String]) throws(UsageError) -> Settings {
        var address = HTTPListenAddress.tcp(host: "127.0.0.1", port: 8765)
        if let s = a.value("socket") {
            guard a.value("listen") == nil else { throw UsageError("--socket and --listen exclude each other") }
            address = .unix(path: s)
        } else if let l = a.value("listen") {
            guard let colon = l.lastIndex(of: ":"), let port = UInt16(l[l.index(after: colon)...]) else {
                throw UsageError("--listen must be HOST:PORT, e.g. 127.0.0.1:8765")
            }
            var host = String(l[..<colon])
            if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
            address = .tcp(host: host, port: port)
        }
        if !address.isLoopback && !a.flag("allow-remote") {
            throw UsageError(
                "--listen \(address) is reachable from other machines: add --allow-remote if that is intended")
        }
        let stateDir =
            environment["STATE_DIRECTORY"].map { String($0.split(separator: ":").first ?? "") }
            ?? ((environment["HOME"] ?? NSHomeDirectory()) + "/.local/state/emrtd")
        var s = Settings(address: address, tokenFile: a.value("token-file") ?? stateDir + "/token")
        s.allowRemote = a.flag("allow-remote")
        s.quiet = a.flag("quiet")
        // the numbers were checked against their rules when the command line was parsed
        if let v = a.number("retention") { s.retention = v }
        if let v = a.number("max-finished") { s.maxFinished = Int(v) }
        if let v = a.number("max-connections") { s.maxConnections = Int(v) }
        if let v = a.number("kiosk-idle") { s.kioskIdle = v }
        s.evidenceDir = a.value("evidence-dir").map { URL(fileURLWithPath: $0) }
        return s
    }

    /// `--evidence-dir`: an existing folder, or one that can be made (0700); each read's bundle goes into a new
    /// folder inside it.
    static func evidenceFolder(_ dir: URL) throws(CLIError) {
        let fm = FileManager.default
        var isDir: ObjCBool = false
        if fm.fileExists(atPath: dir.path, isDirectory: &isDir) {
            guard isDir.boolValue else {
                throw CLIError(
                    .outputNotUsable, "--evidence-dir \(dir.path) exists and is not a folder: name a folder",
                    status: .usage)
            }
        } else if (try? fm.createDirectory(
            at: dir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])) == nil
        {
            throw CLIError(
                .outputNotUsable,
                "--evidence-dir \(Shown.path(dir.path)) cannot be created: its parent folder does not exist or is not writable",
                status: .usage)
        }
        // really try: permission bits say little for root, or on read-only mounts
        let probe = dir.appendingPathComponent(".emrtd-probe-\(UUID().uuidString)")
        guard mkdir(probe.path, 0o700) == 0 else {
            throw CLIError(
                .outputNotUsable, "--evidence-dir \(dir.path) is not writable: name a folder emrtd serve can write",
                status: .usage)
        }
        rmdir(probe.path)
    }

    static func run(_ inv: Invocation) async throws -> Int32 {
        let a = inv.arguments
        let s: Settings
        do { s = try settings(a, environment: ProcessInfo.processInfo.environment) } catch {
            throw CLIError(error.code, error.message, status: .usage)
        }
        // the evidence folder: made now (0700), so that a read never finds it unusable after the document was read
        if let dir = s.evidenceDir { try evidenceFolder(dir) }
        let token: String
        do { token = try TokenFile.load(s.tokenFile) } catch {
            throw CLIError(.outputNotUsable, error.message, status: .usage)
        }
        // trust: loaded once now (exit 5 on unusable material), again on SIGHUP
        let store = try ReadSetup.trust(a, command: "serve")
        if store.isEmpty && !s.quiet {
            Console.err("emrtd serve: no --trust given: documents cannot be anchored to a CSCA and will be rejected")
        }
        let config = KioskConfiguration(
            token: token, retentionSeconds: s.retention, maxFinishedReads: s.maxFinished,
            evidenceDirectory: s.evidenceDir, version: EMRTDKitVersion.string,
            allowRemote: s.allowRemote)
        let service = KioskService(configuration: config, trust: store)
        let quiet = s.quiet
        let signals = SignalWaiter(onReload: {
            do throws(CLIError) {
                service.setTrust(try ReadSetup.trust(a, command: "serve"))
                if !quiet { Console.err("emrtd serve: trust reloaded") }
            } catch {
                Console.err("emrtd serve: trust not reloaded, keeping the previous material: \(error.message)")
            }
        })
        let server: HTTPServer
        do {
            // the API needs the bound address for its Host checks, the server needs the handler: close the loop late
            let box = APIBox()
            server = try HTTPServer(
                listen: s.address,
                limits: HTTPServerLimits(maxConnections: s.maxConnections, largeBodies: KioskAPI.largeBodies),
                tooLarge: { KioskAPI.tooLarge() }, handler: { box.api?.handle($0) ?? KioskAPI.notReady() })
            box.api = KioskAPI(
                service: service, address: server.address, kiosk: KioskPage.Settings(idleSeconds: s.kioskIdle))
        } catch {
            throw CLIError(.outputNotUsable, "cannot listen on \(s.address): \(error.message)", status: .usage)
        }
        service.start()
        switch server.address {
        case .tcp: Console.out("emrtd serve: listening on http://\(server.address)")
        case .unix(let path): Console.out("emrtd serve: listening on unix:\(path)")
        }
        Console.out("emrtd serve: token in \(s.tokenFile)")
        fflush(nil)

        await signals.waitForTermination()
        if !s.quiet { Console.err("emrtd serve: stopping") }
        // cancel the reads, end the streams, stop the server — but exit within 2 s whatever hangs (a PC/SC call
        // that does not return, a client that does not read)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            service.shutdown()
            server.stop()
            done.signal()
        }
        _ = done.wait(timeout: .now() + 1.6)
        return ExitStatus.ok.rawValue
    }
}

/// The API, set once right after the server started (the handler answers 503 until then).
final class APIBox: Sendable {
    private let value = Mutex<KioskAPI?>(nil)
    var api: KioskAPI? {
        get { value.withLock { $0 } }
        set { value.withLock { $0 = newValue } }
    }
}

/// SIGTERM/SIGINT end the service; SIGHUP calls `onReload`. Installed before the service announces its
/// address, so that no signal can find the default action (termination) in place.
final class SignalWaiter: @unchecked Sendable {  // sources: written once in init, then only kept alive
    final class State: Sendable {
        let value = Mutex<(terminated: Bool, waiter: CheckedContinuation<Void, Never>?)>((false, nil))
    }
    private let state = State()
    private let sources: [any DispatchSourceSignal]

    init(onReload: @escaping @Sendable () -> Void) {
        var sources: [any DispatchSourceSignal] = []
        let state = self.state
        for sig in [SIGTERM, SIGINT, SIGHUP] {
            signal(sig, SIG_IGN)
            let src = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            src.setEventHandler {
                if sig == SIGHUP {
                    onReload()
                    return
                }
                let waiter = state.value.withLock { s -> CheckedContinuation<Void, Never>? in
                    s.terminated = true
                    let w = s.waiter
                    s.waiter = nil
                    return w
                }
                waiter?.resume()
            }
            src.resume()
            sources.append(src)
        }
        self.sources = sources
    }

    func waitForTermination() async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let now = state.value.withLock { s -> Bool in
                if s.terminated { return true }
                s.waiter = c
                return false
            }
            if now { c.resume() }
        }
    }
}

/// The API token file: read, or created with 32 random bytes in hex and mode 0600 when missing.
enum TokenFile {
    static func load(_ path: String) throws(UsageError) -> String {
        var st = stat()
        if stat(path, &st) != 0 {
            let dir = (path as NSString).deletingLastPathComponent
            if !dir.isEmpty {
                try? FileManager.default.createDirectory(
                    atPath: dir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            }
            var g = SystemRandomNumberGenerator()
            let token = (0..<32).map { _ in String(UInt8.random(in: 0...255, using: &g), radix: 16) }
                .map { $0.count == 1 ? "0" + $0 : $0 }.joined()
            let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            guard fd >= 0 else {
                throw UsageError("--token-file \(path): cannot create it (\(String(cString: strerror(errno))))")
            }
            defer { close(fd) }
            let bytes = Array((token + "\n").utf8)
            guard write(fd, bytes, bytes.count) == bytes.count else {
                throw UsageError("--token-file \(path): cannot write it")
            }
            return token
        }
        guard (st.st_mode & S_IFMT) == S_IFREG else { throw UsageError("--token-file \(path) is not a regular file") }
        guard st.st_mode & 0o077 == 0 else {
            throw UsageError(
                "--token-file \(path) is readable by others (mode \(String(st.st_mode & 0o777, radix: 8))): chmod 600 it"
            )
        }
        guard st.st_size <= 4096, let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw UsageError("--token-file \(path) cannot be read (or is larger than 4 KB)")
        }
        let token = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard token.count >= 16, token.allSatisfy({ $0.isASCII && !$0.isWhitespace && $0 != ";" && $0 != "," }) else {
            throw UsageError("--token-file \(path) must hold one token of at least 16 printable ASCII characters")
        }
        return token
    }
}
