import Foundation
import Testing

/// The command line's side of downgrade protection and bundle integrity (docs/report.md, "Downgrade" and
/// "Evidence bundle"): exit statuses and what the report says.
@Suite struct DowngradeCommandTests {
    static let mrz = CommandLineTests.specimenMRZ

    @Test func noBACFallbackForbidsBACAltogether() throws {
        let r = try Emrtd.run(["read", "--virtual", "bac", "--mrz", Self.mrz, "--no-bac-fallback", "--quiet"])
        #expect(r.status == 4, "\(r.stderr)")
        #expect(r.stderr.contains("BAC is not allowed"))
        #expect(!r.stderr.contains("L898902C3"))
        // a PACE document is read as usual
        let pace = try Emrtd.run([
            "read", "--virtual", "pace-gm-p256-aes256", "--mrz", Self.mrz, "--no-bac-fallback", "--quiet",
        ])
        #expect(pace.status == 0, "\(pace.stderr)")
    }

    @Test func aWithheldCardAccessIsInconclusiveUnlessAccepted() throws {
        let name = "pace-gm-brainpool-aes128+card-access-withheld"
        let r = try Emrtd.run(["read", "--virtual", name, "--mrz", Self.mrz, "--json", "--quiet"])
        #expect(r.status == 10, "\(r.stderr)")
        let j = try #require(Emrtd.json(r.stdout))
        let ac = try #require(j["accessControl"] as? [String: Any])
        #expect(ac["protocol"] as? String == "BAC" && ac["fellBackToBAC"] as? Bool == true)
        #expect(ac["downgradeAccepted"] == nil)
        let accepted = try Emrtd.run([
            "read", "--virtual", name, "--mrz", Self.mrz, "--json", "--quiet", "--allow-bac-fallback",
        ])
        #expect(accepted.status == 0, "\(accepted.stderr)")
        let a = try #require(Emrtd.json(accepted.stdout))
        #expect((a["accessControl"] as? [String: Any])?["downgradeAccepted"] as? Bool == true)
        #expect((a["warnings"] as? [String])?.contains { $0.contains("downgrade accepted by the caller") } == true)
    }

    @Test func verifyRefusesALinkInsideTheBundle() throws {
        let dir = Emrtd.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let bundle = dir.appendingPathComponent("bundle")
        let demo = try Emrtd.run(["demo", "--profile", "bac", "--out", bundle.path, "--quiet"])
        #expect(demo.status == 0, "\(demo.stderr)")
        let trust = bundle.appendingPathComponent("test-csca.cer").path
        #expect(try Emrtd.run(["verify", bundle.path, "--trust", trust]).status == 0)
        let outside = dir.appendingPathComponent("elsewhere.bin")
        try Data("not part of the bundle".utf8).write(to: outside)
        try FileManager.default.removeItem(at: bundle.appendingPathComponent("DG11.bin"))
        try FileManager.default.createSymbolicLink(
            at: bundle.appendingPathComponent("DG11.bin"), withDestinationURL: outside)
        let r = try Emrtd.run(["verify", bundle.path, "--trust", trust, "--json"])
        #expect(r.status == 2)
        #expect(r.stderr.contains("DG11.bin") && r.stderr.contains("symbolic link"), "\(r.stderr)")
        #expect(!r.stdout.contains(outside.lastPathComponent) || r.stdout.contains("bad-bundle"))
    }
}
