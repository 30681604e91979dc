import DocumentGenerator
import FaceImaging
import Foundation
import MRTDDocument
import MRTDReader
import MRTDTrust

/// The hostile-image rows of `emrtd bench` (docs/reliability.md "Limits", docs/performance.md): each image an
/// attacker who signs his own documents could put on a chip (`HostileImages`), through the entry point a read
/// uses, beside a genuine face of the same kind; and whole `read --html` runs of generated documents signed with
/// hostile data groups beside the genuine document.
extension HostileBench {
    static func imageRows(
        _ row: (String, String, String, Work, Work) async -> Void, page: @escaping BenchSettings.PageRenderer
    ) async throws {
        // a typical face: the face row's 480 × 600 colour JP2 of about 20 KB; its JPEG twin for the JPEG rows
        guard
            let raster = Raster(
                width: FaceBench.width, height: FaceBench.height, channels: 3,
                pixels: SyntheticFace.rgbPixels(width: FaceBench.width, height: FaceBench.height))
        else { throw BenchFailure("cannot build the face raster") }
        let genuineJP2 = try JPEG2000Codec.encode(raster, container: .jp2, targetBytes: FaceBench.targetBytes)
        let genuineJPEG = try JPEGCodec.encode(raster, quality: 85)
        func display(_ bytes: [UInt8]) -> Work {
            return {
                do {
                    _ = try DisplayImage.displayJPEG(from: bytes)
                    return nil
                } catch { return "\(error)" }
            }
        }
        let kind = "face shown (DisplayImage.displayJPEG)"
        let jp2Name = "generated JP2 face 480×600 (\(genuineJP2.count) bytes)"
        let bomb = try HostileImages.paletteBomb()
        await row(
            kind, "JP2 palette bomb: 1 component → 255, 2048×2048 (\(bomb.count) bytes)", jp2Name, display(bomb),
            display(genuineJP2))
        let huge = try HostileImages.hugeCodestream()
        await row(
            kind, "codestream declaring 2048×2048 (\(huge.count) bytes)", jp2Name, display(huge), display(genuineJP2))
        let tiny = try HostileImages.tinyCodeBlocks()
        await row(
            kind, "JP2 face in 4×4 code-blocks (\(tiny.count) bytes)", jp2Name, display(tiny), display(genuineJP2))
        let jpegName = "generated JPEG face 480×600 (\(genuineJPEG.count) bytes)"
        for scans in [476, 560] {
            let many = try HostileImages.manyScans(scans)
            await row(
                kind, "JPEG with \(scans) scans (\(many.count) bytes)", jpegName, display(many), display(genuineJPEG))
        }
        // six parallel conversions of one read's face (the service runs them one at a time: ImageDecodeGate)
        let sixBombs: Work = {
            await withTaskGroup(of: String?.self) { group in
                for _ in 0..<6 { group.addTask { await display(huge)() } }
                var last: String?
                for await r in group { last = r }
                return last
            }
        }
        await row(
            kind,
            "six conversions of the 2048×2048 codestream at once (each bounded; the service runs them one at a time)",
            jp2Name, sixBombs, display(genuineJP2))

        // whole reads with the HTML report, as `emrtd read --html` does them (virtual chip, in process)
        let genuine = try PreparedDocument(
            BenchCase(profile: "pace-gm-brainpool-aes128", extended: true, dg2Size: 15_000))
        func signed(_ replaced: [LDSFile: [UInt8]]) throws -> PreparedDocument {
            var doc = genuine
            do {
                doc.generated = try SpecimenGenerator.generate(
                    named: "pace-gm-brainpool-aes128",
                    options: GeneratorOptions(dg2Size: 15_000, replacedDataGroups: replaced))
            } catch { throw BenchFailure("cannot generate the hostile document: \(error.description)") }
            doc.profile.files = doc.generated.profile.files
            var store = TrustStore()
            _ = try store.addCertificate(der: doc.generated.cscaCertificate, source: "generated test CSCA")
            doc.trustStore = store
            return doc
        }
        func readHTML(_ doc: PreparedDocument) -> Work {
            return {
                do {
                    let sample = try await doc.readOnce()
                    let report = ReportBuilder.report(for: sample.result, verification: sample.verification)
                    let html = page(report, sample.result.files)
                    return report.faceImage?.error ?? (html.isEmpty ? "no page" : nil)
                } catch { return "\(error)" }
            }
        }
        let readKind = "read --html (PACE, extended length, whole read)"
        let genuineName = "the generated document (face, DG5, DG7, DG11, DG12)"
        let bombDoc = try signed([.dg2: HostileImages.dg2(bomb, format: .jpeg2000, width: 2048, height: 2048)])
        await row(readKind, "DG2 holding the palette bomb", genuineName, readHTML(bombDoc), readHTML(genuine))
        let portraits = try signed([.dg5: LDSEncoders.displayedImages(.dg5, images: HostileImages.tinyJPEG2000Images())]
        )
        await row(readKind, "DG5 holding 99 tiny JPEG 2000 images", genuineName, readHTML(portraits), readHTML(genuine))
        let both = try signed([
            .dg5: LDSEncoders.displayedImages(.dg5, images: HostileImages.tinyJPEG2000Images()),
            .dg7: LDSEncoders.displayedImages(.dg7, images: HostileImages.tinyJPEG2000Images()),
        ])
        await row(readKind, "DG5 and DG7 holding 99 each", genuineName, readHTML(both), readHTML(genuine))
    }
}
