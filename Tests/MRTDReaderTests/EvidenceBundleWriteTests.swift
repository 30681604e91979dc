import Foundation
import MRTDReader
import MRTDTestSupport
import Testing

/// An evidence bundle is written completely or not at all, into a new or empty folder only, private
/// (docs/report.md, "The bundle folder").
@Suite("Evidence bundle: whole or nothing")
struct EvidenceBundleWriteTests {
    static func parent() throws -> URL {
        let dir = TemporaryFolder.make("bundle")
        return dir
    }

    static func items(_ url: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []).sorted()
    }

    /// A write that fails after some files are down (an extra file whose name needs a folder that does not
    /// exist) leaves neither a bundle nor a temporary folder; an empty folder given stays empty.
    @Test func aWriteThatFailsHalfwayLeavesNothing() async throws {
        let result = try await VirtualDocument("pace-gm-brainpool-aes128").read()
        let parent = try Self.parent()
        defer { try? FileManager.default.removeItem(at: parent) }
        let fresh = parent.appendingPathComponent("fresh")
        let empty = parent.appendingPathComponent("empty")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: false)
        for target in [fresh, empty] {
            #expect(throws: (any Error).self) {
                try EvidenceBundle.write(result, extraFiles: ["no-such-folder/late.bin": [1, 2, 3]], to: target)
            }
        }
        #expect(Self.items(parent) == ["empty"], "a bundle or a temporary folder was left: \(Self.items(parent))")
        #expect(Self.items(empty).isEmpty)

        // the same write without the impossible file succeeds, whole and private
        try EvidenceBundle.write(result, extraFiles: ["extra.bin": [1, 2, 3]], to: fresh)
        let written = Self.items(fresh)
        #expect(written.contains("DG1.bin") && written.contains("extra.bin") && written.contains("EF.SOD.bin"))
        #expect(Self.items(parent) == ["empty", "fresh"])
        let mode = try FileManager.default.attributesOfItem(atPath: fresh.path)[.posixPermissions] as? Int
        #expect(mode == 0o700)
    }

    @Test func aFolderThatHoldsFilesIsNeverWrittenInto() async throws {
        let result = try await VirtualDocument("bac").read()
        let parent = try Self.parent()
        defer { try? FileManager.default.removeItem(at: parent) }
        let used = parent.appendingPathComponent("used")
        try FileManager.default.createDirectory(at: used, withIntermediateDirectories: false)
        try Data("previous person".utf8).write(to: used.appendingPathComponent("DG2.bin"))
        #expect(EvidenceBundle.checkFolder(used.path) == .notEmpty)
        #expect(throws: (any Error).self) { try EvidenceBundle.write(result, to: used) }
        #expect(Self.items(used) == ["DG2.bin"])
        #expect(try String(contentsOf: used.appendingPathComponent("DG2.bin"), encoding: .utf8) == "previous person")
        #expect(Self.items(parent) == ["used"])
    }
}
