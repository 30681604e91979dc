import Foundation
import Glibc
import MRTDTestSupport

/// A raw HTTP/1.1 client over a TCP socket: full control of Host, Origin and the body, and Server-Sent
/// Events read as they arrive. Every read is bounded by a receive timeout.
struct RawHTTP {
    let port: UInt16

    struct Response {
        var status: Int
        var headers: [String: String]
        var body: [UInt8]
        var text: String { String(decoding: body, as: UTF8.self) }
        var json: [String: Any]? { (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] }
        var errorCode: String? { (json?["error"] as? [String: Any])?["code"] as? String }
    }

    static func connect(port: UInt16, timeout: Double = 20) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure("socket") }
        var tv = timeval(tv_sec: Int(timeout), tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = port.bigEndian
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard rc == 0 else {
            close(fd)
            throw Failure("connect to 127.0.0.1:\(port)")
        }
        return fd
    }

    static func send(_ fd: Int32, _ bytes: [UInt8]) throws {
        var off = 0
        while off < bytes.count {
            let n = bytes[off...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { throw Failure("send") }
            off += n
        }
    }

    func head(
        _ method: String, _ path: String, token: String?, host: String?, headers: [String: String], body: [UInt8]?
    ) -> [UInt8] {
        var h = "\(method) \(path) HTTP/1.1\r\nHost: \(host ?? "127.0.0.1:\(port)")\r\nConnection: close\r\n"
        if let token { h += "Authorization: Bearer \(token)\r\n" }
        for (k, v) in headers { h += "\(k): \(v)\r\n" }
        if let body { h += "Content-Type: application/json\r\nContent-Length: \(body.count)\r\n" }
        return Array((h + "\r\n").utf8) + (body ?? [])
    }

    /// One request, the whole response (Connection: close).
    func request(
        _ method: String, _ path: String, token: String?, host: String? = nil, headers: [String: String] = [:],
        body: [UInt8]? = nil
    ) throws -> Response {
        let fd = try Self.connect(port: port)
        defer { close(fd) }
        try Self.send(fd, head(method, path, token: token, host: host, headers: headers, body: body))
        var data: [UInt8] = []
        var buf = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = recv(fd, &buf, buf.count, 0)
            if n <= 0 { break }
            data += buf[0..<n]
        }
        return try Self.parse(data)
    }

    func json(_ method: String, _ path: String, token: String?, _ object: Any, headers: [String: String] = [:]) throws
        -> Response
    {
        try request(
            method, path, token: token, headers: headers,
            body: [UInt8](try JSONSerialization.data(withJSONObject: object)))
    }

    static func parse(_ data: [UInt8]) throws -> Response {
        guard
            let end = data.indices.first(where: { i in
                i + 3 < data.count && data[i] == 13 && data[i + 1] == 10 && data[i + 2] == 13 && data[i + 3] == 10
            })
        else {
            throw Failure("no complete response header (\(data.count) bytes)")
        }
        let lines = String(decoding: data[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let parts = lines[0].split(separator: " ")
        guard parts.count >= 2, let status = Int(parts[1]) else { throw Failure("bad status line \(lines[0])") }
        var headers: [String: String] = [:]
        for l in lines.dropFirst() {
            guard let c = l.firstIndex(of: ":") else { continue }
            headers[l[..<c].lowercased()] = l[l.index(after: c)...].trimmingCharacters(in: .whitespaces)
        }
        var body = Array(data[(end + 4)...])
        if headers["transfer-encoding"]?.lowercased() == "chunked" { body = dechunk(body) }
        return Response(status: status, headers: headers, body: body)
    }

    static func dechunk(_ b: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var i = 0
        while i < b.count {
            guard let eol = b[i...].indices.first(where: { $0 + 1 < b.count && b[$0] == 13 && b[$0 + 1] == 10 }) else {
                break
            }
            let sizeText = String(decoding: b[i..<eol], as: UTF8.self).split(separator: ";").first ?? ""
            guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16), size > 0 else { break }
            let start = eol + 2
            out += b[start..<min(b.count, start + size)]
            i = start + size + 2
        }
        return out
    }
}

struct Failure: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
}

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

    static func temporaryDirectory() -> URL {
        let u = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("emrtd-serve-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: u, withIntermediateDirectories: true)
        return u
    }

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
