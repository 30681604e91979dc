import Foundation
import MRTDTestSupport
import Testing

/// `emrtd simulate` (the virtual chip behind vsmartcard's vpcd) and `emrtd read --reader 'Virtual PCD 00 00'`
/// as separate processes, through libpcsclite and pcscd exactly as with a USB reader.
/// Skipped, with the reason printed, where pcscd or the vpcd driver is missing.
@Suite(
    "emrtd simulate + emrtd read through pcscd and vpcd", .serialized,
    .enabled(
        if: PCSCTestEnvironment.isAvailable,
        Comment(rawValue: PCSCTestEnvironment.unavailableReason ?? "pcscd/vpcd available")))
struct ThroughPCSCTests {
    struct Simulated {
        var folder: String
        var mrz: String
        var trust: String
    }

    /// Generates and saves a document (so that both reads see the same bytes).
    func save(_ profile: String, in dir: URL) throws -> Simulated {
        let r = try Emrtd.run(["simulate", "--profile", profile, "--save", dir.appendingPathComponent(profile).path])
        #expect(r.status == 0, "\(r.stderr)")
        var values: [String: String] = [:]
        for line in r.stdout.split(separator: "\n") {
            let parts = line.split(separator: " ", maxSplits: 1)
            if parts.count == 2 { values[String(parts[0].dropLast())] = String(parts[1]) }
        }
        return Simulated(folder: values["folder"] ?? "", mrz: values["mrz"] ?? "", trust: values["trust"] ?? "")
    }

    /// Starts `emrtd simulate` in the background.
    func serve(_ s: Simulated, extra: [String] = []) throws -> Process {
        let p = Process()
        p.executableURL = Emrtd.executable
        p.arguments = ["simulate", "--profile", s.folder, "--quiet"] + extra
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        return p
    }

    func stop(_ p: Process) {
        if p.isRunning { p.terminate() }
        p.waitUntilExit()
    }

    func files(_ report: [String: Any]) -> [String: String] {
        var out: [String: String] = [:]
        for f in report["files"] as? [[String: Any]] ?? [] { out[f["name"] as? String ?? ""] = f["sha256"] as? String }
        return out
    }

    @Test(arguments: ["bac", "pace-gm-brainpool-aes128", "pace-cam", "short-only", "extended"])
    func readThroughPCSCMatchesTheInProcessRead(profile: String) async throws {
        let slot = try await VPCDSlotLock.acquire()
        defer { _ = slot }
        let dir = Emrtd.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let s = try save(profile, in: dir)

        let local = try Emrtd.run([
            "read", "--virtual", s.folder, "--mrz", s.mrz, "--trust", s.trust, "--json", "--quiet",
        ])
        #expect(local.status == 0, "\(local.stderr)")

        let sim = try serve(s)
        defer { stop(sim) }
        let remote = try Emrtd.run([
            "read", "--reader", PCSCTestEnvironment.readerName, "--mrz", s.mrz, "--trust", s.trust,
            "--json", "--quiet", "--timeout", "15",
        ])
        #expect(remote.status == 0, "\(profile): \(remote.stderr)")
        let a = try #require(Emrtd.json(local.stdout))
        let b = try #require(Emrtd.json(remote.stdout))
        let va = a["verification"] as? [String: Any]
        let vb = b["verification"] as? [String: Any]
        #expect(va?["status"] as? String == vb?["status"] as? String)
        #expect(vb?["status"] as? String == "accepted")
        #expect(
            (va?["checks"] as? [[String: Any]])?.map { $0["status"] as? String }
                == (vb?["checks"] as? [[String: Any]])?.map { $0["status"] as? String })
        #expect(files(a) == files(b))
        #expect(
            NSDictionary(dictionary: a["accessControl"] as? [String: Any] ?? [:])
                == NSDictionary(dictionary: b["accessControl"] as? [String: Any] ?? [:]))
        #expect(
            NSDictionary(dictionary: a["document"] as? [String: Any] ?? [:])
                == NSDictionary(dictionary: b["document"] as? [String: Any] ?? [:]))
        #expect((b["reader"] as? [String: Any])?["name"] as? String == PCSCTestEnvironment.readerName)
    }

    @Test func cardPulledMidReadResumesWhenPresentedAgain() async throws {
        let slot = try await VPCDSlotLock.acquire()
        defer { _ = slot }
        let dir = Emrtd.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let s = try save("short-only", in: dir)
        // the card leaves after 25 APDUs (in the middle of DG2) and comes back
        let sim = try serve(s, extra: ["--pull-after", "25", "--sessions", "2"])
        defer { stop(sim) }
        let r = try Emrtd.run([
            "read", "--reader", PCSCTestEnvironment.readerName, "--mrz", s.mrz, "--trust", s.trust,
            "--json", "--timeout", "15",
        ])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("present the document again"))
        let j = try #require(Emrtd.json(r.stdout))
        #expect((j["verification"] as? [String: Any])?["status"] as? String == "accepted")
        let resumed = (j["files"] as? [[String: Any]] ?? []).filter { ($0["resumed"] as? Int ?? 0) > 0 }
        #expect(resumed.count == 1)
    }

    @Test func cardPulledAndNotPresentedAgainIsATransportFailure() async throws {
        let slot = try await VPCDSlotLock.acquire()
        defer { _ = slot }
        let dir = Emrtd.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let s = try save("short-only", in: dir)
        let sim = try serve(s, extra: ["--pull-after", "25", "--sessions", "1"])
        defer { stop(sim) }
        let r = try Emrtd.run([
            "read", "--reader", PCSCTestEnvironment.readerName, "--mrz", s.mrz, "--trust", s.trust,
            "--json", "--timeout", "3",
        ])
        #expect(r.status == 3, "\(r.stderr)")
        // under --json the failure is the one JSON error object on stdout (docs/cli.md)
        let e = Emrtd.json(r.stdout)?["error"] as? [String: Any]
        #expect(e?["code"] as? String == "transport" && e?["exitStatus"] as? Int == 3, "\(r.stdout)")
        #expect(r.stderr.contains("reader/transport failure"))
    }

    @Test func noCardOnTheReaderTimesOut() async throws {
        let slot = try await VPCDSlotLock.acquire()
        defer { _ = slot }
        let r = try Emrtd.run(["read", "--reader", PCSCTestEnvironment.readerName, "--can", "123456", "--timeout", "1"])
        #expect(r.status == 3, "\(r.stderr)")
    }

    @Test func stepUpReadIDThroughPCSC() async throws {
        let slot = try await VPCDSlotLock.acquire()
        defer { _ = slot }
        let dir = Emrtd.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let s = try save("pace-cam", in: dir)
        let sim = try serve(s)
        defer { stop(sim) }
        let r = try Emrtd.run(
            [
                "stepup", "run", "-", "--reader", PCSCTestEnvironment.readerName, "--mrz", s.mrz,
                "--trust", s.trust, "--timeout", "15", "--quiet",
            ], stdin: StepUpReadIDTests.context())
        #expect(r.status == 0, "\(r.stderr)")
        #expect(Emrtd.json(r.stdout)?["status"] as? String == "accepted")
    }

    /// `emrtd watch` on the virtual reader while a document is presented and taken away; its stdout.
    func watchWhileACardComesAndGoes(_ extra: [String] = []) async throws -> String {
        let slot = try await VPCDSlotLock.acquire()
        defer { _ = slot }
        let dir = Emrtd.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let s = try save("bac", in: dir)
        let watch = Process()
        watch.executableURL = Emrtd.executable
        watch.arguments = ["watch", "--reader", PCSCTestEnvironment.readerName, "--timeout", "6"] + extra
        let out = Pipe()
        watch.standardOutput = out
        watch.standardError = FileHandle.nullDevice
        try watch.run()
        try await Task.sleep(for: .milliseconds(800))
        let sim = try serve(s)
        try await Task.sleep(for: .milliseconds(1500))
        stop(sim)
        watch.waitUntilExit()
        return String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    }

    @Test func watchShowsTheCardComingAndGoing() async throws {
        let text = try await watchWhileACardComesAndGoes().lowercased()
        #expect(text.contains("insert") || text.contains("present"), "\(text)")
        #expect(text.contains("remov"), "\(text)")
    }

    @Test func watchJSONIsOneEventObjectPerLineWithASchemaAndATime() async throws {
        let lines = try await watchWhileACardComesAndGoes(["--json"]).split(separator: "\n").map(String.init)
        let events = lines.compactMap { Emrtd.json($0) }
        #expect(events.count == lines.count && !events.isEmpty, "every line is one JSON object: \(lines)")
        for e in events {
            #expect(e["schema"] as? String == "emrtd.event/1", "\(e)")
            #expect((e["time"] as? String)?.hasSuffix("Z") == true, "\(e)")
            #expect(e["reader"] as? String == PCSCTestEnvironment.readerName, "\(e)")
        }
        let kinds = events.compactMap { $0["event"] as? String }
        #expect(kinds.contains("cardInserted") && kinds.contains("cardRemoved"), "\(kinds)")
        #expect(events.first { $0["event"] as? String == "cardInserted" }?["atr"] as? String != nil)
    }

    @Test func readersListsTheVirtualReader() throws {
        let r = try Emrtd.run(["readers", "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains(PCSCTestEnvironment.readerName))
        #expect(Emrtd.json(r.stdout)?["schema"] as? String == "emrtd.reader-list/1")
    }
}
