import Foundation
import Testing

@testable import StepUp

/// The seed examples parse, keep every value, and encode back to the same JSON (docs/architecture.md §8.1).
@Suite struct ModelRoundTripTests {
    let encoder: JSONEncoder = {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys]
        return e
    }()

    @Test func startRequestWithNonUUIDDeviceIdParsesAndRoundTrips() throws {
        let r = try JSONDecoder().decode(StartStepUpRequest.self, from: Data(Seeds.startRequest.utf8))
        #expect(r.userId == UUID(uuidString: "a1e26081-35b4-4557-a46a-ef50bc91672f"))
        #expect(r.deviceId == "b1g73121-55c4-9238-l39j-ek60dc91872g")
        #expect(UUID(uuidString: r.deviceId) == nil, "the documented deviceId is not a UUID and must still be accepted")
        #expect(r.provider == .signicatVideoID)
        #expect(r.videoidProviderOptions?.docTypes == [138, 169, 147, 245, 277])
        #expect(r.videoidProviderOptions?.defaultId == 138)
        #expect(try Seeds.json(encoder.encode(r)) == Seeds.json(Seeds.startRequest))
    }

    @Test func startRequestWithoutProviderMeansVideoID() throws {
        let text = #"{"userId": "a1e26081-35b4-4557-a46a-ef50bc91672f", "deviceId": "kiosk-7"}"#
        let r = try JSONDecoder().decode(StartStepUpRequest.self, from: Data(text.utf8))
        #expect(r.provider == nil)
        #expect(r.effectiveProvider.kind == .videoID)
        #expect(try Seeds.json(encoder.encode(r)) == Seeds.json(text))
    }

    @Test func videoIDOperationObjectWithWrapperParsesAndRoundTrips() throws {
        let doc = try SignicatOperationDocument.decode(Data(Seeds.videoIDOperation.utf8))
        let op = doc.operation
        #expect(doc.wrapped)
        #expect(op.version == "1")
        #expect(op.operation == "authentication")
        #expect(op.provider.kind == .videoID && op.provider.rawValue == "signicatvideoid")
        #expect(op.token?.reveal() == Seeds.token)
        #expect(op.url == "https://etrust-sandbox.electronicid.eu/v2")
        #expect(op.processType == "substantial")
        #expect(op.processId == "0dca14cf-957d-46d9-b374-520f9c650859")
        #expect(op.videoidProviderOptions == VideoIDProviderOptions(docType: 1, docTypes: [1, 2, 3], defaultId: 1))
        #expect(op.isReadyForProofing)
        #expect(try Seeds.json(encoder.encode(doc)) == Seeds.json(Seeds.videoIDOperation))
    }

    @Test func operationObjectWithoutWrapperParsesAndRoundTrips() throws {
        guard case .object(let wrapped) = try Seeds.json(Seeds.videoIDOperation),
            let inner = wrapped["signicatOperation"]
        else {
            Issue.record("seed shape")
            return
        }
        let bare = inner.prettyPrinted()
        let doc = try SignicatOperationDocument.decode(Data(bare.utf8))
        #expect(!doc.wrapped)
        #expect(doc.operation.processId == "0dca14cf-957d-46d9-b374-520f9c650859")
        #expect(try Seeds.json(encoder.encode(doc)) == inner)
    }

    @Test func preOperationContextParsesAndIsRoutableButNotProofable() throws {
        let input = try StepUpInput.parse(Data(Seeds.preOperationContext.utf8))
        #expect(input.phase == .pre)
        #expect(input.context?.contextMime == "application/json")
        #expect(input.operation.isPreOperation)
        #expect(StepUpRoute(input.operation) == .videoID)
        #expect(input.operation.missingForProofing == ["version", "token", "url", "processId"])
        let ctxDoc = try JSONDecoder().decode(OperationContextDocument.self, from: Data(Seeds.preOperationContext.utf8))
        #expect(try Seeds.json(encoder.encode(ctxDoc)) == Seeds.json(Seeds.preOperationContext))
        #expect(try Seeds.json(encoder.encode(input.document)) == Seeds.json(Seeds.preOperation))
    }

    @Test func postOperationContextParsesAndRoundTrips() throws {
        let input = try StepUpInput.parse(Data(Seeds.postOperationContext.utf8))
        #expect(input.phase == .post)
        #expect(input.operation.isReadyForProofing)
        #expect(input.operation.token?.reveal() == Seeds.token)
        let ctxDoc = try JSONDecoder().decode(
            OperationContextDocument.self, from: Data(Seeds.postOperationContext.utf8))
        #expect(try Seeds.json(encoder.encode(ctxDoc)) == Seeds.json(Seeds.postOperationContext))
        #expect(try Seeds.json(encoder.encode(input.document)) == Seeds.json(Seeds.videoIDOperation))
    }

    @Test func bareContextWithoutPhaseParses() throws {
        let text =
            #"{"context_content_b64": "\#(Data(Seeds.videoIDOperation.utf8).base64EncodedString())", "context_mime": "application/json"}"#
        let input = try StepUpInput.parse(Data(text.utf8))
        #expect(input.phase == nil)
        #expect(input.context != nil)
        #expect(input.operation.processId == "0dca14cf-957d-46d9-b374-520f9c650859")
    }

    @Test func contextBuiltFromDocumentDecodesBack() throws {
        let doc = try SignicatOperationDocument.decode(Data(Seeds.videoIDOperation.utf8))
        let ctx = try OperationContext(document: doc)
        #expect(try ctx.decodeOperation() == doc)
    }

    @Test func videoIDRequestAndResponseParseAndRoundTrip() throws {
        let req = try JSONDecoder().decode(VideoIDAuthorizationRequest.self, from: Data(Seeds.videoIDRequest.utf8))
        #expect(req.process == "Unattended")
        #expect(try Seeds.json(encoder.encode(req)) == Seeds.json(Seeds.videoIDRequest))
        #expect(try Seeds.json(encoder.encode(VideoIDAuthorizationRequest())) == Seeds.json(Seeds.videoIDRequest))

        let resp = try JSONDecoder().decode(VideoIDAuthorizationResponse.self, from: Data(Seeds.videoIDResponse.utf8))
        #expect(resp.id == "87a819bd-9419-417a-9e55-cab8789d4115")
        #expect(resp.authorization?.reveal() == "<authorisationToken>")
        #expect(try Seeds.json(encoder.encode(resp)) == Seeds.json(Seeds.videoIDResponse))
    }

    @Test func unknownExtraFieldsAreIgnored() throws {
        let text = Seeds.videoIDOperation.replacingOccurrences(
            of: #""version": "1","#, with: #""version": "1", "futureField": {"a": [1, 2]}, "flag": true,"#)
        #expect(text != Seeds.videoIDOperation)
        let doc = try SignicatOperationDocument.decode(Data(text.utf8))
        #expect(doc.operation.processId == "0dca14cf-957d-46d9-b374-520f9c650859")
        let start = Seeds.startRequest.replacingOccurrences(of: #""provider""#, with: #""newThing": 1, "provider""#)
        #expect(try JSONDecoder().decode(StartStepUpRequest.self, from: Data(start.utf8)).deviceId.isEmpty == false)
    }

    @Test func signicatErrorObjectParses() throws {
        let body = """
            {"type": "https://x/errors/validation", "title": "Bad Request", "code": "validation_error", "status": 400,
             "traceId": "abc-123", "detail": "The request is invalid",
             "invalidParams": [{"name": "deviceId", "reason": "must not be empty"}], "unknown": 1}
            """
        let e = try #require(SignicatErrorObject.parse(Data(body.utf8)))
        #expect(e.type == "https://x/errors/validation")
        #expect(e.title == "Bad Request")
        #expect(e.code == "validation_error")
        #expect(e.status == 400)
        #expect(e.traceId == "abc-123")
        #expect(e.detail == "The request is invalid")
        #expect(e.invalidParams == [.init(name: "deviceId", reason: "must not be empty")])
        #expect(SignicatErrorObject.parse(Data("<html>".utf8)) == nil)
        #expect(SignicatErrorObject.parse(Data(#"{"x": 1}"#.utf8)) == nil)
        let oauth = try #require(
            SignicatErrorObject.parse(Data(#"{"error": "invalid_client", "error_description": "no"}"#.utf8)))
        #expect(oauth.code == "invalid_client" && oauth.detail == "no")
    }

    @Test(arguments: ["signicatvideoid", "videoid", "SignicatVideoID", "readid"])
    func providerSpellingsAreAcceptedAndKept(_ spelling: String) throws {
        let text = Seeds.videoIDOperation.replacingOccurrences(
            of: #""provider": "signicatvideoid""#,
            with: #""provider": "\#(spelling)""#)
        let doc = try SignicatOperationDocument.decode(Data(text.utf8))
        #expect(doc.operation.provider.rawValue == spelling)
        #expect(doc.operation.provider.kind == (spelling == "readid" ? .readID : .videoID))
        #expect(try Seeds.json(encoder.encode(doc)) == Seeds.json(text))
    }

    @Test(arguments: [
        ("ewogICJhIjogMQp9", #"{"a": 1}"#),  // padded standard
        ("eyJhIjoxfQ", #"{"a":1}"#),  // unpadded
        ("eyJhIjoiPz8-In0", #"{"a":"??>"}"#),  // URL-safe with '-'
        ("eyJhIjoiPz8_In0=", #"{"a":"???"}"#),  // URL-safe with '_', padded
    ])
    func base64VariantsAreAccepted(_ b64: String, _ json: String) throws {
        let data = try Base64Lenient.decode(b64, field: "f", step: .decodeContext)
        #expect(try JSONValue.parse(data) == Seeds.json(json))
    }
}
