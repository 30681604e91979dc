import DocumentGenerator
import FaceImaging
import Foundation
import MRTDDocument
import MRTDReader
import Testing

/// Documents whose issuer signed hostile images (passive authentication passes), read through the virtual chip in
/// process: the report and the HTML report bound what the images cost by structure — what the decoders were set up
/// to produce (`ImageDecodeLog`) and the refusals naming their limits.
@Suite struct HostileImageDocumentTests {
    static func read(_ replaced: [LDSFile: [UInt8]]) async throws -> (ReadResult, VirtualDocument) {
        let doc = try VirtualDocument(
            "pace-gm-brainpool-aes128", options: GeneratorOptions(replacedDataGroups: replaced))
        return (try await doc.read(), doc)
    }

    /// Everything a `read --html` decodes: the report's face check, the face as shown, the other images.
    static func htmlPage(_ result: ReadResult, _ doc: VirtualDocument) -> (ReadReport, String) {
        let report = ReportBuilder.report(for: result, verification: doc.verify(result))
        var face: HTMLReport.Image?
        if let stored = result.document.faceImage, let jpeg = try? DisplayImage.displayJPEG(from: stored.imageData) {
            face = HTMLReport.Image(label: "Face (DG2)", bytes: jpeg, mimeType: "image/jpeg")
        }
        let images = HTMLReport.displayable(HTMLReport.documentImages(result.document))
        return (report, HTMLReport.render(report, face: face, images: images))
    }

    @Test func paletteBombFaceIsRefusedWithoutDecoding() async throws {
        let bomb = try HostileImages.paletteBomb(side: 2048)
        let (result, doc) = try await Self.read([
            .dg2: HostileImages.dg2(bomb, format: .jpeg2000, width: 2048, height: 2048)
        ])
        #expect(doc.verify(result).status.rawValue == "accepted")  // signed by its issuer: only the image is hostile
        let log = ImageDecodeLog()
        let (report, html) = ImageDecodeLog.$current.withValue(log) { Self.htmlPage(result, doc) }
        let error = try #require(report.faceImage?.error)
        #expect(error.contains("tooLarge") && error.contains("palette"), "\(error)")
        #expect(html.contains("No face image"))
        // the face was never handed to a decoder; the document's other (genuine) images were, at their size
        #expect(log.entries.allSatisfy { $0.samples <= 3 * ImageLimits.standard.maxDecodedPixels })
        #expect(!log.entries.contains { $0.width == 2048 || $0.components > 4 })
    }

    @Test func ninetyNineDisplayedPortraitsAreBounded() async throws {
        let images = try HostileImages.tinyJPEG2000Images(99)
        let (result, doc) = try await Self.read([.dg5: LDSEncoders.displayedImages(.dg5, images: images)])
        guard case .displayedImage(let dg5)? = result.document.contents[.dg5] else {
            Issue.record("DG5 did not parse")
            return
        }
        #expect(dg5.images.count == 99)
        let log = ImageDecodeLog()
        let (_, html) = ImageDecodeLog.$current.withValue(log) { Self.htmlPage(result, doc) }
        let shown = DocumentImageBudget.maxImagesPerDataGroup
        // the face (twice: the report's check and the page) and at most `shown` DG5 images reach a decoder
        let jpeg2000Calls = log.entries.filter { $0.format == .jpeg2000 && $0.width == 16 }
        #expect(jpeg2000Calls.count == shown)
        #expect(log.entries.count <= 2 + DocumentImageBudget.maxDecodes)
        #expect(html.contains("\(99 - shown) more in DG5, not shown"))
        #expect(html.components(separatedBy: "alt=\"Displayed portrait (DG5)").count - 1 == shown)
        // Negative twin: the generated document's one DG5 portrait is shown.
        let (genuine, gdoc) = try await Self.read([:])
        let (_, page) = Self.htmlPage(genuine, gdoc)
        #expect(page.contains("Displayed portrait (DG5)") && !page.contains("not shown"))
    }

    /// The budget holds across a document's images: after `maxDecodes` conversions the next is refused by name.
    @Test func documentBudgetRefusesOnceSpent() throws {
        let one = try HostileImages.tinyJPEG2000Images(1)[0]
        var budget = DocumentImageBudget()
        for _ in 0..<DocumentImageBudget.maxDecodes { _ = try budget.displayJPEG(from: one) }
        let e = #expect(throws: ImageCodecError.self) { try budget.displayJPEG(from: one) }
        #expect(e?.code == .tooLarge && e?.detail.contains("budget") == true)
    }
}
