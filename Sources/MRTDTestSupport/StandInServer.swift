public import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The tests' one Signicat stand-in: a small HTTP/1.1 server on 127.0.0.1 (random port) that plays Signicat: the
/// OAuth token endpoint, ReuseID start step-up, VideoID `videoid.request` and the integrator's result endpoint
/// (the step-up client's tests, `emrtd stepup` end to end, and `emrtd serve`'s VideoID step-up). Each path can be
/// told to answer otherwise once (or several times) in each documented way before the normal answer resumes. One
/// thread accepts, one thread per connection answers; every wait is bounded, `stop()` ends the accept loop and any
/// `hang`.
public final class StandInServer: @unchecked Sendable {
    public struct Request: Sendable {
        public var method: String
        public var path: String
        public var headers: [String: String]
        public var body: Data
        public func header(_ n: String) -> String? { headers[n.lowercased()] }
        public var bodyText: String { String(decoding: body, as: UTF8.self) }
        /// The body's top-level JSON object, nil when it is not one.
        var jsonObject: [String: Any]? { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] }
    }

    public enum Behavior: Sendable {
        case respond(status: Int, headers: [String: String], body: Data)
        /// Read the request, then send nothing for `seconds` (or until stop), then close.
        case hang(seconds: Double)
        /// Close the connection without any answer.
        case drop

        public static func json(_ status: Int, _ text: String, headers: [String: String] = [:]) -> Behavior {
            var h = headers
            h["Content-Type"] = "application/json"
            return .respond(status: status, headers: h, body: Data(text.utf8))
        }

        /// Signicat's error object with an X-TRACE-ID header.
        public static func signicatError(
            _ status: Int, code: String, title: String, traceId: String,
            detail: String = "see invalidParams", headers: [String: String] = [:]
        ) -> Behavior {
            var h = headers
            h["X-TRACE-ID"] = traceId
            return .json(
                status,
                """
                {"type": "https://developer.signicat.com/docs/errors/\(code)", "title": "\(title)", "code": "\(code)",
                 "status": \(status), "traceId": "\(traceId)", "detail": "\(detail)",
                 "invalidParams": [{"name": "userId", "reason": "unknown user"}], "extra": true}
                """, headers: h)
        }

        public static func text(_ status: Int, _ body: String, contentType: String = "text/html") -> Behavior {
            .respond(status: status, headers: ["Content-Type": contentType], body: Data(body.utf8))
        }
    }

    // The fake Signicat's fixed values (generated, not real).
    public let clientId = "kiosk-client-7"
    public let clientSecret = "cs_S3cr3t-ValueThatMustNeverLeak-91f2"
    public let stepUpToken = "sut_eyJhbGciOiJub25lIn0.c3RlcC11cC10b2tlbi1zZWNyZXQ.x9"
    public let videoIDAuthorization = "vidauth_5c8a0b1e-authorisation-token"
    public var accessTokenPrefix = "at_access-token-issued-by-standin-"
    public var expiresIn = 600

    public let port: UInt16
    private let listenFD: Int32
    private let lock = NSLock()
    private var scripted: [String: [Behavior]] = [:]
    private var log: [Request] = []
    private var issued: [String] = []
    private var stopped = false

    public init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = 0
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(fd, 16) == 0 else {
            close(fd)
            throw POSIXError(.EADDRINUSE)
        }
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) }
        }
        listenFD = fd
        port = UInt16(bigEndian: addr.sin_port)
        let t = Thread { [self] in acceptLoop() }
        t.start()
    }

    deinit { stop() }

    public var baseURL: String { "http://127.0.0.1:\(port)" }
    public var tokenURL: String { baseURL + "/auth/open/connect/token" }
    public var reuseIDBaseURL: String { baseURL + "/reuseid/" }
    public var videoIDURL: String { baseURL + "/v2" }
    public var resultURL: String { baseURL + "/results" }

    /// Queues behaviours for `path`, used one per request before the normal answer resumes.
    public func script(_ path: String, _ behaviors: Behavior...) {
        lock.lock()
        scripted[path, default: []].append(contentsOf: behaviors)
        lock.unlock()
    }

    public var requests: [Request] {
        lock.lock()
        defer { lock.unlock() }
        return log
    }

    public func requests(to path: String) -> [Request] { requests.filter { $0.path == path } }

    /// Access tokens handed out so far.
    public var issuedTokens: [String] {
        lock.lock()
        defer { lock.unlock() }
        return issued
    }

    /// Every secret this server knows or issued: none of them may appear in any output.
    public var allSecrets: [String] {
        [clientSecret, stepUpToken, Data("\(clientId):\(clientSecret)".utf8).base64EncodedString()] + issuedTokens
    }

    public func stop() {
        lock.lock()
        let was = stopped
        stopped = true
        lock.unlock()
        if !was {
            shutdown(listenFD, Int32(SHUT_RDWR))
            close(listenFD)
        }
    }

    private var isStopped: Bool {
        lock.lock()
        defer { lock.unlock() }
        return stopped
    }

    private func acceptLoop() {
        while !isStopped {
            var p = pollfd(fd: listenFD, events: Int16(POLLIN), revents: 0)
            let r = poll(&p, 1, 100)
            if r <= 0 { continue }
            let c = accept(listenFD, nil, nil)
            if c < 0 { continue }
            var tv = timeval(tv_sec: 5, tv_usec: 0)
            setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
            let t = Thread { [self] in handle(c) }
            t.start()
        }
    }

    private func handle(_ fd: Int32) {
        defer { close(fd) }
        guard let request = readRequest(fd) else { return }
        lock.lock()
        log.append(request)
        var behavior: Behavior?
        if var q = scripted[request.path], !q.isEmpty {
            behavior = q.removeFirst()
            scripted[request.path] = q
        }
        lock.unlock()
        switch behavior ?? normalAnswer(request) {
        case .respond(let status, let headers, let body):
            write(fd, status: status, headers: headers, body: body)
        case .hang(let seconds):
            let end = Date().addingTimeInterval(seconds)
            while Date() < end && !isStopped { usleep(20_000) }
        case .drop:
            return
        }
    }

    private func readRequest(_ fd: Int32) -> Request? {
        var buffer = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 4096)
        var headerEnd: Int?
        while headerEnd == nil {
            let n = recv(fd, &chunk, chunk.count, 0)
            if n <= 0 { return nil }
            buffer += chunk[0..<n]
            if buffer.count > 1_000_000 { return nil }
            if let r = find(buffer, [13, 10, 13, 10]) { headerEnd = r }
        }
        guard let he = headerEnd else { return nil }
        let head = String(decoding: buffer[0..<he], as: UTF8.self)
        var lines = head.components(separatedBy: "\r\n")
        let first = lines.removeFirst().split(separator: " ")
        guard first.count >= 2 else { return nil }
        var headers: [String: String] = [:]
        for l in lines {
            guard let c = l.firstIndex(of: ":") else { continue }
            headers[l[..<c].lowercased()] = l[l.index(after: c)...].trimmingCharacters(in: .whitespaces)
        }
        let length = Int(headers["content-length"] ?? "0") ?? 0
        var body = Array(buffer[(he + 4)...])
        while body.count < length {
            let n = recv(fd, &chunk, chunk.count, 0)
            if n <= 0 { return nil }
            body += chunk[0..<n]
        }
        return Request(
            method: String(first[0]), path: String(first[1]), headers: headers, body: Data(body.prefix(length)))
    }

    private func find(_ h: [UInt8], _ n: [UInt8]) -> Int? {
        guard h.count >= n.count else { return nil }
        for i in 0...(h.count - n.count) where h[i] == n[0] && Array(h[i..<(i + n.count)]) == n { return i }
        return nil
    }

    private func write(_ fd: Int32, status: Int, headers: [String: String], body: Data) {
        var head = "HTTP/1.1 \(status) \(Self.reason(status))\r\nContent-Length: \(body.count)\r\nConnection: close\r\n"
        for (k, v) in headers { head += "\(k): \(v)\r\n" }
        head += "\r\n"
        let bytes = Array(head.utf8) + Array(body)
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return }
            sent += n
        }
        shutdown(fd, Int32(SHUT_WR))
    }

    public static func reason(_ s: Int) -> String {
        switch s {
        case 200: "OK"
        case 201: "Created"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 429: "Too Many Requests"
        case 500: "Internal Server Error"
        case 503: "Service Unavailable"
        default: "Status"
        }
    }

    // MARK: the fake Signicat

    private func normalAnswer(_ r: Request) -> Behavior {
        switch (r.method, r.path) {
        case ("POST", "/auth/open/connect/token"):
            let expected = "Basic " + Data("\(clientId):\(clientSecret)".utf8).base64EncodedString()
            guard r.header("Authorization") == expected else {
                return .json(401, #"{"error": "invalid_client", "error_description": "bad client credentials"}"#)
            }
            guard r.header("Content-Type")?.hasPrefix("application/x-www-form-urlencoded") == true,
                r.bodyText == "grant_type=client_credentials&scope=signicat-api"
            else {
                return .json(400, #"{"error": "invalid_request"}"#)
            }
            lock.lock()
            let token = accessTokenPrefix + String(issued.count + 1)
            issued.append(token)
            let ttl = expiresIn
            lock.unlock()
            return .json(
                200,
                #"{"access_token": "\#(token)", "token_type": "Bearer", "expires_in": \#(ttl), "scope": "signicat-api"}"#
            )
        case ("POST", "/reuseid/step-up"):
            guard let auth = r.header("Authorization"), auth.hasPrefix("Bearer "),
                issuedTokens.contains(String(auth.dropFirst(7)))
            else {
                return .signicatError(401, code: "unauthorized", title: "Unauthorized", traceId: "trace-start-401")
            }
            guard let user = r.jsonObject?["userId"] as? String else {
                return .signicatError(400, code: "invalid_request", title: "Bad Request", traceId: "trace-start-400")
            }
            return .json(
                200,
                """
                {"data": {"status": "Pending", "transactionId": "7b0f6c1e-2a8d-4f53-9a51-0b6f1f0d2c11",
                 "userId": "\(user)", "dossierId": "d-000123", "processId": "0dca14cf-957d-46d9-b374-520f9c650859"}}
                """, headers: ["X-TRACE-ID": "trace-start-ok"])
        case ("POST", "/v2/videoid.request"):
            guard r.header("Authorization") == "Bearer \(stepUpToken)" else {
                return .signicatError(401, code: "unauthorized", title: "Unauthorized", traceId: "trace-vid-401")
            }
            guard r.jsonObject?["process"] as? String == "Unattended" else {
                return .signicatError(400, code: "invalid_process", title: "Bad Request", traceId: "trace-vid-400")
            }
            return .json(
                200, #"{"id": "87a819bd-9419-417a-9e55-cab8789d4115", "authorization": "\#(videoIDAuthorization)"}"#)
        case ("POST", "/results"):
            guard r.header("Authorization") == "Bearer \(stepUpToken)" else {
                return .signicatError(401, code: "unauthorized", title: "Unauthorized", traceId: "trace-res-401")
            }
            return .json(201, #"{"received": true}"#)
        default:
            return .signicatError(404, code: "not_found", title: "Not Found", traceId: "trace-404")
        }
    }
}
