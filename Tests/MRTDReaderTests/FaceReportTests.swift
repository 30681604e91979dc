import ASN1TLV
import DocumentGenerator
import FaceImaging
import Foundation
import MRTDDocument
import MRTDReader
import MRTDTestSupport
import Synchronization
import Testing

/// The report's `faceImage` and the evidence bundle's face files, for JPEG 2000 and JPEG faces read from the
/// virtual chip, and for DG2s whose image cannot be decoded.
@Suite("Report: face image")
struct FaceReportTests {
    static func temporaryDirectory() throws -> URL { TemporaryFolder.make("face") }

    static func bytes(_ url: URL) -> [UInt8]? { (try? Data(contentsOf: url)).map { [UInt8]($0) } }

    @Test(arguments: ["pace-gm-brainpool-aes128", "bac"])
    func readFaceIsReportedAndWrittenForDisplay(profile: String) async throws {
        let doc = try VirtualDocument(profile)
        let format = doc.generated.spec.faceFormat
        #expect(format == (profile == "bac" ? .jpeg : .jpeg2000))
        let result = try await doc.read()
        let stored = try #require(result.document.faceImage).imageData
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try EvidenceBundle.write(result, to: dir)
        let storedPath = dir.appendingPathComponent(EvidenceBundle.faceImageName(format)).path
        let report = ReportBuilder.report(for: result, verification: doc.verify(result), faceImagePath: storedPath)
        let face = try #require(report.faceImage)
        #expect(face.format == format.rawValue && face.storedFormat == format.rawValue)
        #expect(face.deliveredFormat == "jpeg" && face.error == nil)
        #expect(face.width == 240 && face.height == 320)
        #expect(face.storedPath == storedPath)
        #expect(face.path == dir.appendingPathComponent("face.jpg").path)
        // face.jpg always; face.jp2 (the stored bytes) beside it when the face is JPEG 2000.
        let jpg = try #require(Self.bytes(dir.appendingPathComponent("face.jpg")))
        let shown = try JPEGCodec.decode(jpg)
        #expect(shown.width == 240 && shown.height == 320)
        if format == .jpeg2000 {
            #expect(Self.bytes(dir.appendingPathComponent("face.jp2")) == stored)
            #expect(shown.channels == 3)
        } else {
            #expect(jpg == stored)
            #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("face.jp2").path))
        }
    }

    static func dg2(withImage image: [UInt8], format: ImageFormat) -> [UInt8] {
        LDSEncoders.dg2(
            faceRecord: LDSEncoders.faceRecord(image: image, format: format, width: 240, height: 320, colour: true))
    }

    static func storedJP2() throws -> [UInt8] {
        try #require(try DG2File(bytes: LDSEncoders.dg2(format: .jpeg2000)).faceImage).imageData
    }

    /// Images that cannot be decoded: the report says why, and has no delivered format — never a failed report.
    @Test func undecodableFacesGiveAnError() throws {
        let jp2 = try Self.storedJP2()
        var huge = jp2
        let siz = try #require(
            (0..<(huge.count - 4)).first { (i: Int) -> Bool in huge[i] == 0xFF && huge[i + 1] == 0x51 })
        huge.replaceSubrange(siz + 4..<siz + 12, with: [0, 0, 0xEA, 0x60, 0, 0, 0xEA, 0x60])  // 60,000 × 60,000
        let cases: [(String, [UInt8], ImageFormat, String)] = [
            ("truncated", Array(jp2.prefix(jp2.count / 2)), .jpeg2000, "JPEG 2000"),
            ("huge", huge, .jpeg2000, "tooLarge"),
            ("garbage", [UInt8](repeating: 0x5A, count: 2_000), .jpeg, "unrecognisedFormat"),
        ]
        for (name, image, format, expected) in cases {
            var report = ReadReport()
            ReportBuilder.fill(
                &report, files: [.dg2: Self.dg2(withImage: image, format: format)], facts: [:],
                reference: ASN1Time(year: 2026, month: 11, day: 29), faceImagePath: "/bundle/face.jp2")
            let face = try #require(report.faceImage, "\(name)")
            #expect(face.deliveredFormat == nil, "\(name)")
            #expect(face.error?.contains(expected) == true, "\(name): \(face.error ?? "no error")")
            #expect(face.format == format.rawValue || name == "garbage")
            // No face.jpg for an undecodable JPEG 2000 image.
            if format == .jpeg2000 { #expect(face.path == nil && face.storedPath == "/bundle/face.jp2") }
        }
        // Negative twin: the intact image has no error.
        var report = ReadReport()
        ReportBuilder.fill(
            &report, files: [.dg2: Self.dg2(withImage: jp2, format: .jpeg2000)], facts: [:],
            reference: ASN1Time(year: 2026, month: 11, day: 29), faceImagePath: nil)
        #expect(report.faceImage?.error == nil && report.faceImage?.deliveredFormat == "jpeg")
    }

    /// A chip serving a DG2 with a truncated JPEG 2000 face: the read completes, the bundle keeps the stored
    /// bytes and writes no face.jpg.
    @Test func truncatedFaceFromTheChipIsKeptButNotShown() async throws {
        var g = try SpecimenGenerator.generate(named: "pace-gm-p256-aes256")
        let jp2 = try Self.storedJP2()
        let broken = Array(jp2.prefix(jp2.count - 700))
        g.profile.files[.dg2] = Self.dg2(withImage: broken, format: .jpeg2000)
        let doc = try VirtualDocument(generated: g)
        let result = try await doc.read()
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try EvidenceBundle.write(result, to: dir)
        #expect(Self.bytes(dir.appendingPathComponent("face.jp2")) == broken)
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("face.jpg").path))
        let report = ReportBuilder.report(
            for: result, verification: doc.verify(result),
            faceImagePath: dir.appendingPathComponent("face.jp2").path)
        #expect(report.faceImage?.error != nil && report.faceImage?.path == nil)
        #expect(report.verification?.status == "rejected")  // DG2 no longer matches its SOD hash
    }
}

/// The face's decoding done while the read goes on (`ReadOptions.fileCompleted`, `FaceDisplayCheck`), as
/// `emrtd serve` does it: the hook sees each file once, whole, and the report takes the early check only for the
/// very image bytes it was made from.
@Suite("Report: the face decoded early")
struct EarlyFaceCheckTests {
    @Test func fileCompletedSeesEachFileOnceWithTheBytesRead() async throws {
        let doc = try VirtualDocument("pace-gm-brainpool-aes128")
        let seen = Mutex<[(LDSFile, [UInt8])]>([])
        let result = try await doc.read { $0.fileCompleted = { f, b in seen.withLock { $0.append((f, b)) } } }
        let files = seen.withLock { $0 }
        #expect(Set(files.map(\.0)).count == files.count, "each file once")
        for (f, bytes) in files where f != .cardAccess { #expect(result.files[f] == bytes, "\(f)") }
        #expect(files.contains { $0.0 == .dg2 })
    }

    @Test func reportUsesTheEarlyCheckOnlyForTheSameImage() async throws {
        let doc = try VirtualDocument("pace-gm-brainpool-aes128")
        let result = try await doc.read()
        let dg2 = try #require(result.files[.dg2])
        let early = try #require(FaceDisplayCheck(dg2: dg2))
        #expect(early.imageData == result.document.faceImage?.imageData)
        if case .failure(let e) = early.outcome { Issue.record("the genuine face decodes: \(e)") }
        let withEarly = ReportBuilder.report(for: result, verification: nil, faceCheck: early)
        #expect(withEarly.faceImage?.deliveredFormat == "jpeg" && withEarly.faceImage?.error == nil)
        // a check made from other bytes (here: an image that does not decode) is not used for this face
        let other = FaceDisplayCheck(imageData: [0xFF, 0xD8, 0xFF, 0xE0, 0, 0])
        guard case .failure = other.outcome else {
            Issue.record("six bytes of JPEG header decode")
            return
        }
        let withOther = ReportBuilder.report(for: result, verification: nil, faceCheck: other)
        #expect(withOther.faceImage?.deliveredFormat == "jpeg" && withOther.faceImage?.error == nil)
        #expect(FaceDisplayCheck(dg2: [0x75, 0x00]) == nil, "no check from a DG2 that does not parse")
    }
}
