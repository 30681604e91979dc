import Foundation
import HTTPServer
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
        #expect(paths.count >= 14)
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
}
