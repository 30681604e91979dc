import CMicroHTTPD
import CMicroHTTPDShims
import Glibc
import Synchronization

/// An HTTP/1.1 server on GNU libmicrohttpd, the only importer of it. One thread per connection (an
/// event stream blocks its own thread only), bounded connections, idle timeouts, bounded headers and
/// bodies; handlers see `HTTPRequest`/`HTTPResponse` and never a C type.
///
/// The handler is called on the connection's thread, after the whole body has arrived: keep it quick
/// (start long work elsewhere and answer at once, or answer with an `HTTPStream`).
public final class HTTPServer: Sendable {
    public typealias Handler = @Sendable (HTTPRequest) -> HTTPResponse

    /// The address actually listened on (with the port the kernel picked for port 0).
    public let address: HTTPListenAddress
    let handler: Handler
    let limits: HTTPServerLimits
    /// Builds the 413 answer (the service's error format).
    let tooLarge: @Sendable () -> HTTPResponse
    /// libmicrohttpd's daemon handle (only passed back to libmicrohttpd, which serialises its use)
    struct Daemon: @unchecked Sendable { let pointer: OpaquePointer }
    private let daemon: Mutex<Daemon?>
    private let streams = Mutex<[ObjectIdentifier: HTTPStream]>([:])

    public init(
        listen: HTTPListenAddress, limits: HTTPServerLimits = HTTPServerLimits(),
        tooLarge: @escaping @Sendable () -> HTTPResponse, handler: @escaping Handler
    ) throws(HTTPServerError) {
        let listener = try HTTPListener.open(listen)
        self.address = listener.bound
        self.handler = handler
        self.limits = limits
        self.tooLarge = tooLarge
        self.daemon = Mutex(nil)
        var settings = emrtd_mhd_settings(
            listen_fd: listener.fd, connection_limit: UInt32(limits.maxConnections),
            connection_timeout: UInt32(limits.idleTimeoutSeconds),
            memory_limit: limits.headerMemoryBytes, thread_stack_size: 512 * 1024)
        let me = Unmanaged.passUnretained(self).toOpaque()
        guard let d = emrtd_mhd_start(&settings, accessHandler, me, requestCompleted, me) else {
            Glibc.close(listener.fd)
            throw HTTPServerError("libmicrohttpd could not start on \(listener.bound)")
        }
        let handle = Daemon(pointer: d)
        daemon.withLock { $0 = handle }
    }

    /// Ends every open stream and stops the daemon (joins its threads). Idempotent.
    public func stop() {
        let open = streams.withLock { s in
            let v = Array(s.values)
            s.removeAll()
            return v
        }
        for stream in open { stream.close() }
        let d = daemon.withLock { d in
            let v = d
            d = nil
            return v
        }
        if let d {
            // MHD_stop_daemon closes the listening socket it was handed (MHD_OPTION_LISTEN_SOCKET): closing it here
            // again closed whatever descriptor another thread had opened under the same number meanwhile (seen in
            // the test suite: an HTTP client's socket of another test; in `emrtd serve`, a PC/SC or evidence file)
            MHD_stop_daemon(d.pointer)
        }
        if case .unix(let path) = address { unlink(path) }
    }

    deinit { stop() }

    // MARK: - Called from libmicrohttpd's threads

    func track(_ stream: HTTPStream) { streams.withLock { $0[ObjectIdentifier(stream)] = stream } }
    func untrack(_ stream: HTTPStream) { _ = streams.withLock { $0.removeValue(forKey: ObjectIdentifier(stream)) } }
    var isStopping: Bool { daemon.withLock { $0 == nil } }
}

/// One request's upload state, kept in libmicrohttpd's per-request pointer until the request completes.
final class UploadState {
    var body: [UInt8] = []
    var tooLarge = false
    /// The body limit of the request's path (`HTTPServerLimits.maxBodyBytes(for:)`).
    var limit = 0
}

/// The access handler: called once with the headers, once per body chunk, once more at the end.
private let accessHandler: MHD_AccessHandlerCallback = {
    cls, connection, url, method, _, uploadData, uploadDataSize, requestContext in
    guard let cls, let connection, let url, let method, let uploadDataSize, let requestContext else {
        return MHDCalls.no
    }
    let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
    guard requestContext.pointee != nil else {
        // first call: headers only. A declared body above the limit is refused before it is read.
        let state = UploadState()
        requestContext.pointee = Unmanaged.passRetained(state).toOpaque()
        state.limit = server.limits.maxBodyBytes(for: String(String(cString: url).prefix { $0 != "?" }))
        if let length = MHDCalls.value(connection, MHDCalls.headerKind, "Content-Length"),
            Int(length).map({ $0 > state.limit || $0 < 0 }) ?? true
        {
            state.tooLarge = true
            return MHDCalls.queue(connection, server.tooLarge(), server: server)
        }
        // the declared size at once: a growing body would leave copies of it (an image, access data) in freed memory
        if let length = MHDCalls.value(connection, MHDCalls.headerKind, "Content-Length").flatMap({ Int($0) }) {
            state.body.reserveCapacity(length)
        }
        return MHDCalls.yes
    }
    let state = Unmanaged<UploadState>.fromOpaque(requestContext.pointee!).takeUnretainedValue()
    if uploadDataSize.pointee > 0 {
        let n = uploadDataSize.pointee
        if !state.tooLarge, let uploadData {
            if state.body.count + n > state.limit {
                state.tooLarge = true
                state.body = []
            } else {
                uploadData.withMemoryRebound(to: UInt8.self, capacity: n) {
                    state.body.append(contentsOf: UnsafeBufferPointer(start: $0, count: n))
                }
            }
        }
        uploadDataSize.pointee = 0
        return MHDCalls.yes
    }
    if state.tooLarge { return MHDCalls.queue(connection, server.tooLarge(), server: server) }
    let full = String(cString: url)
    var request = HTTPRequest(
        method: String(cString: method),
        path: String(full.prefix { $0 != "?" }),
        query: MHDCalls.values(connection, MHDCalls.getArgumentKind, lowercased: false),
        headers: MHDCalls.values(connection, MHDCalls.headerKind, lowercased: true),
        body: state.body)
    state.body = []
    let response = server.handler(request)
    // the body may hold access data (an MRZ, a CAN): overwritten once handled, not merely released
    request.body.withUnsafeMutableBytes { if let p = $0.baseAddress { explicit_bzero(p, $0.count) } }
    return MHDCalls.queue(connection, response, server: server)
}

private let requestCompleted: MHD_RequestCompletedCallback = { _, _, requestContext, _ in
    guard let requestContext, let p = requestContext.pointee else { return }
    Unmanaged<UploadState>.fromOpaque(p).release()
    requestContext.pointee = nil
}

/// The stream's content reader: blocks this connection's thread until there is something to send.
private let streamReader: MHD_ContentReaderCallback = { cls, _, buffer, max in
    guard let cls, let buffer else { return emrtd_mhd_end_with_error() }
    let box = Unmanaged<StreamBox>.fromOpaque(cls).takeUnretainedValue()
    switch box.stream.read(into: UnsafeMutableRawBufferPointer(start: buffer, count: max)) {
    case .bytes(let n): return n
    case .end: return emrtd_mhd_end_of_stream()
    case .error: return emrtd_mhd_end_with_error()
    }
}

private let streamFree: MHD_ContentReaderFreeCallback = { cls in
    guard let cls else { return }
    let box = Unmanaged<StreamBox>.fromOpaque(cls).takeRetainedValue()
    box.server?.untrack(box.stream)
    box.stream.close()
}

final class StreamBox {
    let stream: HTTPStream
    weak var server: HTTPServer?
    init(stream: HTTPStream, server: HTTPServer) {
        self.stream = stream
        self.server = server
    }
}

/// One checked wrapper per libmicrohttpd call.
enum MHDCalls {
    static let yes = emrtd_mhd_yes()
    static let no = emrtd_mhd_no()
    static let headerKind = emrtd_mhd_header_kind()
    static let getArgumentKind = emrtd_mhd_get_argument_kind()

    /// One connection value (header, query argument) by name; nil when absent.
    static func value(_ c: OpaquePointer, _ kind: MHD_ValueKind, _ name: String) -> String? {
        MHD_lookup_connection_value(c, kind, name).map { String(cString: $0) }
    }

    /// Every value of a kind (header names lower-cased when asked).
    static func values(_ c: OpaquePointer, _ kind: MHD_ValueKind, lowercased: Bool) -> [String: String] {
        final class Collector {
            var values: [String: String] = [:]
            var lowercased = false
            var count = 0
        }
        let collector = Collector()
        collector.lowercased = lowercased
        let iterator: MHD_KeyValueIterator = { cls, _, key, value in
            guard let cls, let key else { return MHDCalls.yes }
            let c = Unmanaged<Collector>.fromOpaque(cls).takeUnretainedValue()
            c.count += 1
            guard c.count <= 200 else { return MHDCalls.no }  // the header pool bounds it already; belt and braces
            let k = String(cString: key)
            c.values[c.lowercased ? k.lowercased() : k] = value.map { String(cString: $0) } ?? ""
            return MHDCalls.yes
        }
        withExtendedLifetime(collector) {
            _ = MHD_get_connection_values(c, kind, iterator, Unmanaged.passUnretained(collector).toOpaque())
        }
        return collector.values
    }

    /// Builds the C response, adds the headers, queues it; MHDCalls.no (close the connection) on any failure.
    static func queue(_ c: OpaquePointer, _ response: HTTPResponse, server: HTTPServer) -> MHD_Result {
        let r: OpaquePointer?
        switch response.body {
        case .bytes(let bytes):
            r = bytes.withUnsafeBytes { b in
                MHD_create_response_from_buffer(
                    b.count, UnsafeMutableRawPointer(mutating: b.baseAddress), emrtd_mhd_respmem_must_copy())
            }
        case .stream(let stream):
            if server.isStopping {
                stream.close()
                return MHDCalls.no
            }
            stream.configure(limits: server.limits)
            server.track(stream)
            let box = Unmanaged.passRetained(StreamBox(stream: stream, server: server)).toOpaque()
            r = MHD_create_response_from_callback(emrtd_mhd_size_unknown(), 4096, streamReader, box, streamFree)
            if r == nil { streamFree(box) }
        }
        guard let r else { return MHDCalls.no }
        defer { MHD_destroy_response(r) }
        for (name, value) in response.headers {
            // libmicrohttpd refuses values with CR/LF (header injection): a refused header fails the response
            guard MHD_add_response_header(r, name, value) == MHDCalls.yes else { return MHDCalls.no }
        }
        return MHD_queue_response(c, UInt32(response.status), r)
    }
}
