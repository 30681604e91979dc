import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `HTTPTransport` over URLSession (FoundationNetworking on Linux).
///
/// - An ephemeral session: no cookies, no cache, no stored credentials.
/// - Redirects are **not** followed (a bearer token must not travel to another place); a 3xx is
///   returned as is and the clients report it as an unexpected status.
/// - Each request has a hard deadline (`HTTPClientRequest.timeout`) enforced here as well as by
///   URLSession's own idle timeout, so a server that accepts and never answers cannot hang a caller.
/// - Cancellation of the calling task cancels the request.
public final class URLSessionHTTPTransport: HTTPTransport, @unchecked Sendable {
    private let session: URLSession
    private let delegate: NoRedirectDelegate

    public init() {
        let config = URLSessionConfiguration.ephemeral
        config.requestCachePolicy = .reloadIgnoringLocalAndRemoteCacheData
        config.urlCache = nil
        config.httpCookieStorage = nil
        config.httpShouldSetCookies = false
        config.urlCredentialStorage = nil
        delegate = NoRedirectDelegate()
        session = URLSession(configuration: config, delegate: delegate, delegateQueue: nil)
    }

    deinit {
        session.invalidateAndCancel()
    }

    public func send(_ request: HTTPClientRequest) async throws -> HTTPClientResponse {
        var r = URLRequest(url: request.url)
        r.httpMethod = request.method
        // FoundationNetworking truncates sub-second intervals to whole seconds (0 fires at once):
        // give URLSession a whole number of seconds ≥ 1; the deadline below is exact.
        r.timeoutInterval = max(1, request.timeout.rounded(.up))
        for (k, v) in request.headers { r.setValue(v, forHTTPHeaderField: k) }
        r.httpBody = request.body
        let urlRequest = r
        let state = RequestState()
        let timeout = request.timeout
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation {
                (continuation: CheckedContinuation<HTTPClientResponse, any Error>) in
                state.install(continuation)
                let task = session.dataTask(with: urlRequest) { data, response, error in
                    if let error {
                        state.finish(.failure(Self.map(error, timeout: timeout)))
                        return
                    }
                    guard let http = response as? HTTPURLResponse else {
                        state.finish(.failure(HTTPTransportError.connectionFailed("no HTTP response")))
                        return
                    }
                    var headers: [String: String] = [:]
                    for (k, v) in http.allHeaderFields {
                        if let k = k as? String, let v = v as? String { headers[k] = v }
                    }
                    state.finish(
                        .success(HTTPClientResponse(status: http.statusCode, headers: headers, body: data ?? Data())))
                }
                state.attach(task)
                task.resume()
                DispatchQueue.global().asyncAfter(deadline: .now() + timeout) {
                    state.finish(.failure(HTTPTransportError.timeout(seconds: timeout)))
                }
            }
        } onCancel: {
            state.finish(.failure(HTTPTransportError.cancelled))
        }
    }

    private static func map(_ error: any Error, timeout: Double) -> any Error {
        if let e = error as? URLError {
            switch e.code {
            case .timedOut: return HTTPTransportError.timeout(seconds: timeout)
            case .cancelled: return HTTPTransportError.cancelled
            default: return HTTPTransportError.connectionFailed("URLError \(e.code.rawValue)")
            }
        }
        return HTTPTransportError.connectionFailed(String(describing: type(of: error)))
    }
}

/// Resumes the continuation exactly once (answer, timeout or cancellation, whichever is first) and
/// cancels the data task when the answer did not win.
private final class RequestState: @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: CheckedContinuation<HTTPClientResponse, any Error>?
    private var task: URLSessionDataTask?
    private var done = false
    private var pending: Result<HTTPClientResponse, any Error>?

    func install(_ c: CheckedContinuation<HTTPClientResponse, any Error>) {
        lock.lock()
        if let pending {
            lock.unlock()
            c.resume(with: pending)
            return
        }
        continuation = c
        lock.unlock()
    }

    func attach(_ t: URLSessionDataTask) {
        lock.lock()
        let cancelNow = done
        task = t
        lock.unlock()
        if cancelNow { t.cancel() }
    }

    func finish(_ result: Result<HTTPClientResponse, any Error>) {
        lock.lock()
        if done {
            lock.unlock()
            return
        }
        done = true
        let c = continuation
        continuation = nil
        let t = task
        if c == nil { pending = result }
        lock.unlock()
        if case .failure = result { t?.cancel() }
        c?.resume(with: result)
    }
}

private final class NoRedirectDelegate: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }
}
