import Foundation
import MRTDTestSupport
import Testing

@testable import EMRTDBench
@testable import EMRTDCLI

/// The hostile-input rows of `emrtd bench`: every hostile input is refused, by the limit the row
/// names, and the genuine counterpart is accepted. Shape and refusals only — the costs are the benchmark's.
@Suite struct HostileBenchTests {
    @Test(.sharedFixtures) func everyHostileRowIsRefusedAndEveryGenuineOneIsNot() async throws {
        let report = await HostileBench.run(runs: 1, page: HTMLOutput.page, log: { _ in })
        #expect(report.notes.isEmpty, "\(report.notes)")
        let kinds = Set(report.rows.map(\.kind))
        for kind in [
            "--trust file", "--trust PEM", "--trust master list", "EF.SOD parse", "DG11 parse", "EF.COM parse",
            "live read (PACE, extended length)", "passive authentication", "explicit EC parameters",
        ] {
            #expect(kinds.contains(kind), "no row for \(kind)")
        }
        #expect(
            kinds.contains("face shown (DisplayImage.displayJPEG)") && kinds.contains { $0.hasPrefix("read --html") })
        for row in report.rows {
            // images bounded rather than refused: decoded at display size, or the document's images left out
            let bounded = ["codestream declaring 2048×2048", "six conversions", "99 tiny", "99 each"]
            if bounded.contains(where: { row.hostile.contains($0) }) {
                #expect(!row.refused, "\(row.kind): \(row.hostile): \(row.refusal)")
                continue
            }
            // every hostile row is refused, naming the limit (a non-standard curve names CryptoLimits.explicitCurves)
            #expect(row.refused, "\(row.kind): \(row.hostile): \(row.refusal)")
            #expect(row.genuineMs > 0 && row.hostileMs >= 0)
            // (a PEM body within every cap is decoded and then is nothing: "not a certificate, CRL or …")
            let named = ["Limits.", "is a FIFO", "no SignerInfo", "not a certificate, CRL or CSCA master list"].contains
            {
                row.refusal.contains($0)
            }
            #expect(named, "\(row.kind): \(row.hostile): \(row.refusal)")
        }
        let json = String(decoding: try JSONEncoder().encode(report), as: UTF8.self)
        #expect(json.contains("\"hostilePeakMB\"") && json.contains("\"goalMet\""))
    }
}
