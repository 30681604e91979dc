import CanonicalJSON
import DocumentGenerator
import Foundation
import HTTPServer
import ISO7816
import KioskService
import MRTDAccessControl
import MRTDReader
import MRTDTestSupport
import MRTDTrust
import PCSCTransport
import Testing
import VirtualChip

/// Virtual readers in process: each holds one generated document on the virtual chip, present from the start.
struct VirtualReaders: KioskReaders {
    let documents: [String: GeneratedDocument]

    func events() -> AsyncThrowingStream<PCSCEvent, any Error> {
        AsyncThrowingStream { continuation in
            for name in documents.keys.sorted() {
                continuation.yield(.readerAdded(reader: name))
                continuation.yield(.cardInserted(reader: name, atr: []))
            }
            // the source stays (a real one would end when pcscd went away)
        }
    }

    func readerNames() async throws -> [String] { documents.keys.sorted() }

    func connectWhenPresented(reader: String, timeout: Double) async throws -> KioskCardSession {
        guard let document = documents[reader] else {
            throw TransportError(.noReader, function: "connect", "no reader \(reader)")
        }
        let transport = LocalCardTransport(emulator: VirtualChip(profile: document.profile), name: reader)
        return KioskCardSession(transport: transport, presented: .now) {}
    }
}

/// The whole kiosk service in process over the virtual chip, through the API's handler (no pcscd, no socket):
/// a read started, followed, fetched and forgotten, and its report is the library's read use case's, byte for byte
/// but for timings.
struct InProcessServiceTests {
    static let token = "in-process-test-token-0123456789abcdef"

    static func api(_ documents: [String: GeneratedDocument], trust: TrustStore) -> KioskAPI {
        let service = KioskService(
            configuration: KioskConfiguration(token: token, version: "test"), trust: trust,
            readers: VirtualReaders(documents: documents))
        service.start()
        return KioskAPI(service: service, address: .unix(path: "/nonexistent/in-process.sock"))
    }

    /// One request through the API's handler, on a thread of its own as the HTTP server calls it (the handler may
    /// block its thread briefly; never one of Swift concurrency's few cooperative threads).
    static func request(_ api: KioskAPI, _ method: String, _ path: String, json: Any? = nil) async -> HTTPResponse {
        let body = json.map { [UInt8](CanonicalJSON.data(object: $0, .compact)) } ?? []
        let request = HTTPRequest(
            method: method, path: path, headers: ["authorization": "Bearer \(token)"], body: body)
        return await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: api.handle(request)) }.start()
        }
    }

    static func bytes(_ r: HTTPResponse) -> [UInt8] {
        guard case .bytes(let b) = r.body else { return [] }
        return b
    }

    static func object(_ r: HTTPResponse) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(bytes(r)))) as? [String: Any] ?? [:]
    }

    /// Starts a read on `reader` and waits (at most 60 s) until it is finished; the final `GET /v1/reads/{id}` answer.
    static func read(_ api: KioskAPI, reader: String, body extra: [String: Any]) async throws -> (String, HTTPResponse)
    {
        // as a terminal does: wait until the service reports the reader (its monitor runs on its own task)
        for _ in 0..<300 {
            let listed = object(await request(api, "GET", "/v1/readers"))["readers"] as? [[String: Any]] ?? []
            if listed.contains(where: { $0["name"] as? String == reader }) { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        var body = extra
        body["reader"] = reader
        let started = await request(api, "POST", "/v1/reads", json: body)
        #expect([200, 201, 202].contains(started.status), "\(String(decoding: bytes(started), as: UTF8.self))")
        let id = try #require(object(started)["id"] as? String)
        for _ in 0..<600 {
            let answer = await request(api, "GET", "/v1/reads/\(id)")
            if ["done", "failed", "cancelled"].contains(object(answer)["status"] as? String ?? "") {
                return (id, answer)
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw Failure("the read did not finish in 60 s")
    }

    @Test func aReadThroughTheServiceIsTheReadUseCasesReport() async throws {
        let document = try SpecimenGenerator.generate(named: SpecimenGenerator.defaultProfileName)
        var trust = TrustStore()
        _ = try trust.addCertificate(der: document.cscaCertificate, source: "generated test CSCA")
        let api = Self.api(["Virtual 0": document], trust: trust)
        defer { api.service.shutdown() }
        let (id, answer) = try await Self.read(
            api, reader: "Virtual 0",
            body: ["access": ["mrz": document.profile.mrz], "aaChallenge": "0102030405060708"])
        let done = Self.object(answer)
        #expect(done["status"] as? String == "done")
        let report = try #require(done["report"] as? [String: Any])
        #expect((report["verification"] as? [String: Any])?["status"] as? String == "accepted")
        // the challenge the terminal gave is in the report, as `emrtd read --aa-challenge` puts it there
        #expect(report["activeAuthenticationChallenge"] as? String == "0102030405060708")

        // the library's read use case on the same document gives the same report but for timings
        var options = ReadOptions(accessKey: .mrz(try MRZKey(mrz: document.profile.mrz)))
        options.activeAuthenticationChallenge = [1, 2, 3, 4, 5, 6, 7, 8]
        let library = try await DocumentReader(
            transport: LocalCardTransport(emulator: VirtualChip(profile: document.profile), name: "Virtual 0"),
            options: options
        ).readAndVerify(trustStore: trust)
        let served = try #require(
            ServeThroughPCSCTests.rawMember("report", of: String(decoding: Self.bytes(answer), as: UTF8.self)))
        #expect(
            ServeThroughPCSCTests.withoutTimings(served)
                == ServeThroughPCSCTests.withoutTimings(CanonicalJSON.string(library.report)))

        #expect(await Self.request(api, "DELETE", "/v1/reads/\(id)").status == 204)
        #expect(await Self.request(api, "GET", "/v1/reads/\(id)").status == 404)
    }

    @Test func anExpiredDocumentIsNotAcceptedByTheService() async throws {
        let document = try SpecimenGenerator.generate(named: SpecimenGenerator.defaultProfileName + "+expired-document")
        var trust = TrustStore()
        _ = try trust.addCertificate(der: document.cscaCertificate, source: "generated test CSCA")
        let api = Self.api(["Virtual 0": document], trust: trust)
        defer { api.service.shutdown() }
        let (_, answer) = try await Self.read(api, reader: "Virtual 0", body: ["access": ["mrz": document.profile.mrz]])
        let verification = (Self.object(answer)["report"] as? [String: Any])?["verification"] as? [String: Any]
        #expect(verification?["status"] as? String == "inconclusive")
        let checks = verification?["checks"] as? [[String: Any]] ?? []
        #expect(checks.contains { $0["name"] as? String == "documentValidity" && $0["status"] as? String == "failed" })
    }

    @Test func aWrongMRZIsAnAccessControlFailureAndNoReaderIsA404() async throws {
        let document = try SpecimenGenerator.generate(named: SpecimenGenerator.defaultProfileName)
        let api = Self.api(["Virtual 0": document], trust: TrustStore())
        defer { api.service.shutdown() }
        let wrong = try MRZKey(documentNumber: "X00000000", dateOfBirth: "740812", dateOfExpiry: "310415")
        let (_, answer) = try await Self.read(
            api, reader: "Virtual 0",
            body: [
                "access": [
                    "documentNumber": wrong.documentNumber, "dateOfBirth": wrong.dateOfBirth,
                    "dateOfExpiry": wrong.dateOfExpiry,
                ]
            ])
        let error = Self.object(answer)["error"] as? [String: Any]
        #expect(error?["code"] as? String == "access_control_failed", "\(Self.object(answer))")
        let none = await Self.request(
            api, "POST", "/v1/reads", json: ["reader": "Nowhere", "access": ["mrz": document.profile.mrz]])
        #expect(none.status == 404)
    }
}
