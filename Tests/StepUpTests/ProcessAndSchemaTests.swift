import Foundation
import MRTDTestSupport
import Testing

@testable import EMRTDCLI
@testable import StepUp

/// What `emrtd stepup` does with the operation's `processType`, a provider spelt in another case, a process binding
/// the chip cannot prove, and the schema its outputs carry.
extension CommandLineTests {
    @Test(arguments: [("substantial", true), ("Substantial", true), (nil, true), ("high", false), ("low", false)])
    func processTypeChoosesTheVideoIDProcessOrIsRefused(processType: String?, supported: Bool) async throws {
        let s = try StandInServer()
        defer { s.stop() }
        var operation = Seeds.videoIDOperation(url: s.videoIDURL)
        let line = #""processType": "substantial","#
        operation = operation.replacingOccurrences(
            of: line, with: processType.map { #""processType": "\#($0)","# } ?? "")
        if let processType {
            #expect(operation.contains(processType))
        } else {
            #expect(!operation.contains("processType"))
        }
        let r = await run(["run", "-"], env: env(s), stdin: Seeds.postContext(operation))
        if supported {
            #expect(r.code == 0, "\(r.rec.stderr)")
            let sent = try #require(s.requests(to: "/v2/videoid.request").first)
            #expect(try JSONValue.parse(sent.body) == Seeds.json(Seeds.videoIDRequest))
        } else {
            #expect(r.code == 2, "\(r.rec.stderr)")
            #expect(r.json?["error"]?["code"] == .string("unsupported-process-type"))
            #expect(r.json?["error"]?["field"] == .string("processType"))
            #expect(s.requests(to: "/v2/videoid.request").isEmpty, "no request for an unsupported process")
            let decoded = await run(["decode", "-"], stdin: Seeds.postContext(operation))
            #expect(decoded.code == 2)
            #expect(decoded.json?["error"]?["code"] == .string("unsupported-process-type"))
        }
    }

    @Test func theReadIDBranchCarriesProcessTypeWithoutUsingIt() async throws {
        let op = Seeds.readIDOperation().replacingOccurrences(of: "substantial", with: "high")
        let r = await run(["run", "-"], stdin: Seeds.postContext(op), chipReader: FakeChipReader(status: .accepted))
        #expect(r.code == 0, "\(r.rec.stderr)")
    }

    @Test func aProviderInAnotherCaseIsSentNormalised() async throws {
        let s = try StandInServer()
        defer { s.stop() }
        let r = await run(
            [
                "start", "--user-id", "a1e26081-35b4-4557-a46a-ef50bc91672f", "--device-id", "kiosk-4",
                "--provider", "ReadID",
            ], env: env(s))
        #expect(r.code == 0, "\(r.rec.stderr)")
        let sent = try #require(s.requests(to: "/reuseid/step-up").first)
        #expect(try JSONValue.parse(sent.body)["provider"] == .string("readid"), "\(sent.bodyText)")
        #expect(r.json?["request"]?["provider"] == .string("readid"))
        let built = try StartStepUpRequest(
            userId: "a1e26081-35b4-4557-a46a-ef50bc91672f", deviceId: "d", provider: "SignicatVideoID",
            docTypes: nil, defaultId: nil)
        #expect(built.provider?.rawValue == "signicatvideoid")
    }

    @Test func aBindingTheChipDoesNotProveIsSaidAndCarried() async throws {
        let sha: @Sendable ([UInt8]) -> [UInt8] = { _ in Array(0..<32) }
        let unproven = await run(
            ["run", "-", "--bind-process-id", "--can", "123456"], stdin: Seeds.postContext(Seeds.readIDOperation()),
            chipReader: FakeChipReader(status: .accepted, activeAuthentication: false), sha256: sha)
        #expect(unproven.code == 0, "\(unproven.rec.stderr)")
        #expect(unproven.json?["processBinding"] == .string("unproven"))
        #expect(unproven.rec.stderr.contains("process-binding-unproven"), "\(unproven.rec.stderr)")
        let proven = await run(
            ["run", "-", "--bind-process-id", "--can", "123456"], stdin: Seeds.postContext(Seeds.readIDOperation()),
            chipReader: FakeChipReader(status: .accepted, activeAuthentication: true), sha256: sha)
        #expect(proven.json?["processBinding"] == .string("proven"))
        #expect(!proven.rec.stderr.contains("process-binding-unproven"))
        let unbound = await run(
            ["run", "-", "--can", "123456"], stdin: Seeds.postContext(Seeds.readIDOperation()),
            chipReader: FakeChipReader(status: .accepted))
        #expect(unbound.json?["processBinding"] == nil)
    }

    @Test func aBindingAskedOfVideoIDIsSaidToBeIgnored() async throws {
        let s = try StandInServer()
        defer { s.stop() }
        let r = await run(
            ["run", "-", "--bind-process-id"], env: env(s),
            stdin: Seeds.postContext(Seeds.videoIDOperation(url: s.videoIDURL)), sha256: { _ in Array(0..<32) })
        #expect(r.code == 0, "\(r.rec.stderr)")
        #expect(r.rec.stderr.contains("process-binding-ignored"), "\(r.rec.stderr)")
    }

    @Test func decodeStartAndVideoIDRunCarryTheSchemaTheHelpNames() async throws {
        let s = try StandInServer()
        defer { s.stop() }
        let decoded = await run(["decode", "-"], stdin: Seeds.postOperationContext)
        #expect(decoded.json?["schema"] == .string("emrtd.stepup/1"))
        let started = await run(
            ["start", "--user-id", "a1e26081-35b4-4557-a46a-ef50bc91672f", "--device-id", "kiosk-4"], env: env(s))
        #expect(started.json?["schema"] == .string("emrtd.stepup/1"), "\(started.rec.stderr)")
        let launched = await run(
            ["run", "-"], env: env(s), stdin: Seeds.postContext(Seeds.videoIDOperation(url: s.videoIDURL)))
        #expect(launched.json?["schema"] == .string("emrtd.stepup/1"), "\(launched.rec.stderr)")
        let read = await run(
            ["run", "-"], stdin: Seeds.postContext(Seeds.readIDOperation()),
            chipReader: FakeChipReader(status: .accepted))
        #expect(read.json?["schema"] == .string(StepUpResultDocument.schemaName))
        // the help names exactly these
        for (sub, schemas) in [
            ("decode", ["emrtd.stepup/1"]), ("start", ["emrtd.stepup/1"]),
            ("run", ["emrtd.stepup/1", StepUpResultDocument.schemaName]),
        ] {
            let help = await run([sub, "--help"])
            for schema in schemas { #expect(help.rec.stdout.contains(schema), "\(sub): \(help.rec.stdout)") }
        }
    }
}

@Suite struct ResultUploadBodyTests {
    @Test func theUploadBodyLeavesOutTheLocalEvidencePaths() throws {
        let plan = ReadIDPlan(
            processId: "0dca14cf-957d-46d9-b374-520f9c650859", provider: .readID,
            baseURL: URL(string: "https://readid.example.test")!, oauthToken: SecretString(Seeds.token),
            opaqueId: "0dca14cf-957d-46d9-b374-520f9c650859")
        let fake = FakeChipReader(status: .accepted)
        guard case .success(let result) = fake.result else {
            Issue.record("the fake has no result")
            return
        }
        let (document, _) = StepUpResultDocument.make(plan: plan, result: result)
        let body = try JSONValue.parse(document.uploadBody())
        #expect(body["evidence"] == nil)
        #expect(body["status"] == .string("accepted"))
        #expect(body["consolidatedIdentityData"]?["documentNumber"] == .string("L898902C3"))
        #expect(!String(decoding: try document.uploadBody(), as: UTF8.self).contains("/tmp/evidence"))
        // the printed document keeps them
        #expect(try JSONValue(encoding: document)["evidence"]?["reportPath"] != nil)
    }
}
