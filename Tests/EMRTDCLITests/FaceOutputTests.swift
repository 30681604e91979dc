import Foundation
import Testing

/// `--out` and the report's `faceImage` through the command, for a JPEG 2000 face (the default profile) and a
/// JPEG face (`bac`).
@Suite struct FaceOutputTests {
    @Test(arguments: [("pace-gm-brainpool-aes128", "jpeg2000"), ("bac", "jpeg")])
    func outWritesAFaceABrowserShows(profile: String, stored: String) throws {
        let dir = Emrtd.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let r = try Emrtd.run(["demo", "--profile", profile, "--json", "--quiet", "--out", dir.path])
        #expect(r.status == 0, "\(r.stderr)")
        let face = try #require(Emrtd.json(r.stdout)?["faceImage"] as? [String: Any])
        #expect(face["format"] as? String == stored && face["storedFormat"] as? String == stored)
        #expect(face["deliveredFormat"] as? String == "jpeg" && face["error"] == nil)
        let jpg = dir.appendingPathComponent("face.jpg")
        let jp2 = dir.appendingPathComponent("face.jp2")
        #expect(face["path"] as? String == jpg.path)
        #expect(face["storedPath"] as? String == (stored == "jpeg" ? jpg : jp2).path)
        let jpeg = try [UInt8](Data(contentsOf: jpg))
        #expect(Array(jpeg.prefix(3)) == [0xFF, 0xD8, 0xFF])
        if stored == "jpeg2000" {
            let jp2Bytes = try [UInt8](Data(contentsOf: jp2))
            #expect(
                Array(jp2Bytes.prefix(12)) == [0x00, 0x00, 0x00, 0x0C, 0x6A, 0x50, 0x20, 0x20, 0x0D, 0x0A, 0x87, 0x0A])
        } else {
            #expect(!FileManager.default.fileExists(atPath: jp2.path))
        }
        // Offline verification reports the face too (no paths: it writes nothing).
        let v = try Emrtd.run([
            "verify", dir.path, "--trust", dir.appendingPathComponent("test-csca.cer").path, "--json",
        ])
        let offline = try #require(Emrtd.json(v.stdout)?["faceImage"] as? [String: Any])
        #expect(offline["storedFormat"] as? String == stored && offline["deliveredFormat"] as? String == "jpeg")
        #expect(offline["path"] == nil)
    }
}
