public import Foundation
public import StepUp

/// Names of the environment variables `emrtd stepup` reads. Credentials come **only** from here.
public enum StepUpEnvironment {
    public static let clientId = "SIGNICAT_CLIENT_ID"
    public static let clientSecret = "SIGNICAT_CLIENT_SECRET"
    public static let tokenURL = "EMRTD_STEPUP_TOKEN_URL"
    public static let scope = "EMRTD_STEPUP_SCOPE"
    public static let baseURL = "EMRTD_STEPUP_BASE_URL"
    public static let startPath = "EMRTD_STEPUP_START_PATH"
    public static let resultURL = "EMRTD_STEPUP_RESULT_URL"
    public static let timeout = "EMRTD_STEPUP_TIMEOUT"
    public static let maxAttempts = "EMRTD_STEPUP_MAX_ATTEMPTS"
}

/// The step-up commands' seams (part of `CommandContext`): standard input, files, the HTTP transport, sleep between
/// retries, the chip read of `stepup run` (nil: the reader configured by the ACCESS and reader options given) and
/// SHA-256 (needed only for `--bind-process-id`; nil: a build without it). Tests replace them.
public struct StepUpCommandIO: Sendable {
    public var readStdin: @Sendable () -> Data
    public var readFile: @Sendable (String) throws -> Data
    public var transport: any HTTPTransport
    public var sleep: @Sendable (Double) async throws -> Void
    public var chipReader: (any ReadIDChipReader)?
    public var sha256: (@Sendable ([UInt8]) -> [UInt8])?

    public init(
        readStdin: @escaping @Sendable () -> Data,
        readFile: @escaping @Sendable (String) throws -> Data = { try Data(contentsOf: URL(fileURLWithPath: $0)) },
        transport: any HTTPTransport = URLSessionHTTPTransport(),
        sleep: @escaping @Sendable (Double) async throws -> Void = { s in
            try await Task.sleep(nanoseconds: UInt64(max(0, s) * 1_000_000_000))
        },
        chipReader: (any ReadIDChipReader)? = nil, sha256: (@Sendable ([UInt8]) -> [UInt8])? = nil
    ) {
        self.readStdin = readStdin
        self.readFile = readFile
        self.transport = transport
        self.sleep = sleep
        self.chipReader = chipReader
        self.sha256 = sha256
    }
}

/// One step-up invocation (`emrtd stepup decode|start|run`, declared in `StepUpCommand` and dispatched by
/// `EMRTDCommand` like every command): its state and output helpers. JSON on stdout; warnings, progress and errors
/// on stderr (errors also as the JSON error object on stdout, written by `EMRTDCommand.report` as for every
/// command). Nothing written anywhere contains the step-up token, an access token or the client secret.
struct StepUpSession {
    let context: CommandContext
    var io: StepUpCommandIO { context.stepUp }
    var environment: [String: String] { context.environment }

    func printJSON(_ v: JSONValue) { context.stdout(v.prettyPrinted()) }

    struct UsageMessage: Error { let text: String }

    func usageError(_ m: UsageMessage, code: ErrorCode = .stepUpInput, command: String) -> Int32 {
        usageError(m.text, code: code, command: command)
    }

    func usageError(_ message: String, code: ErrorCode = .stepUpInput, command: String) -> Int32 {
        report(CLIError(code, message, status: .usage), command: command)
    }

    /// One line on stderr and the JSON error object on stdout (`emrtd.error/1`, with the step-up details: the step-up
    /// error's own members, its code among them), through the one error output of every command.
    func report(_ e: CLIError, command: String, stepUpError: JSONValue? = nil) -> Int32 {
        var e = e
        if case .object(let o)? = stepUpError { e.details = o }
        return EMRTDCommand.report(e, command: command, json: true, context: context)
    }

    static func status(for e: StepUpError) -> ExitStatus {
        if e.isRemote { return .remote }
        switch e.code {
        case .chipReadFailed, .cancelled: return .transport
        default: return .usage
        }
    }

    static func status(for s: StepUpStatus) -> Int32 {
        switch s {
        case .accepted: return ExitStatus.ok.rawValue
        case .inconclusive: return ExitStatus.inconclusive.rawValue
        case .rejected: return ExitStatus.rejected.rawValue
        }
    }

    /// A step-up error as one line of words: the field at fault, what went wrong and was expected, what the remote
    /// said (HTTP status, Signicat's error object, trace id), and what to do. The codes are in the JSON object.
    static func words(_ e: StepUpError) -> String {
        var s = e.field.map { "\($0): " } ?? ""
        s += e.reason
        if let expected = e.expected { s += " (expected \(expected))" }
        if !e.missingFields.isEmpty { s += "; missing: \(e.missingFields.joined(separator: ", "))" }
        if let status = e.httpStatus { s += "; HTTP \(status)" }
        if let r = e.remoteError {
            let parts = [r.code, r.title, r.detail].compactMap { $0 }
            if !parts.isEmpty { s += "; the remote said: \(parts.joined(separator: " — "))" }
            for p in r.invalidParams ?? [] {
                s += "; invalid \(p.name ?? "parameter"): \(p.reason ?? "no reason given")"
            }
        }
        if let trace = e.traceId { s += " (trace id \(trace))" }
        if let hint = hint(e) { s += " — \(hint)" }
        return s
    }

    static func hint(_ e: StepUpError) -> String? {
        switch e.code {
        case .invalidBase64, .unsupportedMimeType, .malformedJSON, .notAnObject, .missingVersion, .unsupportedVersion,
            .notAStepUp, .unknownProvider, .insecureURL, .invalidURL, .invalidProcessId, .inconsistentProviderOptions,
            .unsupportedProcessType, .missingField, .invalidFieldType:
            return e.step == .configuration || e.step == .validateStartRequest
                ? "correct the option or environment variable named" : "give the operation context as ReuseID sent it"
        case .notReadyForProofing:
            return "give the post-operation context (the one after the user's MobileID authentication)"
        case .httpUnauthorized, .httpForbidden:
            return
                "check \(StepUpEnvironment.clientId), \(StepUpEnvironment.clientSecret) and that the step-up token is fresh"
        case .httpNotFound: return "check the URL, the user and the process"
        case .httpRateLimited, .httpServerError: return "try again later"
        case .timeout, .transportFailure: return "check the network, or allow more time with --timeout"
        case .httpUnexpectedStatus, .nonJSONResponse, .missingAuthorization, .invalidResponse:
            return "the remote answered wrongly; report it with the trace id"
        case .invalidUserId, .invalidDeviceId, .providerOptionsNotApplicable, .invalidConfiguration:
            return nil
        case .chipReadFailed, .cancelled: return nil
        }
    }

    func fail(command: String, _ e: StepUpError) -> Int32 { fail(e, command: command) }

    func fail(_ e: StepUpError, command: String) -> Int32 {
        let status = Self.status(for: e)
        return report(
            CLIError(
                status == .remote ? .stepUpRemote : e.step == .chipRead ? .stepUpChipRead : .stepUpInput, Self.words(e),
                status: status),
            command: command, stepUpError: e.jsonValue)
    }

    /// A failure of the chip read itself (its own code and exit status), with the step-up token redacted.
    func fail(_ e: CLIError, redactor: Redactor, command: String) -> Int32 {
        var e = e
        e.message = redactor.redact(e.message)
        return report(e, command: command)
    }

    func warn(_ warnings: [StepUpWarning]) {
        for w in warnings { context.stderr("emrtd stepup: warning \(w)") }
    }

    /// Reads CONTEXT_JSON: `-` = stdin, `{…` = inline, else a file path.
    /// An inline context puts the step-up token into the process list (`ps`, shell history): warned about.
    func readInput(_ arg: String, command: String) -> Result<Data, UsageMessage> {
        if arg == "-" { return .success(io.readStdin()) }
        if arg.trimmingCharacters(in: .whitespaces).hasPrefix("{") {
            context.stderr(
                "emrtd \(command): warning: the context was given inline, which shows its step-up token in the process list and shell history; give a file or - (standard input) instead"
            )
            return .success(Data(arg.utf8))
        }
        do { return .success(try io.readFile(arg)) } catch {
            return .failure(
                UsageMessage(text: "cannot read the CONTEXT file (give a readable file, or - for standard input)"))
        }
    }

    func logger(_ verbose: Bool) -> StepUpLogger {
        let stderr = context.stderr
        return verbose ? StepUpLogger { stderr($0) } : .none
    }

    func httpClient(timeout: Double, verbose: Bool, extraRedactor: Redactor = Redactor()) -> StepUpHTTPClient {
        let attempts = environment[StepUpEnvironment.maxAttempts].flatMap(Int.init) ?? RetryPolicy.default.maxAttempts
        let inner = logger(verbose)
        let log = StepUpLogger { inner.sink(extraRedactor.redact($0)) }
        return StepUpHTTPClient(
            transport: io.transport, timeout: timeout, retry: RetryPolicy(maxAttempts: attempts),
            logger: log, sleep: io.sleep)
    }

    /// `--timeout` (checked when parsed), else `EMRTD_STEPUP_TIMEOUT` checked by the same rule, else 30 s.
    func timeout(_ a: ParsedArguments) -> Result<Double, UsageMessage> {
        if let t = a.number("timeout") { return .success(t) }
        guard let raw = environment[StepUpEnvironment.timeout] else { return .success(30) }
        guard let t = StepUpCommand.timeoutRule.value(raw) else {
            return .failure(UsageMessage(text: StepUpCommand.timeoutRule.message))
        }
        return .success(t)
    }

    // MARK: decode

    func decode(_ a: ParsedArguments) -> Int32 {
        let command = "stepup decode"
        let requireProofing = a.flag("require-proofing")
        guard let input = a.positionals.first else {
            return usageError(
                "give the CONTEXT file, or - for standard input", code: .missingArgument, command: command)
        }
        let data: Data
        switch readInput(input, command: command) {
        case .success(let d): data = d
        case .failure(let m): return usageError(m, command: command)
        }
        do {
            let decoded = try StepUpInput.parse(data)
            let op = decoded.operation
            warn(decoded.warnings)
            if requireProofing { try op.requireReadyForProofing() }
            var out: [String: JSONValue] = [
                "schema": .string(StepUpCommand.schema),
                "input": .string(decoded.context == nil ? "operation" : "context"),
                "phase": decoded.phase.map { .string($0.rawValue) } ?? .null,
                "wrapped": .bool(decoded.document.wrapped),
                "route": .string(StepUpRoute(op).rawValue),
                "readyForRouting": .bool(true),
                "readyForProofing": .bool(op.isReadyForProofing),
                "missingForProofing": .array(op.missingForProofing.map { .string($0) }),
                "signicatOperation": op.redactedJSON(),
            ]
            if let c = decoded.context { out["context_mime"] = .string(c.contextMime) }
            if op.provider.kind == .readID, op.videoidProviderOptions != nil {
                let w = StepUpWarning(
                    code: "videoid-options-ignored",
                    message: "videoidProviderOptions only concerns VideoID; ignored for ReadID")
                warn([w])
                out["warnings"] = .array([.string(w.description)])
            }
            if !decoded.warnings.isEmpty {
                var all = decoded.warnings.map { JSONValue.string($0.description) }
                if case .array(let more)? = out["warnings"] { all += more }
                out["warnings"] = .array(all)
            }
            printJSON(.object(out))
            return ExitStatus.ok.rawValue
        } catch let e as StepUpError {
            return fail(e, command: command)
        } catch {
            return usageError("the context could not be decoded", command: command)
        }
    }

    // MARK: start

    func start(_ a: ParsedArguments) async -> Int32 {
        let command = "stepup start"
        let verbose = a.flag("verbose")
        guard let userId = a.value("user-id") else {
            return usageError("--user-id is required", code: .missingArgument, command: command)
        }
        guard let deviceId = a.value("device-id") else {
            return usageError("--device-id is required", code: .missingArgument, command: command)
        }
        var docTypes: [Int]?
        if let raw = a.value("doc-types") {
            let parts = raw.split(separator: ",", omittingEmptySubsequences: false)
                .map { $0.trimmingCharacters(in: .whitespaces) }
            let ints = parts.compactMap { Int($0) }
            guard ints.count == parts.count else {
                return usageError("--doc-types expects integers N,N,…", code: .badValue, command: command)
            }
            docTypes = ints
        }
        let defaultId = a.number("default-id").map { Int($0) }
        let timeout: Double
        switch self.timeout(a) {
        case .success(let t): timeout = t
        case .failure(let m): return usageError(m, code: .badValue, command: command)
        }
        do {
            let request = try StartStepUpRequest(
                userId: userId, deviceId: deviceId, provider: a.value("provider"),
                docTypes: docTypes, defaultId: defaultId)
            guard let clientId = environment[StepUpEnvironment.clientId], !clientId.isEmpty,
                let secret = environment[StepUpEnvironment.clientSecret], !secret.isEmpty
            else {
                throw StepUpError(
                    .invalidConfiguration, step: .configuration,
                    field: "\(StepUpEnvironment.clientId), \(StepUpEnvironment.clientSecret)",
                    expected: "both environment variables set",
                    reason: "API client credentials are missing from the environment")
            }
            let credentials = ClientCredentials(clientId: clientId, clientSecret: SecretString(secret))
            let tokenURL = try URLPolicy.validate(
                a.value("token-url") ?? environment[StepUpEnvironment.tokenURL]
                    ?? OAuthTokenClient.defaultTokenURL.absoluteString,
                field: "tokenURL", step: .configuration)
            let baseURL = try URLPolicy.validate(
                a.value("base-url") ?? environment[StepUpEnvironment.baseURL]
                    ?? StartStepUpConfiguration.defaultBaseURL.absoluteString,
                field: "baseURL", step: .configuration)
            let path =
                a.value("start-path") ?? environment[StepUpEnvironment.startPath]
                ?? StartStepUpConfiguration.defaultPath
            let http = httpClient(timeout: timeout, verbose: verbose, extraRedactor: credentials.redactor)
            let tokens = OAuthTokenClient(
                tokenURL: tokenURL, credentials: credentials,
                scope: environment[StepUpEnvironment.scope] ?? OAuthTokenClient.defaultScope,
                http: http)
            let client = StartStepUpClient(
                configuration: StartStepUpConfiguration(baseURL: baseURL, path: path),
                tokens: tokens, http: http)
            let response = try await client.start(request)
            var sent = request
            if sent.provider == nil { sent.provider = .signicatVideoID }
            let redactor = await tokens.redactor
            var out: [String: JSONValue] = [
                "schema": .string(StepUpCommand.schema),
                "request": (try? JSONValue(encoding: sent)) ?? .null,
                "response": response.body.redacted(by: redactor),
                "endpoint": .string(StepUpHTTPClient.describe(client.configuration.endpoint)),
            ]
            if let t = response.traceId { out["traceId"] = .string(redactor.redact(t)) }
            printJSON(.object(out))
            return ExitStatus.ok.rawValue
        } catch let e as StepUpError {
            return fail(e, command: command)
        } catch {
            return fail(
                command: command,
                StepUpError(
                    .transportFailure, step: .startStepUp,
                    reason: "start step-up failed unexpectedly; please report it"))
        }
    }

    // MARK: run

    func run(_ a: ParsedArguments) async -> Int32 {
        let command = "stepup run"
        let sha256 = io.sha256
        guard let input = a.positionals.first else {
            return usageError(
                "give the CONTEXT file, or - for standard input", code: .missingArgument, command: command)
        }
        let bind = a.flag("bind-process-id")
        let verbose = a.flag("verbose")
        let resultURL = a.value("result-url") ?? environment[StepUpEnvironment.resultURL]
        // The chip read's options (those of `emrtd read`, --card-timeout for its card wait).
        let readerWords = a.words(for: Set(StepUpCommand.readerOptions.map(\.name) + ["card-timeout"]))
        let timeout: Double
        switch self.timeout(a) {
        case .success(let t): timeout = t
        case .failure(let m): return usageError(m, code: .badValue, command: command)
        }
        let data: Data
        switch readInput(input, command: command) {
        case .success(let d): data = d
        case .failure(let m): return usageError(m, command: command)
        }
        var tokenRedactor = Redactor()
        do {
            let decoded = try StepUpInput.parse(data)
            let op = decoded.operation
            warn(decoded.warnings)
            if let token = op.token { tokenRedactor.add(token) }
            try op.requireReadyForProofing()
            var binding = ProcessBinding.none
            if bind {
                guard let sha256 else {
                    throw StepUpError(
                        .invalidConfiguration, step: .configuration, field: "--bind-process-id",
                        expected: "a build that supplies SHA-256",
                        reason: "process binding needs SHA-256, which this build does not supply")
                }
                binding = .processId(sha256: sha256)
            }
            let endpoint = try resultURL.map { try URLPolicy.validate($0, field: "resultURL", step: .configuration) }
            if StepUpRoute(op) == .videoID && !readerWords.isEmpty {
                warn([StepUpWarning(code: "reader-options-ignored", message: "reader options are ignored for VideoID")])
            }
            if StepUpRoute(op) == .videoID && bind {
                warn([
                    StepUpWarning(
                        code: "process-binding-ignored",
                        message: "--bind-process-id binds a chip read (Active Authentication); VideoID reads no chip")
                ])
            }
            let runner = StepUpRunner(
                http: httpClient(timeout: timeout, verbose: verbose, extraRedactor: tokenRedactor),
                chipReader: io.chipReader ?? StepUpChipReader(arguments: a), binding: binding, resultEndpoint: endpoint)
            switch try await runner.run(op) {
            case .videoID(let launch, let warnings):
                warn(warnings)
                var object = (try? JSONValue(encoding: launch))?.objectValue ?? [:]
                object["schema"] = .string(StepUpCommand.schema)
                printJSON(.object(object))
                return ExitStatus.ok.rawValue
            case .readID(let document, let warnings, _, let uploadError):
                warn(warnings)
                let json = (try? JSONValue(encoding: document))?.redacted(by: tokenRedactor) ?? .null
                if let uploadError {
                    context.stdout(json.prettyPrinted())
                    context.stderr("emrtd stepup run: the result was not uploaded: \(Self.words(uploadError))")
                    return ExitStatus.remote.rawValue
                }
                printJSON(json)
                return Self.status(for: document.status)
            }
        } catch let e as StepUpError {
            return fail(e, command: command)
        } catch let e as CLIError {
            return fail(e, redactor: tokenRedactor, command: command)
        } catch {
            return fail(
                command: command,
                StepUpError(
                    .chipReadFailed, step: .chipRead,
                    reason: "the chip read failed unexpectedly; please report it"))
        }
    }
}
