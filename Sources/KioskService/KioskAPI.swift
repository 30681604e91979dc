import FaceImaging
import Foundation
public import HTTPServer
import MRTDDocument
import MRTDReader

/// The HTTP API v1 of docs/service.md over a `KioskService`: authentication, Host/Origin checks, routing.
public struct KioskAPI: Sendable {
    public let service: KioskService
    /// Where the server listens (the Host and Origin a request must name).
    public let address: HTTPListenAddress
    /// The kiosk page at `/` (docs/kiosk.md).
    public let kiosk: KioskPage.Settings

    public static let cookieName = "emrtd_token"

    public init(service: KioskService, address: HTTPListenAddress, kiosk: KioskPage.Settings = .init()) {
        self.service = service
        self.address = address
        self.kiosk = kiosk
    }

    /// The server's 413 answer.
    public static func tooLarge() -> HTTPResponse { error(APIError.tooLarge) }

    /// The paths whose body may exceed the server's default limit, with their own (`HTTPServerLimits.largeBodies`):
    /// `POST /v1/mrz` takes an image.
    public static let largeBodies = ["/v1/mrz": MRZEndpoint.maxBodyBytes]

    /// The answer before the API is wired up (the first microseconds after the listening socket opened).
    public static func notReady() -> HTTPResponse {
        error(APIError(503, "starting", "the service is starting"))
    }

    public func handle(_ request: HTTPRequest) -> HTTPResponse {
        do {
            try checkHost(request)
            if request.path == "/login" { return try login(request) }
            try authenticate(request)
            try checkOrigin(request)
            return try route(request)
        } catch {
            // a person at the kiosk who opened the page without (or with a stale) sign-in sees a page, not JSON
            if request.method == "GET", request.path == "/" || request.path == "/login",
                error.status == 401 || error.status == 403
            {
                return Self.signInPage(status: error.status)
            }
            return Self.error(error)
        }
    }

    /// The page a browser gets for `/` or `/login` without a valid sign-in: what happened and what to do, in plain
    /// HTML (no script, no style: nothing the Content-Security-Policy would have to allow).
    static func signInPage(status: Int) -> HTTPResponse {
        let what =
            status == 401
            ? "This kiosk page is not signed in to the reading service."
            : "The sign-in link is not valid (the service may have been given a new token)."
        let html = """
            <!DOCTYPE html>
            <html lang="en">
            <head><meta charset="utf-8"><title>Document reader: not signed in</title></head>
            <body>
            <h1 id="signin">Not signed in</h1>
            <p>\(what)</p>
            <p>Open the page through the kiosk's sign-in link, <code>/login?token=…</code>, with the token
            <code>emrtd serve</code> was started with (see its <code>--token-file</code>).</p>
            </body>
            </html>
            """
        var headers = pageHeaders
        if status == 401 { headers.append(("WWW-Authenticate", "Bearer")) }
        return HTTPResponse(
            status: status, contentType: "text/html; charset=utf-8", bytes: Array(html.utf8), headers: headers)
    }

    // MARK: - Defences

    /// The Host names a client may use: the listening address, localhost and 127.0.0.1 with the port.
    func hostAllowed(_ host: String) -> Bool {
        guard case .tcp(let bound, let port) = address else { return true }  // a Unix socket has no DNS to rebind
        let p = ":\(port)"
        var allowed: Set<String> = ["localhost" + p, "127.0.0.1" + p, "[::1]" + p]
        allowed.insert((bound.contains(":") ? "[\(bound)]" : bound) + p)
        if allowed.contains(host.lowercased()) { return true }
        guard service.config.allowRemote, host.hasSuffix(p) else { return false }
        // remote clients must name the service by address: a DNS name could be rebound to it
        var name = String(host.dropLast(p.count))
        if name.hasPrefix("[") && name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, name, &v4) == 1 || inet_pton(AF_INET6, name, &v6) == 1
    }

    func checkHost(_ r: HTTPRequest) throws(APIError) {
        if case .unix = address { return }
        guard let host = r.header("Host"), hostAllowed(host) else {
            throw APIError(421, "wrong_host", "the Host header does not name this service")
        }
    }

    /// A state-changing request from a browser page of another origin is refused.
    func checkOrigin(_ r: HTTPRequest) throws(APIError) {
        guard ["POST", "DELETE", "PUT", "PATCH"].contains(r.method), let origin = r.header("Origin") else { return }
        let lower = origin.lowercased()
        guard lower.hasPrefix("http://"), hostAllowed(String(lower.dropFirst(7))) else {
            throw APIError(403, "foreign_origin", "requests from another origin are refused")
        }
    }

    func authenticate(_ r: HTTPRequest) throws(APIError) {
        var presented: String? = nil
        if let auth = r.header("Authorization") {
            guard auth.hasPrefix("Bearer ") else {
                throw APIError(401, "unauthorized", "use Authorization: Bearer TOKEN")
            }
            presented = String(auth.dropFirst(7)).trimmingCharacters(in: .whitespaces)
        } else if let cookies = r.header("Cookie") {
            for part in cookies.split(separator: ";") {
                let kv = part.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
                if kv.count == 2 && kv[0] == Self.cookieName { presented = String(kv[1]) }
            }
        }
        guard let presented else { throw APIError(401, "unauthorized", "this API needs Authorization: Bearer TOKEN") }
        guard Self.constantTimeEqual(presented, service.config.token) else {
            throw APIError(403, "forbidden", "the token is not valid")
        }
    }

    static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8)
        let y = Array(b.utf8)
        var diff = UInt8(x.count == y.count ? 0 : 1)
        for i in 0..<max(x.count, y.count) { diff |= (i < x.count ? x[i] : 0) ^ (i < y.count ? y[i] : 0) }
        return diff == 0
    }

    /// `GET /login?token=TOKEN`: sets the session cookie and sends the browser to `/`.
    func login(_ r: HTTPRequest) throws(APIError) -> HTTPResponse {
        guard r.method == "GET" else { throw Self.methodNotAllowed(r.method, allow: "GET") }
        guard let token = r.query["token"] else { throw APIError(401, "unauthorized", "give ?token=TOKEN") }
        guard Self.constantTimeEqual(token, service.config.token) else {
            throw APIError(403, "forbidden", "the token is not valid")
        }
        return HTTPResponse(
            status: 303,
            headers: [
                ("Location", "/"), ("Cache-Control", "no-store"), ("Referrer-Policy", "no-referrer"),
                ("Set-Cookie", "\(Self.cookieName)=\(token); Path=/; HttpOnly; SameSite=Strict"),
            ])
    }

    // MARK: - Routes

    func route(_ r: HTTPRequest) throws(APIError) -> HTTPResponse {
        let parts = r.path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init)
        func only(_ method: String) throws(APIError) {
            guard r.method == method else { throw Self.methodNotAllowed(r.method, allow: method) }
        }
        // the kiosk page (docs/kiosk.md): its HTML, its style sheet and its script, each behind the same authentication
        if parts.count == 1, let page = kioskFile(parts[0]) {
            try only("GET")
            return HTTPResponse(
                status: 200, contentType: page.type, bytes: Array(page.text.utf8), headers: Self.pageHeaders)
        }
        guard parts.count >= 2, parts[0] == "v1" else { throw APIError(404, "not_found", "no such endpoint") }
        switch (parts.count, parts[1]) {
        case (2, "openapi.json"):
            try only("GET")
            return HTTPResponse(
                status: 200, contentType: "application/json", bytes: PackageResources.openapi_json,
                headers: Self.commonHeaders)
        case (2, "health"):
            try only("GET")
            return Self.json(200, ["status": "ok", "version": service.config.version])
        case (2, "readers"):
            try only("GET")
            return Self.json(200, ["readers": service.readersJSON()])
        case (2, "events"):
            try only("GET")
            let stream = HTTPStream()
            guard service.terminal.add(stream) else {
                throw APIError(503, "too_many_streams", "too many event-stream clients")
            }
            for reader in service.readersJSON() {
                stream.send(
                    SSE.frame(
                        "reader",
                        [
                            "reader": reader["name"] as? String ?? "", "event": "present",
                            "cardPresent": reader["cardPresent"] as? Bool ?? false,
                        ]))
            }
            return HTTPResponse(status: 200, headers: SSE.headers, body: .stream(stream))
        case (2, "reads"):
            try only("POST")
            let request = try ReadRequest(json: try JSON.object(r.body))
            let job = try service.startRead(request)
            return Self.json(
                201, ["id": job.id, "status": ReadJob.Status.waiting.rawValue, "reader": job.reader],
                extra: [("Location", "/v1/reads/\(job.id)")])
        case (2, "stepup"):
            try only("POST")
            return try stepUp(r)
        case (2, "mrz"):
            try only("POST")
            return try service.mrz.handle(r)
        case (3, "access-data") where parts[2] == "check":
            try only("POST")
            return try AccessDataCheck.handle(try JSON.object(r.body))
        case (3, "reads"):
            let id = parts[2]
            switch r.method {
            case "GET":
                guard let job = service.job(id) else { throw Self.notFound }
                return HTTPResponse(
                    status: 200, contentType: "application/json", bytes: job.json(), headers: Self.commonHeaders)
            case "DELETE":
                guard service.delete(id) else { throw Self.notFound }
                return HTTPResponse(status: 204, headers: Self.commonHeaders)
            default:
                throw Self.methodNotAllowed(r.method, allow: "DELETE, GET")
            }
        case (4, "reads") where parts[3] == "events":
            try only("GET")
            guard let job = service.job(parts[2]) else { throw Self.notFound }
            let stream = HTTPStream()
            guard job.subscribe(stream) else {
                throw APIError(503, "too_many_streams", "too many event-stream clients for this read")
            }
            return HTTPResponse(status: 200, headers: SSE.headers, body: .stream(stream))
        case (4, "reads") where parts[3] == "result.html":
            try only("GET")
            return try resultFragment(parts[2])
        case (4, "reads") where parts[3] == "face":
            try only("GET")
            guard let job = service.job(parts[2]) else { throw Self.notFound }
            guard let face = job.face else { throw APIError(404, "no_face", "the face image has not been read (yet)") }
            switch r.query["format"] ?? "jpeg" {
            case "stored":
                // the bytes as DG2 stores them, with their true type
                return HTTPResponse(
                    status: 200, contentType: Self.mediaType(face.format), bytes: face.bytes,
                    headers: Self.commonHeaders)
            case "jpeg":
                // what every browser shows: a stored JPEG as it is, JPEG 2000 decoded and re-encoded (bounded decoding)
                // converted once per read and kept with it (`ReadJob.displayFace`)
                switch job.displayFace() {
                case .success(let jpeg)?:
                    return HTTPResponse(
                        status: 200, contentType: "image/jpeg", bytes: jpeg, headers: Self.commonHeaders)
                case .failure(let error)?:
                    throw APIError(
                        422, "face_not_displayable",
                        "the stored face image cannot be shown (\(error.code.rawValue)); ?format=stored gives its bytes"
                    )
                case nil:
                    throw APIError(404, "no_face", "the face image has not been read (yet)")
                }
            default:
                throw APIError(400, "bad_format", "format must be jpeg (the default) or stored")
            }
        default:
            throw APIError(404, "not_found", "no such endpoint")
        }
    }

    func stepUp(_ r: HTTPRequest) throws(APIError) -> HTTPResponse {
        try StepUpEndpoint.handle(try JSON.object(r.body), service: service)
    }

    /// 405, with the methods the path has (RFC 9110: a 405 carries `Allow`).
    static func methodNotAllowed(_ method: String, allow: String) -> APIError {
        var e = APIError(405, "method_not_allowed", "\(method) is not allowed here (use \(allow))")
        e.allow = allow
        return e
    }

    static let notFound = APIError(
        404, "not_found", "no such read (finished reads are forgotten after the retention time)")

    static func mediaType(_ f: ImageFormat) -> String {
        switch f {
        case .jpeg: return "image/jpeg"
        case .jpeg2000: return "image/jp2"
        case .png: return "image/png"
        case .unknown: return "application/octet-stream"
        }
    }

    static let commonHeaders: [(String, String)] = [
        ("Cache-Control", "no-store"), ("X-Content-Type-Options", "nosniff"), ("Referrer-Policy", "no-referrer"),
    ]

    static func json(_ status: Int, _ o: [String: Any], extra: [(String, String)] = []) -> HTTPResponse {
        HTTPResponse(
            status: status, contentType: "application/json", bytes: JSON.encode(o), headers: commonHeaders + extra)
    }

    static func error(_ e: any Error) -> HTTPResponse {
        let api = e as? APIError ?? APIError(500, "internal", "internal error")
        var headers = commonHeaders
        if api.status == 401 { headers.append(("WWW-Authenticate", "Bearer")) }
        if let allow = api.allow { headers.append(("Allow", allow)) }
        if let seconds = api.retryAfter { headers.append(("Retry-After", String(seconds))) }
        return HTTPResponse(status: api.status, contentType: "application/json", bytes: api.body, headers: headers)
    }

    /// The kiosk page's files by path component: `/`, `/kiosk.css`, `/kiosk.js`.
    func kioskFile(_ name: String) -> (type: String, text: String)? {
        switch name {
        case "": return ("text/html; charset=utf-8", KioskPage.html(kiosk))
        case "kiosk.css": return ("text/css; charset=utf-8", KioskPage.css)
        case "kiosk.js": return ("text/javascript; charset=utf-8", KioskPage.script)
        default: return nil
        }
    }

    /// The page's headers: no caching, no sniffing, no referrer, and its Content-Security-Policy.
    static let pageHeaders: [(String, String)] =
        commonHeaders + [("Content-Security-Policy", KioskPage.contentSecurityPolicy), ("X-Frame-Options", "DENY")]

    /// `GET /v1/reads/{id}/result.html`: a finished read's result as the HTML report shows it, without the page
    /// around it (`HTMLReport.fragment`): what the kiosk page shows, for any page styled by `/kiosk.css`.
    func resultFragment(_ id: String) throws(APIError) -> HTTPResponse {
        guard let job = service.job(id) else { throw Self.notFound }
        guard job.status == .done else {
            throw APIError(409, "no_result", "the read has no result (it is not done, or it failed)")
        }
        // the report as the read stored it (the encoding of `emrtd read --json`), decoded back
        guard let read = (try? JSONSerialization.jsonObject(with: Data(job.json()))) as? [String: Any],
            let object = read["report"],
            let data = try? JSONSerialization.data(withJSONObject: object),
            let report = try? JSONDecoder().decode(ReadReport.self, from: data)
        else {
            throw APIError(409, "no_result", "the read has no result (it is not done, or it failed)")
        }
        let faceAlt = report.faceImage.flatMap { $0.error == nil ? "Face (DG2)" : nil }
        return HTTPResponse(
            status: 200, contentType: "text/html; charset=utf-8",
            bytes: Array(
                HTMLReport.fragment(report, faceAlt: faceAlt, images: job.displayImages()).utf8),
            headers: Self.pageHeaders)
    }
}

/// The server's response type, for files that also import StepUp (which has an `HTTPResponse` of its own).
typealias APIResponse = HTTPResponse
