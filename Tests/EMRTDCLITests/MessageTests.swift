import Foundation
import Testing

@testable import EMRTDCLI

/// What a refused command says: it names what it refused (the path, the file name, the word) unless that could be
/// access data typed in the wrong place, says what is accepted or what to do, and exits as docs/cli.md says.
@Suite struct MessageTests {
    @Test func aTrustPathThatDoesNotExistIsNamedWithItsPlace() throws {
        let r = try Emrtd.run(["read", "--can", "123456", "--trust", "/nonexistent/csca-uto.pem", "--trust", "/etc"])
        #expect(r.status == 5, "\(r.stderr)")
        #expect(
            r.stderr.contains("--trust /nonexistent/csca-uto.pem does not exist (the 1st of 2 --trust paths)"),
            "\(r.stderr)")
        #expect(!r.stderr.contains(": it "), "\(r.stderr)")
        // a word of the path that could be access data is not repeated, the rest is
        let hidden = try Emrtd.run(["read", "--can", "123456", "--trust", "/nonexistent/L898902C3.pem"])
        #expect(hidden.status == 5)
        #expect(hidden.stderr.contains("--trust /nonexistent/….pem does not exist"), "\(hidden.stderr)")
        #expect(!hidden.stderr.contains("L898902C3"))
    }

    @Test func filesTakesSpacesAndNamesTheUnknownFile() throws {
        let spaced = try Emrtd.run([
            "read", "--virtual", "pace-cam", "--can", "123456", "--files", "DG1 DG2", "--json", "--quiet",
        ])
        let names = (Emrtd.json(spaced.stdout)?["files"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
        #expect(names.contains("DG1") && names.contains("DG2") && !names.contains("DG11"), "\(spaced.stderr)")
        let unknown = try Emrtd.run(["read", "--can", "123456", "--files", "DG1 DG2 DG99"])
        #expect(unknown.status == 2)
        #expect(unknown.stderr.contains("--files: unknown file 'DG99' (name 3 of 3)"), "\(unknown.stderr)")
        #expect(unknown.stderr.contains("COM, SOD, DG1…DG16, CardAccess, CardSecurity"), "\(unknown.stderr)")
        let secret = try Emrtd.run(["read", "--can", "123456", "--files", "DG1,L898902C3"])
        #expect(secret.status == 2)
        #expect(secret.stderr.contains("unknown file (name 2 of 2)"), "\(secret.stderr)")
        #expect(!secret.stderr.contains("L898902C3"))
    }

    @Test(arguments: [
        ("--jsno", "unknown command '--jsno' — did you mean --json?"),
        ("--json", "'--json' is an option, not a command: put it after the command"),
        ("--trsut", "did you mean --trust? Options come after the command, as in emrtd read --trust"),
    ])
    func anOptionInPlaceOfTheCommandIsNamed(word: String, message: String) throws {
        let r = try Emrtd.run([word])
        #expect(r.status == 2)
        #expect(r.stderr.contains(message), "\(r.stderr)")
    }

    @Test func anOptionLikeWordThatCouldBeAccessDataIsStillNotRepeated() throws {
        let r = try Emrtd.run(["--L898902C3"])
        #expect(r.status == 2)
        #expect(!r.stderr.contains("L898902C3"), "\(r.stderr)")
    }

    @Test func theCardWaitTimeoutIsRoundedAndSaysWhatToDo() {
        let m = ReadSetup.noDocumentMessage(timeout: 1.9988199290000002, option: "timeout")
        #expect(m.contains("within 2.0 s"), "\(m)")
        #expect(!m.contains("1.998"))
        #expect(m.contains("place the document") && m.contains("--timeout SECONDS"), "\(m)")
        #expect(ReadSetup.noDocumentMessage(timeout: 30, option: "card-timeout").contains("within 30 s"))
        #expect(ReadSetup.noDocumentMessage(timeout: 30, option: "card-timeout").contains("--card-timeout SECONDS"))
        #expect(ReadSetup.seconds(12.34) == "12")
        #expect(ReadSetup.seconds(1.25) == "1.2" || ReadSetup.seconds(1.25) == "1.3")
    }

    @Test func verifyOnAFolderThatDoesNotExistSaysSo() throws {
        let r = try Emrtd.run(["verify", "/nonexistent/bundle", "--json"])
        #expect(r.status == 2)
        let error = try #require(Emrtd.json(r.stdout)?["error"] as? [String: Any])
        #expect(error["code"] as? String == "bad-bundle")
        let message = try #require(error["message"] as? String)
        #expect(message.contains("/nonexistent/bundle does not exist"), "\(message)")
        #expect(!message.contains("holds no eMRTD files"), "\(message)")
        let file = try Emrtd.run(["verify", "/etc/hostname"])
        #expect(file.status == 2)
        #expect(file.stderr.contains("is a file, not a folder"), "\(file.stderr)")
    }

    @Test(arguments: ["/nonexistent-folder/trace.json", "/proc/emrtd-trace.json"])
    func anUnwritableTraceIsRefusedBeforeTheRead(path: String) throws {
        for args in [
            ["demo", "--trace", path, "--json"],
            ["read", "--virtual", "pace-cam", "--can", "123456", "--trace", path, "--json"],
        ] {
            let r = try Emrtd.run(args)
            #expect(r.status == 2, "\(args): \(r.stderr)")
            let j = try #require(Emrtd.json(r.stdout), "\(args): \(r.stdout)")
            #expect((j["error"] as? [String: Any])?["code"] as? String == "output-not-usable", "\(j)")
            #expect(j["report"] == nil, "the document was read before the trace was checked: \(j)")
            #expect(!r.stderr.contains("Reading") && !r.stderr.contains("PACE"), "\(r.stderr)")
        }
    }

    @Test func aWritableTraceIsWrittenAndLeftAloneBeforeTheRead() throws {
        let dir = Emrtd.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let trace = dir.appendingPathComponent("trace.json")
        let r = try Emrtd.run(["demo", "--trace", trace.path, "--quiet"])
        #expect(r.status == 0, "\(r.stderr)")
        let text = try String(contentsOf: trace, encoding: .utf8)
        #expect(text.contains("emrtd.trace/1"))
        // a refused run leaves no file behind from its check
        let other = dir.appendingPathComponent("other.json")
        let refused = try Emrtd.run(["demo", "--trace", other.path, "--profile", "nope"])
        #expect(refused.status == 2)
        #expect(!FileManager.default.fileExists(atPath: other.path))
    }
}
