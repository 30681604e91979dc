import Foundation
import Testing

@testable import StepUp

/// One bad input of docs/architecture.md §8.2 → its specific error (code and field), one case each.
struct BadInput: Sendable, CustomTestStringConvertible {
    let name: String
    let input: String
    let code: StepUpError.Code
    let field: String?
    var testDescription: String { name }
}

private func ctx(b64: String, mime: String = "application/json") -> String {
    #"{"post_operation_context": {"context_content_b64": "\#(b64)", "context_mime": "\#(mime)"}}"#
}

private func b64(_ s: String) -> String { Data(s.utf8).base64EncodedString() }

/// The VideoID seed object with one replacement.
private func op(_ of: String, _ with: String) -> String {
    let s = Seeds.videoIDOperation.replacingOccurrences(of: of, with: with)
    precondition(s != Seeds.videoIDOperation, "replacement \(of) did not apply")
    return Seeds.postContext(s)
}

@Suite struct ValidationTests {
    static let badContexts: [BadInput] = [
        BadInput(
            name: "invalid base64", input: ctx(b64: "eyJ2ZXJzaW9uIjoi*MSJ9"), code: .invalidBase64,
            field: "context_content_b64"),
        BadInput(
            name: "base64 with data after padding", input: ctx(b64: "eyJh=IjoxfQ"), code: .invalidBase64,
            field: "context_content_b64"),
        BadInput(
            name: "base64 of impossible length", input: ctx(b64: "eyJhI"), code: .invalidBase64,
            field: "context_content_b64"),
        BadInput(
            name: "mime other than application/json",
            input: Seeds.postContext(Seeds.videoIDOperation, mime: "text/plain"),
            code: .unsupportedMimeType, field: "context_mime"),
        BadInput(
            name: "content is JSON but not an object", input: ctx(b64: b64("[1, 2, 3]")), code: .notAnObject, field: nil
        ),
        BadInput(name: "content is not JSON", input: ctx(b64: b64("{\"version\": ")), code: .malformedJSON, field: nil),
        BadInput(name: "missing version", input: op(#""version": "1","#, ""), code: .missingVersion, field: "version"),
        BadInput(
            name: "unknown version", input: op(#""version": "1""#, #""version": "2""#), code: .unsupportedVersion,
            field: "version"),
        BadInput(
            name: "operation other than authentication",
            input: op(
                #""operation": "authentication""#,
                #""operation": "registration""#),
            code: .notAStepUp, field: "operation"),
        BadInput(
            name: "unknown provider", input: op(#""provider": "signicatvideoid""#, #""provider": "idin""#),
            code: .unknownProvider, field: "provider"),
        BadInput(
            name: "non-HTTPS url",
            input: op(
                "https://etrust-sandbox.electronicid.eu/v2",
                "http://etrust-sandbox.electronicid.eu/v2"),
            code: .insecureURL, field: "url"),
        BadInput(
            name: "url that is not a URL", input: op("https://etrust-sandbox.electronicid.eu/v2", "not a url"),
            code: .invalidURL, field: "url"),
        BadInput(
            name: "processId not a UUID", input: op("0dca14cf-957d-46d9-b374-520f9c650859", "process-42"),
            code: .invalidProcessId, field: "processId"),
        BadInput(
            name: "defaultId not among docTypes", input: op(#""defaultId": 1"#, #""defaultId": 9"#),
            code: .inconsistentProviderOptions, field: "videoidProviderOptions.defaultId"),
        BadInput(
            name: "docType not among docTypes", input: op(#""docType": 1"#, #""docType": 7"#),
            code: .inconsistentProviderOptions, field: "videoidProviderOptions.docType"),
        BadInput(
            name: "empty docTypes", input: op(#""docTypes": [1, 2, 3]"#, #""docTypes": []"#),
            code: .inconsistentProviderOptions, field: "videoidProviderOptions.docTypes"),
        BadInput(
            name: "processId of the wrong JSON type", input: op(#""0dca14cf-957d-46d9-b374-520f9c650859""#, "42"),
            code: .invalidFieldType, field: "processId"),
        BadInput(
            name: "docTypes of the wrong JSON type", input: op(#""docTypes": [1, 2, 3]"#, #""docTypes": "1,2,3""#),
            code: .invalidFieldType, field: "videoidProviderOptions.docTypes"),
        BadInput(
            name: "missing operation", input: op(#""operation": "authentication","#, ""),
            code: .missingField, field: "operation"),
        BadInput(
            name: "missing context_mime",
            input: #"{"post_operation_context": {"context_content_b64": "\#(b64(Seeds.videoIDOperation))"}}"#,
            code: .missingField, field: "post_operation_context.context_mime"),
        BadInput(
            name: "context that is not an object", input: #"{"pre_operation_context": "abc"}"#,
            code: .notAnObject, field: "pre_operation_context"),
    ]

    @Test(arguments: badContexts)
    func badContextYieldsItsError(_ c: BadInput) throws {
        let e = try #require(throws: StepUpError.self, "\(c.name)") { try StepUpInput.parse(Data(c.input.utf8)) }
        #expect(e.code == c.code, "\(c.name): \(e)")
        #expect(e.field == c.field, "\(c.name): \(e)")
        #expect(!e.reason.isEmpty)
        if c.field != nil { #expect(e.expected != nil, "\(c.name) names no expectation") }
        #expect(!e.description.contains(Seeds.token))
    }

    /// Every negative case above has a positive twin: the seed itself is valid.
    @Test func seedIsValid() throws {
        let op = try StepUpInput.parse(Data(Seeds.postOperationContext.utf8)).operation
        #expect(op.isReadyForProofing)
    }

    @Test func inputThatIsNotJSONAtAll() {
        let text = #expect(throws: StepUpError.self) { try StepUpInput.parse(Data("hello".utf8)) }
        #expect(text?.code == .malformedJSON)
        let array = #expect(throws: StepUpError.self) { try StepUpInput.parse(Data("[1]".utf8)) }
        #expect(array?.code == .notAnObject)
    }

    @Test(arguments: ["http://127.0.0.1:8080/v2", "http://localhost/v2", "http://[::1]:9/v2", "https://a.example/v2/"])
    func httpIsAllowedOnlyToLoopback(_ url: String) throws {
        _ = try URLPolicy.validate(url, field: "url", step: .validateOperation)
    }

    @Test(arguments: [
        "http://128.0.0.1/v2", "http://localhost.evil.example/v2", "ftp://a.example/v2",
        "http://10.0.0.1/v2",
    ])
    func httpToOtherHostsIsRefused(_ url: String) {
        let e = #expect(throws: StepUpError.self, "\(url) accepted") {
            try URLPolicy.validate(url, field: "url", step: .validateOperation)
        }
        #expect(e?.code == .insecureURL)
    }

    @Test func preOperationObjectIsValidForRoutingButNotForProofing() throws {
        let input = try StepUpInput.parse(Data(Seeds.preOperationContext.utf8))
        #expect(StepUpRoute(input.operation) == .videoID)
        let e = try #require(throws: StepUpError.self, "pre-operation object accepted for proofing") {
            try input.operation.requireReadyForProofing()
        }
        #expect(e.code == .notReadyForProofing)
        #expect(e.missingFields == ["version", "token", "url", "processId"])
        #expect(e.reason.contains("version, token, url, processId"))
    }

    @Test func operationWithTokenButNoProcessIdNamesOnlyThat() throws {
        let s = Seeds.videoIDOperation.replacingOccurrences(
            of: #""processId": "0dca14cf-957d-46d9-b374-520f9c650859","#,
            with: "")
        let op = try SignicatOperationDocument.decode(Data(s.utf8)).operation
        #expect(op.missingForProofing == ["processId"])
    }

    // MARK: start step-up request

    static let badStarts: [BadInput] = [
        BadInput(
            name: "userId not a UUID",
            input: Seeds.startRequest.replacingOccurrences(
                of: "a1e26081-35b4-4557-a46a-ef50bc91672f", with: "user-1"), code: .invalidUserId, field: "userId"),
        BadInput(
            name: "empty deviceId",
            input: Seeds.startRequest.replacingOccurrences(
                of: "b1g73121-55c4-9238-l39j-ek60dc91872g", with: " "), code: .invalidDeviceId, field: "deviceId"),
        BadInput(
            name: "unknown provider",
            input: Seeds.startRequest.replacingOccurrences(
                of: #""signicatvideoid""#, with: #""bankid""#), code: .unknownProvider, field: "provider"),
        BadInput(
            name: "readid with videoidProviderOptions is refused",
            input: Seeds.startRequest.replacingOccurrences(
                of: #""signicatvideoid""#, with: #""readid""#), code: .providerOptionsNotApplicable,
            field: "videoidProviderOptions"),
        BadInput(
            name: "defaultId not among docTypes",
            input: Seeds.startRequest.replacingOccurrences(
                of: #""defaultId": 138"#, with: #""defaultId": 1"#), code: .inconsistentProviderOptions,
            field: "videoidProviderOptions.defaultId"),
        BadInput(
            name: "missing deviceId", input: #"{"userId": "a1e26081-35b4-4557-a46a-ef50bc91672f"}"#,
            code: .missingField, field: "deviceId"),
    ]

    @Test(arguments: badStarts)
    func badStartRequestYieldsItsError(_ c: BadInput) {
        #expect(c.input != Seeds.startRequest || c.name.hasPrefix("missing"))
        let e = #expect(throws: StepUpError.self, "\(c.name): accepted") {
            try JSONDecoder().decode(StartStepUpRequest.self, from: Data(c.input.utf8))
        }
        #expect(e?.code == c.code, "\(c.name): \(String(describing: e))")
        #expect(e?.field == c.field, "\(c.name): \(String(describing: e))")
    }

    @Test func startRequestBuiltFromFlagsValidatesToo() throws {
        let ok = try StartStepUpRequest(
            userId: "A1E26081-35B4-4557-A46A-EF50BC91672F", deviceId: "kiosk 4",
            provider: "videoid", docTypes: [1, 2], defaultId: 2)
        #expect(ok.provider?.rawValue == "videoid")
        #expect(throws: StepUpError.self) {
            try StartStepUpRequest(
                userId: "a1e26081-35b4-4557-a46a-ef50bc91672f", deviceId: "k", provider: "readid",
                docTypes: [1], defaultId: nil)
        }
        // readid without options is fine
        _ = try StartStepUpRequest(
            userId: "a1e26081-35b4-4557-a46a-ef50bc91672f", deviceId: "k", provider: "readid",
            docTypes: nil, defaultId: nil)
    }
}
