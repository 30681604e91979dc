import CanonicalJSON
public import Foundation
import MRTDReader

/// A non-fatal observation the caller should show (stderr in the CLI).
public struct StepUpWarning: Codable, Hashable, Sendable, CustomStringConvertible {
    public var code: String
    public var message: String
    public init(code: String, message: String) {
        self.code = code
        self.message = message
    }
    public var description: String { "[\(code)] \(message)" }
}

/// The files the ReadID branch reads (docs/architecture.md §1: DG1, DG2, DG14, DG15, EF.SOD, plus DG11/DG12 when
/// present, EF.CardAccess and EF.CardSecurity). Raw values are the report's file names (docs/architecture.md §4.2).
public enum ReadIDFile: String, Codable, Hashable, Sendable, CaseIterable {
    case dg1 = "DG1", dg2 = "DG2", dg11 = "DG11", dg12 = "DG12", dg14 = "DG14", dg15 = "DG15"
    case sod = "SOD", cardAccess = "CardAccess", cardSecurity = "CardSecurity"

    /// Files the chip may lack without that being an error (the reader skips them when absent).
    public var isOptional: Bool {
        switch self {
        case .dg11, .dg12, .dg14, .dg15, .cardAccess, .cardSecurity: true
        default: false
        }
    }
}

/// How the Active Authentication challenge ties the read to the step-up process.
///
/// Rule (this package's, [inferred] — ReadID's own binding is not public): the challenge is the
/// **first 8 bytes of SHA-256 over the UTF-8 bytes of the lower-case canonical processId** (the
/// 36-character UUID text). 8 bytes is the size of RND.IFD in INTERNAL AUTHENTICATE for AA
/// (ICAO 9303-11 §6.1). The signature the chip returns over that challenge can later be checked
/// against DG15 by anyone who knows the processId, proving the read happened for this process.
///
/// StepUp has no hash of its own: the caller supplies SHA-256 (the executable passes MRTDCrypto's).
public enum ProcessBinding: Sendable {
    /// No binding: the reader uses a random AA challenge.
    case none
    /// Derive the challenge from the processId with this SHA-256 function.
    case processId(sha256: @Sendable ([UInt8]) -> [UInt8])

    public static let challengeLength = 8
    public static let ruleDescription =
        "AA challenge = first 8 bytes of SHA-256(UTF-8(lowercase processId))"

    /// The challenge for `processId` under the rule above.
    public static func challenge(processId: String, sha256: ([UInt8]) -> [UInt8]) throws -> [UInt8] {
        guard UUIDText.isValid(processId) else {
            throw StepUpError(
                .invalidProcessId, step: .readPlan, field: "processId", expected: "a UUID",
                reason: "cannot derive an AA challenge from a processId that is not a UUID")
        }
        let digest = sha256(Array(processId.lowercased().utf8))
        guard digest.count == 32 else {
            throw StepUpError(
                .invalidConfiguration, step: .readPlan, expected: "a 32-byte SHA-256 digest",
                reason: "the supplied SHA-256 function returned \(digest.count) bytes")
        }
        return Array(digest.prefix(challengeLength))
    }
}

/// What the ReadID branch asks the chip reader to do. ReuseID→ReadID mapping (docs/architecture.md §8.1 item 4,
/// [inferred]): `url` → `baseURL`, `token` → `oauthToken`, `processId` → `opaqueId`,
/// `videoidProviderOptions` → not used (a warning says so).
public struct ReadIDPlan: Sendable, Hashable {
    public var processId: String
    public var provider: Provider
    /// ReadID's base URL (the operation's `url`).
    public var baseURL: URL
    /// ReadID's OAuth token (the operation's `token`).
    public var oauthToken: SecretString
    /// ReadID's opaque id: the processId, tying the read to the step-up process.
    public var opaqueId: String
    /// Files to read, in this order.
    public var files: [ReadIDFile]
    /// The AA challenge when the read is bound to the process (see `ProcessBinding`), else nil.
    public var activeAuthenticationChallenge: [UInt8]?
    public var warnings: [StepUpWarning]

    public init(
        processId: String, provider: Provider, baseURL: URL, oauthToken: SecretString, opaqueId: String,
        files: [ReadIDFile] = ReadIDFile.allCases, activeAuthenticationChallenge: [UInt8]? = nil,
        warnings: [StepUpWarning] = []
    ) {
        self.processId = processId
        self.provider = provider
        self.baseURL = baseURL
        self.oauthToken = oauthToken
        self.opaqueId = opaqueId
        self.files = files
        self.activeAuthenticationChallenge = activeAuthenticationChallenge
        self.warnings = warnings
    }

    /// Builds the plan for a ReadID operation that is ready for proofing.
    public static func make(
        for operation: SignicatOperation, binding: ProcessBinding = .none
    ) throws -> ReadIDPlan {
        guard operation.provider.kind == .readID else {
            throw StepUpError(
                .unknownProvider, step: .readPlan, field: "provider", expected: "readid",
                reason: "provider \"\(operation.provider.rawValue)\" is not ReadID")
        }
        try operation.requireReadyForProofing()
        let base = try operation.endpointURL()
        guard let token = operation.token, let processId = operation.canonicalProcessId else {
            throw StepUpError(
                .notReadyForProofing, step: .readPlan, reason: "token or processId missing",
                missingFields: operation.missingForProofing)
        }
        var warnings: [StepUpWarning] = []
        if operation.videoidProviderOptions != nil {
            warnings.append(
                StepUpWarning(
                    code: "videoid-options-ignored",
                    message: "videoidProviderOptions only concerns VideoID; ignored for ReadID"))
        }
        var challenge: [UInt8]?
        if case .processId(let sha256) = binding {
            challenge = try ProcessBinding.challenge(processId: processId, sha256: sha256)
        }
        return ReadIDPlan(
            processId: processId, provider: operation.provider, baseURL: base, oauthToken: token,
            opaqueId: processId, activeAuthenticationChallenge: challenge, warnings: warnings)
    }
}

/// The verdict (docs/architecture.md §4.2).
public enum StepUpStatus: String, Codable, Hashable, Sendable, Comparable {
    case accepted, inconclusive, rejected

    private var severity: Int {
        switch self {
        case .accepted: 0
        case .inconclusive: 1
        case .rejected: 2
        }
    }
    public static func < (a: StepUpStatus, b: StepUpStatus) -> Bool { a.severity < b.severity }

    /// The verdict rule of the reader (`VerdictRule.status`, docs/report.md "Verdict"), not a copy of it:
    /// accepted = chip verification succeeded and clone detection succeeded or is not available;
    /// inconclusive = chip verification succeeded, clone detection failed; rejected otherwise.
    public static func derived(chipVerification: ChipVerification, chipCloneDetection: ChipCloneDetection)
        -> StepUpStatus
    {
        StepUpStatus(
            VerdictRule.status(chipVerification: chipVerification.outcome, cloneDetection: chipCloneDetection.outcome))
    }
}

/// `chipVerification` (docs/architecture.md §4.2).
public enum ChipVerification: String, Codable, Hashable, Sendable {
    case succeeded = "SUCCEEDED", failed = "FAILED", notChecked = "NOT_CHECKED"
}

/// `chipCloneDetection` (docs/architecture.md §4.2).
public enum ChipCloneDetection: String, Codable, Hashable, Sendable {
    case succeeded = "SUCCEEDED", failed = "FAILED", notAvailable = "NOT_AVAILABLE"
}

/// The document fields of `consolidatedIdentityData` (docs/architecture.md §8.1 item 5). Dates as YYYY-MM-DD (or as
/// on the MRZ when the century is ambiguous, docs/architecture.md §4.2).
public struct ReadIDDocumentFields: Codable, Hashable, Sendable {
    public var documentType: String?
    public var documentCode: String?
    public var documentNumber: String?
    public var issuingCountry: String?
    public var nationality: String?
    public var dateOfBirth: String?
    public var dateOfExpiry: String?
    public var gender: String?
    public var firstName: String?
    public var lastName: String?
    public var personalIdentificationNumber: String?

    public init(
        documentType: String? = nil, documentCode: String? = nil, documentNumber: String? = nil,
        issuingCountry: String? = nil, nationality: String? = nil, dateOfBirth: String? = nil,
        dateOfExpiry: String? = nil, gender: String? = nil, firstName: String? = nil,
        lastName: String? = nil, personalIdentificationNumber: String? = nil
    ) {
        self.documentType = documentType
        self.documentCode = documentCode
        self.documentNumber = documentNumber
        self.issuingCountry = issuingCountry
        self.nationality = nationality
        self.dateOfBirth = dateOfBirth
        self.dateOfExpiry = dateOfExpiry
        self.gender = gender
        self.firstName = firstName
        self.lastName = lastName
        self.personalIdentificationNumber = personalIdentificationNumber
    }
}

/// Where the read's evidence is (docs/architecture.md §4.3).
public struct EvidenceReference: Codable, Hashable, Sendable {
    /// The evidence bundle directory (`--out DIR`).
    public var bundlePath: String?
    /// The JSON report (`report.json`).
    public var reportPath: String?
    public init(bundlePath: String? = nil, reportPath: String? = nil) {
        self.bundlePath = bundlePath
        self.reportPath = reportPath
    }
}

/// What the chip reader reports back.
public struct ReadIDChipResult: Sendable, Hashable {
    public var status: StepUpStatus
    public var chipVerification: ChipVerification
    public var chipCloneDetection: ChipCloneDetection
    public var document: ReadIDDocumentFields
    public var evidence: EvidenceReference
    /// Whether Active Authentication passed over the plan's challenge: only then does a bound read
    /// (`ProcessBinding.processId`) prove that it happened for the step-up process.
    public var activeAuthenticationPassed: Bool

    public init(
        status: StepUpStatus, chipVerification: ChipVerification, chipCloneDetection: ChipCloneDetection,
        document: ReadIDDocumentFields, evidence: EvidenceReference, activeAuthenticationPassed: Bool = false
    ) {
        self.status = status
        self.chipVerification = chipVerification
        self.chipCloneDetection = chipCloneDetection
        self.document = document
        self.evidence = evidence
        self.activeAuthenticationPassed = activeAuthenticationPassed
    }
}

/// The chip read of the ReadID branch. `emrtd stepup run` implements it with `DocumentReader` (access control,
/// read of `plan.files`, verification, evidence bundle), configured with its own reader options; tests use a fake.
///
/// The reader is the caller's, and so are its errors: `StepUpRunner` hands every error the reader throws back to
/// its caller unchanged (only a cancellation becomes `StepUpError.Code.cancelled`), so the caller can tell its own
/// failures (access control, transport, trust) apart.
public protocol ReadIDChipReader: Sendable {
    func read(_ plan: ReadIDPlan) async throws -> ReadIDChipResult
}

/// `consolidatedIdentityData` of the result (docs/architecture.md §8.1 item 5).
public struct ConsolidatedIdentityData: Codable, Hashable, Sendable {
    public var chipVerification: ChipVerification
    public var chipCloneDetection: ChipCloneDetection
    public var documentType: String?
    public var documentCode: String?
    public var documentNumber: String?
    public var issuingCountry: String?
    public var nationality: String?
    public var dateOfBirth: String?
    public var dateOfExpiry: String?
    public var gender: String?
    public var firstName: String?
    public var lastName: String?
    public var personalIdentificationNumber: String?

    public init(
        chipVerification: ChipVerification, chipCloneDetection: ChipCloneDetection,
        document d: ReadIDDocumentFields
    ) {
        self.chipVerification = chipVerification
        self.chipCloneDetection = chipCloneDetection
        documentType = d.documentType
        documentCode = d.documentCode
        documentNumber = d.documentNumber
        issuingCountry = d.issuingCountry
        nationality = d.nationality
        dateOfBirth = d.dateOfBirth
        dateOfExpiry = d.dateOfExpiry
        gender = d.gender
        firstName = d.firstName
        lastName = d.lastName
        personalIdentificationNumber = d.personalIdentificationNumber
    }
}

/// Whether a read bound to its step-up process (`ProcessBinding.processId`) proved it: `proven` when Active
/// Authentication passed over the challenge derived from the processId, `unproven` when the chip did not perform it
/// (no DG15, no Active Authentication) or it failed — the read then says nothing about which process it served.
public enum ProcessBindingResult: String, Codable, Hashable, Sendable {
    case proven, unproven
}

/// The result document of the ReadID branch (docs/architecture.md §8.1 item 5):
/// `{schema, processId, provider, status, consolidatedIdentityData{…}, processBinding?, evidence}`.
///
/// `status` is never better than what `chipVerification` and `chipCloneDetection` allow
/// (`StepUpStatus.derived`): if the reader claims more, the stricter verdict wins and a warning
/// says so. `evidence` names local files of the machine that read: it is printed, never uploaded
/// (`uploadBody`).
public struct StepUpResultDocument: Codable, Hashable, Sendable {
    public static let schemaName = "emrtd.stepup-result/1"

    public var schema: String
    public var processId: String
    public var provider: String
    public var status: StepUpStatus
    public var consolidatedIdentityData: ConsolidatedIdentityData
    /// Present when the read was bound to the process (`--bind-process-id`).
    public var processBinding: ProcessBindingResult?
    public var evidence: EvidenceReference

    public init(
        schema: String = StepUpResultDocument.schemaName, processId: String, provider: String,
        status: StepUpStatus, consolidatedIdentityData: ConsolidatedIdentityData,
        processBinding: ProcessBindingResult? = nil, evidence: EvidenceReference
    ) {
        self.schema = schema
        self.processId = processId
        self.provider = provider
        self.status = status
        self.consolidatedIdentityData = consolidatedIdentityData
        self.processBinding = processBinding
        self.evidence = evidence
    }

    /// The JSON the result endpoint receives: the document without `evidence`, whose paths name files on the
    /// reading machine that the backend cannot open and has no business knowing.
    public func uploadBody() throws -> Data {
        guard case .object(var members) = try JSONValue.parse(try CanonicalJSON.data(self, .compact)) else {
            return try CanonicalJSON.data(self, .compact)  // unreachable: a struct encodes as an object
        }
        members["evidence"] = nil
        return try CanonicalJSON.data(JSONValue.object(members), .compact)
    }

    /// Builds the document from a plan and the chip result; returns the warnings it produced.
    public static func make(plan: ReadIDPlan, result: ReadIDChipResult) -> (StepUpResultDocument, [StepUpWarning]) {
        let derived = StepUpStatus.derived(
            chipVerification: result.chipVerification,
            chipCloneDetection: result.chipCloneDetection)
        var status = max(derived, result.status)
        var warnings: [StepUpWarning] = []
        if status != result.status {
            warnings.append(
                StepUpWarning(
                    code: "status-downgraded",
                    message: "the chip reader reported \(result.status.rawValue) but chipVerification "
                        + "\(result.chipVerification.rawValue) / chipCloneDetection \(result.chipCloneDetection.rawValue) "
                        + "allow at most \(derived.rawValue)"))
        }
        // Never accepted without saying who the holder is: DG1 unread or withheld.
        if status == .accepted && !result.document.hasIdentity {
            status = .rejected
            warnings.append(
                StepUpWarning(
                    code: "identity-missing",
                    message: "the chip reader reported accepted without the identity fields (document number, "
                        + "issuing country, dates of birth and expiry, name): the result is rejected"))
        }
        var binding: ProcessBindingResult? = nil
        if plan.activeAuthenticationChallenge != nil {
            binding = result.activeAuthenticationPassed ? .proven : .unproven
            if binding == .unproven {
                warnings.append(
                    StepUpWarning(
                        code: "process-binding-unproven",
                        message: "the read was bound to the process, but Active Authentication did not pass (the "
                            + "chip has no DG15 or refused it): nothing proves this read served this process"))
            }
        }
        let doc = StepUpResultDocument(
            processId: plan.processId, provider: plan.provider.rawValue, status: status,
            consolidatedIdentityData: ConsolidatedIdentityData(
                chipVerification: result.chipVerification,
                chipCloneDetection: result.chipCloneDetection, document: result.document),
            processBinding: binding, evidence: result.evidence)
        return (doc, warnings)
    }
}

/// POSTs the result document to the integrator's endpoint with the step-up token as bearer
/// (docs/architecture.md §8.1 item 5, [inferred]: ReadID's own upload protocol is not public).
public struct ResultUploader: Sendable {
    public var endpoint: URL
    public var http: StepUpHTTPClient

    public init(endpoint: URL, http: StepUpHTTPClient) {
        self.endpoint = endpoint
        self.http = http
    }

    /// Returns the HTTP status and trace id of the accepted upload.
    @discardableResult
    public func upload(_ document: StepUpResultDocument, token: SecretString) async throws -> HTTPClientResponse {
        let url = try URLPolicy.validate(endpoint.absoluteString, field: "resultURL", step: .configuration)
        let request = HTTPClientRequest(
            method: "POST", url: url,
            headers: [
                "Authorization": "Bearer " + token.reveal(),
                "Content-Type": "application/json", "Accept": "application/json",
            ],
            body: try document.uploadBody())
        return try await http.send(request, step: .resultUpload, redactor: Redactor(secrets: [token]))
    }
}
