import Foundation
import Testing

@testable import EMRTDBench
@testable import EMRTDCLI

/// `emrtd bench`: the code path in --quick mode with one run per cell. Shape and invariants of the
/// report only — performance is measured by the benchmark, never asserted by a test.
@Suite struct BenchTests {
    static let rowKeys = [
        "profile", "phase", "apdus", "apduFloor", "bytesSent", "bytesReceived", "cpuMs", "modelledMs",
    ]

    @Test func quickRunHasTheReportShapeAndNoRowBelowItsFloor() async throws {
        let parsed = try BenchCommand.command.parse([
            "--quick", "--json", "--runs", "1", "--reads", "3",
            "--apdu-ms", "5", "--link-kbps", "212", "--chip-ms-per-sm-apdu", "0.5",
        ])
        var settings = try BenchCommand.settings(parsed)
        settings.modes = [false, true]
        let report = try await BenchRunner(settings: settings, log: { _ in }).run()
        let data = Data(report.jsonText().utf8)
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])

        let link = try #require(json["link"] as? [String: Any])
        #expect(link["kbps"] as? Double == 212)
        #expect(link["apduMs"] as? Double == 5)
        #expect(link["chipMsPerSMAPDU"] as? Double == 0.5)
        #expect(json["trustStore"] is [String: Any])
        let memory = try #require(json["memory"] as? [String: Any])
        #expect(memory["loopReads"] as? Int == 3)
        #expect(memory["rssBeforeLoopMB"] != nil && memory["rssAfterLoopMB"] != nil)

        let rows = try #require(json["rows"] as? [[String: Any]])
        #expect(!rows.isEmpty)
        for row in rows {
            for key in Self.rowKeys { #expect(row[key] != nil, "\(key) missing in \(row)") }
            let apdus = try #require(row["apdus"] as? Int)
            let floor = try #require(row["apduFloor"] as? Int)
            #expect(
                apdus >= floor, "\(row["profile"] ?? "") \(row["phase"] ?? ""): \(apdus) APDUs below the floor \(floor)"
            )
            // the modelled time is the link model applied to the row's own counts
            let sent = try #require(row["bytesSent"] as? Int)
            let received = try #require(row["bytesReceived"] as? Int)
            let sm = try #require(row["smAPDUs"] as? Int)
            let expected = Double(apdus) * 5 + Double(sent + received) * 8 / 212 + Double(sm) * 0.5
            let modelled = try #require(row["modelledMs"] as? Double)
            if row["phase"] as? String != "total" { #expect(abs(modelled - expected) < 0.01, "\(row)") }
        }
        // every profile × APDU form has a total row equal to the sum of its phases, and a passive-authentication row
        for profile in BenchSettings.allProfiles {
            for mode in ["short", "extended"] {
                let cell = rows.filter { $0["profile"] as? String == profile && $0["apduMode"] as? String == mode }
                let total = try #require(
                    cell.first { $0["phase"] as? String == "total" }, "\(profile) \(mode): no total row")
                let phases = cell.filter { $0["phase"] as? String != "total" }
                #expect(total["apdus"] as? Int == phases.reduce(0) { $0 + ($1["apdus"] as? Int ?? 0) })
                #expect(total["apduFloor"] as? Int == phases.reduce(0) { $0 + ($1["apduFloor"] as? Int ?? 0) })
                #expect(phases.contains { $0["phase"] as? String == "passive-authentication" })
                #expect(
                    phases.contains { $0["phase"] as? String == "access-control" && ($0["apdus"] as? Int ?? 0) >= 2 })
                #expect(
                    (total["note"] as? String)?.hasPrefix("verdict accepted") == true,
                    "\(profile) \(mode): \(total["note"] ?? "")")
            }
        }
        // extended length reads DG2 (15 KB) in one APDU; short APDUs need ≥ 15000/231
        let dg2 = rows.filter { $0["phase"] as? String == "file:DG2" }
        #expect(dg2.filter { $0["apduMode"] as? String == "extended" }.allSatisfy { $0["apdus"] as? Int == 1 })
        #expect(
            dg2.filter { $0["apduMode"] as? String == "short" }.allSatisfy { ($0["apdus"] as? Int ?? 0) >= 15000 / 231 }
        )
    }

    @Test(arguments: [
        ["--runs", "0"], ["--runs", "x"], ["--link-kbps", "-1"], ["--apdu-ms"], ["--bogus"], ["--profile", "nope"],
        ["extra"],
        ["--masterlists", "/nonexistent"], ["--runs", "2.5"],
    ])
    func badOptionsExitWithUsage(_ args: [String]) async {
        #expect(await runBenchCommand(arguments: args) == 2)
    }

    @Test func linkModelArithmetic() {
        let m = LinkModel(kbps: 424, apduMs: 4, chipMsPerSMAPDU: 0.5)
        // 10 APDUs × 4 ms + 530 bytes × 8 / 424 kbit/s (10 ms) + 8 SM APDUs × 0.5 ms
        #expect(abs(m.milliseconds(apdus: 10, bytes: 530, smAPDUs: 8) - 54) < 1e-9)
        #expect(abs(LinkModel().milliseconds(apdus: 1, bytes: 53, smAPDUs: 1) - 5) < 1e-9)
    }
}
