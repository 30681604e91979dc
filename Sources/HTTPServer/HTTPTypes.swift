/// A request as the handler sees it: method, path, query, headers and the whole (bounded) body.
public struct HTTPRequest: Sendable {
    public var method: String
    /// The path without the query string, as sent (percent-encoding left alone).
    public var path: String
    /// Query arguments (decoded by libmicrohttpd); the last value wins when a name repeats.
    public var query: [String: String]
    /// Header fields with lower-cased names; the last value wins when a name repeats.
    public var headers: [String: String]
    public var body: [UInt8]

    public init(
        method: String, path: String, query: [String: String] = [:], headers: [String: String] = [:], body: [UInt8] = []
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
    }

    /// A header by case-insensitive name.
    public func header(_ name: String) -> String? { headers[name.lowercased()] }
}

/// A response: a fixed body, or a stream the handler keeps feeding (Server-Sent Events).
public struct HTTPResponse: Sendable {
    public enum Body: Sendable {
        case bytes([UInt8])
        case stream(HTTPStream)
    }

    public var status: Int
    public var headers: [(String, String)]
    public var body: Body

    public init(status: Int, headers: [(String, String)] = [], body: Body = .bytes([])) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    public init(status: Int, contentType: String, bytes: [UInt8], headers: [(String, String)] = []) {
        self.init(status: status, headers: [("Content-Type", contentType)] + headers, body: .bytes(bytes))
    }
}

/// Where the server listens.
public enum HTTPListenAddress: Sendable, Hashable, CustomStringConvertible {
    /// An IPv4 or IPv6 literal and a port (0: the kernel picks a free one).
    case tcp(host: String, port: UInt16)
    /// A Unix-domain socket at a path (created with mode 0660; an existing socket file is replaced).
    case unix(path: String)

    public var description: String {
        switch self {
        case .tcp(let h, let p): return h.contains(":") ? "[\(h)]:\(p)" : "\(h):\(p)"
        case .unix(let path): return "unix:\(path)"
        }
    }

    /// Whether the address is reachable from this machine only (127.0.0.0/8, ::1, a Unix socket).
    public var isLoopback: Bool {
        switch self {
        case .unix: return true
        case .tcp(let h, _): return h == "::1" || h.hasPrefix("127.") || h == "localhost"
        }
    }
}

/// Limits that keep a slow or hostile client from holding the service.
public struct HTTPServerLimits: Sendable {
    /// Largest request body accepted (larger: 413 without reading it all into memory).
    public var maxBodyBytes: Int
    /// Paths whose body may be larger than `maxBodyBytes` (an image upload), each with its own limit.
    public var largeBodies: [String: Int]
    /// Open connections at most (further ones are refused by libmicrohttpd).
    public var maxConnections: Int
    /// Seconds a connection may stay idle (no byte in either direction) before it is closed.
    public var idleTimeoutSeconds: Int
    /// Bytes for the request line and headers of one request (libmicrohttpd's per-connection pool).
    public var headerMemoryBytes: Int
    /// Seconds between keep-alive comments on an idle event stream.
    public var keepAliveSeconds: Double
    /// Bytes a stream may hold unsent for a client that does not read before the stream is dropped.
    public var maxStreamBacklogBytes: Int

    public init(
        maxBodyBytes: Int = 16 * 1024, maxConnections: Int = 100, idleTimeoutSeconds: Int = 30,
        headerMemoryBytes: Int = 32 * 1024, keepAliveSeconds: Double = 10, maxStreamBacklogBytes: Int = 1 << 20,
        largeBodies: [String: Int] = [:]
    ) {
        self.maxBodyBytes = maxBodyBytes
        self.largeBodies = largeBodies
        self.maxConnections = maxConnections
        self.idleTimeoutSeconds = idleTimeoutSeconds
        self.headerMemoryBytes = headerMemoryBytes
        self.keepAliveSeconds = keepAliveSeconds
        self.maxStreamBacklogBytes = maxStreamBacklogBytes
    }

    /// The body limit for a request to `path` (without its query).
    public func maxBodyBytes(for path: String) -> Int { largeBodies[path] ?? maxBodyBytes }
}

public struct HTTPServerError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
