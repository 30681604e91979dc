public import Foundation

/// VideoID options of a start step-up request (docs/architecture.md §8.1 item 1, [doc]): `docTypes` = the document
/// types the user may present, `defaultId` = the preselected one. The numbers are ElectronicID
/// document-type ids whose meaning is not public: opaque integers here ([inferred]).
public struct StartVideoIDProviderOptions: Codable, Hashable, Sendable {
    public var docTypes: [Int]?
    public var defaultId: Int?

    public init(docTypes: [Int]? = nil, defaultId: Int? = nil) {
        self.docTypes = docTypes
        self.defaultId = defaultId
    }

    public init(from decoder: any Decoder) throws {
        let r = try FieldReader(decoder, step: .validateStartRequest)
        docTypes = try r.optional([Int].self, "docTypes", expected: "an array of integers")
        defaultId = try r.optional(Int.self, "defaultId", expected: "an integer")
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: AnyKey.self)
        try c.encodeIfPresent(docTypes, forKey: AnyKey("docTypes"))
        try c.encodeIfPresent(defaultId, forKey: AnyKey("defaultId"))
    }

    /// `defaultId` must be one of `docTypes` when both are given; `docTypes` must not be empty.
    public func validate(step: StepUpError.Step, prefix: String = "videoidProviderOptions") throws {
        try VideoIDOptionRules.check(docTypes: docTypes, docType: nil, defaultId: defaultId, step: step, prefix: prefix)
    }
}

/// Shared consistency rule of both `videoidProviderOptions` objects (docs/architecture.md §8.2).
enum VideoIDOptionRules {
    static func check(docTypes: [Int]?, docType: Int?, defaultId: Int?, step: StepUpError.Step, prefix: String) throws {
        guard let docTypes else { return }
        if docTypes.isEmpty {
            throw StepUpError(
                .inconsistentProviderOptions, step: step, field: "\(prefix).docTypes",
                expected: "at least one document type",
                reason: "`\(prefix).docTypes` is empty, so no document could be presented")
        }
        let list = "one of [" + docTypes.map(String.init).joined(separator: ", ") + "]"
        if let docType, !docTypes.contains(docType) {
            throw StepUpError(
                .inconsistentProviderOptions, step: step, field: "\(prefix).docType", expected: list,
                reason: "`\(prefix).docType` \(docType) is not among `\(prefix).docTypes`")
        }
        if let defaultId, !docTypes.contains(defaultId) {
            throw StepUpError(
                .inconsistentProviderOptions, step: step, field: "\(prefix).defaultId", expected: list,
                reason: "`\(prefix).defaultId` \(defaultId) is not among `\(prefix).docTypes`")
        }
    }
}

/// The body the integrator's server sends to ReuseID to start a step-up (docs/architecture.md §8.1 item 1, [doc]):
/// ```json
/// {"userId": "<uuid>", "deviceId": "<opaque>", "provider": "signicatvideoid",
///  "videoidProviderOptions": {"docTypes": [138, 169], "defaultId": 138}}
/// ```
/// - `userId` is a UUID (every documented example); it is written in lower case.
/// - `deviceId` is an opaque non-empty string: the documented example is *not* a UUID.
/// - `provider` may be absent: ReuseID then uses VideoID [doc]; `StartStepUpClient` writes
///   `signicatvideoid` explicitly in that case. A provider given in another case (`ReadID`) is sent in the
///   lower-case spelling ReuseID documents, as the routing reads it (`Provider.normalized`).
/// - `videoidProviderOptions` with provider `readid` is **refused** (`providerOptionsNotApplicable`):
///   the options only concern VideoID and silently sending them would hide an integration mistake.
public struct StartStepUpRequest: Codable, Hashable, Sendable {
    public var userId: UUID
    public var deviceId: String
    public var provider: Provider?
    public var videoidProviderOptions: StartVideoIDProviderOptions?

    /// Builds and validates a request.
    public init(
        userId: UUID, deviceId: String, provider: Provider? = nil,
        videoidProviderOptions: StartVideoIDProviderOptions? = nil
    ) throws {
        self.userId = userId
        self.deviceId = deviceId
        self.provider = provider?.normalized
        self.videoidProviderOptions = videoidProviderOptions
        try validate()
    }

    /// Builds from text input (the CLI), validating `userId` as a UUID.
    public init(userId: String, deviceId: String, provider: String?, docTypes: [Int]?, defaultId: Int?) throws {
        guard UUIDText.isValid(userId), let uuid = UUID(uuidString: userId) else {
            throw Self.badUserId(userId)
        }
        let p = try provider.map { try Provider.parse($0, step: .validateStartRequest) }
        let options =
            (docTypes == nil && defaultId == nil)
            ? nil : StartVideoIDProviderOptions(docTypes: docTypes, defaultId: defaultId)
        try self.init(userId: uuid, deviceId: deviceId, provider: p, videoidProviderOptions: options)
    }

    static func badUserId(_ raw: String) -> StepUpError {
        StepUpError(
            .invalidUserId, step: .validateStartRequest, field: "userId",
            expected: "a UUID (8-4-4-4-12 hexadecimal digits)",
            reason: "`userId` is not a UUID")
    }

    /// The provider ReuseID will use: the one given, or VideoID [doc].
    public var effectiveProvider: Provider { provider ?? .signicatVideoID }

    /// Checks the rules above; throws the first violation.
    public func validate() throws {
        if deviceId.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            throw StepUpError(
                .invalidDeviceId, step: .validateStartRequest, field: "deviceId",
                expected: "a non-empty string (opaque; need not be a UUID)",
                reason: "`deviceId` is empty")
        }
        if let o = videoidProviderOptions {
            if effectiveProvider.kind == .readID {
                throw StepUpError(
                    .providerOptionsNotApplicable, step: .validateStartRequest,
                    field: "videoidProviderOptions",
                    expected: "no videoidProviderOptions with provider readid",
                    reason: "`videoidProviderOptions` only concerns VideoID; it is refused with provider "
                        + "\"\(effectiveProvider.rawValue)\"")
            }
            try o.validate(step: .validateStartRequest)
        }
    }

    public init(from decoder: any Decoder) throws {
        let r = try FieldReader(decoder, step: .validateStartRequest)
        let rawUser = try r.required(String.self, "userId", expected: "a UUID string")
        guard UUIDText.isValid(rawUser), let uuid = UUID(uuidString: rawUser) else { throw Self.badUserId(rawUser) }
        userId = uuid
        deviceId = try r.required(String.self, "deviceId", expected: "a non-empty string")
        if let raw = try r.optional(String.self, "provider", expected: "a string") {
            provider = try Provider.parse(raw, step: .validateStartRequest)
        } else {
            provider = nil
        }
        videoidProviderOptions = try r.optional(
            StartVideoIDProviderOptions.self, "videoidProviderOptions",
            expected: "an object {docTypes, defaultId}")
        try validate()
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: AnyKey.self)
        try c.encode(userId.uuidString.lowercased(), forKey: AnyKey("userId"))
        try c.encode(deviceId, forKey: AnyKey("deviceId"))
        try c.encodeIfPresent(provider, forKey: AnyKey("provider"))
        try c.encodeIfPresent(videoidProviderOptions, forKey: AnyKey("videoidProviderOptions"))
    }
}
