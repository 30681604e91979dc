import DocumentGenerator
import Foundation
import SpecimenImages
import Testing

/// `emrtd mrz IMAGE` and `emrtd read --mrz-image IMAGE` (docs/mrz.md, docs/cli.md).
struct MRZCommandTests {
    /// The Utopia passport's data page (the `bac` virtual document's MRZ), scanned straight.
    static func passportImage() throws -> URL {
        let font = try OCRBFont()
        let sample = try Capture.sample(of: .utopiaPassport, .clean, seed: 7, font: font)
        let url = Emrtd.temporaryDirectory().appendingPathComponent("page.jpg")
        try Data(sample.bytes).write(to: url)
        return url
    }

    @Test func mrzPrintsTheFieldsOfTheZone() throws {
        let image = try Self.passportImage()
        let r = try Emrtd.run(["mrz", image.path, "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let j = try #require(Emrtd.json(r.stdout))
        #expect(j["schema"] as? String == "emrtd.mrz/1")
        #expect(j["format"] as? String == "TD3")
        #expect(j["lines"] as? [String] == Specimen.utopiaPassport.mrzLines)
        #expect(j["documentNumber"] as? String == "L898902C3")
        #expect(j["surname"] as? String == "ERIKSSON")
        let text = try Emrtd.run(["mrz", image.path])
        #expect(text.status == 0)
        #expect(text.stdout.contains(Specimen.utopiaPassport.mrzLines[1]))
    }

    @Test func readTakesTheAccessDataFromTheImageAndNeverPrintsIt() throws {
        let image = try Self.passportImage()
        let r = try Emrtd.run(["read", "--virtual", "bac", "--mrz-image", image.path, "--json"], timeout: 120)
        let j = try #require(Emrtd.json(r.stdout), "\(r.stderr)")
        #expect((j["accessControl"] as? [String: Any])?["protocol"] as? String == "BAC")
        for line in Specimen.utopiaPassport.mrzLines {
            #expect(!r.stderr.contains(line))
        }
    }

    @Test func aNonImageAHugeImageAndAnImageWithoutAZoneAreClearErrors() throws {
        let dir = Emrtd.temporaryDirectory()
        let text = dir.appendingPathComponent("notes.jpg")
        try Data("P<UTOERIKSSON<<ANNA".utf8).write(to: text)
        let huge = dir.appendingPathComponent("huge.pgm")
        try Data(Array("P5\n60000 60000\n255\n".utf8) + [UInt8](repeating: 0, count: 64)).write(to: huge)
        let blank = dir.appendingPathComponent("blank.pgm")
        try Data(Array("P5\n320 240\n255\n".utf8) + [UInt8](repeating: 220, count: 320 * 240)).write(to: blank)
        for (file, words) in [
            (text, "is not a JPEG, PNG or PGM image"), (huge, "too large"), (blank, "no machine-readable zone"),
        ] {
            let r = try Emrtd.run(["mrz", file.path])
            #expect(r.status == 2, "\(file.lastPathComponent)")
            #expect(r.stderr.contains(words), "\(r.stderr)")
            #expect(!r.stderr.contains("ERIKSSON"))
            let j = try Emrtd.run(["mrz", file.path, "--json"])
            let error = try #require(Emrtd.json(j.stdout)?["error"] as? [String: Any], "\(j.stdout)")
            #expect(error["code"] as? String == "mrz-image")
        }
    }
}
