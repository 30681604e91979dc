import Foundation
import Glibc
import HTTPServer
import MRTDTestSupport
import Testing

/// The idle-connection timeout (docs/service.md "Security": a connection idle for 30 s is closed): a client
/// that connects and sends nothing, or only part of a request, or keeps a finished connection open, cannot
/// hold a connection (and libmicrohttpd's thread for it). The server is the one `emrtd serve` runs, in this
/// process with a 1-second timeout so that the test takes seconds.
@Suite("HTTPServer: idle connections are closed after the idle timeout")
struct IdleTimeoutTests {
    static func server(idle: Int, keepAlive: Double = 10) throws -> (HTTPServer, UInt16) {
        let server = try HTTPServer(
            listen: .tcp(host: "127.0.0.1", port: 0),
            limits: HTTPServerLimits(idleTimeoutSeconds: idle, keepAliveSeconds: keepAlive),
            tooLarge: { HTTPResponse(status: 413) },
            handler: { request in
                if request.path == "/stream" {
                    return HTTPResponse(
                        status: 200, headers: [("Content-Type", "text/event-stream")], body: .stream(HTTPStream()))
                }
                return HTTPResponse(status: 200, contentType: "text/plain", bytes: Array("ok".utf8))
            })
        guard case .tcp(_, let port) = server.address else { throw Failure("not a TCP address") }
        return (server, port)
    }

    /// Reads until the server closes the connection (or `limit` seconds pass): the seconds it took and the bytes.
    static func untilClosed(_ fd: Int32, limit: Double) -> (seconds: Double, bytes: [UInt8], closed: Bool) {
        let start = ContinuousClock.now
        var data: [UInt8] = []
        var buf = [UInt8](repeating: 0, count: 4096)
        var tv = timeval(tv_sec: 0, tv_usec: 200_000)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        while ContinuousClock.now - start < .milliseconds(Int64(limit * 1000)) {
            let n = recv(fd, &buf, buf.count, 0)
            if n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
                let d = ContinuousClock.now - start
                return (Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18, data, true)
            }
            if n > 0 { data += buf[0..<n] }
        }
        return (limit, data, false)
    }

    @Test func theDocumentedDefaultIsThirtySeconds() {
        #expect(HTTPServerLimits().idleTimeoutSeconds == 30)
    }

    /// Starts a server with `idle` seconds of idle timeout, connects, sends `sending` (with the port filled in
    /// for PORT), then watches the connection for at most `limit` seconds.
    static func watch(idle: Int, keepAlive: Double = 10, sending: String?, limit: Double) throws -> (
        seconds: Double, text: String, closed: Bool
    ) {
        let (server, port) = try Self.server(idle: idle, keepAlive: keepAlive)
        defer { server.stop() }
        let fd = try RawHTTP.connect(port: port)
        defer { close(fd) }
        if let sending {
            try RawHTTP.send(fd, Array(sending.replacingOccurrences(of: "PORT", with: "\(port)").utf8))
        }
        let r = Self.untilClosed(fd, limit: limit)
        return (r.seconds, String(decoding: r.bytes, as: UTF8.self), r.closed)
    }

    @Test func aSilentConnectionIsClosed() throws {
        let r = try Self.watch(idle: 1, sending: nil, limit: 8)
        #expect(r.closed, "a connection that sent nothing was still open after 8 s")
        #expect(r.seconds >= 0.8, "closed after \(r.seconds) s: sooner than the idle timeout")
        #expect(r.text.isEmpty)
    }

    @Test func aRequestThatNeverEndsIsClosed() throws {
        // a slow client: the request line and one header, then nothing
        let r = try Self.watch(idle: 1, sending: "GET /x HTTP/1.1\r\nHost: 127.0.0.1:PORT\r\n", limit: 8)
        #expect(r.closed, "a half-sent request held its connection for 8 s")
        #expect(r.seconds >= 0.8)
        #expect(!r.text.contains(" 200 "), "the unfinished request was answered")
    }

    @Test func anIdleKeepAliveConnectionIsClosedAfterItsAnswer() throws {
        let r = try Self.watch(idle: 1, sending: "GET /x HTTP/1.1\r\nHost: 127.0.0.1:PORT\r\n\r\n", limit: 8)
        #expect(r.closed, "a kept-alive idle connection was still open after 8 s")
        #expect(r.text.hasPrefix("HTTP/1.1 200"), "\(r.text)")
    }

    @Test func theTimeoutIsWhatClosesThem() throws {
        // the same silent connection with a 30-second timeout is still open after 3 s
        let r = try Self.watch(idle: 30, sending: nil, limit: 3)
        #expect(!r.closed, "closed after \(r.seconds) s with a 30 s idle timeout")
    }

    @Test func anEventStreamWithKeepAlivesOutlivesTheTimeout() throws {
        // keep-alive comments are traffic: an event stream is not an idle connection
        let r = try Self.watch(
            idle: 1, keepAlive: 0.25, sending: "GET /stream HTTP/1.1\r\nHost: 127.0.0.1:PORT\r\n\r\n", limit: 3)
        #expect(!r.closed, "the stream was closed after \(r.seconds) s")
        #expect(r.text.components(separatedBy: ": keep-alive").count > 4)
    }
}
