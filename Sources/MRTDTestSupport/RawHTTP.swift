import Foundation
import Glibc

/// A raw HTTP/1.1 client over a TCP socket: full control of Host, Origin and the body, and Server-Sent
/// Events read as they arrive. Every read is bounded by a receive timeout.
public struct RawHTTP {
    public let port: UInt16

    public init(port: UInt16) { self.port = port }

    public struct Response {
        public var status: Int
        public var headers: [String: String]
        public var body: [UInt8]
        public var text: String { String(decoding: body, as: UTF8.self) }
        public var json: [String: Any]? { (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] }
        public var errorCode: String? { (json?["error"] as? [String: Any])?["code"] as? String }
    }

    public static func connect(port: UInt16, timeout: Double = 20) throws -> Int32 {
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

    public static func send(_ fd: Int32, _ bytes: [UInt8]) throws {
        var off = 0
        while off < bytes.count {
            let n = bytes[off...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { throw Failure("send") }
            off += n
        }
    }

    public func head(
        _ method: String, _ path: String, token: String?, host: String?, headers: [String: String], body: [UInt8]?
    ) -> [UInt8] {
        var h = "\(method) \(path) HTTP/1.1\r\nHost: \(host ?? "127.0.0.1:\(port)")\r\nConnection: close\r\n"
        if let token { h += "Authorization: Bearer \(token)\r\n" }
        for (k, v) in headers { h += "\(k): \(v)\r\n" }
        if let body {
            // JSON unless the caller names the type (an image upload)
            if !headers.keys.contains(where: { $0.lowercased() == "content-type" }) {
                h += "Content-Type: application/json\r\n"
            }
            h += "Content-Length: \(body.count)\r\n"
        }
        return Array((h + "\r\n").utf8) + (body ?? [])
    }

    /// One request, the whole response (Connection: close).
    public func request(
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

    public func json(_ method: String, _ path: String, token: String?, _ object: Any, headers: [String: String] = [:])
        throws
        -> Response
    {
        try request(
            method, path, token: token, headers: headers,
            body: [UInt8](try JSONSerialization.data(withJSONObject: object)))
    }

    public static func parse(_ data: [UInt8]) throws -> Response {
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

    public static func dechunk(_ b: [UInt8]) -> [UInt8] {
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

public struct Failure: Error, CustomStringConvertible {
    public var description: String
    public init(_ d: String) { description = d }
}
