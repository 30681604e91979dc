import FaceImaging
import Foundation
import MRTDDocument
import MRTDReader
import MRTDTestSupport
import Testing

/// `emrtd verify` reads a bundle's files from inside the bundle only (a symbolic link is refused, naming it), and
/// never takes a face file for the document's: face.jpg / face.jp2 must be what DG2 holds (docs/report.md,
/// "Evidence bundle").
@Suite struct BundleIntegrityTests {
    static func bundle(_ profile: String) async throws -> (URL, URL) {
        let parent = TemporaryFolder.make("bundle")
        let dir = parent.appendingPathComponent("bundle")
        try EvidenceBundle.write(try await VirtualDocument(profile).read(), to: dir)
        return (parent, dir)
    }

    @Test(arguments: ["DG11.bin", "EF.SOD.bin", "clone-detection.json"])
    func aSymbolicLinkToAnOutsideFileIsRefusedByName(name: String) async throws {
        let (parent, dir) = try await Self.bundle("pace-gm-brainpool-aes128")
        defer { try? FileManager.default.removeItem(at: parent) }
        // the link points at a real bundle file outside this bundle: following it would load it
        let outside = parent.appendingPathComponent("outside.bin")
        try FileManager.default.copyItem(at: dir.appendingPathComponent(name), to: outside)
        try FileManager.default.removeItem(at: dir.appendingPathComponent(name))
        try FileManager.default.createSymbolicLink(at: dir.appendingPathComponent(name), withDestinationURL: outside)
        do {
            _ = try EvidenceBundle.load(from: dir)
            Issue.record("a bundle with a symbolic link \(name) was loaded")
        } catch {
            let text = "\(error)"
            #expect(text.contains(name) && text.contains("symbolic link"), "\(text)")
        }
    }

    /// A link among the face files is named as not the document's face, and never read.
    @Test func aLinkedFaceIsNotTheDocumentsFace() async throws {
        let (parent, dir) = try await Self.bundle("bac")
        defer { try? FileManager.default.removeItem(at: parent) }
        let face = dir.appendingPathComponent("face.jpg")
        let outside = parent.appendingPathComponent("face.jpg")
        try FileManager.default.moveItem(at: face, to: outside)
        try FileManager.default.createSymbolicLink(at: face, withDestinationURL: outside)
        let loaded = try EvidenceBundle.load(from: dir)
        let problems = EvidenceBundle.faceFileProblems(in: dir, files: loaded.files)
        #expect(problems.count == 1 && problems[0].hasPrefix("face.jpg is not the document's face"), "\(problems)")
        #expect(problems[0].contains("symbolic link"))
    }

    /// JPEG 2000 (face.jp2 as stored and face.jpg re-encoded) and a stored JPEG: a genuine bundle's face files
    /// match DG2; a swapped one is named.
    @Test(arguments: [
        ("pace-gm-brainpool-aes128", "face.jp2"), ("pace-gm-brainpool-aes128", "face.jpg"), ("bac", "face.jpg"),
    ])
    func aSwappedFaceFileIsNotTheDocumentsFace(profile: String, swapped: String) async throws {
        let (parent, dir) = try await Self.bundle(profile)
        defer { try? FileManager.default.removeItem(at: parent) }
        let loaded = try EvidenceBundle.load(from: dir)
        #expect(EvidenceBundle.faceFileProblems(in: dir, files: loaded.files) == [])
        // face.jpg: another document's face (a valid JPEG of a different picture); face.jp2: one byte changed
        let original = [UInt8](try Data(contentsOf: dir.appendingPathComponent(swapped)))
        var replacement = original
        if swapped == "face.jpg" {
            let otherProfile = profile == "bac" ? "pace-gm-brainpool-aes128" : "bac"
            let other = try #require(try await VirtualDocument(otherProfile).read().document.faceImage)
            replacement = try DisplayImage.displayJPEG(from: other.imageData)
        } else {
            replacement[replacement.count - 10] ^= 0x01
        }
        #expect(replacement != original)
        try Data(replacement).write(to: dir.appendingPathComponent(swapped))
        let problems = EvidenceBundle.faceFileProblems(in: dir, files: loaded.files)
        #expect(
            problems == [
                "\(swapped) is not the document's face: it differs from the face DG2 holds (the report shows DG2's)"
            ])
    }
}
