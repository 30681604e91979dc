import Foundation
import MRTDTestSupport
import Testing

@testable import StepUp

@Suite struct ReadIDAndRunnerTests {
    func readIDOp(
        _ extra: String = "", processId: String = "0dca14cf-957d-46d9-b374-520f9c650859",
        url: String = "https://readid.example.test/odata/v1"
    ) throws -> SignicatOperation {
        try SignicatOperationDocument.decode(
            Data(Seeds.readIDOperation(url: url, processId: processId, extra: extra).utf8)
        )
        .operation
    }

    @Test func readIDPlanMapsReuseIDValues() throws {
        let plan = try ReadIDPlan.make(for: try readIDOp())
        #expect(plan.files == [.dg1, .dg2, .dg11, .dg12, .dg14, .dg15, .sod, .cardAccess, .cardSecurity])
        #expect(
            plan.files.map(\.rawValue) == [
                "DG1", "DG2", "DG11", "DG12", "DG14", "DG15", "SOD", "CardAccess", "CardSecurity",
            ])
        #expect(plan.baseURL.absoluteString == "https://readid.example.test/odata/v1")
        #expect(plan.oauthToken.reveal() == Seeds.token)
        #expect(plan.opaqueId == "0dca14cf-957d-46d9-b374-520f9c650859")
        #expect(plan.processId == plan.opaqueId)
        #expect(plan.activeAuthenticationChallenge == nil)
        #expect(plan.warnings.isEmpty)
        #expect(!"\(plan)".contains(Seeds.token), "the plan's description must not show the token")
    }

    @Test func videoIDOptionsAreIgnoredForReadIDWithAWarning() throws {
        let plan = try ReadIDPlan.make(
            for: try readIDOp(#", "videoidProviderOptions": {"docTypes": [1], "defaultId": 1}"#))
        #expect(plan.warnings.map(\.code) == ["videoid-options-ignored"])
    }

    @Test func readIDPlanRefusesVideoIDAndPreOperation() throws {
        let video = try SignicatOperationDocument.decode(Data(Seeds.videoIDOperation.utf8)).operation
        #expect(throws: StepUpError.self) { try ReadIDPlan.make(for: video) }
        let pre = try SignicatOperation(version: nil, provider: .readID, processType: "substantial")
        do {
            _ = try ReadIDPlan.make(for: pre)
            Issue.record("accepted")
        } catch let e as StepUpError {
            #expect(e.code == .notReadyForProofing)
            #expect(e.missingFields == ["version", "token", "url", "processId"])
        }
    }

    /// The challenge rule: first 8 bytes of SHA-256(UTF-8(lowercase processId)). The hash is the
    /// caller's; a recording stand-in checks what is hashed and what is kept.
    @Test func processBindingDerivesTheChallengeFromTheLowercaseProcessId() throws {
        let seen = Recorder()
        let fakeSHA: @Sendable ([UInt8]) -> [UInt8] = { input in
            seen.log(String(decoding: input, as: UTF8.self))
            return (0..<32).map { UInt8($0) ^ UInt8(truncatingIfNeeded: input.count) }
        }
        let upper = try readIDOp(processId: "0DCA14CF-957D-46D9-B374-520F9C650859")
        let plan = try ReadIDPlan.make(for: upper, binding: .processId(sha256: fakeSHA))
        #expect(seen.lines == ["0dca14cf-957d-46d9-b374-520f9c650859"])
        #expect(plan.activeAuthenticationChallenge == (0..<8).map { UInt8($0) ^ 36 })
        #expect(plan.activeAuthenticationChallenge?.count == ProcessBinding.challengeLength)
        // negative twin: another processId hashes another input
        let other = try ReadIDPlan.make(
            for: try readIDOp(processId: "0dca14cf-957d-46d9-b374-520f9c650858"),
            binding: .processId(sha256: fakeSHA))
        #expect(seen.lines.last == "0dca14cf-957d-46d9-b374-520f9c650858")
        #expect(other.processId != plan.processId)
    }

    @Test func processBindingRejectsAHashOfTheWrongSize() throws {
        do {
            _ = try ReadIDPlan.make(
                for: try readIDOp(), binding: .processId(sha256: { _ in [UInt8](repeating: 1, count: 20) }))
            Issue.record("accepted")
        } catch let e as StepUpError {
            #expect(e.code == .invalidConfiguration)
        }
    }

    @Test(arguments: [
        (ChipVerification.succeeded, ChipCloneDetection.succeeded, StepUpStatus.accepted),
        (.succeeded, .notAvailable, .accepted),
        (.succeeded, .failed, .inconclusive),
        (.failed, .succeeded, .rejected),
        (.failed, .notAvailable, .rejected),
        // NOT_CHECKED: no trust anchor for the issuing state, cannot tell (docs/report.md "Verdict")
        (.notChecked, .succeeded, .inconclusive),
    ])
    func statusFollowsDesign42(_ v: ChipVerification, _ c: ChipCloneDetection, _ want: StepUpStatus) {
        #expect(StepUpStatus.derived(chipVerification: v, chipCloneDetection: c) == want)
    }

    @Test func readerCannotClaimABetterStatusThanItsChecks() throws {
        let plan = try ReadIDPlan.make(for: try readIDOp())
        let chip = try FakeChipReader(status: .accepted, clone: .failed).result.get()
        let (doc, warnings) = StepUpResultDocument.make(plan: plan, result: chip)
        #expect(doc.status == .inconclusive)
        #expect(warnings.map(\.code) == ["status-downgraded"])
        // a stricter reader verdict is kept
        let strict = try FakeChipReader(status: .rejected).result.get()
        #expect(StepUpResultDocument.make(plan: plan, result: strict).0.status == .rejected)
    }

    @Test func resultDocumentHasTheDocumentedShape() throws {
        let plan = try ReadIDPlan.make(for: try readIDOp())
        let (doc, _) = StepUpResultDocument.make(plan: plan, result: try FakeChipReader(status: .accepted).result.get())
        let json = try JSONValue(encoding: doc)
        #expect(
            Set(json.objectValue?.keys.map { $0 } ?? []) == [
                "schema", "processId", "provider", "status", "consolidatedIdentityData", "evidence",
            ])
        #expect(json["provider"] == .string("readid"))
        #expect(json["status"] == .string("accepted"))
        let cid = try #require(json["consolidatedIdentityData"]?.objectValue)
        #expect(
            Set(cid.keys) == [
                "chipVerification", "chipCloneDetection", "documentType", "documentCode",
                "documentNumber", "issuingCountry", "nationality", "dateOfBirth", "dateOfExpiry",
                "gender", "firstName", "lastName", "personalIdentificationNumber",
            ])
        #expect(cid["chipVerification"] == .string("SUCCEEDED"))
        #expect(json["evidence"]?["reportPath"] == .string("/tmp/evidence/0dca14cf/report.json"))
        #expect(try JSONDecoder().decode(StepUpResultDocument.self, from: JSONEncoder().encode(doc)) == doc)
    }

    // MARK: runner

    @Test func runnerReadIDReadsAndUploads() async throws {
        let s = try StandInServer()
        defer { s.stop() }
        let reader = FakeChipReader(status: .accepted)
        let runner = StepUpRunner(
            http: makeHTTP(Recorder()), chipReader: reader,
            resultEndpoint: URL(string: s.resultURL))
        guard
            case .readID(let doc, _, let uploaded, let err) = try await runner.run(try readIDOp())
        else {
            Issue.record("wrong route")
            return
        }
        #expect(doc.status == .accepted && uploaded && err == nil)
        #expect(reader.plans.count == 1)
        #expect(s.requests(to: "/results").count == 1)
    }

    @Test func runnerKeepsTheResultWhenTheUploadFails() async throws {
        let s = try StandInServer()
        defer { s.stop() }
        s.script("/results", .text(500, "down"))
        let runner = StepUpRunner(
            http: makeHTTP(Recorder()), chipReader: FakeChipReader(status: .inconclusive, clone: .failed),
            resultEndpoint: URL(string: s.resultURL))
        guard case .readID(let doc, _, let uploaded, let err) = try await runner.run(try readIDOp()) else {
            Issue.record("wrong route")
            return
        }
        #expect(doc.status == .inconclusive && !uploaded)
        #expect(err?.code == .httpServerError)
    }

    @Test func runnerHandsTheChipReadersOwnErrorsBack() async throws {
        struct Boom: Error, Equatable { let detail: String }
        let op = try readIDOp()
        do {
            _ = try await StepUpRunner(
                http: makeHTTP(Recorder()), chipReader: FakeChipReader(.failure(Boom(detail: "access denied")))
            ).run(op)
            Issue.record("accepted")
        } catch let e as Boom {
            #expect(e == Boom(detail: "access denied"), "the reader's error reaches the caller unchanged")
        }
        let cancelled = await stepUpError {
            _ = try await StepUpRunner(
                http: makeHTTP(Recorder()), chipReader: FakeChipReader(.failure(CancellationError()))
            )
            .run(op)
        }
        #expect(cancelled?.code == .cancelled)
        let none = await stepUpError { _ = try await StepUpRunner(http: makeHTTP(Recorder()), chipReader: nil).run(op) }
        #expect(none?.code == .chipReadFailed)
    }

    @Test func runnerHasNoSideEffectForAPreOperationObject() async throws {
        let s = try StandInServer()
        defer { s.stop() }
        let reader = FakeChipReader(status: .accepted)
        let pre = try SignicatOperation(version: nil, provider: .readID, processType: "substantial")
        let e = await stepUpError {
            _ = try await StepUpRunner(
                http: makeHTTP(Recorder()), chipReader: reader,
                resultEndpoint: URL(string: s.resultURL)
            ).run(pre)
        }
        #expect(e?.code == .notReadyForProofing)
        #expect(reader.plans.isEmpty)
        #expect(s.requests.isEmpty)
    }

    @Test func runnerVideoIDRouteReadsNoChip() async throws {
        let s = try StandInServer()
        defer { s.stop() }
        let reader = FakeChipReader(status: .accepted)
        let op = try SignicatOperationDocument.decode(Data(Seeds.videoIDOperation(url: s.videoIDURL).utf8)).operation
        guard
            case .videoID(let launch, let warnings) = try await StepUpRunner(
                http: makeHTTP(Recorder()), chipReader: reader
            )
            .run(op)
        else {
            Issue.record("wrong route")
            return
        }
        #expect(launch.authorization.reveal() == s.videoIDAuthorization)
        #expect(warnings.isEmpty)
        #expect(reader.plans.isEmpty)
    }
}
