import Foundation
import HTTPServer
import MRTDAccessControl
import MRTDTestSupport
import MRTDTrust
import Testing

@testable import KioskService

/// docs/openapi.json is the service's contract: `GET /v1/openapi.json` serves exactly that file, and the router and
/// the document agree on every path and method (a documented operation is routed; any other method on a documented
/// path is 405 with an `Allow` naming the documented ones). scripts/api-contract-test checks the rest (bodies,
/// statuses, events) against a running `emrtd serve`.
@Suite struct OpenAPITests {
    static let token = "0123456789abcdef"
    static let host = "127.0.0.1:8765"
    static let api = KioskAPI(
        service: KioskService(
            configuration: KioskConfiguration(token: token, version: "0.9.0"),
            trust: TrustStore()),
        address: .tcp(host: "127.0.0.1", port: 8765))

    static func document() throws -> [String: Any] {
        let data = try Data(contentsOf: RepositoryPaths.root.appendingPathComponent("docs/openapi.json"))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    static func send(_ method: String, _ path: String, query: [String: String] = [:]) -> HTTPResponse {
        api.handle(
            HTTPRequest(
                method: method, path: path, query: query,
                headers: ["host": host, "authorization": "Bearer \(token)"]))
    }

    static func header(_ r: HTTPResponse, _ name: String) -> String? {
        r.headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }

    @Test func theServedDocumentIsDocsOpenAPIJSON() throws {
        let r = Self.send("GET", "/v1/openapi.json")
        #expect(r.status == 200)
        #expect(Self.header(r, "Content-Type") == "application/json")
        #expect(Self.header(r, "Cache-Control") == "no-store")
        guard case .bytes(let served) = r.body else {
            Issue.record("not a fixed body")
            return
        }
        let file = try Data(contentsOf: RepositoryPaths.root.appendingPathComponent("docs/openapi.json"))
        #expect(served == [UInt8](file), "the embedded document differs from docs/openapi.json: rebuild")
        let doc = try Self.document()
        #expect(doc["openapi"] as? String == "3.1.0")
        #expect((doc["info"] as? [String: Any])?["version"] as? String == "0.9.0")
        // it is behind the same authentication as the rest of /v1
        let anonymous = Self.api.handle(
            HTTPRequest(method: "GET", path: "/v1/openapi.json", headers: ["host": Self.host]))
        #expect(anonymous.status == 401)
    }

    @Test func everyDocumentedOperationIsRoutedAndOtherMethodsAre405WithAllow() throws {
        let paths = try #require(try Self.document()["paths"] as? [String: [String: Any]])
        let methods = ["get", "post", "put", "patch", "delete"]
        #expect(paths.count >= 16)
        for (template, item) in paths {
            let path = template.replacingOccurrences(of: "{id}", with: "no-such-read")
            let documented = Set(item.keys.filter { methods.contains($0) })
            #expect(!documented.isEmpty, "\(template) documents no operation")
            for method in methods {
                let query = template == "/login" ? ["token": Self.token] : [:]
                let r = Self.send(method.uppercased(), path, query: query)
                guard case .bytes(let bytes) = r.body else { continue }  // an event stream: routed
                let code = (try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
                    .flatMap { ($0["error"] as? [String: Any])?["code"] as? String }
                if documented.contains(method) {
                    #expect(r.status != 405 && code != "method_not_allowed", "\(method) \(template) is not routed")
                    #expect(
                        !(r.status == 404 && code == "not_found" && !template.contains("{id}")),
                        "\(method) \(template) is not routed")
                    let responses = try #require((item[method] as? [String: Any])?["responses"] as? [String: Any])
                    #expect(
                        responses["\(r.status)"] != nil, "\(method) \(template) answered an undocumented \(r.status)")
                } else {
                    #expect(r.status == 405 && code == "method_not_allowed", "\(method) \(template): \(r.status)")
                    let allow = Set(
                        (Self.header(r, "Allow") ?? "").split(separator: ",").map {
                            $0.trimmingCharacters(in: .whitespaces).lowercased()
                        })
                    #expect(
                        allow == documented, "\(method) \(template): Allow \(allow.sorted()) vs \(documented.sorted())")
                }
            }
        }
        // and the router knows no path the document leaves out
        #expect(Self.send("GET", "/v1/nothing").status == 404)
        #expect(Self.send("GET", "/v1/reads/x/other").status == 404)
    }

    /// `POST /v1/mrz` and `POST /v1/access-data/check` as documented: the media types the endpoint takes, the
    /// answer's members, and the error statuses it gives.
    @Test func theCameraAndAccessCheckEndpointsAreDocumentedAsTheyAnswer() throws {
        let doc = try Self.document()
        let paths = try #require(doc["paths"] as? [String: [String: Any]])
        let schemas = try #require((doc["components"] as? [String: Any])?["schemas"] as? [String: [String: Any]])
        let mrz = try #require(paths["/v1/mrz"]?["post"] as? [String: Any])
        let content = try #require((mrz["requestBody"] as? [String: Any])?["content"] as? [String: Any])
        #expect(Set(content.keys) == Set(MRZEndpoint.mediaTypes.keys))
        let responses = try #require(mrz["responses"] as? [String: Any])
        for status in ["200", "400", "401", "403", "405", "413", "415", "421", "422", "503"] {
            #expect(responses[status] != nil, "POST /v1/mrz: \(status) undocumented")
        }
        let scan = try #require(schemas["MRZScan"])
        let members = Set((scan["properties"] as? [String: Any])?.keys.map { $0 } ?? [])
        #expect(members == InProcessServiceTests.scanFields)
        #expect(Set(scan["required"] as? [String] ?? []) == InProcessServiceTests.scanFields)
        // every message names a field the document lists
        let check = try #require(schemas["AccessCheck"]?["properties"] as? [String: [String: Any]])
        #expect(Set(check["field"]?["enum"] as? [String] ?? []) == Set(AccessData.Field.allCases.map(\.rawValue)))
        #expect(Set(check.keys) == ["valid", "kind", "problem", "field", "missing", "message"])
        // the answers through the router: an empty upload and an empty check are documented errors
        var r = Self.api.handle(
            HTTPRequest(
                method: "POST", path: "/v1/mrz",
                headers: ["host": Self.host, "authorization": "Bearer \(Self.token)", "content-type": "image/png"]))
        #expect(r.status == 400)
        r = Self.api.handle(
            HTTPRequest(
                method: "POST", path: "/v1/access-data/check",
                headers: ["host": Self.host, "authorization": "Bearer \(Self.token)"],
                body: Array("{\"access\":{}}".utf8)))
        #expect(r.status == 200)
        guard case .bytes(let bytes) = r.body else {
            Issue.record("not a fixed body")
            return
        }
        let answer = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
        #expect(answer["valid"] as? Bool == false && answer["problem"] as? String == "missing")
        #expect(Set(answer.keys).isSubset(of: Set(check.keys)))
    }
}
