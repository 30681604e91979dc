public import Foundation

/// One HTTP request as the step-up clients build it.
public struct HTTPClientRequest: Sendable, Hashable {
    public var method: String
    public var url: URL
    /// Header names as written; matching is case-insensitive on the wire.
    public var headers: [String: String]
    public var body: Data?
    /// Seconds before the request is abandoned with `HTTPTransportError.timeout`.
    public var timeout: TimeInterval

    public init(
        method: String, url: URL, headers: [String: String] = [:], body: Data? = nil, timeout: TimeInterval = 30
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }
}

/// One HTTP response. Header names are stored in lower case.
public struct HTTPClientResponse: Sendable, Hashable {
    public var status: Int
    public var headers: [String: String]
    public var body: Data

    public init(status: Int, headers: [String: String] = [:], body: Data = Data()) {
        self.status = status
        var h: [String: String] = [:]
        for (k, v) in headers { h[k.lowercased()] = v }
        self.headers = h
        self.body = body
    }

    public func header(_ name: String) -> String? { headers[name.lowercased()] }

    /// `X-TRACE-ID`, Signicat's correlation header.
    public var traceId: String? { header("X-TRACE-ID") }
}

/// Failures below HTTP. Their descriptions never include headers or bodies.
public enum HTTPTransportError: Error, Hashable, Sendable {
    /// No complete answer within the request's timeout.
    case timeout(seconds: Double)
    /// Connection refused, reset, DNS failure, TLS failure…
    case connectionFailed(String)
    /// The surrounding task was cancelled.
    case cancelled
}

/// The small seam between the step-up clients and the network (docs/architecture.md §2): the executable
/// chooses the concrete transport (`URLSessionHTTPTransport`), tests may script one.
public protocol HTTPTransport: Sendable {
    func send(_ request: HTTPClientRequest) async throws -> HTTPClientResponse
}
