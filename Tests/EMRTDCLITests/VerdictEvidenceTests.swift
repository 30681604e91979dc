import Foundation
import Testing

/// Clone-detection evidence end to end: `emrtd demo --out B`, tamper with B/clone-detection.json or B's files,
/// `emrtd verify B --trust B/test-csca.cer` — the verdict never rests on evidence passive authentication did
/// not check (docs/report.md "Verdict").
@Suite struct VerdictEvidenceTests {
    func demo(_ args: [String]) throws -> URL {
        let dir = Emrtd.temporaryDirectory()
        let r = try Emrtd.run(["demo", "--json", "--quiet", "--out", dir.path] + args)
        #expect(r.status == 0, "\(args): \(r.stderr)")
        return dir
    }

    func verify(_ dir: URL) throws -> (status: Int32, verification: [String: Any]) {
        let r = try Emrtd.run([
            "verify", dir.path, "--trust", dir.appendingPathComponent("test-csca.cer").path, "--json",
        ])
        let v = Emrtd.json(r.stdout)?["verification"] as? [String: Any] ?? [:]
        return (r.status, v)
    }

    func status(_ v: [String: Any], _ name: String) -> String? {
        (v["checks"] as? [[String: Any]])?.first { $0["name"] as? String == name }?["status"] as? String
    }

    func record(_ dir: URL) throws -> [String: Any] {
        try #require(
            JSONSerialization.jsonObject(with: Data(contentsOf: dir.appendingPathComponent("clone-detection.json")))
                as? [String: Any])
    }

    func write(_ record: [String: Any], to dir: URL) throws {
        try JSONSerialization.data(withJSONObject: record).write(to: dir.appendingPathComponent("clone-detection.json"))
    }

    @Test func activeAuthenticationTranscriptWithAnotherKeyIsNotAccepted() throws {
        let b = try demo([])  // ECDSA AA key in DG15
        let c = try demo(["--profile", "bac"])  // an RSA AA key and its genuine signature
        defer {
            try? FileManager.default.removeItem(at: b)
            try? FileManager.default.removeItem(at: c)
        }
        let genuine = try verify(b)
        #expect(genuine.status == 0)
        #expect(status(genuine.verification, "activeAuthentication") == "passed")

        var forged = try record(b)
        forged["activeAuthentication"] = try record(c)["activeAuthentication"]
        try write(forged, to: b)
        let v = try verify(b)
        #expect(v.status == 10, "\(v.verification)")
        #expect(status(v.verification, "activeAuthentication") == "failed")
        #expect(v.verification["chipCloneDetection"] as? String == "FAILED")
        #expect(v.verification["status"] as? String == "inconclusive")
    }

    @Test func bundleWithoutDG15IsNotAccepted() throws {
        let b = try demo([])
        defer { try? FileManager.default.removeItem(at: b) }
        try FileManager.default.removeItem(at: b.appendingPathComponent("DG15.bin"))
        let v = try verify(b)
        #expect(v.status == 10, "\(v.verification)")
        #expect(status(v.verification, "activeAuthentication") == "failed")
    }

    @Test func offlinePACECAMIsNotCheckedAndAForgeryDoesNotPass() throws {
        let b = try demo(["--profile", "pace-cam", "--can"])
        defer { try? FileManager.default.removeItem(at: b) }
        let live = try #require(
            Emrtd.json(try String(contentsOf: b.appendingPathComponent("report.json"), encoding: .utf8))?[
                "verification"] as? [String: Any])
        #expect(status(live, "paceChipAuthenticationMapping") == "passed")
        let v = try verify(b)
        #expect(status(v.verification, "paceChipAuthenticationMapping") == "notChecked")
        #expect(v.verification["status"] as? String == "inconclusive")

        var forged = try record(b)
        var cam = try #require(forged["chipAuthenticationMapping"] as? [String: Any])
        cam["chipAuthenticationData"] = "01"
        forged["chipAuthenticationMapping"] = cam
        forged["chipAuthentication"] = ["outcome": "succeeded", "detail": "id-CA-ECDH-AES-CBC-CMAC-128"]
        try write(forged, to: b)
        let f = try verify(b)
        #expect(status(f.verification, "paceChipAuthenticationMapping") == "notChecked")
        #expect(status(f.verification, "chipAuthentication") == "notChecked")
        #expect(f.verification["status"] as? String == "inconclusive")
    }
}
