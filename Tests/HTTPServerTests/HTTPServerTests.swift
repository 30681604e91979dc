import Foundation
import Glibc
import HTTPServer
import MRTDTestSupport
import Synchronization
import Testing

/// The embedded HTTP/1.1 server on its own, through real sockets: what a handler sees, what the client gets, and the
/// limits that keep a slow or hostile client from holding the service (docs/service.md, "Limits").
struct HTTPServerTests {
    static func tooLarge() -> HTTPResponse {
        HTTPResponse(status: 413, contentType: "application/json", bytes: Array(#"{"error":"too large"}"#.utf8))
    }

    static func port(_ server: HTTPServer) throws -> UInt16 {
        guard case .tcp(_, let port) = server.address else { throw Failure("not a TCP address: \(server.address)") }
        return port
    }

    @Test func aRequestReachesTheHandlerWholeAndItsAnswerReachesTheClient() throws {
        let seen = Mutex<HTTPRequest?>(nil)
        let server = try HTTPServer(listen: .tcp(host: "127.0.0.1", port: 0), tooLarge: Self.tooLarge) { request in
            seen.withLock { $0 = request }
            return HTTPResponse(
                status: 201, contentType: "text/plain", bytes: Array("made \(request.body.count)".utf8),
                headers: [("X-Test", "yes")])
        }
        defer { server.stop() }
        let response = try RawHTTP(port: try Self.port(server)).request(
            "POST", "/v1/things?x=1&y=two", token: "t0k", headers: ["X-Custom": "Value"], body: Array("hello".utf8))
        #expect(response.status == 201)
        #expect(response.text == "made 5")
        #expect(response.headers["x-test"] == "yes")
        #expect(response.headers["content-type"] == "text/plain")
        let request = try #require(seen.withLock { $0 })
        #expect(request.method == "POST")
        #expect(request.path == "/v1/things")
        #expect(request.query == ["x": "1", "y": "two"])
        #expect(request.header("X-Custom") == "Value")
        #expect(request.header("authorization") == "Bearer t0k")
        #expect(request.body == Array("hello".utf8))
    }

    @Test func aBodyOverTheLimitIsRefusedWithoutCallingTheHandler() throws {
        let calls = Atomic<Int>(0)
        let server = try HTTPServer(
            listen: .tcp(host: "127.0.0.1", port: 0), limits: HTTPServerLimits(maxBodyBytes: 1024),
            tooLarge: Self.tooLarge
        ) { _ in
            calls.add(1, ordering: .relaxed)
            return HTTPResponse(status: 200)
        }
        defer { server.stop() }
        let http = RawHTTP(port: try Self.port(server))
        let refused = try http.request("POST", "/", token: nil, body: [UInt8](repeating: 0x41, count: 4096))
        #expect(refused.status == 413)
        #expect(refused.text.contains("too large"))
        #expect(calls.load(ordering: .relaxed) == 0)
        // at the limit it is taken
        let taken = try http.request("POST", "/", token: nil, body: [UInt8](repeating: 0x41, count: 1024))
        #expect(taken.status == 200)
        #expect(calls.load(ordering: .relaxed) == 1)
    }

    @Test func aPathWithALimitOfItsOwnTakesALargerBodyAndOnlyThatPath() throws {
        let sizes = Mutex<[Int]>([])
        let server = try HTTPServer(
            listen: .tcp(host: "127.0.0.1", port: 0),
            limits: HTTPServerLimits(maxBodyBytes: 1024, largeBodies: ["/upload": 8192]), tooLarge: Self.tooLarge
        ) { request in
            sizes.withLock { $0.append(request.body.count) }
            return HTTPResponse(status: 200)
        }
        defer { server.stop() }
        let http = RawHTTP(port: try Self.port(server))
        let body = [UInt8](repeating: 0x41, count: 4096)
        #expect(try http.request("POST", "/upload", token: nil, body: body).status == 200)
        #expect(try http.request("POST", "/upload?x=1", token: nil, body: body).status == 200)
        #expect(try http.request("POST", "/upload", token: nil, body: body + body + [0]).status == 413)
        #expect(try http.request("POST", "/other", token: nil, body: body).status == 413)
        #expect(try http.request("POST", "/upload/more", token: nil, body: body).status == 413)
        #expect(sizes.withLock { $0 } == [4096, 4096])
    }

    @Test func aStreamSendsWhatTheHandlerFeedsItAndEndsOnFinish() throws {
        let stream = HTTPStream()
        let server = try HTTPServer(listen: .tcp(host: "127.0.0.1", port: 0), tooLarge: Self.tooLarge) { _ in
            HTTPResponse(status: 200, headers: [("Content-Type", "text/event-stream")], body: .stream(stream))
        }
        defer { server.stop() }
        let feeder = Thread {
            Thread.sleep(forTimeInterval: 0.2)
            stream.send(Array("event: one\ndata: {}\n\n".utf8))
            stream.send(Array("event: two\ndata: {}\n\n".utf8))
            stream.finish()
        }
        feeder.start()
        let response = try RawHTTP(port: try Self.port(server)).request("GET", "/events", token: nil)
        #expect(response.status == 200)
        #expect(response.headers["content-type"] == "text/event-stream")
        #expect(response.text == "event: one\ndata: {}\n\nevent: two\ndata: {}\n\n")
        #expect(!stream.isOpen)
        #expect(stream.send([0x41]) == false, "a finished stream takes no more bytes")
    }

    @Test func aStreamWhoseClientDoesNotReadIsDroppedAtTheBacklogLimit() throws {
        let stream = HTTPStream()
        let server = try HTTPServer(
            listen: .tcp(host: "127.0.0.1", port: 0), limits: HTTPServerLimits(maxStreamBacklogBytes: 64 * 1024),
            tooLarge: Self.tooLarge
        ) { _ in HTTPResponse(status: 200, headers: [("Content-Type", "text/event-stream")], body: .stream(stream)) }
        defer { server.stop() }
        let port = try Self.port(server)
        let fd = try RawHTTP.connect(port: port)
        defer { close(fd) }
        try RawHTTP.send(fd, RawHTTP(port: port).head("GET", "/", token: nil, host: nil, headers: [:], body: nil))
        // the client never reads: the socket buffers fill, then the stream's backlog, then it is dropped
        var accepted = true
        var sent = 0
        let chunk = [UInt8](repeating: 0x61, count: 16 * 1024)
        while accepted && sent < 64 * 1024 * 1024 {
            accepted = stream.send(chunk)
            sent += chunk.count
            if sent % (1024 * 1024) == 0 { Thread.sleep(forTimeInterval: 0.01) }
        }
        #expect(!accepted, "the stream was never dropped after \(sent) bytes")
        #expect(!stream.isOpen)
    }

    @Test func anIdleConnectionIsClosedAfterTheIdleTimeout() throws {
        let server = try HTTPServer(
            listen: .tcp(host: "127.0.0.1", port: 0), limits: HTTPServerLimits(idleTimeoutSeconds: 1),
            tooLarge: Self.tooLarge
        ) { _ in HTTPResponse(status: 200) }
        defer { server.stop() }
        let fd = try RawHTTP.connect(port: try Self.port(server), timeout: 20)
        defer { close(fd) }
        try RawHTTP.send(fd, Array("GET / HTTP/1.1\r\n".utf8))  // half a request, then silence
        var buffer = [UInt8](repeating: 0, count: 64)
        let started = ContinuousClock.now
        let n = recv(fd, &buffer, buffer.count, 0)
        #expect(n <= 0, "the server answered a half request")
        #expect(ContinuousClock.now - started < .seconds(15), "closed by the idle timeout, not the client's own")
    }

    @Test func aUnixSocketIsCreatedForTheOwnerAndGroupOnly() throws {
        let dir = TemporaryFolder.make("http")
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("s.sock").path
        let server = try HTTPServer(listen: .unix(path: path), tooLarge: Self.tooLarge) { _ in
            HTTPResponse(status: 204)
        }
        var st = stat()
        #expect(stat(path, &st) == 0)
        #expect(st.st_mode & S_IFMT == S_IFSOCK)
        #expect(st.st_mode & 0o777 == 0o660, "mode \(String(st.st_mode & 0o777, radix: 8))")
        #expect(server.address.isLoopback)
        server.stop()
    }

    @Test func stopIsIdempotentAndTheAddressRefusesConnectionsAfterwards() throws {
        let server = try HTTPServer(listen: .tcp(host: "127.0.0.1", port: 0), tooLarge: Self.tooLarge) { _ in
            HTTPResponse(status: 204)
        }
        let port = try Self.port(server)
        #expect(try RawHTTP(port: port).request("GET", "/", token: nil).status == 204)
        server.stop()
        server.stop()
        #expect(throws: Failure.self) { try RawHTTP.connect(port: port, timeout: 2) }
    }

    @Test func anAddressInUseIsAnErrorThatNamesIt() throws {
        let first = try HTTPServer(listen: .tcp(host: "127.0.0.1", port: 0), tooLarge: Self.tooLarge) { _ in
            HTTPResponse(status: 204)
        }
        defer { first.stop() }
        let port = try Self.port(first)
        do {
            let second = try HTTPServer(listen: .tcp(host: "127.0.0.1", port: port), tooLarge: Self.tooLarge) { _ in
                HTTPResponse(status: 204)
            }
            second.stop()
            Issue.record("a second server started on a port in use")
        } catch {
            #expect(error.description.contains("\(port)"), "\(error.description)")
        }
    }
}
