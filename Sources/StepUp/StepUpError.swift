import Foundation

/// The one error type of the step-up glue (docs/architecture.md §3.5): a stable `code`, the failing `step`,
/// the `field` at fault and what was `expected` there, a `reason`, and for remote failures the HTTP
/// status, the `X-TRACE-ID` and Signicat's error object.
///
/// No secret ever reaches an error: the clients redact tokens and client secrets from every string
/// they copy out of a response before building one of these (see `Redactor`).
public struct StepUpError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Stable error codes; scripts may match on `rawValue`.
    public enum Code: String, Sendable, Hashable, CaseIterable {
        // docs/architecture.md §8.2, one code per bad input
        /// `context_content_b64` is not base64 (standard or URL-safe, padded or not).
        case invalidBase64 = "invalid-base64"
        /// `context_mime` is not `application/json`.
        case unsupportedMimeType = "unsupported-mime-type"
        /// The input is not JSON at all.
        case malformedJSON = "malformed-json"
        /// The JSON is valid but not an object where an object was expected.
        case notAnObject = "not-an-object"
        /// `version` is missing from an operation object that carries proofing fields.
        case missingVersion = "missing-version"
        /// `version` has a value this glue does not know.
        case unsupportedVersion = "unsupported-version"
        /// `operation` is not `authentication`: this is not a ReuseID step-up.
        case notAStepUp = "not-a-step-up"
        /// `provider` is not one of `signicatvideoid`, `videoid`, `readid`.
        case unknownProvider = "unknown-provider"
        /// A URL is not HTTPS (plain HTTP is allowed only to loopback).
        case insecureURL = "insecure-url"
        /// A URL cannot be parsed or has no host.
        case invalidURL = "invalid-url"
        /// `processId` is not a UUID.
        case invalidProcessId = "invalid-process-id"
        /// `defaultId` / `docType` not among `docTypes`, or an empty `docTypes`.
        case inconsistentProviderOptions = "inconsistent-provider-options"
        /// A VideoID operation's `processType` names a process this glue cannot ask VideoID for.
        case unsupportedProcessType = "unsupported-process-type"
        /// A VideoID answer without `authorization`.
        case missingAuthorization = "missing-authorization"
        /// HTTP 401 from the remote side.
        case httpUnauthorized = "http-unauthorized"
        /// HTTP 403.
        case httpForbidden = "http-forbidden"
        /// HTTP 404.
        case httpNotFound = "http-not-found"
        /// HTTP 429 after the bounded retries.
        case httpRateLimited = "http-rate-limited"
        /// HTTP 5xx (after the bounded retries for 503).
        case httpServerError = "http-server-error"
        /// Any other HTTP status ≥ 400 (or an unexpected 1xx/3xx).
        case httpUnexpectedStatus = "http-unexpected-status"
        /// No answer within the configured timeout.
        case timeout = "timeout"
        /// A response body that is not JSON where JSON was expected.
        case nonJSONResponse = "non-json-response"

        // structure and other inputs
        /// A required field is absent.
        case missingField = "missing-field"
        /// A field has the wrong JSON type.
        case invalidFieldType = "invalid-field-type"
        /// `userId` is not a UUID.
        case invalidUserId = "invalid-user-id"
        /// `deviceId` is empty.
        case invalidDeviceId = "invalid-device-id"
        /// `videoidProviderOptions` given with provider `readid` in a start step-up request (refused).
        case providerOptionsNotApplicable = "provider-options-not-applicable"
        /// The object is valid for routing but lacks what identity proofing needs.
        case notReadyForProofing = "not-ready-for-proofing"
        /// A JSON response lacks a field or has an unusable value.
        case invalidResponse = "invalid-response"
        /// The connection could not be made or broke.
        case transportFailure = "transport-failure"
        /// The configuration (credentials, endpoints, options) is incomplete or unusable.
        case invalidConfiguration = "invalid-configuration"
        /// The chip reader failed.
        case chipReadFailed = "chip-read-failed"
        /// The operation was cancelled.
        case cancelled = "cancelled"
    }

    /// The stage of the flow where the error arose.
    public enum Step: String, Sendable, Hashable {
        case decodeContext = "decode-context"
        case decodeOperation = "decode-operation"
        case validateOperation = "validate-operation"
        case validateStartRequest = "validate-start-request"
        case configuration = "configuration"
        case accessToken = "access-token"
        case startStepUp = "start-step-up"
        case videoIDRequest = "videoid-request"
        case readPlan = "read-plan"
        case chipRead = "chip-read"
        case resultUpload = "result-upload"
    }

    public var code: Code
    public var step: Step
    /// The field at fault, as a dotted JSON path (`videoidProviderOptions.defaultId`), when there is one.
    public var field: String?
    /// What was expected in `field` (or of the response).
    public var expected: String?
    /// What went wrong, in plain words. Never holds a secret.
    public var reason: String
    /// HTTP status of the failing response, if any.
    public var httpStatus: Int?
    /// The `X-TRACE-ID` header of the failing response (or the error object's `traceId`).
    public var traceId: String?
    /// Signicat's error object from the failing response, redacted.
    public var remoteError: SignicatErrorObject?
    /// Fields missing for identity proofing (code `notReadyForProofing`).
    public var missingFields: [String]

    public init(
        _ code: Code, step: Step, field: String? = nil, expected: String? = nil, reason: String,
        httpStatus: Int? = nil, traceId: String? = nil, remoteError: SignicatErrorObject? = nil,
        missingFields: [String] = []
    ) {
        self.code = code
        self.step = step
        self.field = field
        self.expected = expected
        self.reason = reason
        self.httpStatus = httpStatus
        self.traceId = traceId
        self.remoteError = remoteError
        self.missingFields = missingFields
    }

    /// True for failures of the remote side or the network, as opposed to bad input or configuration.
    public var isRemote: Bool {
        switch code {
        case .httpUnauthorized, .httpForbidden, .httpNotFound, .httpRateLimited, .httpServerError,
            .httpUnexpectedStatus, .timeout, .nonJSONResponse, .missingAuthorization, .invalidResponse,
            .transportFailure:
            return true
        default:
            return false
        }
    }

    public var description: String {
        var s = "[\(code.rawValue)] \(step.rawValue)"
        if let field { s += " · \(field)" }
        s += ": \(reason)"
        if let expected { s += " (expected \(expected))" }
        if let httpStatus { s += " · HTTP \(httpStatus)" }
        if let remoteError {
            let parts = [remoteError.code, remoteError.title, remoteError.detail].compactMap { $0 }
            if !parts.isEmpty { s += " · remote: " + parts.joined(separator: " — ") }
            for p in remoteError.invalidParams ?? [] {
                s += " · invalid \(p.name ?? "?"): \(p.reason ?? "?")"
            }
        }
        if let traceId { s += " · trace \(traceId)" }
        return s
    }
}

extension StepUpError {
    /// The error as a JSON object for machine-readable output.
    public var jsonValue: JSONValue {
        var o: [String: JSONValue] = [
            "code": .string(code.rawValue), "step": .string(step.rawValue), "reason": .string(reason),
        ]
        if let field { o["field"] = .string(field) }
        if let expected { o["expected"] = .string(expected) }
        if let httpStatus { o["httpStatus"] = .number(Double(httpStatus)) }
        if let traceId { o["traceId"] = .string(traceId) }
        if let remoteError, let v = try? JSONValue(encoding: remoteError) { o["remoteError"] = v }
        if !missingFields.isEmpty { o["missingFields"] = .array(missingFields.map { .string($0) }) }
        return .object(o)
    }
}
