import Foundation
import HTTPServer
import ISO7816
import KioskService
import MRTDTrust
import PCSCTransport
import StepUp

/// The kiosk service's HTTP handling: `KioskAPI.handle` on a request taken from the input, over a service whose
/// readers source has no reader (so no request can start a read: `POST /v1/reads` answers "no reader"). The
/// service is made once per process and keeps its state between inputs, as a running one does.
///
/// Input format, as text: the method, a line break, the path (a `?` starts the query, `k=v` pairs joined by `&`),
/// a line break, header lines `name: value` up to an empty line, then the body (bytes as they are).
///
/// One request is not sent: a step-up whose context routes to VideoID, which asks the operation's URL over the
/// network (decided with the endpoint's own parser and route, `StepUpInput.parse` and `StepUpRoute`).
enum ServiceRequestTarget {
    static let token = "fuzz-service-token-0123456789abcdef"
    static let api: KioskAPI = {
        let service = KioskService(
            configuration: KioskConfiguration(token: token, version: "fuzz"), trust: TrustStore(), readers: NoReaders())
        service.start()
        return KioskAPI(service: service, address: .tcp(host: "127.0.0.1", port: 8080))
    }()

    static func run(_ bytes: [UInt8]) {
        guard let request = request(bytes), !reachesNetwork(request) else { return }
        let response = api.handle(request)
        touch(response.status)
        switch response.body {
        case .bytes(let b): touch(b.count)
        case .stream(let s): s.finish()  // an event stream: the client goes away at once
        }
    }

    static func request(_ bytes: [UInt8]) -> HTTPRequest? {
        // method and path lines, then headers up to an empty line (LF; a CR before it is dropped)
        var lines: [String] = []
        var i = 0
        var start = 0
        while i < bytes.count {
            if bytes[i] == 0x0A {
                var line = bytes[start..<i]
                if line.last == 0x0D { line = line.dropLast() }
                lines.append(String(decoding: line, as: UTF8.self))
                start = i + 1
                if lines.count >= 2, line.isEmpty { break }
                if lines.count > 66 { break }
            }
            i += 1
        }
        guard lines.count >= 2 else { return nil }
        let body = start < bytes.count ? Array(bytes[start...]) : []
        var headers: [String: String] = [:]
        for line in lines.dropFirst(2) where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].lowercased()
            headers[name] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let target = lines[1]
        let path = String(target.prefix { $0 != "?" })
        var query: [String: String] = [:]
        if let q = target.firstIndex(of: "?") {
            for pair in target[target.index(after: q)...].split(separator: "&") {
                let kv = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                query[String(kv[0])] = kv.count > 1 ? String(kv[1]) : ""
            }
        }
        return HTTPRequest(method: lines[0], path: path, query: query, headers: headers, body: body)
    }

    /// Whether the request's body holds a step-up context that the endpoint would send to VideoID (a network request).
    static func reachesNetwork(_ request: HTTPRequest) -> Bool {
        guard let object = try? JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any],
            let context = object["context"] as? [String: Any],
            let data = try? JSONSerialization.data(withJSONObject: context),
            let operation = try? StepUpInput.parse(data).operation
        else { return false }
        return StepUpRoute(operation) == .videoID
    }

    /// Seeds: each endpoint with the token (by header and by cookie), without it, with a hostile Host or Origin, and
    /// bodies of every kind the endpoints take (invented values).
    static var seeds: [(String, [UInt8])] {
        func req(_ method: String, _ path: String, _ headers: [String], _ body: String = "") -> [UInt8] {
            Array(([method, path] + headers + ["", body]).joined(separator: "\n").utf8)
        }
        let auth = "Authorization: Bearer \(token)"
        let host = "Host: 127.0.0.1:8080"
        let readID =
            #"{"version":"1","operation":"authentication","provider":"readid","token":"sut_fuzz.token.x9","url":"https://readid.example.test/odata/v1","processType":"substantial","processId":"0dca14cf-957d-46d9-b374-520f9c650859"}"#
        return [
            ("health", req("GET", "/v1/health", [auth, host])),
            ("openapi", req("GET", "/v1/openapi.json", [auth, host])),
            ("readers", req("GET", "/v1/readers", [auth, host])),
            ("events", req("GET", "/v1/events", [auth, host])),
            ("page-cookie", req("GET", "/", ["Cookie: emrtd_token=\(token)", host])),
            ("login", req("GET", "/login?token=\(token)", [host])),
            ("no-token", req("GET", "/v1/readers", [host])),
            ("bad-host", req("GET", "/v1/health", [auth, "Host: attacker.example.test"])),
            ("bad-origin", req("POST", "/v1/reads", [auth, host, "Origin: https://attacker.example.test"], "{}")),
            (
                "read-mrz",
                req(
                    "POST", "/v1/reads", [auth, host, "Content-Type: application/json"],
                    #"{"access":{"mrz":{"documentNumber":"UTO123456","dateOfBirth":"800101","dateOfExpiry":"350101"}},"reader":"Virtual","waitSeconds":1,"files":["DG1","DG2"],"bacFallback":true}"#
                )
            ),
            ("read-can", req("POST", "/v1/reads", [auth, host], #"{"access":{"can":"123456"}}"#)),
            ("read-get", req("GET", "/v1/reads/0123456789abcdef", [auth, host])),
            ("read-delete", req("DELETE", "/v1/reads/0123456789abcdef", [auth, host])),
            ("read-events", req("GET", "/v1/reads/0123456789abcdef/events", [auth, host])),
            ("read-face", req("GET", "/v1/reads/0123456789abcdef/face?format=stored", [auth, host])),
            ("read-html", req("GET", "/v1/reads/0123456789abcdef/result.html", [auth, host])),
            (
                "stepup-readid",
                req(
                    "POST", "/v1/stepup", [auth, host],
                    #"{"context":\#(readID),"access":{"can":"123456"},"bindProcessId":true}"#)
            ),
            ("stepup-bad", req("POST", "/v1/stepup", [auth, host], #"{"context":[1,2],"extra":null}"#)),
        ]
    }
}

/// A readers source without readers: no reader is ever reported or connected.
struct NoReaders: KioskReaders {
    func events() -> AsyncThrowingStream<PCSCEvent, any Error> { AsyncThrowingStream { _ in } }
    func readerNames() async throws -> [String] { [] }
    func connectWhenPresented(reader: String, timeout: Double) async throws -> KioskCardSession {
        throw TransportError(.noReader, function: "connect", "the fuzz service has no readers")
    }
}
