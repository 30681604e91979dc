import Foundation
import HTTPServer
import KioskService
import MRTDTrust
import SpecimenImages
import Testing

/// `POST /v1/mrz` and `POST /v1/access-data/check` through the API's handler (docs/service.md): a generated data
/// page gives back exactly the generator's MRZ; every way an upload can be wrong gets its own well-formed error.
extension InProcessServiceTests {
    static let scanAPI = api([:], trust: TrustStore())

    /// The OCR-B font the generator draws the zone with (Debian's fonts-ocr-b): the test fails without it.
    static let font: OCRBFont? = try? OCRBFont()

    /// `POST /v1/mrz`; a busy answer is retried after its Retry-After as a client does (the tests of this suite
    /// run in parallel and share `scanAPI`), unless `retryBusy` is false.
    static func upload(
        _ api: KioskAPI, _ bytes: [UInt8], type: String?, token: String? = InProcessServiceTests.token,
        retryBusy: Bool = true
    ) async -> HTTPResponse {
        var headers: [String: String] = [:]
        if let token { headers["authorization"] = "Bearer \(token)" }
        if let type { headers["content-type"] = type }
        let request = HTTPRequest(method: "POST", path: "/v1/mrz", headers: headers, body: bytes)
        for _ in 0..<120 {
            let r = await withCheckedContinuation { continuation in
                Thread { continuation.resume(returning: api.handle(request)) }.start()
            }
            guard retryBusy, code(r) == "mrz_busy" else { return r }
            try? await Task.sleep(for: .seconds(1))
        }
        return await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: api.handle(request)) }.start()
        }
    }

    static func code(_ r: HTTPResponse) -> String? { (object(r)["error"] as? [String: Any])?["code"] as? String }

    static func header(_ r: HTTPResponse, _ name: String) -> String? {
        r.headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }

    /// A clean TD3 data page at 300 dpi (`Capture.sample`, distortion `.clean`), as a camera frame would show it.
    /// The seeds the tests read are ones the recogniser reads today (it reads about two thirds of clean TD3 pages
    /// exactly: docs/mrz.md); the endpoint, not the recogniser, is under test here.
    static func page(seed: UInt64, encoding: Capture.Encoding = .jpeg) throws -> CaptureSample {
        let font = try #require(font, "the OCR-B font (Debian package fonts-ocr-b) is missing")
        return try Capture.sample(.td3, .clean, seed: seed, font: font, encoding: encoding)
    }

    @Test func aGeneratedDataPageGivesTheGeneratorsMRZ() async throws {
        for (seed, encoding, type) in [
            (UInt64(1), Capture.Encoding.jpeg, "image/jpeg"), (2, .pgm, "image/x-portable-graymap; charset=binary"),
        ] {
            let sample = try Self.page(seed: seed, encoding: encoding)
            let r = await Self.upload(Self.scanAPI, sample.bytes, type: type)
            #expect(r.status == 200, "\(type): \(String(decoding: Self.bytes(r), as: UTF8.self))")
            let o = Self.object(r)
            let s = sample.specimen
            #expect(o["mrz"] as? String == sample.mrz)
            #expect(o["format"] as? String == "TD3")
            #expect(o["documentCode"] as? String == "P")
            #expect(o["documentNumber"] as? String == s.documentNumber)
            #expect(o["dateOfBirth"] as? String == s.dateOfBirth)
            #expect(o["dateOfExpiry"] as? String == s.dateOfExpiry)
            let confidence = try #require(o["confidence"] as? Double)
            #expect(confidence > 0 && confidence <= 1)
            #expect(o["corrections"] is Int)
            // only what a read needs: no name, nationality or sex
            #expect(Set(o.keys) == Self.scanFields)
            #expect(Self.header(r, "Cache-Control") == "no-store")
        }
    }

    static let scanFields: Set<String> = [
        "mrz", "format", "documentCode", "documentNumber", "dateOfBirth", "dateOfExpiry", "confidence", "corrections",
    ]

    @Test func whatIsNotAnImageIs4xxAndNamesTheProblem() async throws {
        let text = Array("P<UTOERIKSSON<<ANNA<MARIA".utf8)
        var r = await Self.upload(Self.scanAPI, text, type: "image/jpeg")
        #expect(r.status == 400 && Self.code(r) == "not_an_image")
        #expect(!String(decoding: Self.bytes(r), as: UTF8.self).contains("ERIKSSON"))
        r = await Self.upload(Self.scanAPI, [], type: "image/png")
        #expect(r.status == 400 && Self.code(r) == "not_an_image")
        // a PGM declared as a JPEG
        let pgm = try Self.page(seed: 13, encoding: .pgm)
        r = await Self.upload(Self.scanAPI, pgm.bytes, type: "image/jpeg")
        #expect(r.status == 400 && Self.code(r) == "not_an_image")
        // no or another media type
        r = await Self.upload(Self.scanAPI, pgm.bytes, type: nil)
        #expect(r.status == 415 && Self.code(r) == "unsupported_media_type")
        r = await Self.upload(Self.scanAPI, pgm.bytes, type: "application/json")
        #expect(r.status == 415 && Self.code(r) == "unsupported_media_type")
        // a JPEG cut off after its first third (libjpeg may decode the part that came, grey below)
        let jpeg = try Self.page(seed: 14).bytes
        r = await Self.upload(Self.scanAPI, Array(jpeg.prefix(jpeg.count / 3)), type: "image/jpeg")
        #expect(
            (r.status == 400 && Self.code(r) == "image_undecodable")
                || (r.status == 422 && ["no_mrz", "mrz_unreadable"].contains(Self.code(r))),
            "\(r.status) \(Self.code(r) ?? "")")
    }

    @Test func tooLargeIs413() async throws {
        // the body above the endpoint's limit (the server refuses it before reading it; the handler too)
        var big = [UInt8](repeating: 0, count: 8 << 20 + 1)
        big.replaceSubrange(0..<3, with: [0xFF, 0xD8, 0xFF])
        var r = await Self.upload(Self.scanAPI, big, type: "image/jpeg")
        #expect(r.status == 413 && Self.code(r) == "body_too_large")
        #expect(KioskAPI.largeBodies["/v1/mrz"] == 8 << 20)
        // a small file that declares more pixels than the limit: refused from its header, nothing decoded
        let header = Array("P5\n9000 9000\n255\n".utf8) + [UInt8](repeating: 128, count: 64)
        r = await Self.upload(Self.scanAPI, header, type: "image/x-portable-graymap")
        #expect(r.status == 413 && Self.code(r) == "image_too_large")
    }

    @Test func aPageWithoutAZoneIs422() async throws {
        // an even grey page with a dark block: an image, but no lines of text
        let w = 800
        let h = 600
        var pixels = [UInt8](repeating: 210, count: w * h)
        for y in 200..<300 { for x in 100..<400 { pixels[y * w + x] = 40 } }
        let image = GrayImage(width: w, height: h, pixels: pixels)
        let r = await Self.upload(Self.scanAPI, image.pgm, type: "image/x-portable-graymap")
        #expect(r.status == 422 && Self.code(r) == "no_mrz", "\(r.status) \(Self.code(r) ?? "")")
    }

    @Test func withoutTheTokenIs401AndTheEngineMissingIs503() async throws {
        let sample = try Self.page(seed: 15)
        var r = await Self.upload(Self.scanAPI, sample.bytes, type: "image/jpeg", token: nil)
        #expect(r.status == 401 && Self.code(r) == "unauthorized")
        r = await Self.upload(Self.scanAPI, sample.bytes, type: "image/jpeg", token: "wrong")
        #expect(r.status == 403)
        let service = KioskService(
            configuration: KioskConfiguration(
                token: Self.token, version: "test", mrzDataPath: "/nonexistent/tessdata"),
            trust: TrustStore(), readers: VirtualReaders(documents: [:]))
        let noEngine = KioskAPI(service: service, address: .unix(path: "/nonexistent/in-process.sock"))
        r = await Self.upload(noEngine, sample.bytes, type: "image/jpeg")
        #expect(r.status == 503 && Self.code(r) == "mrz_engine_unavailable", "\(r.status) \(Self.code(r) ?? "")")
        // only GET… no: only POST
        let get = await Self.request(Self.scanAPI, "GET", "/v1/mrz")
        #expect(get.status == 405 && Self.header(get, "Allow") == "POST")
    }

    @Test func recognitionsBeyondTheBoundAreBusyWithRetryAfter() async throws {
        let sample = try Self.page(seed: 16)
        let api = Self.api([:], trust: TrustStore())
        let answers = await withTaskGroup(of: HTTPResponse.self) { group in
            for _ in 0..<4 {
                group.addTask { await Self.upload(api, sample.bytes, type: "image/jpeg", retryBusy: false) }
            }
            return await group.reduce(into: [HTTPResponse]()) { $0.append($1) }
        }
        let busy = answers.filter { $0.status == 503 }
        #expect(answers.contains { $0.status == 200 }, "\(answers.map(\.status))")
        #expect(!busy.isEmpty, "four at once, one at a time: \(answers.map(\.status))")
        for b in busy {
            #expect(Self.code(b) == "mrz_busy" && Self.header(b, "Retry-After") == "1")
        }
        // and once they are done, the next one is read
        let again = await Self.upload(api, sample.bytes, type: "image/jpeg", retryBusy: false)
        #expect(again.status == 200)
    }

    // MARK: - POST /v1/access-data/check

    static func check(_ access: [String: Any]) async -> [String: Any] {
        object(await request(scanAPI, "POST", "/v1/access-data/check", json: ["access": access]))
    }

    @Test func theAccessDataCheckAnswersWithTheServicesRules() async throws {
        let td3 = "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<L898902C36UTO7408122F1204159ZE184226B<<<<<10"
        var o = await Self.check(["mrz": td3])
        #expect(o["valid"] as? Bool == true && o["kind"] as? String == "mrz")
        // the birth date's last digit mistyped: the field and its check digit are named, no value is echoed
        let mistyped = td3.replacingOccurrences(of: "7408122", with: "7408132")
        o = await Self.check(["mrz": mistyped])
        #expect(o["valid"] as? Bool == false && o["field"] as? String == "mrz" && o["problem"] as? String == "invalid")
        let message = try #require(o["message"] as? String)
        #expect(message.hasPrefix("The MRZ") && message.contains("check digit") && message.contains("date of birth"))
        #expect(!message.contains("740813") && !message.contains("L898902C3"))
        o = await Self.check(["mrz": "P<UTO"])
        #expect(o["field"] as? String == "mrz" && (o["message"] as? String ?? "").contains("2×44"))
        o = await Self.check(["documentNumber": "L898902C3", "dateOfBirth": "741312", "dateOfExpiry": "310415"])
        #expect(o["valid"] as? Bool == false && o["field"] as? String == "dateOfBirth")
        #expect(o["message"] as? String == "The date of birth is not a valid date (YYMMDD)")
        o = await Self.check(["documentNumber": "L898902C3", "dateOfBirth": "740812"])
        #expect(o["problem"] as? String == "missing" && o["missing"] as? [String] == ["dateOfExpiry"])
        o = await Self.check(["can": "12345"])
        #expect(o["field"] as? String == "can" && (o["message"] as? String ?? "").contains("6 digits"))
        o = await Self.check(["can": "123456", "mrz": td3])
        #expect(o["problem"] as? String == "conflicting")
        o = await Self.check(["can": "123456"])
        #expect(o["valid"] as? Bool == true && o["kind"] as? String == "can")
        // a malformed request is an error, not an answer
        let bad = await Self.request(Self.scanAPI, "POST", "/v1/access-data/check", json: ["access": ["can": 1]])
        #expect(bad.status == 400 && Self.code(bad) == "bad_access")
        let unknown = await Self.request(Self.scanAPI, "POST", "/v1/access-data/check", json: ["other": 1])
        #expect(unknown.status == 400)
    }
}
