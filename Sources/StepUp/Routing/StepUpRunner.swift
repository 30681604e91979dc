public import Foundation

/// Which branch an operation object takes (docs/architecture.md §8.1 item 4).
public enum StepUpRoute: String, Sendable, Hashable, Codable {
    case videoID = "videoid"
    case readID = "readid"

    public init(_ operation: SignicatOperation) {
        self = operation.provider.kind == .readID ? .readID : .videoID
    }
}

/// The outcome of running a step-up operation.
public enum StepUpOutcome: Sendable {
    /// VideoID: the launch parameters for whatever runs the VideoID SDK.
    case videoID(VideoIDLaunchData, warnings: [StepUpWarning])
    /// ReadID: the result document; `uploadError` is set when the configured upload failed
    /// (the document is still returned so that it is not lost).
    case readID(StepUpResultDocument, warnings: [StepUpWarning], uploaded: Bool, uploadError: StepUpError?)
}

/// Routes a proofing-ready operation object to its provider and runs that branch:
/// VideoID → `videoid.request` → launch data; ReadID → read plan → chip reader → result document →
/// optional upload.
public struct StepUpRunner: Sendable {
    public var http: StepUpHTTPClient
    public var chipReader: (any ReadIDChipReader)?
    public var binding: ProcessBinding
    /// Where to POST the ReadID result (nil: no upload).
    public var resultEndpoint: URL?

    public init(
        http: StepUpHTTPClient, chipReader: (any ReadIDChipReader)?, binding: ProcessBinding = .none,
        resultEndpoint: URL? = nil
    ) {
        self.http = http
        self.chipReader = chipReader
        self.binding = binding
        self.resultEndpoint = resultEndpoint
    }

    /// Runs the branch. Validation happens before any side effect. Errors of the chip reader are the caller's and
    /// reach it unchanged (see `ReadIDChipReader`); a cancelled read is `StepUpError.Code.cancelled`.
    public func run(_ operation: SignicatOperation) async throws -> StepUpOutcome {
        try operation.validate()
        try operation.requireReadyForProofing()
        switch StepUpRoute(operation) {
        case .videoID:
            let launch = try await VideoIDClient(http: http).authorize(operation)
            return .videoID(launch, warnings: [])
        case .readID:
            if let resultEndpoint {
                _ = try URLPolicy.validate(resultEndpoint.absoluteString, field: "resultURL", step: .configuration)
            }
            let plan = try ReadIDPlan.make(for: operation, binding: binding)
            guard let chipReader else {
                throw StepUpError(
                    .chipReadFailed, step: .chipRead, expected: "a chip reader",
                    reason: "no chip reader is available in this build")
            }
            let chip: ReadIDChipResult
            do {
                chip = try await chipReader.read(plan)
            } catch is CancellationError {
                throw StepUpError(.cancelled, step: .chipRead, reason: "the chip read was cancelled")
            }
            let (document, resultWarnings) = StepUpResultDocument.make(plan: plan, result: chip)
            let warnings = plan.warnings + resultWarnings
            guard let resultEndpoint else {
                return .readID(document, warnings: warnings, uploaded: false, uploadError: nil)
            }
            do {
                try await ResultUploader(endpoint: resultEndpoint, http: http).upload(document, token: plan.oauthToken)
                return .readID(document, warnings: warnings, uploaded: true, uploadError: nil)
            } catch let e as StepUpError {
                return .readID(document, warnings: warnings, uploaded: false, uploadError: e)
            }
        }
    }
}
