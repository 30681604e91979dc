import Foundation
import Glibc
import MRTDTestSupport
import Synchronization
import Testing

/// The defences of `emrtd serve` (docs/service.md "Security"): token, cookie login, Host and Origin checks,
/// body limits, malformed input, access data checked before anything touches a reader.
@Suite("emrtd serve: authentication and request checks", .serialized, .timeLimit(.minutes(20)))
struct ServeSecurityTests {
    static let mrz = "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<L898902C36UTO7408122F1204159ZE184226B<<<<<10"

    func withService(_ extra: [String] = [], _ body: (Service) async throws -> Void) async throws {
        try await Service.withTemporary(extra, body)
    }

    @Test func tokenFileIsCreated0600AndHealthNeedsTheToken() async throws {
        try await withService { s in
            var st = stat()
            #expect(stat(s.dir.appendingPathComponent("token").path, &st) == 0)
            #expect(st.st_mode & 0o777 == 0o600)
            #expect(s.token.count == 64)
            let ok = try s.http.request("GET", "/v1/health", token: s.token)
            #expect(ok.status == 200)
            #expect(ok.json?["status"] as? String == "ok")
            #expect(ok.json?["version"] as? String != nil)
            let none = try s.http.request("GET", "/v1/health", token: nil)
            #expect(none.status == 401)
            #expect(none.errorCode == "unauthorized")
            #expect(none.headers["www-authenticate"] == "Bearer")
            let wrong = try s.http.request("GET", "/v1/health", token: String(repeating: "0", count: 64))
            #expect(wrong.status == 403)
            #expect(!wrong.text.contains(s.token))
        }
    }

    @Test func loginSetsAStrictHttpOnlyCookieThatAuthenticates() async throws {
        try await withService { s in
            let bad = try s.http.request("GET", "/login?token=nope", token: nil)
            #expect(bad.status == 403)
            #expect(bad.headers["set-cookie"] == nil)
            let r = try s.http.request("GET", "/login?token=\(s.token)", token: nil)
            #expect(r.status == 303)
            #expect(r.headers["location"] == "/")
            let cookie = try #require(r.headers["set-cookie"])
            #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"))
            let pair = String(cookie.split(separator: ";")[0])
            let page = try s.http.request("GET", "/", token: nil, headers: ["Cookie": pair])
            #expect(page.status == 200)
            #expect(try s.http.request("GET", "/v1/readers", token: nil, headers: ["Cookie": pair]).status == 200)
            #expect(
                try s.http.request("GET", "/v1/readers", token: nil, headers: ["Cookie": "emrtd_token=wrong"]).status
                    == 403)
        }
    }

    @Test func wrongHostAndForeignOriginAreRefused() async throws {
        try await withService { s in
            let rebound = try s.http.request("GET", "/v1/health", token: s.token, host: "attacker.example:\(s.port)")
            #expect(rebound.status == 421)
            #expect(rebound.errorCode == "wrong_host")
            #expect(try s.http.request("GET", "/v1/health", token: s.token, host: "localhost:\(s.port)").status == 200)
            #expect(try s.http.request("GET", "/v1/health", token: s.token, host: "127.0.0.1:1").status == 421)
            let foreign = try s.http.json(
                "POST", "/v1/reads", token: s.token, ["access": ["mrz": Self.mrz]],
                headers: ["Origin": "http://attacker.example"])
            #expect(foreign.status == 403)
            #expect(foreign.errorCode == "foreign_origin")
            let own = try s.http.request(
                "DELETE", "/v1/reads/0000", token: s.token, headers: ["Origin": "http://127.0.0.1:\(s.port)"])
            #expect(own.status == 404)
        }
    }

    /// `POST /v1/mrz` takes an image body of up to 8 MiB through the real server (its path's own limit), and only
    /// that path: the same body elsewhere is 413.
    @Test func theImageUploadHasItsOwnBodyLimit() async throws {
        try await withService { s in
            let image = [UInt8](repeating: 0x41, count: 256 * 1024)
            let taken = try s.http.request(
                "POST", "/v1/mrz", token: s.token, headers: ["Content-Type": "image/png"], body: image)
            #expect(taken.status == 400 && taken.errorCode == "not_an_image", "\(taken.status)")
            let elsewhere = try s.http.request(
                "POST", "/v1/access-data/check", token: s.token, headers: ["Content-Type": "image/png"], body: image)
            #expect(elsewhere.status == 413 && elsewhere.errorCode == "body_too_large")
            // a body declared over 8 MiB is refused from its Content-Length, before one byte of it is read
            let fd = try RawHTTP.connect(port: s.port)
            defer { close(fd) }
            try RawHTTP.send(
                fd,
                Array(
                    ("POST /v1/mrz HTTP/1.1\r\nHost: 127.0.0.1:\(s.port)\r\nConnection: close\r\n"
                        + "Authorization: Bearer \(s.token)\r\nContent-Type: image/jpeg\r\n"
                        + "Content-Length: \(8 << 20 + 1)\r\n\r\n").utf8))
            var data: [UInt8] = []
            var buf = [UInt8](repeating: 0, count: 4096)
            while true {
                let n = recv(fd, &buf, buf.count, 0)
                if n <= 0 { break }
                data += buf[0..<n]
            }
            let refused = try RawHTTP.parse(data)
            #expect(refused.status == 413 && refused.errorCode == "body_too_large")
            let anonymous = try s.http.request(
                "POST", "/v1/mrz", token: nil, headers: ["Content-Type": "image/png"], body: image)
            #expect(anonymous.status == 401)
        }
    }

    @Test func oversizeBodyMalformedJSONAndBadAccessData() async throws {
        try await withService { s in
            let big = [UInt8](repeating: UInt8(ascii: " "), count: 64 * 1024)
            let tooLarge = try s.http.request("POST", "/v1/reads", token: s.token, body: big)
            #expect(tooLarge.status == 413)
            #expect(tooLarge.errorCode == "body_too_large")
            let malformed = try s.http.request("POST", "/v1/reads", token: s.token, body: Array("{\"access\": {".utf8))
            #expect(malformed.status == 400)
            #expect(malformed.errorCode == "malformed_json")
            let notObject = try s.http.request("POST", "/v1/reads", token: s.token, body: Array("[1,2]".utf8))
            #expect(notObject.status == 400)
            // a wrong check digit: 400, and the MRZ is not echoed
            let wrongDigit = String(Self.mrz.prefix(53)) + "7" + String(Self.mrz.dropFirst(54))
            let bad = try s.http.json("POST", "/v1/reads", token: s.token, ["access": ["mrz": wrongDigit]])
            #expect(bad.status == 400)
            #expect(bad.errorCode == "bad_access")
            #expect(!bad.text.contains("L898902C3") && !bad.text.contains("ERIKSSON"))
            let shortCAN = try s.http.json("POST", "/v1/reads", token: s.token, ["access": ["can": "12345"]])
            #expect(shortCAN.status == 400)
            #expect(!shortCAN.text.contains("12345"))
            let unknownReader = try s.http.json(
                "POST", "/v1/reads", token: s.token,
                ["reader": "no such reader anywhere", "access": ["can": "123456"]])
            #expect(unknownReader.status == 404, "\(unknownReader.text)")
            #expect(try s.http.request("GET", "/v1/reads/unknown", token: s.token).status == 404)
            #expect(try s.http.request("PUT", "/v1/health", token: s.token).status == 405)
            #expect(try s.http.request("GET", "/v2/nothing", token: s.token).status == 404)
        }
    }

    @Test func readersListsTheVirtualReaders() async throws {
        try #require(PCSCTestEnvironment.isAvailable)
        try await withService { s in
            #expect(
                await eventually(5) {
                    let names =
                        ((try? s.http.request("GET", "/v1/readers", token: s.token))?.json?["readers"]
                        as? [[String: Any]] ?? [])
                        .compactMap { $0["name"] as? String }
                    return names.contains(Harness.reader0)
                })
        }
    }

    @Test func refusesANonLoopbackAddressWithoutAllowRemoteAndUnusableTrust() throws {
        let dir = Harness.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let token = dir.appendingPathComponent("token").path
        let remote = try Harness.run(["serve", "--listen", "0.0.0.0:0", "--token-file", token], timeout: 10)
        #expect(remote.status == 2)
        #expect(remote.stderr.contains("--allow-remote"))
        let junk = dir.appendingPathComponent("junk.pem")
        try Data("not a certificate".utf8).write(to: junk)
        let trust = try Harness.run(
            ["serve", "--listen", "127.0.0.1:0", "--token-file", token, "--trust", junk.path], timeout: 10)
        #expect(trust.status == 5, "\(trust.stderr)")
    }

    @Test func sigtermWhenIdleExitsZero() async throws {
        let dir = Harness.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let s = try Service(dir: dir, trust: nil)
        let stream = try s.events("/v1/events")
        #expect(await eventually(5) { stream.status == 200 })
        kill(s.process.processIdentifier, SIGTERM)
        #expect(await eventually(2) { !s.process.isRunning })
        s.process.waitUntilExit()
        #expect(s.process.terminationStatus == 0)
        #expect(await stream.waitForEnd(2))
    }

    @Test func sighupReloadsTheTrustAndAbadReloadKeepsTheOldStore() async throws {
        let dir = Harness.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let doc = try Harness.document("bac", in: dir)
        let trust = dir.appendingPathComponent("trust.cer")
        try FileManager.default.copyItem(atPath: doc.trust, toPath: trust.path)
        let s = try Service(dir: dir, trust: trust.path)
        defer { s.stop() }
        // the service's log as it comes: each reload is waited for by its line (a loaded machine handles a signal
        // late, and two signals that arrive before the first is handled are one)
        final class Log: Sendable { let text = Mutex("") }
        let collected = Log()
        s.stderr.fileHandleForReading.readabilityHandler = { h in
            let d = h.availableData
            collected.text.withLock { $0 += String(decoding: d, as: UTF8.self) }
        }
        kill(s.process.processIdentifier, SIGHUP)
        #expect(await eventually(120) { collected.text.withLock { $0.contains("trust reloaded") } })
        // the first reload has read the good file: now it is spoilt
        try Data("not a certificate any more".utf8).write(to: trust)
        kill(s.process.processIdentifier, SIGHUP)
        #expect(await eventually(120) { collected.text.withLock { $0.contains("trust not reloaded") } })
        #expect(try s.http.request("GET", "/v1/health", token: s.token).status == 200)
        kill(s.process.processIdentifier, SIGTERM)
        s.process.waitUntilExit()
        s.stderr.fileHandleForReading.readabilityHandler = nil
        let log = collected.text.withLock { $0 }
        #expect(log.contains("trust reloaded"), "\(log)")
        #expect(log.contains("trust not reloaded, keeping the previous material"), "\(log)")
    }

    @Test func unixSocketIs0660AndServesTheAPI() async throws {
        let dir = Harness.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("api.sock").path
        let p = Process()
        p.executableURL = Harness.executable
        p.arguments = ["serve", "--socket", path, "--token-file", dir.appendingPathComponent("token").path, "--quiet"]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        defer {
            if p.isRunning { p.terminate() }
            p.waitUntilExit()
        }
        #expect(await eventually(5) { FileManager.default.fileExists(atPath: path) })
        var st = stat()
        #expect(stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFSOCK && st.st_mode & 0o777 == 0o660)
        let token = try String(contentsOfFile: dir.appendingPathComponent("token").path, encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let curl = Process()
        curl.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        curl.arguments = [
            "-s", "--unix-socket", path, "-H", "Authorization: Bearer \(token)", "http://localhost/v1/health",
        ]
        let out = Pipe()
        curl.standardOutput = out
        try curl.run()
        curl.waitUntilExit()
        let body = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(body.contains("\"status\":\"ok\""), "\(body)")
        p.terminate()
        p.waitUntilExit()
        #expect(p.terminationStatus == 0)
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func finishedReadsAreForgottenAfterTheRetentionAndBeyondTheBound() async throws {
        try #require(PCSCTestEnvironment.isAvailable)
        // reads that end at once: a wait of 0.2 s on a reader where no card comes (slot 1 of vpcd; the slot lock
        // keeps the tests that serve cards away meanwhile)
        let slot = try await VPCDSlotLock.acquire()
        defer { _ = slot }
        try await withService(["--retention", "1.5", "--max-finished", "1"]) { s in
            #expect(
                await eventually(5) {
                    (try? s.http.request("GET", "/v1/readers", token: s.token))?.text.contains(Harness.reader1) ?? false
                })
            let body: [String: Any] = ["reader": Harness.reader1, "access": ["can": "123456"], "waitSeconds": 0.2]
            let first = try s.startRead(body)
            let a = try await s.waitFinished(first, seconds: 10)
            #expect(a["status"] as? String == "failed")
            #expect((a["error"] as? [String: Any])?["code"] as? String == "timeout")
            let second = try s.startRead(body)
            _ = try await s.waitFinished(second, seconds: 10)
            // at most one finished read is kept: the first is gone
            #expect(try s.read(first).status == 404)
            #expect(try s.read(second).status == 200)
            // and the second goes when its retention ends
            #expect(await eventually(5) { (try? s.read(second))?.status == 404 })
        }
    }
}
