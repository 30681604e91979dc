import Foundation
import MRTDTestSupport
import Testing

/// The `emrtd` command as a separate process: exit codes and output contracts of docs/architecture.md §4.1/§4.2.
@Suite struct CommandLineTests {
    static let checkNames = [
        "dataGroupHashes", "unlistedDataGroups", "sodSignature", "documentSignerCertificate",
        "cscaChain", "cscaCountryMatchesIssuingState", "revocation", "cardSecuritySignature",
        "chipAuthentication", "paceChipAuthenticationMapping", "activeAuthentication",
        "identityDataGroups", "readScope", "documentValidity", "downgrade",
    ]
    /// The Utopia specimen of the built-in virtual passport (ICAO 9303-4 specimen data, not personal data).
    static let specimenMRZ = "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<L898902C36UTO7408122F3104150ZE184226B<<<<<16"

    @Test func demoJSONIsAcceptedWithEveryCheck() throws {
        let r = try Emrtd.run(["demo", "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let j = try #require(Emrtd.json(r.stdout))
        #expect(j["schema"] as? String == "emrtd.report/1")
        let v = try #require(j["verification"] as? [String: Any])
        #expect(v["status"] as? String == "accepted")
        #expect(v["chipVerification"] as? String == "SUCCEEDED")
        let names = (v["checks"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
        #expect(names == Self.checkNames)
        let ac = try #require(j["accessControl"] as? [String: Any])
        #expect(ac["protocol"] as? String == "PACE")
        for key in ["tool", "reader", "document", "files", "faceImage", "transport"] {
            #expect(j[key] != nil, "\(key) missing")
        }
    }

    @Test func demoTextOnATerminalLessRun() throws {
        let r = try Emrtd.run(["demo"])
        #expect(r.status == 0)
        #expect(r.stdout.contains("VERDICT: ACCEPTED"))
    }

    @Test func bundleVerifiesOfflineAndAFlippedByteIsRejected() throws {
        let dir = Emrtd.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let read = try Emrtd.run(["demo", "--json", "--quiet", "--out", dir.path])
        #expect(read.status == 0)
        for f in [
            "EF.SOD.bin", "DG1.bin", "DG2.bin", "DG14.bin", "DG15.bin", "EF.CardAccess.bin", "clone-detection.json",
            "report.json", "face.jpg",
        ] {
            #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent(f).path), "\(f) missing")
        }
        let csca = dir.appendingPathComponent("test-csca.cer").path
        let ok = try Emrtd.run(["verify", dir.path, "--trust", csca, "--json"])
        #expect(ok.status == 0, "\(ok.stderr)")
        let live = try #require(Emrtd.json(read.stdout)?["verification"] as? [String: Any])
        let offline = try #require(Emrtd.json(ok.stdout)?["verification"] as? [String: Any])
        #expect(offline["status"] as? String == live["status"] as? String)
        #expect(offline["chipVerification"] as? String == "SUCCEEDED")

        // without a trust anchor: inconclusive (cannot tell), never silently trusting the bundle's own certificate
        let untrusted = try Emrtd.run(["verify", dir.path, "--json"])
        #expect(untrusted.status == 10)
        let why = try #require(Emrtd.json(untrusted.stdout)?["verification"] as? [String: Any])
        #expect(why["chipVerification"] as? String == "NOT_CHECKED")
        #expect((why["reason"] as? String)?.contains("no trust anchor (CSCA) for UTO") == true, "\(why)")

        // one flipped byte in DG2: rejected
        let dg2 = dir.appendingPathComponent("DG2.bin")
        var bytes = [UInt8](try Data(contentsOf: dg2))
        bytes[bytes.count / 2] ^= 0x01
        try Data(bytes).write(to: dg2)
        let bad = try Emrtd.run(["verify", dir.path, "--trust", csca, "--json"])
        #expect(bad.status == 11)
        let v = try #require(Emrtd.json(bad.stdout)?["verification"] as? [String: Any])
        #expect(v["status"] as? String == "rejected")
        let failed = (v["checks"] as? [[String: Any]] ?? []).filter { $0["status"] as? String == "failed" }.compactMap {
            $0["name"] as? String
        }
        #expect(failed == ["dataGroupHashes"])
    }

    @Test(arguments: [
        (["demo", "--profile", "pace-gm-brainpool-aes128+dg-modified"], Int32(11)),
        (["demo", "--profile", "pace-gm-brainpool-aes128+aa-key-mismatch"], Int32(10)),
        (["demo", "--profile", "bac"], Int32(0)),
        (["demo", "--profile", "pace-cam", "--can"], Int32(0)),
    ])
    func verdictExitCodes(args: [String], status: Int32) throws {
        let r = try Emrtd.run(args + ["--quiet"])
        #expect(r.status == status, "\(args): \(r.stderr)")
    }

    /// An expired (genuine) document: not accepted by `emrtd read` (exit 10, and says why), accepted only with
    /// --allow-expired, which the report records.
    @Test func anExpiredDocumentIsNotAcceptedWithoutTheOptIn() throws {
        let read = [
            "read", "--virtual", "pace-gm-brainpool-aes128+expired-document", "--document-number", "L898902C3",
            "--birth-date", "740812", "--expiry-date", "210430", "--quiet",
        ]
        let r = try Emrtd.run(read + ["--json"])
        #expect(r.status == 10, "\(r.stderr)")
        let v = try #require(Emrtd.json(r.stdout)?["verification"] as? [String: Any])
        #expect(v["status"] as? String == "inconclusive" && v["chipVerification"] as? String == "SUCCEEDED")
        #expect(v["allowExpired"] as? Bool == false)
        let validity = (v["checks"] as? [[String: Any]] ?? []).first { $0["name"] as? String == "documentValidity" }
        #expect(validity?["status"] as? String == "failed")
        let text = try Emrtd.run(read)
        #expect(text.status == 10)
        #expect(text.stdout.contains("Inconclusive: the document expired on 2021-04-30"), "\(text.stdout)")
        #expect(text.stdout.contains("Document has not expired"))

        let allowed = try Emrtd.run(read + ["--json", "--allow-expired"])
        #expect(allowed.status == 0, "\(allowed.stderr)")
        let w = try #require(Emrtd.json(allowed.stdout)?["verification"] as? [String: Any])
        #expect(w["status"] as? String == "accepted" && w["allowExpired"] as? Bool == true)
    }

    @Test(arguments: [
        (["read", "--virtual", "pace-gm-brainpool-aes128"], "access data missing"),
        (["read", "--virtual", "bac", "--mrz", "P<UTO"], "--mrz must hold the whole MRZ"),
        (["read", "--virtual", "bac", "--can", "12345"], "--can must be the 6 digits"),
        (
            [
                "read", "--virtual", "bac", "--document-number", "L898902C3", "--birth-date", "741312", "--expiry-date",
                "310415",
            ], "--birth-date is not a valid date"
        ),
        (
            ["read", "--virtual", "bac", "--document-number", "L898902C3", "--birth-date", "740812"],
            "missing --expiry-date"
        ),
        (["read", "--virtual", "bac", "--can", "123456", "--aa-challenge", "XYZ"], "--aa-challenge must be 8 bytes"),
        (["read", "--frobnicate"], "unknown option '--frobnicate'"),
        (["read", "--can", "123456", "--files", "DG99"], "--files: unknown file 'DG99'"),
        (["read", "--can", "123456", "--timeout", "-1"], "--timeout must be"),
        (["demo", "--profile", "nope"], "there is no virtual document named 'nope'"),
        (["frobnicate"], "unknown command 'frobnicate'"),
        (["verify"], "give the bundle folder"),
    ])
    func badInputIsOneLineAndExit2(args: [String], message: String) throws {
        let r = try Emrtd.run(args)
        #expect(r.status == 2, "\(args): \(r.status) \(r.stderr)")
        #expect(r.stderr.contains(message), "\(args): \(r.stderr)")
        #expect(r.stderr.split(separator: "\n").count == 1, "\(args): \(r.stderr)")
    }

    @Test func mrzCheckDigitErrorNamesTheFieldNotTheValue() throws {
        let wrong = Self.specimenMRZ.replacingOccurrences(of: "7408122", with: "7408123")
        let r = try Emrtd.run(["read", "--virtual", "bac", "--mrz", wrong])
        #expect(r.status == 2)
        #expect(r.stderr.contains("date of birth"))
        #expect(!r.stderr.contains("740812"))
    }

    @Test func accessDataFromStandardInput() throws {
        let lines = String(Self.specimenMRZ.prefix(44)) + "\n" + String(Self.specimenMRZ.suffix(44)) + "\n"
        let mrz = try Emrtd.run(["read", "--virtual", "pace-cam", "--mrz", "-", "--quiet", "--json"], stdin: lines)
        #expect(mrz.status == 0, "\(mrz.stderr)")
        let can = try Emrtd.run(
            ["read", "--virtual", "pace-cam", "--can", "-", "--quiet", "--json"], stdin: "123456\n")
        #expect(can.status == 0, "\(can.stderr)")
        #expect((Emrtd.json(can.stdout)?["accessControl"] as? [String: Any])?["password"] as? String == "CAN")
    }

    @Test func wrongMRZExits4() throws {
        let r = try Emrtd.run([
            "read", "--virtual", "pace-gm-brainpool-aes128", "--document-number", "X00000000",
            "--birth-date", "740812", "--expiry-date", "310415", "--quiet",
        ])
        #expect(r.status == 4, "\(r.stderr)")
        #expect(r.stderr.contains("access control failed"))
        #expect(!r.stderr.contains("X00000000"))
    }

    @Test(arguments: [
        "--help", "demo --help", "read --help", "verify --help", "simulate --help", "trust --help",
        "readers --help", "watch --help", "stepup --help",
    ])
    func helpExplainsEveryCommand(args: String) throws {
        let r = try Emrtd.run(args.split(separator: " ").map(String.init))
        #expect(r.status == 0, "\(args): \(r.stderr)")
        #expect(r.stdout.count > 100)
    }

    @Test func readOverTheVirtualChipWithMRZLinesAndTraceHasNoSecrets() throws {
        let dir = Emrtd.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let trace = dir.appendingPathComponent("trace.json").path
        let r = try Emrtd.run([
            "read", "--virtual", "pace-gm-brainpool-aes128", "--mrz", Self.specimenMRZ, "--json",
            "--trace", trace, "--quiet", "--aa-challenge", "0102030405060708",
        ])
        #expect(r.status == 0, "\(r.stderr)")
        let t = try String(contentsOfFile: trace, encoding: .utf8)
        #expect(t.contains("READ BINARY"))
        for secret in ["L898902C3", "740812", "310415", "ERIKSSON", "0102030405060708"] {
            #expect(!t.contains(secret), "trace leaks \(secret)")
            #expect(!r.stderr.contains(secret), "stderr leaks \(secret)")
        }
    }

    @Test(.sharedFixtures) func trustCommandShowsTheDutchMasterList() throws {
        let ml = SharedFixtures.url("masterlists/NL_ML_2026-07-22.ml").path
        let root = SharedFixtures.url("masterlists/NL_ROOT_CA.cer").path
        let r = try Emrtd.run(["trust", "--ml-signer-root", root, "--trust", ml, "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("NL"))
        // without the pinned root the list is refused
        let refused = try Emrtd.run(["trust", "--trust", ml])
        #expect(refused.status == 5)
    }
}
