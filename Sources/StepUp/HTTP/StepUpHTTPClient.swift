public import Foundation

/// Bounded retries for rate limiting and temporary unavailability.
///
/// Only **429** and **503** are retried — never another 4xx, never another 5xx (a POST that failed
/// with 500 may have had effects), never a timeout. The wait is the response's `Retry-After`
/// (delta-seconds or an HTTP date, RFC 9110 §10.2.3) when present, else exponential backoff
/// (`baseDelay · 2^(attempt-1)`, capped at `maxDelay`). A `Retry-After` beyond `maxRetryAfter`
/// ends the retries at once (waiting that long would look like a hang).
public struct RetryPolicy: Sendable, Hashable {
    /// Total attempts including the first (1 = no retry).
    public var maxAttempts: Int
    public var baseDelay: Double
    public var maxDelay: Double
    public var maxRetryAfter: Double
    public var retriedStatuses: Set<Int>

    public init(
        maxAttempts: Int = 3, baseDelay: Double = 0.5, maxDelay: Double = 8, maxRetryAfter: Double = 30,
        retriedStatuses: Set<Int> = [429, 503]
    ) {
        self.maxAttempts = max(1, maxAttempts)
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.maxRetryAfter = maxRetryAfter
        self.retriedStatuses = retriedStatuses
    }

    public static let `default` = RetryPolicy()
    public static let none = RetryPolicy(maxAttempts: 1)

    /// Seconds to wait before attempt `attempt + 1`, or nil to stop.
    public func delay(afterAttempt attempt: Int, retryAfter: String?, now: Date) -> Double? {
        guard attempt < maxAttempts else { return nil }
        if let retryAfter, let seconds = Self.parseRetryAfter(retryAfter, now: now) {
            return seconds <= maxRetryAfter ? seconds : nil
        }
        return min(maxDelay, baseDelay * pow(2, Double(attempt - 1)))
    }

    /// `Retry-After` as seconds: delta-seconds or an IMF-fixdate; nil when unparsable.
    public static func parseRetryAfter(_ value: String, now: Date) -> Double? {
        let v = value.trimmingCharacters(in: .whitespaces)
        if let s = Int(v), s >= 0 { return Double(s) }
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "GMT")
        f.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        guard let d = f.date(from: v) else { return nil }
        return max(0, d.timeIntervalSince(now))
    }
}

/// Where the glue's log lines go. Every line has passed the request's `Redactor`.
public struct StepUpLogger: Sendable {
    public let sink: @Sendable (String) -> Void
    public init(_ sink: @escaping @Sendable (String) -> Void) { self.sink = sink }
    public static let none = StepUpLogger { _ in }
    func log(_ line: String, _ redactor: Redactor) { sink(redactor.redact(line)) }
}

/// The HTTP plumbing shared by every step-up client: timeout, bounded retries, `X-TRACE-ID`,
/// mapping of failures onto `StepUpError`, redaction of logs and of copied response text.
public struct StepUpHTTPClient: Sendable {
    public var transport: any HTTPTransport
    public var timeout: Double
    public var retry: RetryPolicy
    public var logger: StepUpLogger
    /// How the client waits between attempts (tests record instead of sleeping).
    public var sleep: @Sendable (Double) async throws -> Void
    public var now: @Sendable () -> Date

    public init(
        transport: any HTTPTransport = URLSessionHTTPTransport(), timeout: Double = 30,
        retry: RetryPolicy = .default, logger: StepUpLogger = .none,
        sleep: @escaping @Sendable (Double) async throws -> Void = { s in
            try await Task.sleep(nanoseconds: UInt64(max(0, s) * 1_000_000_000))
        },
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.transport = transport
        self.timeout = timeout
        self.retry = retry
        self.logger = logger
        self.sleep = sleep
        self.now = now
    }

    /// Sends with retries; returns a 2xx response or throws a `StepUpError` for `step`.
    public func send(_ request: HTTPClientRequest, step: StepUpError.Step, redactor: Redactor) async throws
        -> HTTPClientResponse
    {
        var request = request
        request.timeout = timeout
        let target = Self.describe(request.url)
        var attempt = 0
        while true {
            attempt += 1
            logger.log("stepup http: \(request.method) \(target) (attempt \(attempt))", redactor)
            let started = now()
            let response: HTTPClientResponse
            do {
                response = try await transport.send(request)
            } catch let e as HTTPTransportError {
                logger.log("stepup http: \(request.method) \(target) failed: \(e)", redactor)
                switch e {
                case .timeout(let s):
                    throw StepUpError(
                        .timeout, step: step, expected: "an answer within \(Self.seconds(s)) s",
                        reason: "no answer from \(target) within \(Self.seconds(s)) s")
                case .cancelled:
                    throw StepUpError(.cancelled, step: step, reason: "the request to \(target) was cancelled")
                case .connectionFailed(let why):
                    throw StepUpError(
                        .transportFailure, step: step,
                        reason: "could not talk to \(target): \(redactor.redact(why))")
                }
            } catch {
                throw StepUpError(
                    .transportFailure, step: step,
                    reason: "could not talk to \(target): \(String(describing: type(of: error)))")
            }
            let ms = Int(now().timeIntervalSince(started) * 1000)
            logger.log(
                "stepup http: \(request.method) \(target) → \(response.status) in \(ms) ms"
                    + (response.traceId.map { " trace \($0)" } ?? ""), redactor)
            if (200..<300).contains(response.status) { return response }
            if retry.retriedStatuses.contains(response.status),
                let wait = retry.delay(afterAttempt: attempt, retryAfter: response.header("Retry-After"), now: now())
            {
                logger.log("stepup http: HTTP \(response.status), retrying in \(Self.seconds(wait)) s", redactor)
                do { try await sleep(wait) } catch {
                    throw StepUpError(.cancelled, step: step, reason: "cancelled while waiting to retry \(target)")
                }
                continue
            }
            throw Self.statusError(
                response, step: step, target: "\(request.method) \(target)", redactor: redactor,
                attempts: attempt)
        }
    }

    /// Sends and decodes a 2xx JSON body as a `JSONValue`; a non-JSON body is `nonJSONResponse`.
    public func sendForJSON(_ request: HTTPClientRequest, step: StepUpError.Step, redactor: Redactor) async throws
        -> (JSONValue, HTTPClientResponse)
    {
        let response = try await send(request, step: step, redactor: redactor)
        guard let v = try? JSONValue.parse(response.body) else {
            throw StepUpError(
                .nonJSONResponse, step: step, expected: "a JSON body",
                reason: "\(request.method) \(Self.describe(request.url)) answered HTTP \(response.status) "
                    + "with a body that is not JSON (content-type "
                    + "\(redactor.redact(response.header("Content-Type") ?? "none")))",
                httpStatus: response.status, traceId: response.traceId)
        }
        return (v, response)
    }

    /// Maps a non-2xx response onto the error of its status class, keeping Signicat's error object
    /// (redacted) and the trace id.
    static func statusError(
        _ response: HTTPClientResponse, step: StepUpError.Step, target: String, redactor: Redactor,
        attempts: Int
    ) -> StepUpError {
        let remote = SignicatErrorObject.parse(response.body)?.redacted(by: redactor)
        let code: StepUpError.Code
        switch response.status {
        case 401: code = .httpUnauthorized
        case 403: code = .httpForbidden
        case 404: code = .httpNotFound
        case 429: code = .httpRateLimited
        case 500...599: code = .httpServerError
        default: code = .httpUnexpectedStatus
        }
        var reason = "\(target) answered HTTP \(response.status)"
        if attempts > 1 { reason += " after \(attempts) attempts" }
        if remote == nil && !response.body.isEmpty { reason += " (body is not a Signicat error object)" }
        if code == .httpRateLimited, let ra = response.header("Retry-After") {
            reason += " (Retry-After: \(redactor.redact(ra)))"
        }
        return StepUpError(
            code, step: step, expected: "a 2xx answer", reason: reason, httpStatus: response.status,
            traceId: response.traceId.map(redactor.redact) ?? remote?.traceId, remoteError: remote)
    }

    /// scheme://host[:port]/path — never the query (which could carry something private).
    public static func describe(_ url: URL) -> String {
        guard let c = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return "<url>" }
        var s = "\(c.scheme ?? "?")://\(c.host ?? "?")"
        if let p = c.port { s += ":\(p)" }
        return s + c.percentEncodedPath
    }

    static func seconds(_ s: Double) -> String {
        s == s.rounded() ? String(Int(s)) : String(format: "%.2f", s)
    }
}
