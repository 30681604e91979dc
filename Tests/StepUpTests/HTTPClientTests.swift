import Foundation
import MRTDTestSupport
import Testing

@testable import StepUp

/// The real URLSession client against the stand-in server (docs/architecture.md §8.1 item 1, §2).
@Suite struct HTTPClientTests {
    func tokens(
        _ s: StandInServer, _ rec: Recorder, secret: String? = nil, clock: TestClock? = nil,
        margin: Double = 30, timeout: Double = 5
    ) -> OAuthTokenClient {
        OAuthTokenClient(
            tokenURL: URL(string: s.tokenURL)!,
            credentials: ClientCredentials(clientId: s.clientId, clientSecret: SecretString(secret ?? s.clientSecret)),
            refreshMargin: margin, http: makeHTTP(rec, timeout: timeout, clock: clock))
    }

    func startClient(_ s: StandInServer, _ rec: Recorder, timeout: Double = 5) -> StartStepUpClient {
        let http = makeHTTP(rec, timeout: timeout)
        return StartStepUpClient(
            configuration: StartStepUpConfiguration(baseURL: URL(string: s.reuseIDBaseURL)!),
            tokens: tokens(s, rec), http: http)
    }

    func startRequest() throws -> StartStepUpRequest {
        try StartStepUpRequest(
            userId: UUID(uuidString: "a1e26081-35b4-4557-a46a-ef50bc91672f")!,
            deviceId: "b1g73121-55c4-9238-l39j-ek60dc91872g")
    }

    // MARK: token client

    @Test func tokenRequestUsesBasicAuthAndFormBodyAndIsCached() async throws {
        let s = try StandInServer()
        defer { s.stop() }
        let rec = Recorder()
        let client = tokens(s, rec)
        let t1 = try await client.accessToken()
        let t2 = try await client.accessToken()
        #expect(t1 == t2)
        #expect(t1.reveal() == s.issuedTokens.first)
        let reqs = s.requests(to: "/auth/open/connect/token")
        #expect(reqs.count == 1)
        let r = try #require(reqs.first)
        #expect(r.method == "POST")
        #expect(
            r.header("Authorization") == "Basic " + Data("\(s.clientId):\(s.clientSecret)".utf8).base64EncodedString())
        #expect(r.header("Content-Type") == "application/x-www-form-urlencoded")
        #expect(r.bodyText == "grant_type=client_credentials&scope=signicat-api")
        expectNoSecret(rec.everything + "\(t1)", s.allSecrets)
    }

    @Test func tokenIsRefreshedShortlyBeforeExpiry() async throws {
        let s = try StandInServer()
        defer { s.stop() }
        s.expiresIn = 100
        let rec = Recorder()
        let clock = TestClock()
        let client = tokens(s, rec, clock: clock, margin: 30)
        let t1 = try await client.accessToken()
        clock.advance(69)  // 100 − 30 = 70 s of use
        #expect(try await client.accessToken() == t1)
        clock.advance(2)
        let t2 = try await client.accessToken()
        #expect(t2 != t1)
        #expect(s.requests(to: "/auth/open/connect/token").count == 2)
    }

    @Test func shortLivedTokenUsesHalfItsLifetime() async throws {
        let s = try StandInServer()
        defer { s.stop() }
        s.expiresIn = 20
        let rec = Recorder()
        let clock = TestClock()
        let client = tokens(s, rec, clock: clock, margin: 30)
        let t1 = try await client.accessToken()
        clock.advance(9)
        #expect(try await client.accessToken() == t1)
        clock.advance(2)
        #expect(try await client.accessToken() != t1)
    }

    @Test func concurrentCallersShareOneTokenRequest() async throws {
        let s = try StandInServer()
        defer { s.stop() }
        let client = tokens(s, Recorder())
        async let a = client.accessToken()
        async let b = client.accessToken()
        async let c = client.accessToken()
        let all = try await [a, b, c]
        #expect(Set(all).count == 1)
        #expect(s.requests(to: "/auth/open/connect/token").count == 1)
    }

    @Test func wrongClientSecretIsUnauthorizedWithoutLeakingIt() async throws {
        let s = try StandInServer()
        defer { s.stop() }
        let rec = Recorder()
        let wrong = "cs_wrong-secret-value-1234"
        let client = tokens(s, rec, secret: wrong)
        let e = await stepUpError { _ = try await client.accessToken() }
        #expect(e?.code == .httpUnauthorized)
        #expect(e?.step == .accessToken)
        #expect(e?.remoteError?.code == "invalid_client")
        expectNoSecret((e?.description ?? "") + rec.everything, [wrong, s.clientSecret])
    }

    static let tokenFailures: [Failure] = [
        Failure(
            name: "token 500", behaviors: [.text(500, "boom", contentType: "text/plain")], code: .httpServerError,
            status: 500, traceId: nil, attempts: 1, sleeps: []),
        Failure(
            name: "token 403 with Signicat error",
            behaviors: [.signicatError(403, code: "forbidden", title: "Forbidden", traceId: "tk-403")],
            code: .httpForbidden, status: 403, traceId: "tk-403", attempts: 1, sleeps: []),
        Failure(
            name: "token 429 then success",
            behaviors: [
                .signicatError(
                    429, code: "rate", title: "Too Many", traceId: "tk-429",
                    headers: ["Retry-After": "1"])
            ],
            code: .httpRateLimited, status: nil, traceId: nil, attempts: 2, sleeps: [1]),
        Failure(
            name: "token non-JSON", behaviors: [.text(200, "<html/>")], code: .nonJSONResponse, status: 200,
            traceId: nil,
            attempts: 1, sleeps: []),
        Failure(
            name: "token without access_token",
            behaviors: [.json(200, #"{"token_type": "Bearer", "expires_in": 600}"#)],
            code: .invalidResponse, status: 200, traceId: nil, attempts: 1, sleeps: []),
        Failure(
            name: "token of another type",
            behaviors: [.json(200, #"{"access_token": "at_mac-type-token", "token_type": "MAC"}"#)],
            code: .invalidResponse, status: 200, traceId: nil, attempts: 1, sleeps: []),
        Failure(
            name: "token timeout", behaviors: [.hang(seconds: 10)], code: .timeout, status: nil, traceId: nil,
            attempts: 1, sleeps: []),
    ]

    @Test(.timeLimit(.minutes(1)), arguments: tokenFailures)
    func tokenEndpointFailure(_ f: Failure) async throws {
        let s = try StandInServer()
        defer { s.stop() }
        for b in f.behaviors { s.script("/auth/open/connect/token", b) }
        let rec = Recorder()
        let client = tokens(s, rec, timeout: f.timeout)
        do {
            let t = try await client.accessToken()
            // only the "then success" case may succeed, after its retry
            #expect(f.status == nil && f.attempts == 2, "unexpected success")
            #expect(t.reveal() == s.issuedTokens.last)
        } catch let e as StepUpError {
            #expect(e.code == f.code, "\(e)")
            #expect(e.step == .accessToken)
            #expect(e.httpStatus == f.status)
            #expect(e.traceId == f.traceId)
            expectNoSecret(e.description, s.allSecrets + ["at_mac-type-token"])
        }
        #expect(s.requests(to: "/auth/open/connect/token").count == f.attempts)
        #expect(rec.sleeps == f.sleeps)
        expectNoSecret(rec.everything, s.allSecrets)
    }

    // MARK: start step-up

    @Test func startStepUpSendsDefaultProviderAndBearer() async throws {
        let s = try StandInServer()
        defer { s.stop() }
        let rec = Recorder()
        let response = try await startClient(s, rec).start(try startRequest())
        #expect(response.status == "Pending")
        #expect(response.processId == "0dca14cf-957d-46d9-b374-520f9c650859")
        #expect(response.userId == "a1e26081-35b4-4557-a46a-ef50bc91672f")
        #expect(response.traceId == "trace-start-ok")
        let r = try #require(s.requests(to: "/reuseid/step-up").first)
        #expect(r.header("Authorization") == "Bearer " + (s.issuedTokens.first ?? "?"))
        #expect(r.header("Content-Type") == "application/json")
        let body = try JSONValue.parse(r.body)
        #expect(body["provider"] == .string("signicatvideoid"))
        #expect(body["deviceId"] == .string("b1g73121-55c4-9238-l39j-ek60dc91872g"))
        #expect(body["userId"] == .string("a1e26081-35b4-4557-a46a-ef50bc91672f"))
        expectNoSecret(rec.everything, s.allSecrets)
    }

    @Test func startStepUpPathIsConfigurable() async throws {
        let s = try StandInServer()
        defer { s.stop() }
        let rec = Recorder()
        var client = startClient(s, rec)
        client.configuration.path = "/v9/other"
        let e = await stepUpError { _ = try await client.start(try startRequest()) }
        #expect(e?.code == .httpNotFound)
        #expect(s.requests(to: "/reuseid/v9/other").count == 1)
    }

    @Test func invalidStartRequestMakesNoCall() async throws {
        let s = try StandInServer()
        defer { s.stop() }
        var req = try startRequest()
        req.deviceId = ""
        let e = await stepUpError { _ = try await startClient(s, Recorder()).start(req) }
        #expect(e?.code == .invalidDeviceId)
        #expect(s.requests.isEmpty)
    }

    @Test func staleCachedTokenIsReplacedOnceAfter401() async throws {
        let s = try StandInServer()
        defer { s.stop() }
        let client = startClient(s, Recorder())
        _ = try await client.start(try startRequest())
        s.script(
            "/reuseid/step-up", .signicatError(401, code: "token_expired", title: "Unauthorized", traceId: "t-401"))
        _ = try await client.start(try startRequest())
        #expect(s.requests(to: "/auth/open/connect/token").count == 2)
        #expect(s.requests(to: "/reuseid/step-up").count == 3)
    }

    /// The failure matrix of docs/architecture.md §8.2 on the start step-up endpoint.
    struct Failure: Sendable, CustomTestStringConvertible {
        let name: String
        let behaviors: [StandInServer.Behavior]
        let code: StepUpError.Code
        let status: Int?
        let traceId: String?
        let attempts: Int
        let sleeps: [Double]
        var testDescription: String { name }
        /// The client's timeout: short only where the server hangs (the case under test), generous elsewhere
        /// so that a loaded machine answering slowly is not mistaken for a timeout.
        var timeout: Double {
            behaviors.contains {
                if case .hang = $0 { return true }
                return false
            } ? 0.5 : 10
        }
    }

    static let failures: [Failure] = [
        Failure(
            name: "401 with Signicat error",
            behaviors: [.signicatError(401, code: "unauthorized", title: "Unauthorized", traceId: "tr-401")],
            code: .httpUnauthorized, status: 401, traceId: "tr-401", attempts: 1, sleeps: []),
        Failure(
            name: "403 with Signicat error",
            behaviors: [.signicatError(403, code: "forbidden", title: "Forbidden", traceId: "tr-403")],
            code: .httpForbidden, status: 403, traceId: "tr-403", attempts: 1, sleeps: []),
        Failure(
            name: "404 with Signicat error",
            behaviors: [.signicatError(404, code: "user_not_found", title: "Not Found", traceId: "tr-404")],
            code: .httpNotFound, status: 404, traceId: "tr-404", attempts: 1, sleeps: []),
        Failure(
            name: "400 is never retried",
            behaviors: [.signicatError(400, code: "validation", title: "Bad Request", traceId: "tr-400")],
            code: .httpUnexpectedStatus, status: 400, traceId: "tr-400", attempts: 1, sleeps: []),
        Failure(
            name: "500 is not retried",
            behaviors: [.signicatError(500, code: "internal", title: "Error", traceId: "tr-500")],
            code: .httpServerError, status: 500, traceId: "tr-500", attempts: 1, sleeps: []),
        Failure(
            name: "429 with Retry-After, three times",
            behaviors: Array(
                repeating: .signicatError(
                    429, code: "rate_limited", title: "Too Many Requests", traceId: "tr-429",
                    headers: ["Retry-After": "2"]), count: 3),
            code: .httpRateLimited, status: 429, traceId: "tr-429", attempts: 3, sleeps: [2, 2]),
        Failure(
            name: "429 with a Retry-After too long to wait",
            behaviors: [
                .signicatError(
                    429, code: "rate_limited", title: "Too Many Requests", traceId: "tr-429b",
                    headers: ["Retry-After": "3600"])
            ],
            code: .httpRateLimited, status: 429, traceId: "tr-429b", attempts: 1, sleeps: []),
        Failure(
            name: "503 without Retry-After backs off, three times",
            behaviors: Array(repeating: .text(503, "busy"), count: 3),
            code: .httpServerError, status: 503, traceId: nil, attempts: 3, sleeps: [0.5, 1]),
        Failure(
            name: "timeout", behaviors: [.hang(seconds: 10)], code: .timeout, status: nil, traceId: nil, attempts: 1,
            sleeps: []),
        Failure(
            name: "non-JSON 200 body", behaviors: [.text(200, "<html>maintenance</html>")], code: .nonJSONResponse,
            status: 200, traceId: nil, attempts: 1, sleeps: []),
        Failure(
            name: "redirect is not followed",
            behaviors: [.respond(status: 302, headers: ["Location": "/elsewhere"], body: Data())],
            code: .httpUnexpectedStatus, status: 302, traceId: nil, attempts: 1, sleeps: []),
        Failure(
            name: "connection closed without answer", behaviors: [.drop], code: .transportFailure, status: nil,
            traceId: nil, attempts: 1, sleeps: []),
    ]

    @Test(.timeLimit(.minutes(5)), arguments: failures)
    func startStepUpFailure(_ f: Failure) async throws {
        let s = try StandInServer()
        defer { s.stop() }
        for b in f.behaviors { s.script("/reuseid/step-up", b) }
        let rec = Recorder()
        let e = await stepUpError { _ = try await startClient(s, rec, timeout: f.timeout).start(try startRequest()) }
        // no real wait happens: the client's sleeps are recorded and checked below (a hang is caught by the time limit,
        // which leaves room for the parallel suite holding the cooperative threads with minutes of computation)
        #expect(e?.code == f.code, "\(e.map(String.init(describing:)) ?? "nil")")
        #expect(e?.step == .startStepUp)
        #expect(e?.httpStatus == f.status)
        #expect(e?.traceId == f.traceId)
        #expect(e?.isRemote == true)
        #expect(s.requests(to: "/reuseid/step-up").count == f.attempts)
        #expect(s.requests(to: "/elsewhere").isEmpty)
        #expect(rec.sleeps == f.sleeps)
        if f.traceId != nil {
            #expect(e?.remoteError?.traceId == f.traceId)
            #expect(e?.remoteError?.invalidParams?.first?.name == "userId")
            #expect(e?.description.contains(f.traceId!) == true)
        }
        expectNoSecret((e?.description ?? "") + rec.everything + "\(String(describing: e))", s.allSecrets)
    }

    @Test func rateLimitThenSuccessWaitsRetryAfter() async throws {
        let s = try StandInServer()
        defer { s.stop() }
        s.script(
            "/reuseid/step-up",
            .signicatError(
                429, code: "rate_limited", title: "Too Many Requests", traceId: "t",
                headers: ["Retry-After": "1"]))
        let rec = Recorder()
        let response = try await startClient(s, rec).start(try startRequest())
        #expect(response.status == "Pending")
        #expect(rec.sleeps == [1])
        #expect(s.requests(to: "/reuseid/step-up").count == 2)
    }

    @Test func retryAfterAsHTTPDate() {
        let now = Date(timeIntervalSince1970: 1_800_000_000)  // 2027-01-15T08:00:00Z
        #expect(RetryPolicy.parseRetryAfter("Fri, 15 Jan 2027 08:00:07 GMT", now: now) == 7)
        #expect(RetryPolicy.parseRetryAfter("3", now: now) == 3)
        #expect(RetryPolicy.parseRetryAfter("soon", now: now) == nil)
        #expect(RetryPolicy().delay(afterAttempt: 3, retryAfter: "1", now: now) == nil)
    }

    @Test func tokenEchoedInRemoteErrorIsRedacted() async throws {
        let s = try StandInServer()
        defer { s.stop() }
        let rec = Recorder()
        let client = startClient(s, rec)
        _ = try await client.tokens.accessToken()
        let issued = try #require(s.issuedTokens.first)
        s.script(
            "/reuseid/step-up",
            .signicatError(
                403, code: "forbidden", title: "Forbidden for \(issued)",
                traceId: "tr", detail: "Bearer \(issued) lacks scope"))
        let e = await stepUpError { _ = try await client.start(try startRequest()) }
        #expect(e?.code == .httpForbidden)
        #expect(e?.remoteError?.detail?.contains(Redactor.mask) == true)
        expectNoSecret((e?.description ?? "") + rec.everything, s.allSecrets)
    }

    // MARK: VideoID

    @Test(arguments: ["", "/"])
    func videoIDRequestJoinsURLAndReturnsLaunchData(_ suffix: String) async throws {
        let s = try StandInServer()
        defer { s.stop() }
        let rec = Recorder()
        let op = try SignicatOperationDocument.decode(Data(Seeds.videoIDOperation(url: s.videoIDURL + suffix).utf8))
            .operation
        let launch = try await VideoIDClient(http: makeHTTP(rec)).authorize(op)
        #expect(launch.url == s.videoIDURL + suffix)
        #expect(launch.authorization.reveal() == s.videoIDAuthorization)
        #expect(launch.docType == 1 && launch.docTypes == [1, 2, 3] && launch.idDefault == 1)
        let r = try #require(s.requests.first)
        #expect(r.path == "/v2/videoid.request")
        #expect(r.header("Authorization") == "Bearer \(Seeds.token)")
        #expect(r.header("Content-Type") == "application/json")
        #expect(try JSONValue.parse(r.body) == Seeds.json(Seeds.videoIDRequest))
        expectNoSecret(rec.everything + "\(launch)", [Seeds.token, s.videoIDAuthorization])
        let printed = try #require(try JSONValue(encoding: launch).objectValue)
        #expect(Set(printed.keys) == ["id", "processId", "url", "authorization", "docType", "docTypes", "idDefault"])
        #expect(launch.id == "87a819bd-9419-417a-9e55-cab8789d4115")
    }

    @Test func urlJoining() {
        let cases = [
            ("https://h/v2", "https://h/v2/videoid.request"), ("https://h/v2/", "https://h/v2/videoid.request"),
            ("https://h", "https://h/videoid.request"), ("https://h/", "https://h/videoid.request"),
            ("https://h:8443/a/b//", "https://h:8443/a/b/videoid.request"),
            ("https://h/v2?x=1", "https://h/v2/videoid.request?x=1"),
        ]
        for (base, want) in cases {
            #expect(URLPolicy.join(URL(string: base)!, "videoid.request").absoluteString == want, "\(base)")
        }
        #expect(
            URLPolicy.join(URL(string: "https://h/reuseid/")!, "/step-up").absoluteString == "https://h/reuseid/step-up"
        )
    }

    static let videoIDFailures: [Failure] = [
        Failure(
            name: "401",
            behaviors: [.signicatError(401, code: "unauthorized", title: "Unauthorized", traceId: "v-401")],
            code: .httpUnauthorized, status: 401, traceId: "v-401", attempts: 1, sleeps: []),
        Failure(
            name: "403", behaviors: [.signicatError(403, code: "forbidden", title: "Forbidden", traceId: "v-403")],
            code: .httpForbidden, status: 403, traceId: "v-403", attempts: 1, sleeps: []),
        Failure(
            name: "404", behaviors: [.signicatError(404, code: "not_found", title: "Not Found", traceId: "v-404")],
            code: .httpNotFound, status: 404, traceId: "v-404", attempts: 1, sleeps: []),
        Failure(
            name: "429 then 429 then 429",
            behaviors: Array(
                repeating: .signicatError(
                    429, code: "rate", title: "Too Many", traceId: "v-429", headers: ["Retry-After": "1"]), count: 3),
            code: .httpRateLimited, status: 429, traceId: "v-429", attempts: 3, sleeps: [1, 1]),
        Failure(
            name: "500", behaviors: [.text(500, "oops", contentType: "text/plain")], code: .httpServerError,
            status: 500,
            traceId: nil, attempts: 1, sleeps: []),
        Failure(
            name: "timeout", behaviors: [.hang(seconds: 10)], code: .timeout, status: nil, traceId: nil, attempts: 1,
            sleeps: []),
        Failure(
            name: "non-JSON", behaviors: [.text(200, "not json")], code: .nonJSONResponse, status: 200, traceId: nil,
            attempts: 1, sleeps: []),
        Failure(
            name: "no authorization",
            behaviors: [
                .json(
                    200, #"{"id": "87a819bd-9419-417a-9e55-cab8789d4115"}"#,
                    headers: ["X-TRACE-ID": "v-noauth"])
            ],
            code: .missingAuthorization, status: 200, traceId: "v-noauth", attempts: 1, sleeps: []),
        Failure(
            name: "empty authorization", behaviors: [.json(200, #"{"id": "x", "authorization": ""}"#)],
            code: .missingAuthorization, status: 200, traceId: nil, attempts: 1, sleeps: []),
    ]

    @Test(.timeLimit(.minutes(1)), arguments: videoIDFailures)
    func videoIDFailure(_ f: Failure) async throws {
        let s = try StandInServer()
        defer { s.stop() }
        for b in f.behaviors { s.script("/v2/videoid.request", b) }
        let rec = Recorder()
        let op = try SignicatOperationDocument.decode(Data(Seeds.videoIDOperation(url: s.videoIDURL).utf8)).operation
        let e = await stepUpError { _ = try await VideoIDClient(http: makeHTTP(rec, timeout: f.timeout)).authorize(op) }
        #expect(e?.code == f.code, "\(e.map(String.init(describing:)) ?? "nil")")
        #expect(e?.step == .videoIDRequest)
        #expect(e?.httpStatus == f.status)
        #expect(e?.traceId == f.traceId)
        #expect(s.requests(to: "/v2/videoid.request").count == f.attempts)
        #expect(rec.sleeps == f.sleeps)
        expectNoSecret((e?.description ?? "") + rec.everything, [Seeds.token])
    }

    @Test func preOperationObjectCannotCallVideoID() async throws {
        let s = try StandInServer()
        defer { s.stop() }
        let op = try StepUpInput.parse(Data(Seeds.preOperationContext.utf8)).operation
        let e = await stepUpError { _ = try await VideoIDClient(http: makeHTTP(Recorder())).authorize(op) }
        #expect(e?.code == .notReadyForProofing)
        #expect(e?.missingFields == ["version", "token", "url", "processId"])
        #expect(s.requests.isEmpty)
    }

    // MARK: result upload

    @Test func resultUploadPostsTheDocumentWithTheStepUpToken() async throws {
        let s = try StandInServer()
        defer { s.stop() }
        let rec = Recorder()
        let op = try SignicatOperationDocument.decode(Data(Seeds.readIDOperation().utf8)).operation
        let plan = try ReadIDPlan.make(for: op)
        let (doc, _) = StepUpResultDocument.make(plan: plan, result: try FakeChipReader(status: .accepted).result.get())
        let response = try await ResultUploader(endpoint: URL(string: s.resultURL)!, http: makeHTTP(rec))
            .upload(doc, token: SecretString(Seeds.token))
        #expect(response.status == 201)
        let r = try #require(s.requests(to: "/results").first)
        #expect(r.header("Authorization") == "Bearer \(Seeds.token)")
        // the document as printed, less its local evidence paths
        var printed = try #require(JSONValue(encoding: doc).objectValue)
        printed["evidence"] = nil
        #expect(try JSONValue.parse(r.body) == .object(printed))
        expectNoSecret(rec.everything, [Seeds.token])
    }

    @Test func resultUploadFailureSurfacesTheRemoteError() async throws {
        let s = try StandInServer()
        defer { s.stop() }
        s.script("/results", .signicatError(403, code: "forbidden", title: "Forbidden", traceId: "r-403"))
        let op = try SignicatOperationDocument.decode(Data(Seeds.readIDOperation().utf8)).operation
        let plan = try ReadIDPlan.make(for: op)
        let (doc, _) = StepUpResultDocument.make(plan: plan, result: try FakeChipReader(status: .accepted).result.get())
        let e = await stepUpError {
            try await ResultUploader(endpoint: URL(string: s.resultURL)!, http: makeHTTP(Recorder()))
                .upload(doc, token: SecretString(Seeds.token))
        }
        #expect(e?.code == .httpForbidden && e?.step == .resultUpload && e?.traceId == "r-403")
    }
}
