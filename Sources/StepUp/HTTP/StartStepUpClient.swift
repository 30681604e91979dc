import CanonicalJSON
public import Foundation

/// Where ReuseID's start step-up lives.
///
/// - `baseURL`: `https://api.signicat.com/reuseid/` **[doc]**.
/// - `path`: `step-up` **[inferred]** — the exact path is not public; set it from your Signicat
///   onboarding material (CLI: `EMRTD_STEPUP_START_PATH`).
public struct StartStepUpConfiguration: Sendable, Hashable {
    public static let defaultBaseURL = URL(string: "https://api.signicat.com/reuseid/")!
    public static let defaultPath = "step-up"

    public var baseURL: URL
    public var path: String

    public init(
        baseURL: URL = StartStepUpConfiguration.defaultBaseURL, path: String = StartStepUpConfiguration.defaultPath
    ) {
        self.baseURL = baseURL
        self.path = path
    }

    /// `baseURL` joined with `path` (one `/` between them).
    public var endpoint: URL { URLPolicy.join(baseURL, path) }
}

/// ReuseID's answer to a start step-up. Its shape is not public: the onboarding twin answers
/// `{"data": {"status": "Pending", "transactionId", "userId", "dossierId", "processId", …}}` [doc], so
/// those fields are read from `data` (or the top level) when present and the whole body is kept.
public struct StartStepUpResponse: Sendable, Hashable {
    public var status: String?
    public var transactionId: String?
    public var userId: String?
    public var dossierId: String?
    public var processId: String?
    /// The whole answer, with known secrets redacted.
    public var body: JSONValue
    public var traceId: String?

    init(json: JSONValue, traceId: String?) {
        body = json
        self.traceId = traceId
        let fields = json["data"]?.objectValue ?? json.objectValue ?? [:]
        status = fields["status"]?.stringValue
        transactionId = fields["transactionId"]?.stringValue
        userId = fields["userId"]?.stringValue
        dossierId = fields["dossierId"]?.stringValue
        processId = fields["processId"]?.stringValue
    }
}

/// Starts a ReuseID step-up from the integrator's server (docs/architecture.md §8.1 item 1).
///
/// The request is validated first (no network call for a bad one). When it has no provider, the
/// client writes `signicatvideoid` explicitly — what ReuseID would choose anyway [doc] — so the
/// request on the wire says what will happen. A 401 with a cached token makes the client fetch a
/// fresh token and try once more.
public struct StartStepUpClient: Sendable {
    public var configuration: StartStepUpConfiguration
    public let tokens: OAuthTokenClient
    public var http: StepUpHTTPClient

    public init(
        configuration: StartStepUpConfiguration = StartStepUpConfiguration(), tokens: OAuthTokenClient,
        http: StepUpHTTPClient
    ) {
        self.configuration = configuration
        self.tokens = tokens
        self.http = http
    }

    public func start(_ request: StartStepUpRequest) async throws -> StartStepUpResponse {
        try request.validate()
        var wire = request
        if wire.provider == nil { wire.provider = .signicatVideoID }
        let endpoint = try URLPolicy.validate(
            configuration.endpoint.absoluteString, field: "startStepUpURL",
            step: .configuration)
        let body = try CanonicalJSON.data(wire, .compact)
        var retriedWithFreshToken = false
        while true {
            let wasCached = await tokens.hasValidCachedToken
            let token = try await tokens.accessToken()
            var redactor = await tokens.redactor
            redactor.add(token)
            let req = HTTPClientRequest(
                method: "POST", url: endpoint,
                headers: [
                    "Authorization": "Bearer " + token.reveal(),
                    "Content-Type": "application/json", "Accept": "application/json",
                ],
                body: body)
            do {
                let (json, response) = try await http.sendForJSON(req, step: .startStepUp, redactor: redactor)
                return StartStepUpResponse(json: json.redacted(by: redactor), traceId: response.traceId)
            } catch let e as StepUpError where e.code == .httpUnauthorized && wasCached && !retriedWithFreshToken {
                retriedWithFreshToken = true
                await tokens.invalidate()
            }
        }
    }
}
