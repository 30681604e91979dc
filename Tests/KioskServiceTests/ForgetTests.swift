import MRTDReader
import Testing

@testable import KioskService

/// A forgotten read's personal data (the report, the face, the document's other images, the step-up result) is overwritten in the job's own
/// buffers, not merely dropped (docs/service.md "Privacy"); whatever the job handed out is a copy of its own.
@Suite struct ForgetTests {
    static let report = Array(#"{"document":{"primaryIdentifier":"ERIKSSON","documentNumber":"L898902C3"}}"#.utf8)
    static let face: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 0x4A, 0x46, 0x49, 0x46, 0x00, 0x01]
    static let stepup = Array(#"{"consolidatedIdentityData":{"lastName":"ERIKSSON"}}"#.utf8)
    static let signature: [UInt8] = [0xFF, 0xD8, 0xFF, 0xDB, 0x00, 0x43, 0x00, 0x08]

    func finishedJob() -> ReadJob {
        let job = ReadJob(id: "0123", reader: "Virtual PCD 00 00", subscriberLimit: 4) { _, _ in }
        var report = Self.report
        var face = Self.face
        job.finish(
            report: report, verdict: "accepted", face: (bytes: face, format: .jpeg),
            images: [
                HTMLReport.Image(label: "Displayed signature (DG7)", bytes: Self.signature, mimeType: "image/jpeg")
            ],
            extra: ["stepup": Self.stepup])
        // the job keeps copies: changing the caller's arrays afterwards changes nothing in it
        report[0] = 0
        face[0] = 0
        return job
    }

    @Test func forgettingOverwritesTheKeptBuffersWithZeros() throws {
        let job = finishedJob()
        let held = job.personalData
        #expect(held.count == 4)
        #expect(
            Set(held.map(\.count))
                == Set([Self.report.count, Self.face.count, Self.stepup.count, Self.signature.count]))
        #expect(job.documentImages.map(\.bytes) == [Self.signature])
        #expect(held.allSatisfy { !$0.isZero })
        #expect(String(decoding: job.json(), as: UTF8.self).contains("ERIKSSON"))
        let handedOut = try #require(job.face)
        #expect(handedOut.bytes == Self.face)

        job.wipe()

        // the very buffers the job held, still alive here, are all zeros (overwritten, not just released)
        #expect(held.allSatisfy { $0.isZero && $0.count > 0 })
        #expect(job.personalData.isEmpty)
        #expect(job.face == nil && job.documentImages.isEmpty)
        let after = String(decoding: job.json(), as: UTF8.self)
        #expect(!after.contains("ERIKSSON") && !after.contains("report") && !after.contains("stepup"), "\(after)")
        // a copy handed out earlier belongs to its caller: forgetting does not write into it
        #expect(handedOut.bytes == Self.face)
    }

    @Test func copiesDoNotShareTheKeptBuffer() {
        let kept = PersonalBytes(copying: Self.face)
        let a = kept.copy()
        kept.overwrite()
        #expect(kept.isZero)
        #expect(a == Self.face)
        #expect(kept.copy() == [UInt8](repeating: 0, count: Self.face.count))
    }
}
