public import Foundation

/// Exit codes of `emrtd stepup` (DESIGN.md §4.1, plus 6 for remote failures).
public enum StepUpExitCode {
    /// Success; for `run` with ReadID: accepted.
    public static let ok: Int32 = 0
    /// Usage error or bad input (every validation error of STEPUP.md §2, missing credentials).
    public static let usage: Int32 = 2
    /// Reader or transport failure of the chip read (also: no chip reader in this build).
    public static let transport: Int32 = 3
    /// Access control failed (chosen by the chip reader).
    public static let accessControl: Int32 = 4
    /// Trust material unusable (chosen by the chip reader).
    public static let trust: Int32 = 5
    /// HTTP / remote failure: 4xx/5xx answers, timeouts, connection failures, non-JSON answers,
    /// a VideoID answer without `authorization`, a failed result upload.
    public static let remote: Int32 = 6
    /// ReadID result inconclusive.
    public static let inconclusive: Int32 = 10
    /// ReadID result rejected.
    public static let rejected: Int32 = 11

    public static func forStatus(_ s: StepUpStatus) -> Int32 {
        switch s {
        case .accepted: ok
        case .inconclusive: inconclusive
        case .rejected: rejected
        }
    }

    public static func forError(_ e: StepUpError) -> Int32 {
        if e.isRemote { return remote }
        switch e.code {
        case .chipReadFailed, .cancelled: return transport
        default: return usage
        }
    }
}

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

/// What the command line talks to; the defaults are the process's stdin/stdout/stderr, the file
/// system and URLSession. Tests replace them.
public struct StepUpCommandIO: Sendable {
    public var stdout: @Sendable (String) -> Void
    public var stderr: @Sendable (String) -> Void
    public var readStdin: @Sendable () -> Data
    public var readFile: @Sendable (String) throws -> Data
    public var transport: any HTTPTransport
    public var sleep: @Sendable (Double) async throws -> Void

    public init(stdout: @escaping @Sendable (String) -> Void, stderr: @escaping @Sendable (String) -> Void,
                readStdin: @escaping @Sendable () -> Data,
                readFile: @escaping @Sendable (String) throws -> Data = { try Data(contentsOf: URL(fileURLWithPath: $0)) },
                transport: any HTTPTransport = URLSessionHTTPTransport(),
                sleep: @escaping @Sendable (Double) async throws -> Void = { s in
                    try await Task.sleep(nanoseconds: UInt64(max(0, s) * 1_000_000_000))
                }) {
        self.stdout = stdout
        self.stderr = stderr
        self.readStdin = readStdin
        self.readFile = readFile
        self.transport = transport
        self.sleep = sleep
    }

    /// The real process streams.
    public static func standard() -> StepUpCommandIO {
        StepUpCommandIO(
            stdout: { FileHandle.standardOutput.write(Data(($0 + "\n").utf8)) },
            stderr: { FileHandle.standardError.write(Data(($0 + "\n").utf8)) },
            readStdin: { FileHandle.standardInput.readDataToEndOfFile() })
    }
}

/// `emrtd stepup …`: decode, start, run. JSON on stdout; warnings, progress and errors on stderr
/// (errors also as `{"error": {…}}` on stdout). Nothing written anywhere contains the step-up
/// token, an access token or the client secret.
public enum StepUpCommandLine {
    public static let usage = """
        usage: emrtd stepup decode CONTEXT_JSON|- [--require-proofing]
               emrtd stepup start --user-id UUID --device-id ID [--provider signicatvideoid|videoid|readid]
                                  [--doc-types N,N,…] [--default-id N] [--base-url URL] [--start-path PATH]
                                  [--token-url URL] [--timeout SECONDS] [--verbose]
               emrtd stepup run CONTEXT_JSON|- [--bind-process-id] [--result-url URL] [--timeout SECONDS]
                                [--verbose] [ACCESS and reader options, passed to the chip reader]
        CONTEXT_JSON: a file, `-` for stdin, or inline JSON starting with `{`. It may be an operation
        context ({context_content_b64, context_mime}, optionally inside pre_operation_context or
        post_operation_context) or the Signicat operation object itself (with or without signicatOperation).
        Credentials: \(StepUpEnvironment.clientId), \(StepUpEnvironment.clientSecret) (environment only).
        Exit: 0 ok/accepted, 10 inconclusive, 11 rejected, 2 usage/bad input, 3 chip reader/transport,
              4 access control, 5 trust, 6 HTTP/remote failure.
        """

    static let decodeHelp = """
        usage: emrtd stepup decode CONTEXT_JSON|- [--require-proofing]
        Validates an operation context (or operation object) and prints it as JSON with the token
        redacted, the route (videoid/readid) and which fields identity proofing still needs.
        --require-proofing   fail (exit 2) unless the object is ready for proofing
        """

    static let startHelp = """
        usage: emrtd stepup start --user-id UUID --device-id ID [--provider P] [--doc-types N,N,…] [--default-id N]
        Starts a ReuseID step-up from the integrator's server and prints ReuseID's answer.
          --user-id UUID        the user (a UUID)
          --device-id ID        the MobileID device (opaque, non-empty)
          --provider P          signicatvideoid (default), videoid or readid
          --doc-types N,N,…     VideoID document types (opaque integers); not with readid
          --default-id N        preselected VideoID document type, one of --doc-types
          --base-url URL        ReuseID base URL (env \(StepUpEnvironment.baseURL); default \(StartStepUpConfiguration.defaultBaseURL.absoluteString))
          --start-path PATH     start step-up path [inferred] (env \(StepUpEnvironment.startPath); default \(StartStepUpConfiguration.defaultPath))
          --token-url URL       OAuth token endpoint (env \(StepUpEnvironment.tokenURL); default \(OAuthTokenClient.defaultTokenURL.absoluteString))
          --timeout SECONDS     per-request timeout (env \(StepUpEnvironment.timeout); default 30)
          --verbose             log HTTP exchanges (redacted) on stderr
        Credentials from the environment only: \(StepUpEnvironment.clientId), \(StepUpEnvironment.clientSecret);
        scope from \(StepUpEnvironment.scope) (default signicat-api).
        """

    static let runHelp = """
        usage: emrtd stepup run CONTEXT_JSON|- [--bind-process-id] [--result-url URL] [--timeout SECONDS] [--verbose]
                                [ACCESS and reader options…]
        Routes a post-operation context by provider and runs it:
          VideoID (signicatvideoid/videoid): POST <url>/videoid.request, prints the launch data
                   {url, authorization, docType?, docTypes?, idDefault?}.
          ReadID (readid): reads the document chip and prints the result document
                   {processId, provider, status, consolidatedIdentityData, evidence}; exit 0/10/11.
          --bind-process-id   AA challenge = first 8 bytes of SHA-256(lowercase processId)
          --result-url URL    POST the ReadID result there with the step-up token (env \(StepUpEnvironment.resultURL))
          --timeout SECONDS   per-request timeout (env \(StepUpEnvironment.timeout); default 30)
          --verbose           log HTTP exchanges (redacted) on stderr
        Every other option after CONTEXT_JSON (ACCESS = --mrz … | --document-number … --birth-date … --expiry-date …
        | --can …, --reader, --trust, --out, …) is handed unchanged to the chip reader.
        """

    /// Runs `emrtd stepup` with `arguments` (the words after `stepup`; a leading `stepup` is skipped).
    /// `sha256` is needed only for `--bind-process-id`.
    public static func run(arguments: [String], environment: [String: String], chipReader: (any ReadIDChipReader)?,
                           sha256: (@Sendable ([UInt8]) -> [UInt8])? = nil, io: StepUpCommandIO) async -> Int32 {
        var args = arguments
        if args.first == "stepup" { args.removeFirst() }
        guard let sub = args.first else {
            io.stderr(usage)
            return StepUpExitCode.usage
        }
        let rest = Array(args.dropFirst())
        let cli = Invocation(io: io, environment: environment)
        switch sub {
        case "--help", "-h", "help":
            io.stdout(usage)
            return StepUpExitCode.ok
        case "decode":
            if rest.contains("--help") || rest.contains("-h") { io.stdout(decodeHelp); return StepUpExitCode.ok }
            return cli.decode(rest)
        case "start":
            if rest.contains("--help") || rest.contains("-h") { io.stdout(startHelp); return StepUpExitCode.ok }
            return await cli.start(rest)
        case "run":
            if rest.first == "--help" || rest.first == "-h" { io.stdout(runHelp); return StepUpExitCode.ok }
            return await cli.run(rest, chipReader: chipReader, sha256: sha256)
        default:
            return cli.usageError("unknown subcommand \"\(sub.prefix(40))\"")
        }
    }
}

/// One invocation's state and output helpers.
struct Invocation {
    let io: StepUpCommandIO
    let environment: [String: String]

    /// Flags that would carry credentials: refused, credentials come from the environment.
    static let credentialFlags: Set<String> = ["--client-id", "--client-secret", "--secret", "--token", "--password",
                                               "--access-token"]

    func printJSON(_ v: JSONValue) { io.stdout(v.prettyPrinted()) }

    struct UsageMessage: Error { let text: String }

    func usageError(_ m: UsageMessage) -> Int32 { usageError(m.text) }

    func usageError(_ message: String) -> Int32 {
        io.stderr("emrtd stepup: \(message)")
        io.stderr("run `emrtd stepup --help` for usage")
        printJSON(.object(["error": .object(["code": .string("usage"), "reason": .string(message)])]))
        return StepUpExitCode.usage
    }

    func fail(_ e: StepUpError) -> Int32 {
        io.stderr("emrtd stepup: error \(e)")
        printJSON(.object(["error": e.jsonValue]))
        return StepUpExitCode.forError(e)
    }

    func fail(_ e: any StepUpExitCoded, redactor: Redactor) -> Int32 {
        let reason = redactor.redact(e.stepUpReason)
        io.stderr("emrtd stepup: error [chip-read] \(reason)")
        printJSON(.object(["error": .object(["code": .string("chip-read"), "step": .string("chip-read"),
                                             "reason": .string(reason)])]))
        return e.stepUpExitCode
    }

    func warn(_ warnings: [StepUpWarning]) {
        for w in warnings { io.stderr("emrtd stepup: warning \(w)") }
    }

    /// Reads CONTEXT_JSON: `-` = stdin, `{…` = inline, else a file path.
    func readInput(_ arg: String) -> Result<Data, UsageMessage> {
        if arg == "-" { return .success(io.readStdin()) }
        if arg.trimmingCharacters(in: .whitespaces).hasPrefix("{") { return .success(Data(arg.utf8)) }
        do { return .success(try io.readFile(arg)) } catch {
            return .failure(UsageMessage(text: "cannot read \"\(arg.prefix(200))\""))
        }
    }

    func logger(_ verbose: Bool) -> StepUpLogger {
        let io = self.io
        return verbose ? StepUpLogger { io.stderr($0) } : .none
    }

    func httpClient(timeout: Double, verbose: Bool, extraRedactor: Redactor = Redactor()) -> StepUpHTTPClient {
        let attempts = environment[StepUpEnvironment.maxAttempts].flatMap(Int.init) ?? RetryPolicy.default.maxAttempts
        let inner = logger(verbose)
        let log = StepUpLogger { inner.sink(extraRedactor.redact($0)) }
        return StepUpHTTPClient(transport: io.transport, timeout: timeout, retry: RetryPolicy(maxAttempts: attempts),
                                logger: log, sleep: io.sleep)
    }

    /// Parses `--timeout` / `EMRTD_STEPUP_TIMEOUT`.
    func timeout(_ flag: String?) -> Result<Double, UsageMessage> {
        guard let raw = flag ?? environment[StepUpEnvironment.timeout] else { return .success(30) }
        guard let t = Double(raw), t > 0, t <= 600 else { return .failure(UsageMessage(text: "--timeout expects seconds in (0, 600]")) }
        return .success(t)
    }

    // MARK: decode

    func decode(_ args: [String]) -> Int32 {
        var input: String?
        var requireProofing = false
        for a in args {
            if a == "--require-proofing" { requireProofing = true }
            else if a.hasPrefix("--") && a != "-" { return usageError("decode: unknown option \(a.prefix(40))") }
            else if input == nil { input = a }
            else { return usageError("decode: more than one CONTEXT_JSON") }
        }
        guard let input else { return usageError("decode: CONTEXT_JSON or - expected") }
        let data: Data
        switch readInput(input) {
        case .success(let d): data = d
        case .failure(let m): return usageError(m)
        }
        do {
            let decoded = try StepUpInput.parse(data)
            let op = decoded.operation
            if requireProofing { try op.requireReadyForProofing() }
            var out: [String: JSONValue] = [
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
                let w = StepUpWarning(code: "videoid-options-ignored",
                                      message: "videoidProviderOptions only concerns VideoID; ignored for ReadID")
                warn([w])
                out["warnings"] = .array([.string(w.description)])
            }
            printJSON(.object(out))
            return StepUpExitCode.ok
        } catch let e as StepUpError {
            return fail(e)
        } catch {
            return usageError("decode failed")
        }
    }

    // MARK: start

    func start(_ args: [String]) async -> Int32 {
        var values: [String: String] = [:]
        var verbose = false
        let valued: Set<String> = ["--user-id", "--device-id", "--provider", "--doc-types", "--default-id",
                                   "--base-url", "--start-path", "--token-url", "--timeout"]
        var i = 0
        while i < args.count {
            let a = args[i]
            if Self.credentialFlags.contains(a) || Self.credentialFlags.contains(where: { a.hasPrefix($0 + "=") }) {
                return usageError("credentials are never taken from flags: set \(StepUpEnvironment.clientId) "
                                  + "and \(StepUpEnvironment.clientSecret)")
            }
            if a == "--verbose" { verbose = true; i += 1; continue }
            var name = a
            var value: String?
            if let eq = a.firstIndex(of: "="), a.hasPrefix("--") {
                name = String(a[..<eq])
                value = String(a[a.index(after: eq)...])
            }
            guard valued.contains(name) else { return usageError("start: unknown argument \(a.prefix(40))") }
            if value == nil {
                guard i + 1 < args.count else { return usageError("start: \(name) needs a value") }
                value = args[i + 1]
                i += 1
            }
            if values[name] != nil { return usageError("start: \(name) given twice") }
            values[name] = value
            i += 1
        }
        guard let userId = values["--user-id"] else { return usageError("start: --user-id is required") }
        guard let deviceId = values["--device-id"] else { return usageError("start: --device-id is required") }
        var docTypes: [Int]?
        if let raw = values["--doc-types"] {
            let parts = raw.split(separator: ",", omittingEmptySubsequences: false)
                .map { $0.trimmingCharacters(in: .whitespaces) }
            let ints = parts.compactMap { Int($0) }
            guard ints.count == parts.count else { return usageError("start: --doc-types expects integers N,N,…") }
            docTypes = ints
        }
        var defaultId: Int?
        if let raw = values["--default-id"] {
            guard let v = Int(raw) else { return usageError("start: --default-id expects an integer") }
            defaultId = v
        }
        let timeout: Double
        switch self.timeout(values["--timeout"]) {
        case .success(let t): timeout = t
        case .failure(let m): return usageError(m)
        }
        do {
            let request = try StartStepUpRequest(userId: userId, deviceId: deviceId, provider: values["--provider"],
                                                 docTypes: docTypes, defaultId: defaultId)
            guard let clientId = environment[StepUpEnvironment.clientId], !clientId.isEmpty,
                  let secret = environment[StepUpEnvironment.clientSecret], !secret.isEmpty
            else {
                throw StepUpError(.invalidConfiguration, step: .configuration,
                                  field: "\(StepUpEnvironment.clientId), \(StepUpEnvironment.clientSecret)",
                                  expected: "both environment variables set",
                                  reason: "API client credentials are missing from the environment")
            }
            let credentials = ClientCredentials(clientId: clientId, clientSecret: SecretString(secret))
            let tokenURL = try URLPolicy.validate(
                values["--token-url"] ?? environment[StepUpEnvironment.tokenURL]
                    ?? OAuthTokenClient.defaultTokenURL.absoluteString,
                field: "tokenURL", step: .configuration)
            let baseURL = try URLPolicy.validate(
                values["--base-url"] ?? environment[StepUpEnvironment.baseURL]
                    ?? StartStepUpConfiguration.defaultBaseURL.absoluteString,
                field: "baseURL", step: .configuration)
            let path = values["--start-path"] ?? environment[StepUpEnvironment.startPath]
                ?? StartStepUpConfiguration.defaultPath
            let http = httpClient(timeout: timeout, verbose: verbose, extraRedactor: credentials.redactor)
            let tokens = OAuthTokenClient(tokenURL: tokenURL, credentials: credentials,
                                          scope: environment[StepUpEnvironment.scope] ?? OAuthTokenClient.defaultScope,
                                          http: http)
            let client = StartStepUpClient(configuration: StartStepUpConfiguration(baseURL: baseURL, path: path),
                                           tokens: tokens, http: http)
            let response = try await client.start(request)
            var sent = request
            if sent.provider == nil { sent.provider = .signicatVideoID }
            let redactor = await tokens.redactor
            var out: [String: JSONValue] = [
                "request": (try? JSONValue(encoding: sent)) ?? .null,
                "response": response.body.redacted(by: redactor),
                "endpoint": .string(StepUpHTTPClient.describe(client.configuration.endpoint)),
            ]
            if let t = response.traceId { out["traceId"] = .string(redactor.redact(t)) }
            printJSON(.object(out))
            return StepUpExitCode.ok
        } catch let e as StepUpError {
            return fail(e)
        } catch {
            return fail(StepUpError(.transportFailure, step: .startStepUp,
                                    reason: "start step-up failed (\(String(describing: type(of: error))))"))
        }
    }

    // MARK: run

    func run(_ args: [String], chipReader: (any ReadIDChipReader)?, sha256: (@Sendable ([UInt8]) -> [UInt8])?) async
        -> Int32
    {
        guard let input = args.first, input == "-" || !input.hasPrefix("--") else {
            return usageError("run: CONTEXT_JSON or - must come first")
        }
        var bind = false
        var verbose = false
        var resultURL = environment[StepUpEnvironment.resultURL]
        var timeoutFlag: String?
        var forwarded: [String] = []
        var i = 1
        while i < args.count {
            let a = args[i]
            if Self.credentialFlags.contains(a) {
                return usageError("credentials are never taken from flags")
            }
            switch a {
            case "--bind-process-id": bind = true
            case "--verbose": verbose = true
            case "--result-url", "--timeout":
                guard i + 1 < args.count else { return usageError("run: \(a) needs a value") }
                if a == "--result-url" { resultURL = args[i + 1] } else { timeoutFlag = args[i + 1] }
                i += 1
            default:
                forwarded.append(a)
            }
            i += 1
        }
        if bind && forwarded.contains("--aa-challenge") {
            return usageError("run: --bind-process-id and --aa-challenge exclude each other")
        }
        let timeout: Double
        switch self.timeout(timeoutFlag) {
        case .success(let t): timeout = t
        case .failure(let m): return usageError(m)
        }
        let data: Data
        switch readInput(input) {
        case .success(let d): data = d
        case .failure(let m): return usageError(m)
        }
        var tokenRedactor = Redactor()
        do {
            let decoded = try StepUpInput.parse(data)
            let op = decoded.operation
            if let token = op.token { tokenRedactor.add(token) }
            try op.requireReadyForProofing()
            var binding = ProcessBinding.none
            if bind {
                guard let sha256 else {
                    throw StepUpError(.invalidConfiguration, step: .configuration, field: "--bind-process-id",
                                      expected: "a build that supplies SHA-256",
                                      reason: "process binding needs SHA-256, which this build does not supply")
                }
                binding = .processId(sha256: sha256)
            }
            let endpoint = try resultURL.map { try URLPolicy.validate($0, field: "resultURL", step: .configuration) }
            let runner = StepUpRunner(http: httpClient(timeout: timeout, verbose: verbose, extraRedactor: tokenRedactor),
                                      chipReader: chipReader, binding: binding, resultEndpoint: endpoint)
            switch try await runner.run(op, readerArguments: forwarded) {
            case .videoID(let launch, let warnings):
                warn(warnings)
                printJSON((try? JSONValue(encoding: launch)) ?? .null)
                return StepUpExitCode.ok
            case .readID(let document, let warnings, _, let uploadError):
                warn(warnings)
                let json = (try? JSONValue(encoding: document))?.redacted(by: tokenRedactor) ?? .null
                if let uploadError {
                    io.stdout(json.prettyPrinted())
                    io.stderr("emrtd stepup: error \(uploadError)")
                    return StepUpExitCode.remote
                }
                printJSON(json)
                return StepUpExitCode.forStatus(document.status)
            }
        } catch let e as StepUpError {
            return fail(e)
        } catch let e as any StepUpExitCoded {
            return fail(e, redactor: tokenRedactor)
        } catch {
            return fail(StepUpError(.chipReadFailed, step: .chipRead,
                                    reason: "failed (\(String(describing: type(of: error))))"))
        }
    }
}
