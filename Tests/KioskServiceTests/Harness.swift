import Foundation
import Glibc
import MRTDTestSupport

/// An event-stream client: connects, then collects events on its own thread until the stream ends.
final class SSEClient: @unchecked Sendable {
    struct Event {
        var name: String
        var data: [String: Any]
    }
    private let lock = NSLock()
    private var _events: [Event] = []
    private var _ended = false
    private var _status = 0
    private let fd: Int32

    init(port: UInt16, path: String, token: String) throws {
        fd = try RawHTTP.connect(port: port, timeout: 60)
        try RawHTTP.send(fd, RawHTTP(port: port).head("GET", path, token: token, host: nil, headers: [:], body: nil))
        let t = Thread { [self] in loop() }
        t.start()
    }

    var events: [Event] {
        lock.lock()
        defer { lock.unlock() }
        return _events
    }
    var ended: Bool {
        lock.lock()
        defer { lock.unlock() }
        return _ended
    }
    var status: Int {
        lock.lock()
        defer { lock.unlock() }
        return _status
    }
    var names: [String] { events.map(\.name) }

    func close() { shutdown(fd, Int32(SHUT_RDWR)) }

    private func loop() {
        var data: [UInt8] = []
        var buf = [UInt8](repeating: 0, count: 16384)
        var headerDone = false
        while true {
            let n = recv(fd, &buf, buf.count, 0)
            if n <= 0 { break }
            data += buf[0..<n]
            if !headerDone, let r = try? RawHTTP.parse(data) {
                headerDone = true
                lock.lock()
                _status = r.status
                lock.unlock()
            }
            if headerDone { publish(data) }
        }
        if let r = try? RawHTTP.parse(data) {
            lock.lock()
            _status = r.status
            lock.unlock()
            publish(data)
        }
        Glibc.close(fd)
        lock.lock()
        _ended = true
        lock.unlock()
    }

    private func publish(_ data: [UInt8]) {
        guard let r = try? RawHTTP.parse(data) else { return }
        // RawHTTP.parse has removed the chunked framing already
        let text = String(decoding: r.body, as: UTF8.self)
        var out: [Event] = []
        for block in text.components(separatedBy: "\n\n") {
            var name = "message"
            var payload = ""
            for line in block.split(separator: "\n") {
                if line.hasPrefix("event: ") { name = String(line.dropFirst(7)) }
                if line.hasPrefix("data: ") { payload += line.dropFirst(6) }
            }
            guard !payload.isEmpty,
                let o = (try? JSONSerialization.jsonObject(with: Data(payload.utf8))) as? [String: Any]
            else { continue }
            out.append(Event(name: name, data: o))
        }
        lock.lock()
        _events = out
        lock.unlock()
    }

    /// Waits for the stream to end (bounded).
    func waitForEnd(_ seconds: Double) async -> Bool { await eventually(seconds) { self.ended } }
}

/// `emrtd` as separate processes: simulate (the card) and serve (the service under test).
enum Harness {
    static var executable: URL {
        var dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        if dir.lastPathComponent.hasSuffix(".xctest") { dir = dir.deletingLastPathComponent() }
        return dir.appendingPathComponent("emrtd")
    }

    static let reader0 = PCSCTestEnvironment.readerName
    static let reader1 = "Virtual PCD 00 01"

    static func temporaryDirectory() -> URL { TemporaryFolder.make("serve") }

    /// Runs `emrtd ARGS` (or another program) to completion, with `input` on its stdin: status and output.
    static func run(
        _ args: [String], program: URL? = nil, input: Data? = nil, timeout: Double = 60
    ) throws -> (status: Int32, stdout: String, stderr: String) {
        let r = try ChildProcess.run(program ?? executable, args, stdin: input, timeout: timeout)
        return (r.status, r.stdout, r.stderr)
    }

    struct Document {
        var folder: String
        var mrz: String
        var trust: String
    }

    /// Generates and saves a document with `emrtd simulate --save`.
    static func document(_ profile: String, in dir: URL) throws -> Document {
        let name = profile.replacingOccurrences(of: "+", with: "_")
        let r = try run(["simulate", "--profile", profile, "--save", dir.appendingPathComponent(name).path])
        guard r.status == 0 else { throw Failure("simulate --save: \(r.stderr)") }
        var values: [String: String] = [:]
        for line in r.stdout.split(separator: "\n") {
            let parts = line.split(separator: " ", maxSplits: 1)
            if parts.count == 2 { values[String(parts[0].dropLast())] = String(parts[1]) }
        }
        return Document(folder: values["folder"] ?? "", mrz: values["mrz"] ?? "", trust: values["trust"] ?? "")
    }

    /// Serves a document on vpcd slot 0 (port 35963) or 1 (35964).
    static func simulate(_ d: Document, slot: Int = 0, extra: [String] = []) throws -> Process {
        let p = Process()
        p.executableURL = executable
        p.arguments = ["simulate", "--profile", d.folder, "--quiet", "--vpcd", "127.0.0.1:\(35963 + slot)"] + extra
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        return p
    }

    static func stop(_ p: Process) {
        if p.isRunning { p.terminate() }
        p.waitUntilExit()
        // let vpcd and pcscd see the card gone before the next simulate connects to the slot
        usleep(800_000)
    }
}

/// A running `emrtd serve` on an ephemeral port.
final class Service: @unchecked Sendable {
    let process: Process
    let port: UInt16
    let token: String
    let dir: URL
    let stderr: Pipe

    init(dir: URL, trust: String?, extra: [String] = []) throws {
        self.dir = dir
        let p = Process()
        p.executableURL = Harness.executable
        var args = ["serve", "--listen", "127.0.0.1:0", "--token-file", dir.appendingPathComponent("token").path]
        if let trust { args += ["--trust", trust] }
        p.arguments = args + extra
        let out = Pipe()
        stderr = Pipe()
        p.standardOutput = out
        p.standardError = stderr
        p.standardInput = FileHandle.nullDevice
        try p.run()
        process = p
        // the first line names the bound address
        var line: [UInt8] = []
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            let b = out.fileHandleForReading.readData(ofLength: 1)
            if b.isEmpty { break }
            if b[0] == 10 { break }
            line.append(b[0])
        }
        let text = String(decoding: line, as: UTF8.self)
        guard let colon = text.lastIndex(of: ":"), let port = UInt16(text[text.index(after: colon)...]) else {
            p.terminate()
            throw Failure("emrtd serve did not say where it listens: \(text)")
        }
        self.port = port
        self.token = try String(contentsOf: dir.appendingPathComponent("token"), encoding: .utf8).trimmingCharacters(
            in: .whitespacesAndNewlines)
        // drain stdout so the service never blocks on it
        DispatchQueue.global().async { _ = out.fileHandleForReading.readDataToEndOfFile() }
    }

    var http: RawHTTP { RawHTTP(port: port) }

    /// Runs `body` with a service in a temporary folder of its own (no trust unless `extra` gives some), then
    /// stops it and removes the folder.
    static func withTemporary(_ extra: [String] = [], _ body: (Service) async throws -> Void) async throws {
        let dir = Harness.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let s = try Service(dir: dir, trust: nil, extra: extra)
        defer { s.stop() }
        try await body(s)
    }

    func stop() {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }

    /// Starts a read; returns its id.
    func startRead(_ body: [String: Any]) throws -> String {
        let r = try http.json("POST", "/v1/reads", token: token, body)
        guard r.status == 201, let id = r.json?["id"] as? String else {
            throw Failure("POST /v1/reads: \(r.status) \(r.text)")
        }
        return id
    }

    func read(_ id: String) throws -> RawHTTP.Response { try http.request("GET", "/v1/reads/\(id)", token: token) }

    /// Polls the read until it has finished.
    func waitFinished(_ id: String, seconds: Double = 30) async throws -> [String: Any] {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            let r = try read(id)
            if let j = r.json, let s = j["status"] as? String, ["done", "failed", "cancelled"].contains(s) { return j }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw Failure("read \(id) did not finish in \(seconds) s")
    }

    func events(_ path: String) throws -> SSEClient { try SSEClient(port: port, path: path, token: token) }
}
