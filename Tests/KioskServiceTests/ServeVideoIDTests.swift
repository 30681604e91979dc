import Foundation
import MRTDTestSupport
import Testing

/// `POST /v1/stepup` with a VideoID context (docs/service.md): `emrtd serve` asks the operation's
/// `videoid.request` endpoint — here the tests' Signicat stand-in on 127.0.0.1 (`StandInServer`) —
/// and answers with the launch data at once; a failing endpoint is 502 `stepup_remote`; the step-up token goes
/// to the endpoint only, never back to the client.
@Suite("emrtd serve: VideoID step-up", .serialized, .timeLimit(.minutes(2)))
struct ServeVideoIDTests {
    static let token = "sut_videoid-serve-token-7f3e9a1c"
    static let processId = "0dca14cf-957d-46d9-b374-520f9c650859"
    static let authorization = "vidauth_serve-3b1d-authorisation"
    static let sessionId = "87a819bd-9419-417a-9e55-cab8789d4115"

    /// The Signicat stand-in answering the next `videoid.request` with `status` and `body`; it records what it was sent.
    static func standIn(status: Int, body: String) throws -> StandInServer {
        let server = try StandInServer()
        server.script("/v2/videoid.request", .json(status, body))
        return server
    }

    static func context(url: String) throws -> Any {
        let op = """
            {"signicatOperation": {"version": "1", "operation": "authentication", "provider": "signicatvideoid",
              "token": "\(token)", "url": "\(url)", "processType": "substantial", "processId": "\(processId)",
              "videoidProviderOptions": {"docType": 1, "docTypes": [1, 2, 3], "defaultId": 1}}}
            """
        return ["context_content_b64": Data(op.utf8).base64EncodedString(), "context_mime": "application/json"]
    }

    func withService(_ body: (Service) async throws -> Void) async throws {
        let dir = Harness.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let s = try Service(dir: dir, trust: nil, extra: ["--quiet"])
        defer { s.stop() }
        try await body(s)
    }

    @Test func videoIDAnswersTheLaunchDataAtOnce() async throws {
        let standIn = try Self.standIn(
            status: 200, body: #"{"id": "\#(Self.sessionId)", "authorization": "\#(Self.authorization)"}"#)
        defer { standIn.stop() }
        try await withService { s in
            let url = standIn.videoIDURL
            let r = try s.http.json("POST", "/v1/stepup", token: s.token, ["context": try Self.context(url: url)])
            #expect(r.status == 200, "\(r.text)")
            #expect(r.json?["provider"] as? String == "videoid")
            let launch = try #require(r.json?["launch"] as? [String: Any])
            #expect(launch["url"] as? String == url)
            #expect(launch["authorization"] as? String == Self.authorization)
            #expect(launch["id"] as? String == Self.sessionId)
            #expect(launch["processId"] as? String == Self.processId)
            #expect(launch["docTypes"] as? [Int] == [1, 2, 3])
            // the service called videoid.request with the step-up token, and no read was started
            let calls = standIn.requests
            #expect(calls.count == 1)
            #expect(calls.first?.method == "POST" && calls.first?.path == "/v2/videoid.request")
            #expect(calls.first?.header("Authorization") == "Bearer \(Self.token)")
            #expect(!r.text.contains(Self.token))
            let readers = try s.http.request("GET", "/v1/readers", token: s.token).json?["readers"] as? [[String: Any]]
            #expect((readers ?? []).allSatisfy { $0["busy"] as? Bool != true })
        }
    }

    @Test(arguments: [
        (500, #"{"title": "oops"}"#), (401, #"{"code": "unauthorized", "title": "Unauthorized"}"#),
        (200, #"{"id": "x"}"#),
    ])
    func aFailingVideoIDEndpointIs502WithoutTheToken(_ status: Int, _ body: String) async throws {
        let standIn = try Self.standIn(status: status, body: body)
        defer { standIn.stop() }
        try await withService { s in
            let url = standIn.videoIDURL
            let r = try s.http.json("POST", "/v1/stepup", token: s.token, ["context": try Self.context(url: url)])
            #expect(r.status == 502, "\(r.text)")
            #expect(r.errorCode == "stepup_remote")
            #expect(!r.text.contains(Self.token))
            #expect(standIn.requests.count == 1)
        }
    }

    @Test func aVideoIDContextWithAPlainHTTPRemoteURLIsRefusedBeforeAnyCall() async throws {
        try await withService { s in
            let r = try s.http.json(
                "POST", "/v1/stepup", token: s.token,
                ["context": try Self.context(url: "http://videoid.example.test/v2")])
            #expect(r.status == 400, "\(r.text)")
            #expect(r.errorCode == "bad_context")
            #expect(!r.text.contains(Self.token))
        }
    }
}
