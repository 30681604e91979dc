import DocumentGenerator
import ISO7816
import MRTDDocument
import MRTDReader
import Testing

/// A card pulled off the reader mid-read: after re-presentation the read resumes and
/// completes with byte-identical files, or ends with a clear transport error — never with wrong bytes.
@Suite struct ResumeTests {
    @Test(arguments: ["short-only", "bac", "pace-cam"])
    func interruptAfterEveryKthAPDU(profile: String) async throws {
        let baseline = try VirtualDocument(profile)
        let full = try await baseline.read()
        let total = full.statistics.apdus
        #expect(total > 10)
        for k in 0..<total {
            let doc = try baseline.fresh()
            doc.transport.removeCard(afterAPDUs: k)
            do {
                let r = try await doc.read()
                #expect(r.files.keys.sorted() == full.files.keys.sorted(), "k=\(k)")
                for (f, bytes) in full.files where r.files[f] != bytes { Issue.record("k=\(k): \(f.rawValue) differs") }
                #expect(r.resumptions == 1, "k=\(k)")
                #expect(doc.verify(r).status == .accepted, "k=\(k)")
            } catch {
                guard case .transport = error else {
                    Issue.record("k=\(k): \(error)")
                    continue
                }
            }
        }
    }

    @Test func resumedFilesAreReported() async throws {
        let doc = try VirtualDocument("short-only", options: GeneratorOptions(dg2Size: 20_000))
        // pull the card in the middle of DG2 (well after access control and the first files)
        doc.transport.removeCard(afterAPDUs: 40)
        let r = try await doc.read()
        #expect(r.resumedFiles == [.dg2])
        #expect(r.files[.dg2] == doc.generated.profile.files[.dg2])
        // the bytes before the interruption were not read again
        let reads = r.statistics.apdusByInstruction[0xB0] ?? 0
        let minimum = r.files.filter { $0.key != .cardAccess }.values.reduce(0) { $0 + ($1.count + 222) / 223 } + 1
        #expect(reads <= minimum + 1, "\(reads) READ BINARY, \(minimum) needed")
    }

    @Test func cardNotPresentedAgainEndsWithATransportError() async throws {
        let doc = try VirtualDocument("pace-gm-brainpool-aes128")
        doc.transport.removeCard(afterAPDUs: 12, reinsert: false)
        do {
            _ = try await doc.read { $0.representTimeout = 0.1 }
            Issue.record("the read succeeded without the card")
        } catch {
            guard case .transport(let e, _) = error else {
                Issue.record("\(error)")
                return
            }
            #expect(e.kind == .timeout || e.kind == .cardRemoved)
        }
    }

    @Test func resumptionsAreBounded() async throws {
        let doc = try VirtualDocument("pace-gm-brainpool-aes128")
        doc.transport.removeCard(afterAPDUs: 12)
        do {
            _ = try await doc.read { $0.maxResumptions = 0 }
            Issue.record("resumed although no resumption was allowed")
        } catch {
            guard case .transport = error else {
                Issue.record("\(error)")
                return
            }
        }
    }
}
