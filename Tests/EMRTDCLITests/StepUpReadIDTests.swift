import Foundation
import Testing

/// `emrtd stepup run` on a ReadID operation object, with the real chip read (DocumentReader) behind it.
@Suite struct StepUpReadIDTests {
    static let token = "TOKEN-readid-9f8e7d6c5b4a"
    static let processId = "0dca14cf-957d-46d9-b374-520f9c650859"

    /// A post-operation context for provider readid (docs/architecture.md §8.1 item 3), as MobileID would hand it over.
    static func context(provider: String = "readid") -> String {
        let op = """
            {"signicatOperation": {"version": "1", "operation": "authentication", "provider": "\(provider)",
              "token": "\(token)", "url": "https://readid.example.com/v2", "processType": "substantial",
              "processId": "\(processId)"}}
            """
        let b64 = Data(op.utf8).base64EncodedString()
        return "{\"context_content_b64\": \"\(b64)\", \"context_mime\": \"application/json\"}"
    }

    @Test func readIDRunReadsTheVirtualPassportAndIsAccepted() throws {
        let r = try Emrtd.run(
            [
                "stepup", "run", "-", "--virtual", "pace-gm-brainpool-aes128",
                "--mrz", CommandLineTests.specimenMRZ, "--quiet",
            ], stdin: Self.context())
        #expect(r.status == 0, "\(r.stderr)")
        let j = try #require(Emrtd.json(r.stdout))
        #expect(j["status"] as? String == "accepted")
        #expect(j["processId"] as? String == Self.processId)
        let c = try #require(j["consolidatedIdentityData"] as? [String: Any])
        #expect(c["chipVerification"] as? String == "SUCCEEDED")
        #expect(c["chipCloneDetection"] as? String == "SUCCEEDED")
        #expect(c["documentNumber"] as? String == "L898902C3")
        #expect(c["lastName"] as? String == "ERIKSSON")
        #expect(c["issuingCountry"] as? String == "UTO")
        #expect(!r.stdout.contains(Self.token) && !r.stderr.contains(Self.token))
    }

    @Test func readIDRunOnAForgedDocumentIsRejected() throws {
        let r = try Emrtd.run(
            [
                "stepup", "run", "-", "--virtual", "pace-gm-brainpool-aes128+dg-modified",
                "--mrz", CommandLineTests.specimenMRZ, "--quiet",
            ], stdin: Self.context())
        #expect(r.status == 11, "\(r.stderr)")
        let j = try #require(Emrtd.json(r.stdout))
        #expect(j["status"] as? String == "rejected")
        #expect((j["consolidatedIdentityData"] as? [String: Any])?["chipVerification"] as? String == "FAILED")
    }

    @Test func processBindingPutsTheDerivedChallengeIntoActiveAuthentication() throws {
        let dir = Emrtd.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let r = try Emrtd.run(
            [
                "stepup", "run", "-", "--bind-process-id", "--virtual", "pace-gm-p256-aes256",
                "--mrz", CommandLineTests.specimenMRZ, "--out", dir.path, "--quiet",
            ], stdin: Self.context())
        #expect(r.status == 0, "\(r.stderr)")
        let clone = try String(contentsOf: dir.appendingPathComponent("clone-detection.json"), encoding: .utf8)
        // first 8 bytes of SHA-256("0dca14cf-957d-46d9-b374-520f9c650859"), computed independently (Python hashlib)
        #expect(clone.contains("8EBFD7115BCC18AA"))
    }

    @Test func wrongAccessDataExits4AndBadReaderOptionsExit2() throws {
        let wrong = try Emrtd.run(
            ["stepup", "run", "-", "--virtual", "pace-gm-brainpool-aes128", "--can", "000000", "--quiet"],
            stdin: Self.context())
        #expect(wrong.status == 4, "\(wrong.stderr)")
        let bad = try Emrtd.run(["stepup", "run", "-", "--virtual", "bac", "--can", "12"], stdin: Self.context())
        #expect(bad.status == 2, "\(bad.stderr)")
    }
}
