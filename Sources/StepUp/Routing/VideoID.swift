import CanonicalJSON
import Foundation

/// VideoID's answer to `POST <url>/videoid.request` (docs/architecture.md §8.1 item 4, [doc]):
/// `{"id": "87a819bd-…", "authorization": "<authorisationToken>"}`. Unknown fields are ignored.
public struct VideoIDAuthorizationResponse: Codable, Hashable, Sendable {
    public var id: String?
    public var authorization: SecretString?

    public init(id: String?, authorization: SecretString?) {
        self.id = id
        self.authorization = authorization
    }

    public init(from decoder: any Decoder) throws {
        let r = try FieldReader(decoder, step: .videoIDRequest)
        id = try r.optional(String.self, "id", expected: "a string")
        authorization = try r.optional(SecretString.self, "authorization", expected: "a string")
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: AnyKey.self)
        try c.encodeIfPresent(id, forKey: AnyKey("id"))
        try c.encodeIfPresent(authorization, forKey: AnyKey("authorization"))
    }
}

/// The body of `videoid.request` [doc]: `{"process": "Unattended"}` — the SDK's name for the
/// *substantial* process.
public struct VideoIDAuthorizationRequest: Codable, Hashable, Sendable {
    public var process: String
    public init(process: String = "Unattended") { self.process = process }

    /// The VideoID process for the operation's `processType` (docs/stepup.md §4): `substantial` — the one level
    /// whose VideoID process is documented — is `Unattended`, and so is an absent `processType`; any other value
    /// is refused (`unsupported-process-type`) rather than silently run as a substantial-level process.
    public static func process(forProcessType processType: String?, step: StepUpError.Step) throws -> String {
        guard let processType else { return "Unattended" }
        guard processType.lowercased() == "substantial" else {
            throw StepUpError(
                .unsupportedProcessType, step: step, field: "processType", expected: "\"substantial\" (or absent)",
                reason: "VideoID is asked for the Unattended process, which serves processType \"substantial\" "
                    + "only; \"\(processType.prefix(32))\" is not supported")
        }
        return "Unattended"
    }
}

/// What the VideoID SDK is started with (docs/architecture.md §8.1 item 4, [doc]): the operation's `url`, the
/// `authorization` from `videoid.request` (not the step-up token), and the optional `docType`,
/// `docTypes` and `idDefault` (= `defaultId`). On a kiosk the glue's job ends here.
///
/// `authorization` is the one credential the glue prints (on stdout, as the launch data) because
/// whatever runs VideoID needs it; it never goes to a log or an error. `id` is the VideoID session id that
/// `videoid.request` returned and `processId` the step-up's, so that the terminal can tie the two together.
public struct VideoIDLaunchData: Codable, Hashable, Sendable {
    /// The VideoID session id from `videoid.request` (nil when the answer had none).
    public var id: String?
    /// The step-up operation's `processId`.
    public var processId: String?
    public var url: String
    public var authorization: SecretString
    public var docType: Int?
    public var docTypes: [Int]?
    public var idDefault: Int?

    public init(
        id: String? = nil, processId: String? = nil, url: String, authorization: SecretString,
        docType: Int? = nil, docTypes: [Int]? = nil, idDefault: Int? = nil
    ) {
        self.id = id
        self.processId = processId
        self.url = url
        self.authorization = authorization
        self.docType = docType
        self.docTypes = docTypes
        self.idDefault = idDefault
    }
}

/// Performs the VideoID authorisation of a step-up.
public struct VideoIDClient: Sendable {
    /// The path appended to the operation's `url` [doc].
    public static let requestPath = "videoid.request"

    public var http: StepUpHTTPClient

    public init(http: StepUpHTTPClient) { self.http = http }

    /// `POST <url>/videoid.request` with `Authorization: Bearer <token>` and `{"process": "Unattended"}` (the
    /// process `processType` asks for, see `VideoIDAuthorizationRequest.process(forProcessType:step:)`)
    /// → launch data. Requires a VideoID operation that is ready for proofing.
    public func authorize(_ operation: SignicatOperation) async throws -> VideoIDLaunchData {
        guard operation.provider.kind == .videoID else {
            throw StepUpError(
                .unknownProvider, step: .videoIDRequest, field: "provider",
                expected: "signicatvideoid or videoid",
                reason: "provider \"\(operation.provider.rawValue)\" is not VideoID")
        }
        try operation.requireReadyForProofing()
        let process = try VideoIDAuthorizationRequest.process(
            forProcessType: operation.processType, step: .videoIDRequest)
        let base = try operation.endpointURL()
        guard let token = operation.token else {
            throw StepUpError(
                .notReadyForProofing, step: .videoIDRequest, field: "token", reason: "no token",
                missingFields: ["token"])
        }
        let redactor = Redactor(secrets: [token])
        let request = HTTPClientRequest(
            method: "POST", url: URLPolicy.join(base, Self.requestPath),
            headers: [
                "Authorization": "Bearer " + token.reveal(),
                "Content-Type": "application/json", "Accept": "application/json",
            ],
            body: try CanonicalJSON.data(VideoIDAuthorizationRequest(process: process), .compact))
        let (json, response) = try await http.sendForJSON(request, step: .videoIDRequest, redactor: redactor)
        guard case .object = json else {
            throw StepUpError(
                .invalidResponse, step: .videoIDRequest, expected: "a JSON object {id, authorization}",
                reason: "videoid.request answered JSON \(json.typeName)",
                httpStatus: response.status, traceId: response.traceId)
        }
        let answer: VideoIDAuthorizationResponse
        do {
            answer = try JSONDecoder().decode(VideoIDAuthorizationResponse.self, from: response.body)
        } catch let e as StepUpError {
            // A field of the wrong type in VideoID's answer is the remote's fault (exit 6), not bad input.
            var e = e
            if !e.isRemote { e.code = .invalidResponse }
            e.httpStatus = response.status
            e.traceId = response.traceId
            throw e
        }
        guard let authorization = answer.authorization, !authorization.isEmpty else {
            throw StepUpError(
                .missingAuthorization, step: .videoIDRequest, field: "authorization",
                expected: "a non-empty authorisation token",
                reason: "videoid.request answered without `authorization`",
                httpStatus: response.status, traceId: response.traceId)
        }
        let o = operation.videoidProviderOptions
        return VideoIDLaunchData(
            id: answer.id, processId: operation.processId,
            url: operation.url ?? base.absoluteString, authorization: authorization,
            docType: o?.docType, docTypes: o?.docTypes, idDefault: o?.defaultId)
    }
}
