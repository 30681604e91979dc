import DocumentGenerator
import FaceImaging
import MRTDReader
import Testing

@testable import KioskService

/// The face and the document's other images are converted for display once per read and kept with it: repeated
/// `/face` and `result.html` requests do not decode again, and forgetting overwrites the converted copies too.
@Suite struct DisplayCacheTests {
    static func job(face: [UInt8], images: [[UInt8]]) -> ReadJob {
        let job = ReadJob(id: "0456", reader: "Virtual PCD 00 00", subscriberLimit: 4) { _, _ in }
        job.finish(
            report: Array(#"{"schema":"emrtd.report/1"}"#.utf8), verdict: "accepted",
            face: (bytes: face, format: .jpeg2000),
            images: images.map { HTMLReport.Image(label: "Displayed portrait (DG5)", bytes: $0, mimeType: "image/jp2") }
        )
        return job
    }

    @Test func conversionsHappenOncePerRead() throws {
        let face = try HostileImages.tinyJPEG2000Images(1)[0]
        let job = Self.job(face: face, images: try HostileImages.tinyJPEG2000Images(3))
        let log = ImageDecodeLog()
        let (first, again, pages) = ImageDecodeLog.$current.withValue(log) {
            (job.displayFace(), job.displayFace(), (0..<5).map { _ in job.displayImages() })
        }
        let jpeg = try #require(try first?.get())
        #expect(try again?.get() == jpeg && jpeg.starts(with: [0xFF, 0xD8]))
        #expect(pages.allSatisfy { $0.map(\.mimeType) == ["image/jpeg", "image/jpeg", "image/jpeg"] })
        // one decode for the face, one per image: not one per request
        #expect(log.entries.count == 1 + 3)
        let held = job.personalData
        job.wipe()
        #expect(held.count == 1 + 1 + 3 + 1 + 3)  // report, face, images, and the converted face and images
        #expect(held.allSatisfy { $0.isZero })
        #expect(job.displayFace() == nil)
    }

    @Test func anUndisplayableFaceIsRefusedOnceAndRemembered() throws {
        let bomb = try HostileImages.paletted(try HostileImages.tinyJPEG2000Images(1)[0], columns: 255)
        let job = Self.job(face: bomb, images: [])
        let log = ImageDecodeLog()
        let outcomes = ImageDecodeLog.$current.withValue(log) { (0..<6).map { _ in job.displayFace() } }
        for o in outcomes {
            guard case .failure(let e)? = o else {
                Issue.record("the palette bomb was shown")
                continue
            }
            #expect(e.code == .tooLarge)
        }
        #expect(log.entries.isEmpty)
    }

    /// The read's own conversion (the report's face check, in the read's `DisplayImageMemo`) is the one the result page
    /// shows: `/face` decodes nothing more, and forgetting the read overwrites the memo too.
    @Test func theReadsFaceConversionIsReusedAndForgotten() throws {
        let face = try HostileImages.tinyJPEG2000Images(1)[0]
        let memo = DisplayImageMemo()
        let early = try DisplayImageMemo.$current.withValue(memo) { try DisplayImage.displayJPEG(from: face) }
        #expect(memo.count == 1)
        let job = ReadJob(id: "0457", reader: "Virtual PCD 00 00", subscriberLimit: 4) { _, _ in }
        job.finish(
            report: Array(#"{"schema":"emrtd.report/1"}"#.utf8), verdict: "accepted",
            face: (bytes: face, format: .jpeg2000), memo: memo)
        let log = ImageDecodeLog()
        let shown = ImageDecodeLog.$current.withValue(log) { job.displayFace() }
        #expect(try shown?.get() == early)
        #expect(log.entries.isEmpty, "the page's face was decoded again instead of reusing the read's conversion")
        job.wipe()
        #expect(memo.count == 0)
    }
}
