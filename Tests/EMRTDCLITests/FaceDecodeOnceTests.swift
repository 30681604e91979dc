import EMRTDCLI
import FaceImaging
import Foundation
import MRTDDocument
import Testing

/// One face decode per invocation (`HTMLOutput.decodingOnce`): `demo`/`read` with `--out` and `--html` (the report's
/// face check, the bundle's `face.jpg`, the page) and `verify --html` (the report's face check, the check of the
/// bundle's `face.jpg`, the page) each ask for the JPEG 2000 face three times and decode it once. Counted by the
/// decoders themselves (`ImageDecodeLog`, which the read's early face check carries into its detached task).
@Suite struct FaceDecodeOnceTests {
    @Test func demoAndVerifyDecodeTheFaceOnceEach() async throws {
        let dir = Emrtd.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let bundle = dir.appendingPathComponent("bundle")
        let readLog = ImageDecodeLog()
        let readStatus = await ImageDecodeLog.$current.withValue(readLog) {
            await EMRTDCommand.run([
                "demo", "--profile", "pace-gm-brainpool-aes128", "--quiet", "--json", "--out", bundle.path,
                "--html", dir.appendingPathComponent("read.html").path,
            ])
        }
        #expect(readStatus == 0)
        let dg2 = try [UInt8](Data(contentsOf: bundle.appendingPathComponent(LDSFile.dg2.bundleFileName)))
        let face = try #require(try DG2File(bytes: dg2).faceImage)
        #expect(face.format == .jpeg2000, "the profile's face needs converting for the bundle and the page")
        let size = try DisplayImage.decode(face.imageData)
        func faceDecodes(_ log: ImageDecodeLog) -> Int {
            log.entries.filter { $0.format == .jpeg2000 && $0.width == size.width && $0.height == size.height }.count
        }
        #expect(faceDecodes(readLog) == 1, "\(readLog.entries)")
        #expect(FileManager.default.fileExists(atPath: bundle.appendingPathComponent("face.jpg").path))

        let verifyLog = ImageDecodeLog()
        let verifyStatus = await ImageDecodeLog.$current.withValue(verifyLog) {
            await EMRTDCommand.run([
                "verify", bundle.path, "--trust", bundle.appendingPathComponent("test-csca.cer").path, "--json",
                "--html", dir.appendingPathComponent("verify.html").path,
            ])
        }
        #expect(verifyStatus == 0)
        #expect(faceDecodes(verifyLog) == 1, "\(verifyLog.entries)")
        let page = try String(contentsOf: dir.appendingPathComponent("verify.html"), encoding: .utf8)
        #expect(page.contains("data:image/jpeg;base64,"), "the page still shows the converted face")
    }
}
