public import Foundation

/// An API client's credentials (Signicat Dashboard → API client). The secret is a `SecretString`.
public struct ClientCredentials: Sendable, Hashable {
    public var clientId: String
    public var clientSecret: SecretString

    public init(clientId: String, clientSecret: SecretString) {
        self.clientId = clientId
        self.clientSecret = clientSecret
    }

    /// RFC 6749 §2.3.1: `Basic base64(urlencode(client_id) ":" urlencode(client_secret))`.
    var basicAuthorization: String {
        let pair = FormEncoding.encode(clientId) + ":" + FormEncoding.encode(clientSecret.reveal())
        return "Basic " + Data(pair.utf8).base64EncodedString()
    }

    /// A redactor that masks the secret and the Basic credential.
    public var redactor: Redactor {
        var r = Redactor()
        r.add(clientSecret)
        r.add(String(basicAuthorization.dropFirst("Basic ".count)))
        return r
    }
}

/// `application/x-www-form-urlencoded` encoding (WHATWG URL §5.2): unreserved characters kept,
/// space as `+`, everything else percent-encoded.
enum FormEncoding {
    static func encode(_ s: String) -> String {
        var out = ""
        for b in s.utf8 {
            switch b {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
                UInt8(ascii: "_"), UInt8(ascii: "*"):
                out.append(Character(UnicodeScalar(b)))
            case UInt8(ascii: " "):
                out.append("+")
            default:
                out += String(format: "%%%02X", b)
            }
        }
        return out
    }

    static func body(_ pairs: [(String, String)]) -> String {
        pairs.map { encode($0.0) + "=" + encode($0.1) }.joined(separator: "&")
    }
}

/// OAuth 2.0 client-credentials token client (RFC 6749 §4.4) for Signicat's API (docs/architecture.md §8.1 item 1,
/// [doc]): `POST https://api.signicat.com/auth/open/connect/token`, HTTP Basic
/// `client_id:client_secret`, form body `grant_type=client_credentials&scope=signicat-api`.
///
/// The token is cached until shortly before it expires: it is reused while
/// `now < issued + expires_in − margin`, with `margin = min(refreshMargin, expires_in / 2)`. An
/// answer without `expires_in` is not cached. Concurrent callers share one request.
public actor OAuthTokenClient {
    /// Signicat's token endpoint [doc].
    public static let defaultTokenURL = URL(string: "https://api.signicat.com/auth/open/connect/token")!
    /// The scope of Signicat's APIs [doc].
    public static let defaultScope = "signicat-api"

    public nonisolated let tokenURL: URL
    public nonisolated let credentials: ClientCredentials
    public nonisolated let scope: String
    public nonisolated let refreshMargin: Double
    private let http: StepUpHTTPClient

    private var cached: (token: SecretString, validUntil: Date)?
    private var inFlight: Task<(SecretString, Double?), any Error>?
    private var extraSecrets = Redactor()

    public init(
        tokenURL: URL = OAuthTokenClient.defaultTokenURL, credentials: ClientCredentials,
        scope: String = OAuthTokenClient.defaultScope, refreshMargin: Double = 30, http: StepUpHTTPClient
    ) {
        self.tokenURL = tokenURL
        self.credentials = credentials
        self.scope = scope
        self.refreshMargin = refreshMargin
        self.http = http
    }

    /// Masks the client secret, the Basic credential and every access token handed out so far.
    public var redactor: Redactor { credentials.redactor.adding(extraSecrets) }

    /// True when the next `accessToken()` will be answered from the cache.
    public var hasValidCachedToken: Bool {
        guard let cached else { return false }
        return http.now() < cached.validUntil
    }

    /// Forgets the cached token (after a 401 with it, say).
    public func invalidate() { cached = nil }

    /// A valid access token: the cached one, or a fresh one from the token endpoint.
    public func accessToken() async throws -> SecretString {
        if let cached, http.now() < cached.validUntil { return cached.token }
        if let inFlight { return try await inFlight.value.0 }
        let http = self.http
        let request = makeRequest()
        let redactor = self.redactor
        let task = Task { try await Self.fetch(request, http: http, redactor: redactor) }
        inFlight = task
        defer { inFlight = nil }
        let issuedAt = http.now()
        let (token, expiresIn) = try await task.value
        extraSecrets.add(token)
        if let expiresIn, expiresIn > 0 {
            let margin = min(refreshMargin, expiresIn / 2)
            cached = (token, issuedAt.addingTimeInterval(expiresIn - margin))
        } else {
            cached = nil
        }
        return token
    }

    private func makeRequest() -> HTTPClientRequest {
        HTTPClientRequest(
            method: "POST", url: tokenURL,
            headers: [
                "Authorization": credentials.basicAuthorization,
                "Content-Type": "application/x-www-form-urlencoded",
                "Accept": "application/json",
            ],
            body: Data(FormEncoding.body([("grant_type", "client_credentials"), ("scope", scope)]).utf8))
    }

    private static func fetch(_ request: HTTPClientRequest, http: StepUpHTTPClient, redactor: Redactor) async throws
        -> (SecretString, Double?)
    {
        let (json, response) = try await http.sendForJSON(request, step: .accessToken, redactor: redactor)
        guard case .object(let o) = json else {
            throw StepUpError(
                .invalidResponse, step: .accessToken, expected: "a JSON object",
                reason: "the token endpoint answered JSON \(json.typeName)",
                httpStatus: response.status, traceId: response.traceId)
        }
        guard let token = o["access_token"]?.stringValue, !token.isEmpty else {
            throw StepUpError(
                .invalidResponse, step: .accessToken, field: "access_token",
                expected: "a non-empty string", reason: "the token answer has no access_token",
                httpStatus: response.status, traceId: response.traceId)
        }
        if let type = o["token_type"]?.stringValue, type.lowercased() != "bearer" {
            throw StepUpError(
                .invalidResponse, step: .accessToken, field: "token_type", expected: "\"Bearer\"",
                reason: "unsupported token type \"\(redactor.redact(type).prefix(32))\"",
                httpStatus: response.status, traceId: response.traceId)
        }
        var expiresIn: Double?
        switch o["expires_in"] {
        case .integer(let i)?: expiresIn = Double(i)
        case .number(let d)?: expiresIn = d
        case .string(let s)?: expiresIn = Double(s)
        default: expiresIn = nil
        }
        return (SecretString(token), expiresIn)
    }
}
