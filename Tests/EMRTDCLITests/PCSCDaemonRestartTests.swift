import Foundation
import MRTDTestSupport
import Testing

/// pcscd restarted while `emrtd read` waits for a card or is reading one (docs/reliability.md): the read establishes a
/// new PC/SC context once pcscd answers again and goes on within its timeout.
///
/// Restarting the machine's pcscd would disturb every other PC/SC test running at the same time, so these tests
/// start a private pcscd of their own: in a mount namespace where `/run/pcscd` is a folder of the test's, with a
/// reader.conf.d that gives the vpcd driver ports of its own. `emrtd read` reaches it through
/// `PCSCLITE_CSOCK_NAME` (libpcsclite's client honours it; pcscd 1.9 does not, hence the namespace), and
/// `emrtd simulate --vpcd` serves the card on the private port. Needs root (CAP_SYS_ADMIN for `unshare --mount`):
/// where a private pcscd cannot be started the suite is disabled with the reason.
@Suite(
    "pcscd restarted under emrtd read (a private pcscd)", .serialized,
    .enabled(if: PrivatePCSCD.unavailableReason == nil, Comment(rawValue: PrivatePCSCD.unavailableReason ?? "")))
struct PCSCDaemonRestartTests {
    @Test("pcscd restarted while the read waits for a card: the read is accepted once a card comes")
    func restartWhileWaiting() async throws {
        let daemon = try PrivatePCSCD(document: "pace-gm-brainpool-aes128")
        defer { daemon.stop() }  // and keeps it alive to the end
        let read = try daemon.read(quiet: true)
        try await Task.sleep(for: .milliseconds(800))
        #expect(read.isRunning, "the read waits for a card: \(read.stderr)")

        daemon.stop()
        try await Task.sleep(for: .milliseconds(500))
        #expect(read.isRunning, "a stopped pcscd does not end a read that waits: \(read.stderr)")
        try daemon.start()

        let sim = try daemon.simulate(name: "simulate")
        defer { sim.stop() }
        try await expectAccepted(read)
        #expect(!read.stderr.contains(daemon.document.mrz) && !read.stdout.contains(daemon.document.mrz))
    }

    @Test("pcscd restarted in the middle of a read: the read resumes on the card presented again and is accepted")
    func restartWhileReading() async throws {
        let daemon = try PrivatePCSCD(document: "pace-gm-brainpool-aes128")
        defer { daemon.stop() }  // and keeps it alive to the end
        // the card is there first; the read starts on it and pcscd is stopped once PACE is done and EF.SOD is
        // read, before the data groups are all read
        let sim = try daemon.simulate(name: "simulate-1")
        defer { sim.stop() }
        try await Task.sleep(for: .milliseconds(500))
        // pcscd is killed by a watcher process of its own, the moment the read's stderr (without --quiet the read
        // names each step as it goes) says EF.SOD is read: the test process's own tasks may be held up for seconds by
        // the rest of the parallel suite, a separate process is not
        let watcher = try daemon.crash(whenReadSays: "read SOD", unlessItSays: "active authentication")
        let read = try daemon.read(quiet: false)
        let killed = await eventually(120) { !watcher.isRunning }
        #expect(
            killed && watcher.stdout.contains("killed mid-read"), "stopped mid-read: \(watcher.stdout) \(read.stderr)")
        daemon.stop()
        try await Task.sleep(for: .milliseconds(300))
        try daemon.start()
        let again = try daemon.simulate(name: "simulate-2")
        defer { again.stop() }
        try await expectAccepted(read)
        #expect(read.stderr.contains("(pcscd) stopped"), "the read said why it waited again: \(read.stderr)")
    }

    func expectAccepted(_ read: Background) async throws {
        let status = try await read.wait(seconds: 60)
        #expect(status == 0, "exit \(status): \(read.stderr)")
        #expect(read.verdict == "accepted")
    }
}

/// A generated document saved by `emrtd simulate --save`: folder, MRZ, trust anchor.
struct SavedSpecimen {
    var folder = ""
    var mrz = ""
    var trust = ""

    init(profile: String, in dir: URL) throws {
        let r = try Emrtd.run(["simulate", "--profile", profile, "--save", dir.appendingPathComponent(profile).path])
        guard r.status == 0 else { throw TimedOut(what: "simulate --save: \(r.stderr)", seconds: 0) }
        for line in r.stdout.split(separator: "\n") {
            let parts = line.split(separator: " ", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { continue }
            switch parts[0] {
            case "folder:": folder = parts[1]
            case "mrz:": mrz = parts[1]
            case "trust:": trust = parts[1]
            default: break
            }
        }
    }
}

/// A pcscd of the test's own (see `PCSCDaemonRestartTests`). One at a time per machine (a lock file).
final class PrivatePCSCD: @unchecked Sendable {
    /// The private vpcd port (slot 0); the driver's second slot takes the next one.
    static let port: UInt16 = 35_973
    static let readerName = "Virtual PCD 00 00"
    static let lockPath = "/tmp/emrtd-private-pcscd.lock"

    static let unavailableReason: String? = {
        guard PCSCTestEnvironment.isAvailable else { return PCSCTestEnvironment.unavailableReason }
        guard getuid() == 0 else { return "a private pcscd needs root (unshare --mount)" }
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare") else { return "unshare is missing" }
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        probe.arguments = ["--mount", "/bin/true"]
        probe.standardError = FileHandle.nullDevice
        guard (try? probe.run()) != nil else { return "unshare cannot run" }
        probe.waitUntilExit()
        return probe.terminationStatus == 0 ? nil : "unshare --mount is not permitted here (no CAP_SYS_ADMIN)"
    }()

    let dir: URL
    let lock: Int32
    /// The generated document the card serves.
    let document: SavedSpecimen
    private var process: Process?

    var socket: String { dir.appendingPathComponent("run/pcscd.comm").path }

    /// Takes the machine-wide lock, generates `document` (a built-in profile) and starts pcscd.
    init(document profile: String) throws {
        lock = open(Self.lockPath, O_CREAT | O_RDWR | O_CLOEXEC, 0o666)
        guard lock >= 0, flock(lock, LOCK_EX) == 0 else { throw TimedOut(what: "lock \(Self.lockPath)", seconds: 0) }
        dir = Emrtd.temporaryDirectory()
        document = try SavedSpecimen(profile: profile, in: dir)
        let conf = dir.appendingPathComponent("reader.conf.d")
        try FileManager.default.createDirectory(at: conf, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(
            at: dir.appendingPathComponent("run"), withIntermediateDirectories: true)
        let channel = String(Self.port, radix: 16, uppercase: true)
        try """
        FRIENDLYNAME "Virtual PCD"
        DEVICENAME   /dev/null:0x\(channel)
        LIBPATH      \(PCSCTestEnvironment.vpcdDriver)
        CHANNELID    0x\(channel)

        """.write(to: conf.appendingPathComponent("vpcd"), atomically: true, encoding: .utf8)
        try start()
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: dir)
        flock(lock, LOCK_UN)
        close(lock)
    }

    /// Starts pcscd and waits until its socket answers and the vpcd port listens.
    func start() throws {
        for name in ["pcscd.comm", "pcscd.pid"] {
            try? FileManager.default.removeItem(at: dir.appendingPathComponent("run/\(name)"))
        }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        p.arguments = [
            "--mount", "/bin/sh", "-c", "mount --bind \"$1\" /run/pcscd && exec \"$2\" --foreground -c \"$3\"", "sh",
            dir.appendingPathComponent("run").path, PCSCTestEnvironment.pcscdPath,
            dir.appendingPathComponent("reader.conf.d").path,
        ]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        process = p
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if FileManager.default.fileExists(atPath: socket) && Self.listening(Self.port) { return }
            guard p.isRunning else { break }
            usleep(50_000)
        }
        throw TimedOut(what: "a private pcscd listening on \(socket) and vpcd port \(Self.port)", seconds: 10)
    }

    /// Stops pcscd (SIGTERM, then SIGKILL: pcscd with the vpcd driver may not end on SIGTERM).
    func stop() {
        guard let p = process else { return }
        process = nil
        if p.isRunning { p.terminate() }
        let deadline = Date().addingTimeInterval(3)
        while p.isRunning && Date() < deadline { usleep(20_000) }
        if p.isRunning { kill(p.processIdentifier, SIGKILL) }
        p.waitUntilExit()
    }

    static func listening(_ port: UInt16) -> Bool {
        let fd = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var a = sockaddr_in()
        a.sin_family = sa_family_t(AF_INET)
        a.sin_port = port.bigEndian
        a.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &a) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }

    /// `emrtd read --json` of the document on the private reader (access data on stdin), in the background.
    func read(quiet: Bool) throws -> Background {
        let args = [
            "read", "--reader", Self.readerName, "--mrz", "-", "--trust", document.trust, "--json", "--timeout", "600",
        ]
        return try launch(args + (quiet ? ["--quiet"] : []), stdin: document.mrz, name: "read")
    }

    /// A watcher process that kills this pcscd (SIGKILL: a crash, not a shutdown) as soon as the read's stderr
    /// (`read.err` in the folder) holds `trigger`; it prints "killed mid-read" when the read had not yet written
    /// `finished`, else "too late".
    func crash(whenReadSays trigger: String, unlessItSays finished: String) throws -> Background {
        guard let pid = process?.processIdentifier else { throw TimedOut(what: "pcscd is not running", seconds: 0) }
        let err = dir.appendingPathComponent("read.err").path
        let script = """
            while ! grep -qF "$1" "$3" 2>/dev/null; do sleep 0.005; done
            if grep -qF "$2" "$3"; then echo "too late"; else kill -KILL "$4"; echo "killed mid-read"; fi
            """
        return try Background(
            program: "/bin/bash", ["-c", script, "watch", trigger, finished, err, String(pid)],
            environment: ProcessInfo.processInfo.environment, stdin: nil, folder: dir, name: "watcher")
    }

    /// `emrtd simulate` of the document on the private vpcd port, in the background.
    func simulate(name: String) throws -> Background {
        try launch(
            ["simulate", "--profile", document.folder, "--quiet", "--vpcd", "127.0.0.1:\(Self.port)"], name: name)
    }

    /// Starts `emrtd ARGS` in the background, talking to this pcscd; stdout and stderr go to files.
    func launch(_ args: [String], stdin: String? = nil, name: String) throws -> Background {
        var env = ProcessInfo.processInfo.environment
        env["PCSCLITE_CSOCK_NAME"] = socket
        return try Background(args, environment: env, stdin: stdin, folder: dir, name: name)
    }
}

/// An `emrtd` process running in the background with its output in files.
final class Background: @unchecked Sendable {
    let process = Process()
    let out: URL
    let err: URL

    init(
        program: String? = nil, _ args: [String], environment: [String: String], stdin: String?, folder: URL,
        name: String
    ) throws {
        out = folder.appendingPathComponent("\(name).out")
        err = folder.appendingPathComponent("\(name).err")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        _ = FileManager.default.createFile(atPath: err.path, contents: nil)
        process.executableURL = program.map { URL(fileURLWithPath: $0) } ?? Emrtd.executable
        process.arguments = args
        process.environment = environment
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        let input = Pipe()
        process.standardInput = input
        try process.run()
        if let stdin { input.fileHandleForWriting.write(Data((stdin + "\n").utf8)) }
        try? input.fileHandleForWriting.close()
    }

    var isRunning: Bool { process.isRunning }
    var stdout: String { (try? String(contentsOf: out, encoding: .utf8)) ?? "" }
    var stderr: String { (try? String(contentsOf: err, encoding: .utf8)) ?? "" }
    /// The verdict of a finished `read --json`.
    var verdict: String? { Emrtd.json(stdout).flatMap { ($0["verification"] as? [String: Any])?["status"] as? String } }

    func wait(seconds: Double) async throws -> Int32 {
        let done = await eventually(seconds) { !self.process.isRunning }
        if !done { stop() }
        process.waitUntilExit()
        return done ? process.terminationStatus : -1
    }

    func stop() {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }
}
