import Foundation
import MRTDTestSupport
import Testing

@testable import EMRTDCLI
@testable import StepUp

/// `emrtd stepup …` end to end through `EMRTDCommand.run` (the dispatcher of every command), in process with the
/// output streams, standard input, files and chip read of a `CommandContext` replaced, and the real URLSession
/// transport against the Signicat stand-in. Every test scans all output for secrets.
@Suite struct CommandLineTests {
    struct Run {
        let code: Int32
        let rec: Recorder
        var json: JSONValue? { rec.stdoutJSON }
    }

    func run(
        _ args: [String], env: [String: String] = [:], stdin: String = "", chipReader: (any ReadIDChipReader)? = nil,
        sha256: (@Sendable ([UInt8]) -> [UInt8])? = nil, files: [String: String] = [:]
    ) async -> Run {
        let rec = Recorder()
        let stepUp = StepUpCommandIO(
            readStdin: { Data(stdin.utf8) },
            readFile: { path in
                guard let f = files[path] else { throw CocoaError(.fileNoSuchFile) }
                return Data(f.utf8)
            },
            transport: URLSessionHTTPTransport(), sleep: { rec.slept($0) }, chipReader: chipReader, sha256: sha256)
        let context = CommandContext(
            environment: env, stdout: { rec.out($0) }, stderr: { rec.err($0) }, stepUp: stepUp)
        let words = args.first == "stepup" ? args : ["stepup"] + args
        let code = await EMRTDCommand.run(words, context: context)
        return Run(code: code, rec: rec)
    }

    func env(_ s: StandInServer, _ extra: [String: String] = [:]) -> [String: String] {
        var e = [
            StepUpEnvironment.clientId: s.clientId, StepUpEnvironment.clientSecret: s.clientSecret,
            StepUpEnvironment.tokenURL: s.tokenURL, StepUpEnvironment.baseURL: s.reuseIDBaseURL,
            StepUpEnvironment.timeout: "2",
        ]
        for (k, v) in extra { e[k] = v }
        return e
    }

    // MARK: help and usage

    @Test(arguments: [
        ["--help"], ["decode", "--help"], ["start", "--help"], ["run", "--help"], ["stepup", "--help"],
    ])
    func helpPrintsUsage(_ args: [String]) async {
        let r = await run(args)
        #expect(r.code == 0)
        #expect(r.rec.stdout.contains("USAGE: emrtd stepup"))
    }

    @Test(arguments: [[], ["frobnicate"], ["decode"], ["run"], ["run", "--can", "123456"], ["start", "--user-id"]])
    func usageErrorsExitWith2(_ args: [String]) async {
        let r = await run(args)
        #expect(r.code == 2)
        #expect(!r.rec.stderr.isEmpty)
    }

    // MARK: decode

    @Test func decodePostContextFromAFile() async throws {
        let r = await run(["decode", "post.json"], files: ["post.json": Seeds.postOperationContext])
        #expect(r.code == 0)
        let j = try #require(r.json)
        #expect(j["phase"] == .string("post_operation_context"))
        #expect(j["route"] == .string("videoid"))
        #expect(j["readyForProofing"] == .bool(true))
        #expect(j["signicatOperation"]?["processId"] == .string("0dca14cf-957d-46d9-b374-520f9c650859"))
        #expect(j["signicatOperation"]?["token"]?.stringValue?.hasPrefix("<redacted") == true)
        expectNoSecret(r.rec.everything, [Seeds.token])
    }

    @Test func decodePreContextFromStdinSaysWhatProofingLacks() async throws {
        let r = await run(["decode", "-"], stdin: Seeds.preOperationContext)
        #expect(r.code == 0)
        let j = try #require(r.json)
        #expect(j["phase"] == .string("pre_operation_context"))
        #expect(j["readyForRouting"] == .bool(true))
        #expect(j["readyForProofing"] == .bool(false))
        #expect(j["missingForProofing"] == .array(["version", "token", "url", "processId"].map { .string($0) }))

        let strict = await run(["decode", "-", "--require-proofing"], stdin: Seeds.preOperationContext)
        #expect(strict.code == 2)
        #expect(strict.json?["error"]?["code"] == .string("not-ready-for-proofing"))
    }

    @Test func decodeBadInputPrintsTheSpecificError() async throws {
        let bad = Seeds.postContext(Seeds.videoIDOperation.replacingOccurrences(of: "signicatvideoid", with: "idin"))
        let r = await run(["decode", bad])
        #expect(r.code == 2)
        #expect(r.json?["error"]?["code"] == .string("unknown-provider"))
        #expect(r.json?["error"]?["field"] == .string("provider"))
        // stderr: words, naming the field and what to do; the codes are the JSON object's
        let line = try #require(r.rec.stderr.split(separator: "\n").last.map(String.init))
        #expect(line.hasPrefix("emrtd stepup decode: provider: "), "\(line)")
        #expect(line.contains("— give the operation context as ReuseID sent it"), "\(line)")
        #expect(!line.contains("[unknown-provider]") && !line.contains("decode-operation"), "\(line)")
        expectNoSecret(r.rec.everything, [Seeds.token])
    }

    @Test func decodeUnreadableFileIsUsage() async {
        let r = await run(["decode", "/nonexistent/ctx.json"])
        #expect(r.code == 2)
    }

    // MARK: start

    @Test func startPrintsReuseIDsAnswerAndNoSecret() async throws {
        let s = try StandInServer()
        defer { s.stop() }
        let r = await run(
            [
                "start", "--user-id", "a1e26081-35b4-4557-a46a-ef50bc91672f",
                "--device-id", "b1g73121-55c4-9238-l39j-ek60dc91872g", "--doc-types", "138,169,147",
                "--default-id", "169", "--verbose",
            ], env: env(s))
        #expect(r.code == 0, "\(r.rec.stderr)")
        let j = try #require(r.json)
        #expect(j["response"]?["data"]?["status"] == .string("Pending"))
        #expect(j["request"]?["provider"] == .string("signicatvideoid"))
        #expect(j["request"]?["videoidProviderOptions"]?["defaultId"] == .integer(169))
        #expect(j["traceId"] == .string("trace-start-ok"))
        #expect(r.rec.stderr.contains("stepup http: POST"), "verbose logs the exchanges")
        #expect(!s.issuedTokens.isEmpty)
        expectNoSecret(r.rec.everything, s.allSecrets)
    }

    @Test func startNeedsCredentialsFromTheEnvironment() async throws {
        let s = try StandInServer()
        defer { s.stop() }
        let args = ["start", "--user-id", "a1e26081-35b4-4557-a46a-ef50bc91672f", "--device-id", "k"]
        var e = env(s)
        e[StepUpEnvironment.clientSecret] = nil
        let r = await run(args, env: e)
        #expect(r.code == 2)
        #expect(r.json?["error"]?["code"] == .string("invalid-configuration"))
        #expect(s.requests.isEmpty)

        let flag = await run(args + ["--client-secret", s.clientSecret], env: e)
        #expect(flag.code == 2)
        expectNoSecret(flag.rec.everything, [s.clientSecret])
        #expect(s.requests.isEmpty)
    }

    @Test func startRefusesReadIDWithVideoIDOptionsBeforeAnyCall() async throws {
        let s = try StandInServer()
        defer { s.stop() }
        let r = await run(
            [
                "start", "--user-id", "a1e26081-35b4-4557-a46a-ef50bc91672f", "--device-id", "k",
                "--provider", "readid", "--doc-types", "1",
            ], env: env(s))
        #expect(r.code == 2)
        #expect(r.json?["error"]?["code"] == .string("provider-options-not-applicable"))
        #expect(s.requests.isEmpty)
    }

    @Test func startRemoteFailureExits6WithTraceId() async throws {
        let s = try StandInServer()
        defer { s.stop() }
        s.script(
            "/reuseid/step-up", .signicatError(404, code: "user_not_found", title: "Not Found", traceId: "cli-404"))
        let r = await run(
            ["start", "--user-id", "a1e26081-35b4-4557-a46a-ef50bc91672f", "--device-id", "k", "--verbose"],
            env: env(s))
        #expect(r.code == 6)
        #expect(r.json?["error"]?["code"] == .string("http-not-found"))
        #expect(r.json?["error"]?["traceId"] == .string("cli-404"))
        #expect(r.json?["error"]?["remoteError"]?["code"] == .string("user_not_found"))
        #expect(r.rec.stderr.contains("cli-404"))
        expectNoSecret(r.rec.everything, s.allSecrets)
    }

    @Test func startInsecureBaseURLIsRefused() async throws {
        let s = try StandInServer()
        defer { s.stop() }
        let r = await run(
            [
                "start", "--user-id", "a1e26081-35b4-4557-a46a-ef50bc91672f", "--device-id", "k",
                "--base-url", "http://reuseid.example.test/",
            ], env: env(s))
        #expect(r.code == 2)
        #expect(r.json?["error"]?["code"] == .string("insecure-url"))
        #expect(s.requests.isEmpty)
    }

    // MARK: run — VideoID

    @Test func runVideoIDPrintsLaunchData() async throws {
        let s = try StandInServer()
        defer { s.stop() }
        let ctx = Seeds.postContext(Seeds.videoIDOperation(url: s.videoIDURL + "/"))
        let r = await run(["run", "-", "--verbose"], env: env(s), stdin: ctx)
        #expect(r.code == 0, "\(r.rec.stderr)")
        let j = try #require(r.json)
        #expect(j["url"] == .string(s.videoIDURL + "/"))
        #expect(j["authorization"] == .string(s.videoIDAuthorization))
        #expect(j["docType"] == .integer(1))
        #expect(j["docTypes"] == .array([.integer(1), .integer(2), .integer(3)]))
        #expect(j["idDefault"] == .integer(1))
        // the VideoID session id from videoid.request and the step-up's processId tie the two together
        #expect(j["id"] == .string("87a819bd-9419-417a-9e55-cab8789d4115"))
        #expect(j["processId"] == .string("0dca14cf-957d-46d9-b374-520f9c650859"))
        #expect(s.requests(to: "/v2/videoid.request").count == 1)
        expectNoSecret(r.rec.everything, s.allSecrets)
        expectNoSecret(r.rec.stderr, [s.videoIDAuthorization])
    }

    @Test(
        .timeLimit(.minutes(1)),
        arguments: [
            (
                StandInServer.Behavior.signicatError(
                    401, code: "unauthorized", title: "Unauthorized", traceId: "r-401"), "http-unauthorized"
            ),
            (.signicatError(403, code: "forbidden", title: "Forbidden", traceId: "r-403"), "http-forbidden"),
            (.signicatError(404, code: "not_found", title: "Not Found", traceId: "r-404"), "http-not-found"),
            (.text(500, "oops"), "http-server-error"),
            (.hang(seconds: 10), "timeout"),
            (.text(200, "<html/>"), "non-json-response"),
            (.json(200, #"{"id": "x"}"#), "missing-authorization"),
            (.json(200, #"{"id": "x", "authorization": 12345}"#), "invalid-response"),
            (.json(200, #"{"id": 7, "authorization": "abc"}"#), "invalid-response"),
        ])
    func runVideoIDRemoteFailuresExit6(_ b: StandInServer.Behavior, _ code: String) async throws {
        let s = try StandInServer()
        defer { s.stop() }
        s.script("/v2/videoid.request", b)
        let r = await run(
            ["run", Seeds.postContext(Seeds.videoIDOperation(url: s.videoIDURL)), "--timeout", "0.5"], env: env(s))
        #expect(r.code == 6)
        #expect(r.json?["error"]?["code"] == .string(code))
        expectNoSecret(r.rec.everything, s.allSecrets)
    }

    @Test func runPreOperationContextFailsWithoutSideEffects() async throws {
        let s = try StandInServer()
        defer { s.stop() }
        let reader = FakeChipReader(status: .accepted)
        let r = await run(["run", "-"], env: env(s), stdin: Seeds.preOperationContext, chipReader: reader)
        #expect(r.code == 2)
        #expect(r.json?["error"]?["code"] == .string("not-ready-for-proofing"))
        #expect(
            r.json?["error"]?["missingFields"] == .array(["version", "token", "url", "processId"].map { .string($0) }))
        #expect(s.requests.isEmpty && reader.plans.isEmpty)
    }

    @Test func aContextWithBothPhasesUsesThePostOneAndSaysSo() async throws {
        let pre = try #require(try Seeds.json(Seeds.preOperationContext)["pre_operation_context"])
        let post = try #require(try Seeds.json(Seeds.postOperationContext)["post_operation_context"])
        let both = JSONValue.object(["pre_operation_context": pre, "post_operation_context": post]).prettyPrinted()
        let r = await run(["decode", "-"], stdin: both)
        #expect(r.code == 0, "\(r.rec.stderr)")
        #expect(r.json?["phase"] == .string("post_operation_context"))
        #expect(r.json?["readyForProofing"] == .bool(true))
        #expect(
            r.rec.stderr.contains("both-contexts") && r.rec.stderr.contains("post_operation_context"), "\(r.rec.stderr)"
        )
        if case .array(let w)? = r.json?["warnings"] { #expect(!w.isEmpty) } else { Issue.record("no warnings member") }
    }

    @Test func anInlineContextIsWarnedAbout() async throws {
        let inline = await run(["decode", Seeds.postOperationContext])
        #expect(inline.code == 0)
        #expect(inline.rec.stderr.contains("process list"), "\(inline.rec.stderr)")
        expectNoSecret(inline.rec.everything, [Seeds.token])
        let file = await run(["decode", "post.json"], files: ["post.json": Seeds.postOperationContext])
        #expect(!file.rec.stderr.contains("process list"))
    }

    @Test func theCardWaitHasItsOwnTimeout() async throws {
        let s = try StandInServer()
        defer { s.stop() }
        let reader = FakeChipReader(status: .accepted)
        let args = ["--timeout", "3", "--card-timeout", "45", "--can", "123456"]
        let r = await run(
            ["run", "-"] + args, env: env(s), stdin: Seeds.postContext(Seeds.readIDOperation()), chipReader: reader)
        #expect(r.code == 0, "\(r.rec.stderr)")
        // the command's own chip reader waits --card-timeout for the card (the HTTP --timeout is not its business)
        let parsed = try StepUpCommand.run.parse(["-"] + args)
        let plan = try ReadIDPlan.make(
            for: try SignicatOperationDocument.decode(Data(Seeds.readIDOperation().utf8)).operation)
        #expect(try StepUpChipReader(arguments: parsed).readOptions(for: plan).representTimeout == 45)
        let defaulted = try StepUpCommand.run.parse(["-", "--timeout", "3", "--can", "123456"])
        #expect(try StepUpChipReader(arguments: defaulted).readOptions(for: plan).representTimeout == 30)
    }

    @Test func aBoundChallengeIsTheReadsAndNeedsDG15() throws {
        let op = try SignicatOperationDocument.decode(Data(Seeds.readIDOperation().utf8)).operation
        let plan = try ReadIDPlan.make(for: op, binding: .processId(sha256: { _ in Array(0..<32) }))
        let parsed = try StepUpCommand.run.parse(["-", "--can", "123456", "--files", "DG1,DG2"])
        let options = try StepUpChipReader(arguments: parsed).readOptions(for: plan)
        #expect(options.activeAuthenticationChallenge == Array(0..<8))
        #expect(options.files == [.dg1, .dg2, .dg15])
        let unbound = try StepUpChipReader(arguments: parsed).readOptions(for: try ReadIDPlan.make(for: op))
        #expect(unbound.activeAuthenticationChallenge == nil && unbound.files == [.dg1, .dg2])
    }

    @Test func readerOptionsGivenForVideoIDAreWarnedAbout() async throws {
        let s = try StandInServer()
        defer { s.stop() }
        let reader = FakeChipReader(status: .accepted)
        let r = await run(
            ["run", "-", "--can", "123456"], env: env(s),
            stdin: Seeds.postContext(Seeds.videoIDOperation(url: s.videoIDURL)),
            chipReader: reader)
        #expect(r.code == 0, "\(r.rec.stderr)")
        #expect(r.rec.stderr.contains("reader options are ignored for VideoID"))
        #expect(reader.plans.isEmpty)
    }

    // MARK: run — ReadID

    @Test(arguments: [
        (StepUpStatus.accepted, ChipCloneDetection.succeeded, Int32(0)),
        (.inconclusive, .failed, 10), (.rejected, .succeeded, 11),
    ])
    func runReadIDExitCodeFollowsTheVerdict(_ status: StepUpStatus, _ clone: ChipCloneDetection, _ exit: Int32)
        async throws
    {
        let verification: ChipVerification = status == .rejected ? .failed : .succeeded
        let reader = FakeChipReader(status: status, verification: verification, clone: clone)
        let r = await run(
            ["run", "ctx.json", "--mrz", "P<UTOERIKSSON<<ANNA<MARIA", "--reader", "Virtual PCD 00 00"],
            chipReader: reader, files: ["ctx.json": Seeds.postContext(Seeds.readIDOperation())])
        #expect(r.code == exit, "\(r.rec.stderr)")
        let j = try #require(r.json)
        #expect(j["status"] == .string(status.rawValue))
        #expect(j["processId"] == .string("0dca14cf-957d-46d9-b374-520f9c650859"))
        #expect(j["consolidatedIdentityData"]?["chipCloneDetection"] == .string(clone.rawValue))
        #expect(reader.plans.count == 1)
        expectNoSecret(r.rec.everything, [Seeds.token])
    }

    @Test func runReadIDWithProcessBindingAndUpload() async throws {
        let s = try StandInServer()
        defer { s.stop() }
        let reader = FakeChipReader(status: .accepted, activeAuthentication: true)
        let sha: @Sendable ([UInt8]) -> [UInt8] = { _ in Array(0..<32) }
        let r = await run(
            ["run", "-", "--bind-process-id", "--can", "123456", "--result-url", s.resultURL, "--verbose"],
            env: env(s), stdin: Seeds.postContext(Seeds.readIDOperation()), chipReader: reader, sha256: sha)
        #expect(r.code == 0, "\(r.rec.stderr)")
        #expect(reader.plans.first?.activeAuthenticationChallenge == Array(0..<8))
        let upload = try #require(s.requests(to: "/results").first)
        #expect(upload.header("Authorization") == "Bearer \(Seeds.token)")
        // the upload is the printed document without its local evidence paths
        var printed = try #require(r.json?.objectValue)
        #expect(printed["processBinding"] == .string("proven"))
        #expect(printed["evidence"]?["bundlePath"] == .string("/tmp/evidence/0dca14cf"))
        printed["evidence"] = nil
        #expect(try JSONValue.parse(upload.body) == .object(printed))
        #expect(!upload.bodyText.contains("/tmp/evidence"), "\(upload.bodyText)")
        expectNoSecret(r.rec.everything, s.allSecrets)
    }

    @Test func runReadIDUploadFailureStillPrintsTheResultAndExits6() async throws {
        let s = try StandInServer()
        defer { s.stop() }
        s.script("/results", .signicatError(403, code: "forbidden", title: "Forbidden", traceId: "up-403"))
        let r = await run(
            ["run", "-"], env: env(s, [StepUpEnvironment.resultURL: s.resultURL]),
            stdin: Seeds.postContext(Seeds.readIDOperation()), chipReader: FakeChipReader(status: .accepted))
        #expect(r.code == 6)
        #expect(r.json?["status"] == .string("accepted"))
        #expect(r.rec.stderr.contains("up-403"))
    }

    @Test func runReadIDBindingWithoutSHA256IsAConfigurationError() async {
        let reader = FakeChipReader(status: .accepted)
        let r = await run(
            ["run", "-", "--bind-process-id"], stdin: Seeds.postContext(Seeds.readIDOperation()),
            chipReader: reader)
        #expect(r.code == 2)
        #expect(reader.plans.isEmpty)
        let both = await run(
            ["run", "-", "--bind-process-id", "--aa-challenge", "0011223344556677"],
            stdin: Seeds.postContext(Seeds.readIDOperation()), chipReader: reader, sha256: { _ in [] })
        #expect(both.code == 2)
    }

    @Test func runReadIDChipReaderChoosesItsExitCode() async {
        let denied = await run(
            ["run", "-"], stdin: Seeds.postContext(Seeds.readIDOperation()),
            chipReader: FakeChipReader(.failure(fakeAccessDenied)))
        #expect(denied.code == 4)
        #expect(denied.rec.stderr.contains("access control failed"))
        #expect(denied.json?["error"]?["code"] == .string("access-control"))
        let leaky = await run(
            ["run", "-"], stdin: Seeds.postContext(Seeds.readIDOperation()),
            chipReader: FakeChipReader(
                .failure(CLIError(.transport, "upload to ReadID with token \(Seeds.token) failed", status: .transport)))
        )
        #expect(leaky.code == 3)
        expectNoSecret(leaky.rec.everything, [Seeds.token])
        struct Unexpected: Error {}
        let unexpected = await run(
            ["run", "-"], stdin: Seeds.postContext(Seeds.readIDOperation()),
            chipReader: FakeChipReader(.failure(Unexpected())))
        #expect(unexpected.code == 3)
        #expect(unexpected.json?["error"]?["code"] == .string("chip-read-failed"))
        // without a stand-in, the built-in reader runs with the options given: here none, so no access data
        let builtIn = await run(["run", "-"], stdin: Seeds.postContext(Seeds.readIDOperation()))
        #expect(builtIn.code == 2)
        #expect(builtIn.rec.stderr.contains("access data missing"))
    }
}
