public import Foundation

/// VideoID options inside the Signicat operation object (docs/architecture.md §8.1 item 3, [doc]): `docType` = a
/// single fixed document type, `docTypes` = the allowed ones, `defaultId` = the preselected one.
/// Opaque ElectronicID integers.
public struct VideoIDProviderOptions: Codable, Hashable, Sendable {
    public var docType: Int?
    public var docTypes: [Int]?
    public var defaultId: Int?

    public init(docType: Int? = nil, docTypes: [Int]? = nil, defaultId: Int? = nil) {
        self.docType = docType
        self.docTypes = docTypes
        self.defaultId = defaultId
    }

    public init(from decoder: any Decoder) throws {
        let r = try FieldReader(decoder, step: .decodeOperation)
        docType = try r.optional(Int.self, "docType", expected: "an integer")
        docTypes = try r.optional([Int].self, "docTypes", expected: "an array of integers")
        defaultId = try r.optional(Int.self, "defaultId", expected: "an integer")
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: AnyKey.self)
        try c.encodeIfPresent(docType, forKey: AnyKey("docType"))
        try c.encodeIfPresent(docTypes, forKey: AnyKey("docTypes"))
        try c.encodeIfPresent(defaultId, forKey: AnyKey("defaultId"))
    }

    /// `docType` and `defaultId` must be among `docTypes` when it is given (docs/architecture.md §8.2).
    public func validate(step: StepUpError.Step = .validateOperation) throws {
        try VideoIDOptionRules.check(
            docTypes: docTypes, docType: docType, defaultId: defaultId, step: step,
            prefix: "videoidProviderOptions")
    }
}

/// The Signicat operation object that MobileID's operation context carries to the app
/// (docs/architecture.md §8.1 item 3, [doc]):
/// ```json
/// {"version": "1", "operation": "authentication", "provider": "signicatvideoid", "token": "<TOKEN>",
///  "url": "https://etrust-sandbox.electronicid.eu/v2", "processType": "substantial",
///  "processId": "0dca14cf-957d-46d9-b374-520f9c650859",
///  "videoidProviderOptions": {"docType": 1, "docTypes": [1, 2, 3], "defaultId": 1}}
/// ```
/// A decoded value is always valid for **routing** (docs/architecture.md §8.2):
/// - `operation` must be `authentication` (anything else is not a ReuseID step-up);
/// - `provider` must be known (`signicatvideoid`, `videoid`, `readid`);
/// - `version`, when present, must be `"1"`; it may be absent only from a pre-operation object,
///   i.e. one without `token`, `url` and `processId` (the pre-operation object carries only
///   `operation`, `provider` and `processType` [doc]);
/// - `url` must be HTTPS (HTTP only to loopback); `processId` must be a UUID;
/// - `docType`/`defaultId` must be among `docTypes`;
/// - for VideoID, `processType` must be absent or `substantial` (the process VideoID is asked for); ReadID's chip
///   read has one process whatever the level, so there it is carried, not used.
///
/// **Proofing** needs `version`, `token`, `url` and `processId` as well: `requireReadyForProofing()`
/// names the missing ones. Unknown extra fields are ignored. `token` is a `SecretString`.
public struct SignicatOperation: Codable, Hashable, Sendable {
    /// The versions this glue understands.
    public static let supportedVersions: Set<String> = ["1"]
    /// The only `operation` value of a ReuseID step-up [doc].
    public static let stepUpOperation = "authentication"
    /// Fields identity proofing needs beyond the routing ones.
    public static let proofingFields = ["version", "token", "url", "processId"]

    public var version: String?
    public var operation: String
    public var provider: Provider
    public var token: SecretString?
    public var url: String?
    public var processType: String?
    public var processId: String?
    public var videoidProviderOptions: VideoIDProviderOptions?

    /// Builds and validates an operation object.
    public init(
        version: String? = "1", operation: String = SignicatOperation.stepUpOperation, provider: Provider,
        token: SecretString? = nil, url: String? = nil, processType: String? = nil, processId: String? = nil,
        videoidProviderOptions: VideoIDProviderOptions? = nil
    ) throws {
        self.version = version
        self.operation = operation
        self.provider = provider
        self.token = token
        self.url = url
        self.processType = processType
        self.processId = processId
        self.videoidProviderOptions = videoidProviderOptions
        try validate()
    }

    public init(from decoder: any Decoder) throws {
        let r = try FieldReader(decoder, step: .decodeOperation)
        version = try r.optional(String.self, "version", expected: "a string (\"1\")")
        operation = try r.required(String.self, "operation", expected: "the string \"authentication\"")
        let rawProvider = try r.required(String.self, "provider", expected: "a provider name string")
        provider = try Provider.parse(rawProvider, field: r.path("provider"), step: .validateOperation)
        token = try r.optional(SecretString.self, "token", expected: "a string")
        url = try r.optional(String.self, "url", expected: "a URL string")
        processType = try r.optional(String.self, "processType", expected: "a string")
        processId = try r.optional(String.self, "processId", expected: "a UUID string")
        videoidProviderOptions = try r.optional(
            VideoIDProviderOptions.self, "videoidProviderOptions",
            expected: "an object {docType, docTypes, defaultId}")
        try validate()
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: AnyKey.self)
        try c.encodeIfPresent(version, forKey: AnyKey("version"))
        try c.encode(operation, forKey: AnyKey("operation"))
        try c.encode(provider, forKey: AnyKey("provider"))
        try c.encodeIfPresent(token, forKey: AnyKey("token"))
        try c.encodeIfPresent(url, forKey: AnyKey("url"))
        try c.encodeIfPresent(processType, forKey: AnyKey("processType"))
        try c.encodeIfPresent(processId, forKey: AnyKey("processId"))
        try c.encodeIfPresent(videoidProviderOptions, forKey: AnyKey("videoidProviderOptions"))
    }

    /// True when this is a pre-operation object: none of `token`, `url`, `processId`.
    public var isPreOperation: Bool { token == nil && url == nil && processId == nil }

    /// Checks the routing rules listed on the type, in the order of docs/architecture.md §8.2.
    public func validate() throws {
        let step = StepUpError.Step.validateOperation
        if let version {
            guard Self.supportedVersions.contains(version) else {
                throw StepUpError(
                    .unsupportedVersion, step: step, field: "version",
                    expected: "one of "
                        + Self.supportedVersions.sorted().map { "\"\($0)\"" }
                        .joined(separator: ", "),
                    reason: "unknown operation object version \"\(version.prefix(32))\"")
            }
        } else if !isPreOperation {
            throw StepUpError(
                .missingVersion, step: step, field: "version", expected: "\"1\"",
                reason: "`version` is missing from an operation object that carries proofing fields")
        }
        guard operation == Self.stepUpOperation else {
            throw StepUpError(
                .notAStepUp, step: step, field: "operation", expected: "\"authentication\"",
                reason: "operation \"\(operation.prefix(64))\" is not a ReuseID step-up")
        }
        if let url { _ = try URLPolicy.validate(url, field: "url", step: step) }
        if let processId, !UUIDText.isValid(processId) {
            throw StepUpError(
                .invalidProcessId, step: step, field: "processId",
                expected: "a UUID (8-4-4-4-12 hexadecimal digits)",
                reason: "`processId` is not a UUID")
        }
        try videoidProviderOptions?.validate(step: step)
        if provider.kind == .videoID {
            _ = try VideoIDAuthorizationRequest.process(forProcessType: processType, step: step)
        }
    }

    /// The proofing fields that are absent (empty when ready), in a fixed order.
    public var missingForProofing: [String] {
        var m: [String] = []
        if version == nil { m.append("version") }
        if token?.isEmpty ?? true { m.append("token") }
        if url == nil { m.append("url") }
        if processId == nil { m.append("processId") }
        return m
    }

    public var isReadyForProofing: Bool { missingForProofing.isEmpty }

    /// Throws `notReadyForProofing` naming the missing fields (a pre-operation object, say).
    public func requireReadyForProofing() throws {
        let m = missingForProofing
        guard m.isEmpty else {
            throw StepUpError(
                .notReadyForProofing, step: .validateOperation, field: m.joined(separator: ", "),
                expected: "the post-operation object with " + Self.proofingFields.joined(separator: ", "),
                reason: "the operation object is valid for routing but not for identity proofing: "
                    + "missing " + m.joined(separator: ", "),
                missingFields: m)
        }
    }

    /// The checked endpoint URL (call after `requireReadyForProofing()`).
    public func endpointURL() throws -> URL {
        guard let url else {
            throw StepUpError(
                .notReadyForProofing, step: .validateOperation, field: "url",
                expected: "an https URL", reason: "the operation object has no `url`", missingFields: ["url"])
        }
        return try URLPolicy.validate(url, field: "url", step: .validateOperation)
    }

    /// The process id in canonical lower-case form.
    public var canonicalProcessId: String? { processId?.lowercased() }

    /// The operation as JSON with the token replaced by a length note (for printing).
    public func redactedJSON() -> JSONValue {
        guard var o = (try? JSONValue(encoding: self))?.objectValue else { return .null }
        if let token { o["token"] = .string(token.description) }
        return .object(o)
    }
}

/// The operation object as it arrives: with the `signicatOperation` wrapper key (the documented
/// example) or bare. `wrapped` remembers which, so encoding gives back the same shape.
public struct SignicatOperationDocument: Codable, Hashable, Sendable {
    public var operation: SignicatOperation
    public var wrapped: Bool

    public init(operation: SignicatOperation, wrapped: Bool = true) {
        self.operation = operation
        self.wrapped = wrapped
    }

    public init(from decoder: any Decoder) throws {
        let r = try FieldReader(decoder, step: .decodeOperation)
        if r.container.contains(AnyKey("signicatOperation")) {
            operation = try r.required(SignicatOperation.self, "signicatOperation", expected: "an object")
            wrapped = true
        } else {
            operation = try SignicatOperation(from: decoder)
            wrapped = false
        }
    }

    public func encode(to encoder: any Encoder) throws {
        if wrapped {
            var c = encoder.container(keyedBy: AnyKey.self)
            try c.encode(operation, forKey: AnyKey("signicatOperation"))
        } else {
            try operation.encode(to: encoder)
        }
    }

    /// Decodes JSON bytes: `malformedJSON` if not JSON, `notAnObject` if not an object.
    public static func decode(_ data: Data) throws -> SignicatOperationDocument {
        let v: JSONValue
        do { v = try JSONValue.parse(data) } catch {
            throw StepUpError(
                .malformedJSON, step: .decodeOperation, expected: "a JSON object",
                reason: "the operation object is not valid JSON")
        }
        guard case .object = v else {
            throw StepUpError(
                .notAnObject, step: .decodeOperation, expected: "a JSON object",
                reason: "the operation object is JSON \(v.typeName), not an object")
        }
        do {
            return try JSONDecoder().decode(SignicatOperationDocument.self, from: data)
        } catch let e as StepUpError {
            throw e
        } catch {
            throw StepUpError(
                .malformedJSON, step: .decodeOperation, expected: "a JSON object",
                reason: "the operation object could not be decoded")
        }
    }
}
