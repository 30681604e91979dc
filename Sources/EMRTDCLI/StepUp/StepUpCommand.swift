import Foundation
import StepUp

/// `emrtd stepup …` (docs/stepup.md): the declarations of `decode`, `start` and `run`, parsed and dispatched by
/// `EMRTDCommand` like every command; each runs a `StepUpSession` over the invocation's `CommandContext`.
enum StepUpCommand {
    static let context = ArgumentDecl(
        "CONTEXT",
        help:
            "the operation context or operation object: a file, or - for standard input (inline JSON starting with { works but puts the step-up token into the process list)",
        secret: true, kind: .file)
    static let verbose = OptionDecl("verbose", help: "log HTTP exchanges (redacted) on stderr")
    /// The per-request HTTP timeout: `--timeout`, else `EMRTD_STEPUP_TIMEOUT` (checked by the same rule), else 30 s.
    static let timeoutRule = NumberRule.seconds(upTo: 600, message: "--timeout expects seconds in (0, 600]")
    static let httpTimeout = OptionDecl(
        "timeout", value: "SECONDS", help: "per-request HTTP timeout (env \(StepUpEnvironment.timeout))",
        default: "30", number: timeoutRule)
    /// Credentials come from the environment only.
    static let credentialFlags: [String: String] = Dictionary(
        uniqueKeysWithValues: ["client-id", "client-secret", "secret", "token", "password", "access-token"].map {
            (
                $0,
                "credentials are never taken from flags: set \(StepUpEnvironment.clientId) and \(StepUpEnvironment.clientSecret)"
            )
        })
    /// The schema of `decode`'s, `start`'s and VideoID `run`'s JSON output; the ReadID result document has its own
    /// (`StepUpResultDocument.schemaName`).
    static let schema = "emrtd.stepup/1"
    static let runSchemas =
        "\(schema) (VideoID launch data) or \(StepUpResultDocument.schemaName) (ReadID result)"
    static let exits: [ExitStatus] = [
        .ok, .usage, .transport, .accessControl, .trust, .remote, .inconclusive, .rejected,
    ]

    static let decode = CommandDecl(
        "decode", summary: "validate an operation context and print it with the token redacted",
        discussion: "Prints the route (videoid/readid) and which fields identity proofing still needs.",
        arguments: [context],
        options: [OptionDecl("require-proofing", help: "fail (exit 2) unless the object is ready for proofing")],
        schema: schema, alwaysJSON: true, exits: [.ok, .usage],
        run: { inv in StepUpSession(context: inv.context).decode(inv.arguments) })

    static let start = CommandDecl(
        "start", summary: "start a ReuseID step-up from the integrator's server",
        discussion: """
            Credentials come from the environment only: \(StepUpEnvironment.clientId), \(StepUpEnvironment.clientSecret);
            scope from \(StepUpEnvironment.scope) (default signicat-api).
            """,
        options: [
            OptionDecl("user-id", value: "UUID", help: "the user (a UUID)"),
            OptionDecl("device-id", value: "ID", help: "the MobileID device (opaque, non-empty)"),
            OptionDecl(
                "provider", value: "P", kind: .choice(["signicatvideoid", "videoid", "readid"]),
                help: "signicatvideoid, videoid or readid", default: "signicatvideoid"),
            OptionDecl("doc-types", value: "N,N,…", help: "VideoID document types (opaque integers); not with readid"),
            OptionDecl(
                "default-id", value: "N", help: "preselected VideoID document type, one of --doc-types",
                number: NumberRule(
                    -9_007_199_254_740_992...9_007_199_254_740_992, whole: true,
                    message: "--default-id expects an integer")),
            OptionDecl(
                "base-url", value: "URL", help: "ReuseID base URL (env \(StepUpEnvironment.baseURL))",
                default: StartStepUpConfiguration.defaultBaseURL.absoluteString),
            OptionDecl(
                "start-path", value: "PATH", help: "start step-up path (env \(StepUpEnvironment.startPath))",
                default: StartStepUpConfiguration.defaultPath),
            OptionDecl(
                "token-url", value: "URL", help: "OAuth token endpoint (env \(StepUpEnvironment.tokenURL))",
                default: OAuthTokenClient.defaultTokenURL.absoluteString),
            httpTimeout,
            verbose,
        ],
        schema: schema, alwaysJSON: true, exits: [.ok, .usage, .remote], refused: credentialFlags,
        run: { inv in await StepUpSession(context: inv.context).start(inv.arguments) })

    /// The reader options handed to the chip read (those of `emrtd read` except its --timeout and --json, which
    /// are --card-timeout here and always on).
    static let readerOptions: [OptionDecl] =
        Options.access + Options.trust
        + Options.reader.filter { $0.name != "timeout" } + [Options.quiet]

    static let run = CommandDecl(
        "run", summary: "route a post-operation context: VideoID launch data, or a ReadID chip read",
        discussion: """
            VideoID (signicatvideoid/videoid): POST <url>/videoid.request, prints the launch data
              {schema, id, processId, url, authorization, docType?, docTypes?, idDefault?}.
            ReadID (readid): reads the document chip and prints the result document
              {schema, processId, provider, status, consolidatedIdentityData, processBinding?, evidence};
              exit 0/10/11. The uploaded copy (--result-url) leaves out evidence (local paths).
            --bind-process-id without Active Authentication (no DG15) proves nothing: processBinding is
              "unproven" and a warning says so.
            The ACCESS and reader options are those of emrtd read; --card-timeout is its --timeout.
            """,
        arguments: [context],
        options: [
            OptionDecl(
                "bind-process-id", help: "AA challenge = first 8 bytes of SHA-256(lowercase processId)",
                conflicts: ["aa-challenge"]),
            OptionDecl(
                "result-url", value: "URL",
                help: "POST the ReadID result there with the step-up token (env \(StepUpEnvironment.resultURL))"),
            httpTimeout,
            OptionDecl(
                "card-timeout", value: "SECONDS", help: "how long to wait for the document on the reader",
                default: "30", number: Options.cardWait("card-timeout")),
            verbose,
        ] + readerOptions,
        schema: runSchemas, alwaysJSON: true, exits: exits, refused: credentialFlags,
        run: { inv in await StepUpSession(context: inv.context).run(inv.arguments) })

    static let command = CommandDecl(
        "stepup", summary: "the Signicat ReuseID step-up glue (decode, start, run)",
        discussion: "See docs/stepup.md. Every step-up command prints one JSON object on stdout, also on failure.",
        subcommands: [decode, start, run], schema: runSchemas, alwaysJSON: true, exits: exits)
}
